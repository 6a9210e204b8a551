/**
 * A swept parameter: `--param <name>=<values>`, and the run file field its name points at.
 * - a bare name (`spreadBps`) is a param of the run file's only strategy;
 * - `<strategy>.<param>` (`mm.spreadBps`) a param of the strategy of that name in the run file;
 * - any other dotted path (`risk.maxPosition`, `virtual.latency.relay.ms`) a field of the run file;
 *   a number is a list index (`markets.0`).
 * A strategy's name wins over a run file field of the same name.
 */
import { BaseError } from '../core/base-error.ts';
import type { ConfigPath } from '../config/config-issue.ts';
import { parseParamValues } from './param-values.ts';

export interface SweepParam {
  /** As written (`mm.spreadBps`): the column of the results. */
  readonly name: string;
  /** The values, as text, in the order given. */
  readonly values: readonly string[];
}

export interface ResolvedSweepParam extends SweepParam {
  /** Where in the run file (`['strategies', 0, 'params', 'spreadBps']`). */
  readonly path: ConfigPath;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;

const usageError = (message: string, details: Record<string, unknown> = {}) => new BaseError('CLI_USAGE', `sweep: ${message}`, { details: { command: 'sweep', ...details } });

/**
 * @example parseSweepParam('mm.spreadBps=4,6,8') // { name: 'mm.spreadBps', values: ['4', '6', '8'] }
 */
export function parseSweepParam(text: string): SweepParam {
  const equals = text.indexOf('=');
  if (equals < 0) throw usageError(`--param ${text}: expected <name>=<values>, e.g. spreadBps=4,6,8 or size=1000..5000:1000`, { param: text });
  const name = text.slice(0, equals).trim();
  if (!NAME.test(name)) throw usageError(`--param ${text}: ${JSON.stringify(name)} is not a param name (letters, digits, _ and -, parts joined by dots: spreadBps, mm.spreadBps, risk.maxPosition)`, { param: name });
  return { name, values: parseParamValues(`--param ${name}`, text.slice(equals + 1)) };
}

/** The strategies of a run file as written (before validation): their names, in order. */
function strategyNames(data: unknown): string[] {
  const strategies = (data as { strategies?: unknown } | null)?.strategies;
  if (!Array.isArray(strategies)) return [];
  return strategies.map((strategy) => String((strategy as { name?: unknown } | null)?.name ?? ''));
}

/**
 * The run file path of `param`, from the run file's data. Throws SWEEP_PARAM_INVALID for a bare name
 * when the run file has no strategy or several.
 *
 * @example resolveSweepParam({ name: 'mm.spreadBps', values: ['4'] }, data).path // ['strategies', 0, 'params', 'spreadBps']
 */
export function resolveSweepParam(param: SweepParam, runFile: { readonly file: string; readonly data: unknown }): ResolvedSweepParam {
  const names = strategyNames(runFile.data);
  const segments = param.name.split('.');
  if (segments.length === 1) {
    if (names.length !== 1) {
      const which = names.length === 0 ? 'has no strategy' : `has ${names.length} (${names.join(', ')}): write <strategy>.${param.name}, e.g. ${names[0]}.${param.name}`;
      throw new BaseError('SWEEP_PARAM_INVALID', `sweep: --param ${param.name} names a param of the run file's only strategy, but ${runFile.file} ${which}`, {
        details: { param: param.name, strategies: names },
      });
    }
    return { ...param, path: ['strategies', 0, 'params', param.name] };
  }
  const strategy = names.indexOf(segments[0]!);
  if (strategy >= 0) return { ...param, path: ['strategies', strategy, 'params', ...segments.slice(1)] };
  return { ...param, path: segments.map((segment) => (/^(?:0|[1-9][0-9]*)$/.test(segment) ? Number(segment) : segment)) };
}
