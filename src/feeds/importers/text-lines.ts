/**
 * Text inputs (CSV dumps, Tardis files) as numbered lines, split as the bytes stream in: never a
 * whole file in memory.
 */

/** One non-blank line of an input and its 1-based number. */
export interface TextLine {
  readonly text: string;
  readonly line: number;
}

/**
 * Splits a stream of bytes into numbered lines (`\n` or `\r\n`), skipping blank lines;
 * `count` hears the size of each chunk.
 *
 * @example for await (const { text, line } of splitLines(createReadStream(path))) parse(text, line);
 */
export async function* splitLines(chunks: AsyncIterable<Buffer>, count: (bytes: number) => void = () => undefined): AsyncGenerator<TextLine> {
  const decoder = new TextDecoder('utf-8');
  let rest = '';
  let line = 0;
  for await (const chunk of chunks) {
    count(chunk.length);
    const text = rest + decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      line += 1;
      const row = text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
      start = end + 1;
      if (row.length > 0) yield { text: row, line };
    }
    rest = text.slice(start);
  }
  rest += decoder.decode();
  if (rest.endsWith('\r')) rest = rest.slice(0, -1);
  if (rest.length > 0) yield { text: rest, line: line + 1 };
}
