/**
 * One problem found in a config file, located at `file:line:column` and a path such as
 * `strategies[0].params.spreadBps`. The message says what was expected, never what was written.
 */

export type ConfigPath = readonly (string | number)[];

export type ConfigIssueKind =
  /** The file cannot be read. */
  | 'unreadable'
  /** Not valid YAML. */
  | 'syntax'
  /** The same key twice in one YAML map. */
  | 'duplicate-key'
  /** A `${NAME}` reference to an unset variable, or a malformed reference. */
  | 'env'
  /** The value does not match the schema. */
  | 'schema';

export interface ConfigIssue {
  readonly kind: ConfigIssueKind;
  /** The file as the user named it. */
  readonly file: string;
  /** 1-based; absent when the problem has no position (an unreadable file). */
  readonly line?: number;
  /** 1-based. */
  readonly column?: number;
  /** Where in the document; empty for the whole document or a syntax error. */
  readonly path: ConfigPath;
  readonly message: string;
}

/**
 * A path as users write it: `strategies[0].params.spreadBps`; keys that are not identifiers are quoted
 * (`hosts["my host"]`).
 *
 * @example formatConfigPath(['strategies', 0, 'params', 'spreadBps']) // 'strategies[0].params.spreadBps'
 */
export function formatConfigPath(path: ConfigPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/**
 * `config/mm.yaml:12:5 strategies[0].params.spreadBps: expected a number, got a string`
 *
 * @example formatConfigIssue({ kind: 'schema', file: 'a.yaml', line: 2, column: 3, path: ['x'], message: 'expected a number' })
 * // 'a.yaml:2:3 x: expected a number'
 */
export function formatConfigIssue(issue: ConfigIssue): string {
  const where = issue.line === undefined ? issue.file : `${issue.file}:${issue.line}:${issue.column ?? 1}`;
  const path = formatConfigPath(issue.path);
  return path === '' ? `${where}: ${issue.message}` : `${where} ${path}: ${issue.message}`;
}
