/**
 * Loading strategies named in a run file, and validating their params with their own schemas.
 *
 * Where a `module` is looked up (`strategyModuleKind` tells a file from a package):
 * - a file path (`strategies/market-maker.ts`, `./my.ts`, `/abs/x.js`) is resolved against the
 *   **working directory** (`cwd`), not the run file's directory: run files live in `config/` and
 *   name modules from the project root, as `simConfig: config/sim.yaml` does. A file anywhere, also
 *   outside the project, loads the same way: module hooks (`installStrategyHooks`) compile a
 *   TypeScript file with esbuild, and resolve a bare import its own location cannot (`clobbot`,
 *   `rxjs`) from clobbot's. A syntax error is reported at its file:line:col (`locateLoadError`).
 * - a package name (`@acme/clobbot-strategies`) is imported as an ES module from clobbot's own
 *   location (in an installed project that walks up to the project's `node_modules`), else
 *   resolved from the working directory (clobbot linked from elsewhere).
 *
 * The module's default export, or else its export named `strategy`, must be a StrategyDefinition
 * (made with `defineStrategy`; only the shape is checked, so another copy of clobbot works too).
 */
import { BaseError } from '../core/base-error.ts';
import { stat } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { configError, validateYamlSource, type ConfigResult } from '../config/load-config.ts';
import { formatConfigPath, type ConfigIssue } from '../config/config-issue.ts';
import { strategyModuleKind, type RunConfig } from '../config/run-config.ts';
import { locateInYaml, type YamlSource } from '../config/yaml-source.ts';
import { definitionProblems, type StrategyDefinition } from './define-strategy.ts';
import { installStrategyHooks } from './strategy-module-hooks.ts';

export interface LoadStrategyOptions {
  /** The directory file paths are resolved against and packages looked up from. Default: `process.cwd()`. */
  readonly cwd?: string;
  /** Prefixed to error messages, e.g. `config/mm.yaml:15:13 strategies[0].module`. */
  readonly where?: string;
}

export interface LoadedStrategyModule {
  readonly definition: StrategyDefinition;
  /** The module as written. */
  readonly module: string;
  /** The absolute file it was loaded from, or the package name. */
  readonly resolved: string;
}

/**
 * Imports a strategy module and checks its export. Throws STRATEGY_MODULE_NOT_FOUND (no such file
 * or package) or STRATEGY_MODULE_INVALID (it fails to load, or exports no strategy), with the
 * module and the resolved path in the message and `details`.
 *
 * @example const { definition } = await loadStrategy('strategies/market-maker.ts');
 */
export async function loadStrategy(module: string, options: LoadStrategyOptions = {}): Promise<LoadedStrategyModule> {
  const cwd = options.cwd ?? process.cwd();
  const prefix = options.where === undefined ? '' : `${options.where}: `;
  const kind = strategyModuleKind(module);
  let namespace: Record<string, unknown>;
  let resolved: string;
  if (kind === 'file') {
    resolved = isAbsolute(module) ? module : resolve(cwd, module);
    const problem = await fileProblem(resolved);
    if (problem !== undefined) {
      throw new BaseError('STRATEGY_MODULE_NOT_FOUND', `${prefix}strategy module ${module}: ${problem} (${resolved}; file paths are resolved against the working directory ${cwd})`, {
        details: { module, path: resolved, cwd },
      });
    }
    await installStrategyHooks();
    namespace = await importOrThrow(pathToFileURL(resolved).href, module, resolved, prefix);
  } else {
    resolved = module;
    namespace = await importPackage(module, cwd, prefix);
  }
  return { definition: pickDefinition(namespace, module, resolved, prefix), module, resolved };
}

async function fileProblem(path: string): Promise<string | undefined> {
  try {
    const info = await stat(path);
    return info.isFile() ? undefined : 'is not a file';
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'no such file' : `cannot be read (${String(code)})`;
  }
}

async function importOrThrow(specifier: string, module: string, resolved: string, prefix: string): Promise<Record<string, unknown>> {
  try {
    return (await import(specifier)) as Record<string, unknown>;
  } catch (error) {
    const located = await locateLoadError(error, resolved);
    const problem = located === undefined ? `${messageOf(error)} (${resolved})` : `${located.file}:${located.line}:${located.column}: ${located.message}`;
    throw new BaseError('STRATEGY_MODULE_INVALID', `${prefix}strategy module ${module} failed to load: ${problem}`, {
      details: { module, path: resolved, ...(located === undefined ? {} : { location: located }) },
      cause: error,
    });
  }
}

/** Where a module failed to compile: file, 1-based line and column, and the problem. */
export interface ModuleErrorLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

const TS_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx']);
const SOURCE_EXTENSIONS = new Set([...TS_EXTENSIONS, '.js', '.mjs', '.cjs', '.jsx']);

/**
 * The location of a syntax (or type-stripping) error that stopped a module from loading: from an
 * esbuild message (`Transform failed with 1 error:\n/x.ts:3:7: ERROR: Expected "}"`), else by
 * parsing the file that failed (a plain JS syntax error of Node carries no location). Undefined for
 * an error that is not about the source text (the module threw while running, an import is missing).
 */
export async function locateLoadError(error: unknown, file: string): Promise<ModuleErrorLocation | undefined> {
  const text = error instanceof Error ? error.message : String(error);
  const esbuild = /^(.+?):(\d+):(\d+): ERROR: (.+)$/m.exec(text);
  if (esbuild !== null) return { file: esbuild[1]!, line: Number(esbuild[2]), column: Number(esbuild[3]) + 1, message: esbuild[4]! };
  const syntax = error instanceof SyntaxError || /ERR_(INVALID|UNSUPPORTED)_TYPESCRIPT_SYNTAX/.test(String((error as { code?: unknown } | null)?.code));
  if (!syntax || !SOURCE_EXTENSIONS.has(extname(file))) return undefined;
  // Node's own SyntaxError (a .js module, or type stripping) names no place: parse the file to find it.
  try {
    const { transform } = (await import('esbuild')) as typeof import('esbuild');
    const extension = extname(file);
    const loader = TS_EXTENSIONS.has(extension) ? (extension === '.tsx' ? 'tsx' : 'ts') : extension === '.jsx' ? 'jsx' : 'js';
    await transform(readFileSync(file, 'utf8'), { loader, sourcefile: file, format: 'esm', logLevel: 'silent' });
  } catch (parsed) {
    const first = (parsed as { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }).errors?.[0];
    if (first?.location) return { file: first.location.file, line: first.location.line, column: first.location.column + 1, message: first.text };
  }
  return undefined;
}

async function importPackage(name: string, cwd: string, prefix: string): Promise<Record<string, unknown>> {
  try {
    // An ES import from clobbot's own location: in an installed project it walks up to the project's node_modules.
    return (await import(name)) as Record<string, unknown>;
  } catch (error) {
    if (!looksNotFound(error, name)) {
      throw new BaseError('STRATEGY_MODULE_INVALID', `${prefix}strategy module ${name} failed to load: ${messageOf(error)}`, {
        details: { module: name },
        cause: error,
      });
    }
    // Not found from there (clobbot linked from elsewhere): look it up from the working directory.
    let path: string;
    try {
      path = createRequire(join(cwd, 'package.json')).resolve(name);
    } catch {
      throw new BaseError('STRATEGY_MODULE_NOT_FOUND', `${prefix}strategy module ${name}: no such package (looked up from ${cwd})`, {
        details: { module: name, cwd },
        cause: error,
      });
    }
    return importOrThrow(pathToFileURL(path).href, name, path, prefix);
  }
}

function looksNotFound(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = messageOf(error);
  if (!message.includes(name)) return false;
  return code === 'ERR_MODULE_NOT_FOUND' || /cannot find (package|module)|failed to (load|resolve)/i.test(message);
}

function pickDefinition(namespace: Record<string, unknown>, module: string, resolved: string, prefix: string): StrategyDefinition {
  let candidate = namespace.default ?? namespace.strategy;
  // A CommonJS build of an ES module: `module.exports.default` arrives as `default.default`.
  if (definitionProblems(candidate).length > 0 && typeof candidate === 'object' && candidate !== null) {
    const inner = (candidate as Record<string, unknown>).default;
    if (definitionProblems(inner).length === 0) candidate = inner;
  }
  const exports = Object.keys(namespace).sort();
  const listed = exports.length === 0 ? 'none' : exports.length > 8 ? `${exports.slice(0, 8).join(', ')}, …` : exports.join(', ');
  if (candidate === undefined) {
    throw new BaseError(
      'STRATEGY_MODULE_INVALID',
      `${prefix}strategy module ${module} has no default export and no export named strategy (exports: ${listed}); export the result of defineStrategy (${resolved})`,
      { details: { module, path: resolved, exports } },
    );
  }
  const problems = definitionProblems(candidate);
  if (problems.length > 0) {
    throw new BaseError('STRATEGY_MODULE_INVALID', `${prefix}strategy module ${module} does not export a strategy made with defineStrategy: ${problems.join('; ')} (${resolved})`, {
      details: { module, path: resolved, exports, problems },
    });
  }
  return candidate as StrategyDefinition;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}

/**
 * Validates `strategies[index].params` of a run file with the strategy's own schema. Issues are
 * located in the run file (`config/mm.yaml:19:18 strategies[0].params.spreadBps: expected a number,
 * got a string`); absent params are validated as `{}`; the value is deep-frozen.
 *
 * @example
 * const result = validateStrategyParams(definition, source, 0);
 * if (!result.ok) result.issues.map(formatConfigIssue);
 */
export function validateStrategyParams<S extends z.ZodType>(definition: StrategyDefinition<S>, source: YamlSource, index: number): ConfigResult<z.output<S>> {
  const schema = z.preprocess((value) => value ?? {}, definition.params);
  return validateYamlSource(source, schema, ['strategies', index, 'params']) as ConfigResult<z.output<S>>;
}

/** One strategy of a run, loaded and with validated params. */
export interface LoadedStrategy {
  /** The run file's instance name (`mm`). */
  readonly name: string;
  readonly module: string;
  /** The absolute file or the package name. */
  readonly resolved: string;
  readonly definition: StrategyDefinition;
  readonly markets: readonly string[];
  /** Validated by the definition's schema, frozen. */
  readonly params: unknown;
}

/**
 * Loads every strategy of a validated run file and validates its params. A module that cannot be
 * loaded throws at once (STRATEGY_MODULE_NOT_FOUND or STRATEGY_MODULE_INVALID, its message located
 * at the `module` value); params problems of all strategies are gathered and thrown together as one
 * CONFIG_INVALID whose `details.issues` hold the located issues (as `loadConfigOrThrow` does).
 *
 * @example
 * const { value: config, source } = await loadConfig('config/market-maker.yaml', runConfigSchema);
 * const strategies = await loadRunStrategies(source, config);
 */
export async function loadRunStrategies(source: YamlSource, config: Pick<RunConfig, 'strategies'>, options: Omit<LoadStrategyOptions, 'where'> = {}): Promise<LoadedStrategy[]> {
  const loaded: LoadedStrategy[] = [];
  const issues: ConfigIssue[] = [];
  for (const [index, strategy] of config.strategies.entries()) {
    const path = ['strategies', index, 'module'];
    const { line, column } = locateInYaml(source, path);
    const where = `${source.file}:${line}:${column} ${formatConfigPath(path)}`;
    const { definition, resolved } = await loadStrategy(strategy.module, { ...options, where });
    const params = validateStrategyParams(definition, source, index);
    if (!params.ok) {
      issues.push(...params.issues);
      continue;
    }
    loaded.push({ name: strategy.name, module: strategy.module, resolved, definition, markets: strategy.markets, params: params.value });
  }
  if (issues.length > 0) throw configError(source.file, issues);
  return loaded;
}
