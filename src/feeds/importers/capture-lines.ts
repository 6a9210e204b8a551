/**
 * The lines of a gzipped capture, streamed: the compressed file goes through zlib's gunzip and a
 * manual line splitter, a chunk of lines at a time, so a capture of any size never sits in memory
 * whole. Truncation and corruption of the gzip stream surface as FEED_UNREADABLE with the byte
 * position where zlib stopped; a file that is not gzip at all as FEED_FOREIGN.
 */
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import type { TransformOptions } from 'node:stream';
import { createGunzip, type ZlibOptions } from 'node:zlib';
import { BaseError } from '../../core/base-error.ts';

/** Compressed bytes read at a time: large enough that per-chunk overhead vanishes. */
const READ_CHUNK = 256 * 1024;

/** One chunk of complete lines; `firstLine` is the 1-based number of `lines[0]`. */
export interface LineChunk {
  readonly lines: readonly string[];
  readonly firstLine: number;
  /** Compressed bytes of the file consumed so far (for progress reports). */
  readonly inputBytes: number;
}

/** FEED_NOT_FOUND when the file cannot be opened, FEED_FOREIGN when it does not start with the gzip magic. */
function checkGzipMagic(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (cause) {
    throw new BaseError('FEED_NOT_FOUND', `${path}: cannot open: ${(cause as NodeJS.ErrnoException).code ?? String(cause)}`, { details: { path }, cause });
  }
  const head = Buffer.alloc(2);
  try {
    const read = readSync(fd, head, 0, 2, 0);
    if (read < 2 || head[0] !== 0x1f || head[1] !== 0x8b) {
      throw new BaseError('FEED_FOREIGN', `${basename(path)}: not a gzip file: a Binance capture is gzipped \`<local_receive_ns> <json>\` lines`, { details: { path } });
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The lines of the gzip file at `path`, in chunks. A last line without a newline is yielded too;
 * a stream that stops early throws FEED_UNREADABLE before the cut-off line is yielded.
 *
 * @example
 * for await (const chunk of captureLines('spot_btcusdt_20240808.gz')) for (const line of chunk.lines) handle(line);
 */
export async function* captureLines(path: string): AsyncGenerator<LineChunk> {
  checkGzipMagic(path);
  const name = basename(path);
  // zlib passes stream options on to its Transform: a deep output buffer lets it inflate ahead (on
  // the thread pool) while the lines before are parsed, about a quarter off the import's time.
  const options: ZlibOptions & TransformOptions = { chunkSize: READ_CHUNK, readableHighWaterMark: 16 * READ_CHUNK };
  const gunzip = createGunzip(options);
  const input = createReadStream(path, { highWaterMark: READ_CHUNK });
  input.on('error', (error) => gunzip.destroy(error));
  input.pipe(gunzip);
  gunzip.setEncoding('utf8');
  let rest = '';
  let lineNumber = 1;
  try {
    for await (const text of gunzip as AsyncIterable<string>) {
      const lines = (rest + text).split('\n');
      rest = lines.pop() ?? '';
      if (lines.length === 0) continue;
      const firstLine = lineNumber;
      lineNumber += lines.length;
      yield { lines, firstLine, inputBytes: gunzip.bytesWritten };
    }
  } catch (cause) {
    if (cause instanceof BaseError) throw cause;
    const error = cause as NodeJS.ErrnoException;
    const position = gunzip.bytesWritten;
    // Z_BUF_ERROR is zlib's "unexpected end of file": the file was cut inside its gzip stream.
    const what = error.code === 'Z_BUF_ERROR' ? 'the gzip stream is truncated' : `the gzip stream is corrupted (${error.message})`;
    throw new BaseError('FEED_UNREADABLE', `${name}: ${what}: reading stopped at byte ${position}, after line ${lineNumber - 1}`, {
      details: { path, position, line: lineNumber - 1 },
      cause,
    });
  } finally {
    input.destroy();
    gunzip.destroy();
  }
  if (rest.length > 0) yield { lines: [rest], firstLine: lineNumber, inputBytes: gunzip.bytesWritten };
}
