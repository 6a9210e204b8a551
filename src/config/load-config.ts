/**
 * Loading a config file: YAML with positions, `${NAME}` interpolation, validation with a component's
 * `.strict()` zod schema, every problem located at `file:line:column path`, and the result frozen.
 * Expected failures are returned as values; `loadConfigOrThrow` is for callers that stop on them.
 */
import type { z } from 'zod';
import { BaseError } from '../core/base-error.ts';
import type { ErrorCode } from '../core/error-codes.ts';
import { configErrorMap } from './config-error-map.ts';
import { formatConfigIssue, type ConfigIssue, type ConfigPath } from './config-issue.ts';
import { deepFreeze } from './deep-freeze.ts';
import type { Env } from './env-interpolation.ts';
import { locateInYaml, parseYamlSource, readYamlSource, scrubIssues, type YamlSource } from './yaml-source.ts';

export type ConfigResult<T> =
  | { readonly ok: true; readonly value: T; readonly source: YamlSource }
  | { readonly ok: false; readonly issues: readonly ConfigIssue[] };

export interface LoadConfigOptions {
  /** Variables for `${NAME}`. Default: process.env. */
  readonly env?: Env;
}

function valueAt(data: unknown, path: ConfigPath): unknown {
  let value = data;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string | number, unknown>)[segment];
  }
  return value;
}

/**
 * Validates the value at `path` (default: the whole document) of a parsed file with `schema`. Issues
 * are located in the file; the value is deep-frozen. Strategies use this to validate their `params`
 * with their own schema: `validateYamlSource(source, paramsSchema, ['strategies', 0, 'params'])`.
 *
 * @example
 * const result = validateYamlSource(source, runConfigSchema);
 * if (result.ok) start(result.value);
 */
export function validateYamlSource<S extends z.ZodType>(source: YamlSource, schema: S, path: ConfigPath = []): ConfigResult<z.output<S>> {
  const parsed = schema.safeParse(valueAt(source.data, path), { error: configErrorMap });
  if (parsed.success) return { ok: true, value: deepFreeze(parsed.data), source };
  const issues: ConfigIssue[] = [];
  for (const issue of parsed.error.issues) {
    const issuePath = [...path, ...issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment)))];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const keyPath = [...issuePath, key];
        const { line, column } = locateInYaml(source, keyPath, 'key');
        issues.push({ kind: 'schema', file: source.file, line, column, path: keyPath, message: issue.message });
      }
    } else {
      const { line, column } = locateInYaml(source, issuePath);
      issues.push({ kind: 'schema', file: source.file, line, column, path: issuePath, message: issue.message });
    }
  }
  return { ok: false, issues: sortIssues(scrubIssues(issues, source.secrets)) };
}

function sortIssues(issues: ConfigIssue[]): ConfigIssue[] {
  return issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}

/**
 * Validates YAML text (e.g. a config embedded in a test) as if it were the file `file`.
 *
 * @example parseConfig('network: sim\n', runConfigSchema, { file: 'inline.yaml' })
 */
export function parseConfig<S extends z.ZodType>(text: string, schema: S, options: LoadConfigOptions & { readonly file: string }): ConfigResult<z.output<S>> {
  const result = parseYamlSource(text, options);
  return result.ok ? validateYamlSource(result.source, schema) : result;
}

/**
 * Reads, interpolates and validates a config file.
 *
 * @example
 * const result = await loadConfig('config/sim.yaml', simConfigSchema);
 * if (!result.ok) result.issues.map(formatConfigIssue) // ['config/sim.yaml:4:12 blockMs: expected a number, got a string']
 */
export async function loadConfig<S extends z.ZodType>(file: string, schema: S, options: LoadConfigOptions = {}): Promise<ConfigResult<z.output<S>>> {
  const result = await readYamlSource(file, options);
  return result.ok ? validateYamlSource(result.source, schema) : result;
}

/**
 * As `loadConfig`, but throws a BaseError on failure: CONFIG_FILE_UNREADABLE, CONFIG_YAML_SYNTAX,
 * CONFIG_ENV_MISSING or CONFIG_INVALID, whose message lists the located issues and whose details hold
 * them as `{ file, issues }`.
 *
 * @example const config = await loadConfigOrThrow('config/market-maker.yaml', runConfigSchema);
 */
export async function loadConfigOrThrow<S extends z.ZodType>(file: string, schema: S, options: LoadConfigOptions = {}): Promise<z.output<S>> {
  const result = await loadConfig(file, schema, options);
  if (!result.ok) throw configError(file, result.issues);
  return result.value;
}

/**
 * The BaseError for a list of config issues (see `loadConfigOrThrow`). `context` follows the count on
 * the first line (`on network testnet (--network)`).
 */
export function configError(file: string, issues: readonly ConfigIssue[], context?: string): BaseError {
  const kinds = new Set(issues.map((issue) => issue.kind));
  const code: ErrorCode = kinds.has('unreadable')
    ? 'CONFIG_FILE_UNREADABLE'
    : kinds.has('syntax') || kinds.has('duplicate-key')
      ? 'CONFIG_YAML_SYNTAX'
      : kinds.size === 1 && kinds.has('env')
        ? 'CONFIG_ENV_MISSING'
        : 'CONFIG_INVALID';
  const count = `${issues.length} ${issues.length === 1 ? 'problem' : 'problems'}`;
  const lines = issues.map((issue) => `  ${formatConfigIssue(issue)}`).join('\n');
  return new BaseError(code, `${file}: ${count}${context === undefined ? '' : ` ${context}`}\n${lines}`, {
    details: { file, issues: issues.map((issue) => ({ ...issue, path: [...issue.path] })) },
  });
}
