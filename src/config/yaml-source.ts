/**
 * A YAML config file parsed with node positions kept, `${NAME}` references resolved, and the secrets
 * it holds remembered so that no message about the file can repeat them.
 */
import { readFile } from 'node:fs/promises';
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { isSecretKey, scrubKnownSecrets, scrubSecretText } from '../core/secrets.ts';
import type { ConfigIssue, ConfigPath } from './config-issue.ts';
import { interpolateEnv, type Env } from './env-interpolation.ts';

/** Config files larger than this are refused (a config is a few kilobytes). */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

export interface YamlSource {
  /** The file as the user named it, used in every message. */
  readonly file: string;
  readonly document: Document.Parsed;
  readonly lineCounter: LineCounter;
  /** The document as plain data, after interpolation; integers beyond 2^53 are bigint. */
  readonly data: unknown;
  /** Interpolated values and values under secret-like keys: never to be printed. */
  readonly secrets: ReadonlySet<string>;
}

export type YamlSourceResult =
  | { readonly ok: true; readonly source: YamlSource }
  | { readonly ok: false; readonly issues: readonly ConfigIssue[] };

export interface ParseYamlSourceOptions {
  /** The name used in messages. */
  readonly file: string;
  /** Variables for `${NAME}`. Default: process.env. */
  readonly env?: Env;
}

const READ_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'is a directory, not a file',
  ENOTDIR: 'a part of the path is not a directory',
};

/**
 * Reads and parses a YAML config file. An unreadable file is an issue, not a throw.
 *
 * @example
 * const result = await readYamlSource('config/market-maker.yaml');
 * if (!result.ok) for (const issue of result.issues) stderr.write(formatConfigIssue(issue) + '\n');
 */
export async function readYamlSource(file: string, options: Omit<ParseYamlSourceOptions, 'file'> = {}): Promise<YamlSourceResult> {
  let text: string;
  try {
    const bytes = await readFile(file);
    if (bytes.byteLength > MAX_CONFIG_BYTES) {
      return { ok: false, issues: [{ kind: 'unreadable', file, path: [], message: `file is larger than ${MAX_CONFIG_BYTES} bytes` }] };
    }
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const reason = typeof code === 'string' ? (READ_ERRORS[code] ?? code) : 'not valid UTF-8 text';
    return { ok: false, issues: [{ kind: 'unreadable', file, path: [], message: `cannot read the file: ${reason}` }] };
  }
  return parseYamlSource(text, { file, ...options });
}

/**
 * Parses YAML text: syntax errors and duplicate keys are located issues; `${NAME}` references in
 * string values are resolved from `env` (an unset variable is an issue located at its value).
 *
 * @example parseYamlSource('key: ${HOME}', { file: 'a.yaml', env: { HOME: '/root' } })
 */
export function parseYamlSource(text: string, options: ParseYamlSourceOptions): YamlSourceResult {
  const { file } = options;
  const env = options.env ?? process.env;
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, intAsBigInt: true });
  const at = (offset: number) => lineCounter.linePos(offset);

  if (document.errors.length > 0) {
    const issues = document.errors.map((error): ConfigIssue => {
      const { line, col } = at(error.pos[0]);
      if (error.code === 'DUPLICATE_KEY') {
        const key = /^("[^"\n]*"|'[^'\n]*'|[^:\n]*?)\s*:/.exec(text.slice(error.pos[0], error.pos[0] + 200))?.[1];
        const name = key === undefined || key === '' ? '' : ` ${scrubSecretText(key)}`;
        return { kind: 'duplicate-key', file, line, column: col, path: [], message: `duplicate key${name}: a key may appear only once in a map` };
      }
      const message = error.code === 'MULTIPLE_DOCS' ? 'a config file holds one YAML document (found a second `---`)' : error.message;
      return { kind: 'syntax', file, line, column: col, path: [], message: `YAML syntax: ${scrubSecretText(message)}` };
    });
    return { ok: false, issues };
  }

  const secrets = new Set<string>();
  const issues: ConfigIssue[] = [];
  walkScalars(document.contents, [], false, (scalar, path, underSecretKey) => {
    if (typeof scalar.value === 'bigint' && scalar.value >= BigInt(Number.MIN_SAFE_INTEGER) && scalar.value <= BigInt(Number.MAX_SAFE_INTEGER)) {
      scalar.value = Number(scalar.value);
    }
    if (typeof scalar.value !== 'string' || path === undefined) return;
    const result = interpolateEnv(scalar.value, env);
    if (!result.ok) {
      const { line, col } = at(scalar.range?.[0] ?? 0);
      issues.push({ kind: 'env', file, line, column: col, path, message: result.message });
      return;
    }
    if (result.names.length > 0) {
      secrets.add(result.value);
      for (const name of result.names) {
        const value = env[name];
        if (value !== undefined) secrets.add(value);
      }
      scalar.value = result.value;
    }
    if (underSecretKey) secrets.add(scalar.value as string);
  });
  if (issues.length > 0) return { ok: false, issues: scrubIssues(issues, secrets) };

  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: 100 });
  } catch {
    return { ok: false, issues: [{ kind: 'syntax', file, line: 1, column: 1, path: [], message: 'YAML aliases expand too far' }] };
  }
  return { ok: true, source: { file, document, lineCounter, data, secrets } };
}

/**
 * Calls `visit` for every scalar (keys too, with `path` undefined, so integer keys are converted
 * alike), with its path and whether a secret-like key is above it. Aliases are visited where their
 * anchor is defined.
 */
function walkScalars(
  node: unknown,
  path: ConfigPath,
  underSecretKey: boolean,
  visit: (scalar: { value: unknown; range?: readonly number[] | null }, path: ConfigPath | undefined, underSecretKey: boolean) => void,
): void {
  if (isScalar(node)) {
    visit(node, path, underSecretKey);
  } else if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      if (isScalar(pair.key)) visit(pair.key, undefined, false);
      const key = keyName(pair.key);
      walkScalars(pair.value, [...path, key], underSecretKey || isSecretKey(key), visit);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, index) => walkScalars(item, [...path, index], underSecretKey, visit));
  }
}

function keyName(key: unknown): string {
  if (isScalar(key)) return String(key.value);
  return String(key);
}

/** Removes secrets from every message (known values, then anything shaped like a key or JWT). */
export function scrubIssues(issues: readonly ConfigIssue[], secrets: ReadonlySet<string>): ConfigIssue[] {
  return issues.map((issue) => ({
    ...issue,
    message: scrubSecretText(scrubKnownSecrets(issue.message, secrets)),
    path: issue.path.map((segment) => (typeof segment === 'string' ? scrubSecretText(scrubKnownSecrets(segment, secrets)) : segment)),
  }));
}

export interface YamlPosition {
  readonly line: number;
  readonly column: number;
}

/**
 * The position of `path` in the document: the value there (or its key when `target` is `key`);
 * where the path does not exist, the nearest map or list that does (a missing key points at the map
 * that should hold it).
 *
 * @example locateInYaml(source, ['strategies', 0, 'params', 'spreadBps']) // { line: 12, column: 18 }
 */
export function locateInYaml(source: Pick<YamlSource, 'document' | 'lineCounter'>, path: ConfigPath, target: 'value' | 'key' = 'value'): YamlPosition {
  const { document, lineCounter } = source;
  let node: unknown = document.contents;
  let offset = rangeStart(node) ?? 0;
  for (let index = 0; index < path.length; index++) {
    const segment = path[index]!;
    const last = index === path.length - 1;
    if (isAlias(node)) node = node.resolve(document);
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && keyName(item.key) === String(segment));
      if (!pair) break;
      const keyStart = rangeStart(pair.key);
      const valueStart = rangeStart(pair.value);
      if (last && target === 'key' && keyStart !== undefined) {
        offset = keyStart;
        break;
      }
      // A key with no value (`key:`) has no node of its own: point at the key.
      if (valueStart === undefined || (isScalar(pair.value) && pair.value.value === null && pair.value.source === '')) {
        offset = keyStart ?? offset;
        node = pair.value;
        if (!last) break;
        continue;
      }
      offset = valueStart;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment];
      const start = rangeStart(item);
      if (item === undefined || start === undefined) break;
      offset = start;
      node = item;
    } else {
      break;
    }
  }
  const { line, col } = lineCounter.linePos(offset);
  return { line: Math.max(line, 1), column: Math.max(col, 1) };
}

/**
 * A problem found after the schema (a rule of another layer, a check against the venue), located
 * at `path` in the file like a schema problem, its message scrubbed of the file's secrets.
 *
 * @example locatedIssue(source, ['markets', 1], 'WETH_USDC is not a market of the venue')
 */
export function locatedIssue(source: Pick<YamlSource, 'file' | 'document' | 'lineCounter' | 'secrets'>, path: ConfigPath, message: string): ConfigIssue {
  const { line, column } = locateInYaml(source, path);
  return scrubIssues([{ kind: 'schema', file: source.file, line, column, path, message }], source.secrets)[0]!;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range ? range[0] : undefined;
}
