/**
 * `defineStrategy`: how a strategy module describes itself. A strategy is a name, a zod schema of
 * its params (the run file's `params` are validated with it, with located errors) and a `create`
 * function from the StrategyContext port to an Observable of intents. It sees no network, keys,
 * nonces or signing: the engine owns those.
 */
import { BaseError } from '../core/base-error.ts';
import type { Observable } from 'rxjs';
import type { z } from 'zod';
import type { Intent } from './intents.ts';
import type { StrategyContext } from './strategy-context.ts';

export interface StrategyDefinition<S extends z.ZodType = z.ZodType> {
  /** What the strategy is (`market-maker`), as opposed to the run file's instance name (`mm`). */
  readonly name: string;
  /** Schema of the params; `z.strictObject` so a misspelt key is an error at that key. */
  readonly params: S;
  /**
   * Called once per run with the context; the intents it emits go to the engine. Completing means
   * the strategy is done (its orders stay until the run stops); an error stops the run.
   */
  readonly create: (ctx: StrategyContext<z.output<S>>) => Observable<Intent>;
}

export interface DefineStrategyParameters<S extends z.ZodType> {
  readonly name: string;
  readonly params: S;
  readonly create: (ctx: StrategyContext<z.output<S>>) => Observable<Intent>;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * Defines a strategy: checks its parts and returns them frozen. Throws STRATEGY_DEFINITION_INVALID
 * when the name is not 1..64 letters, digits, `_`, `.`, `-`, `params` is not a zod schema or `create`
 * not a function.
 *
 * @example
 * export default defineStrategy({
 *   name: 'noop',
 *   params: z.strictObject({ size: decimalAmount({ positive: true }) }),
 *   create: (ctx) => EMPTY,
 * });
 */
export function defineStrategy<S extends z.ZodType>(definition: DefineStrategyParameters<S>): StrategyDefinition<S> {
  const problems = definitionProblems(definition);
  if (problems.length > 0) {
    const name = typeof (definition as { name?: unknown } | null)?.name === 'string' ? (definition as { name: string }).name : '(unnamed)';
    throw new BaseError('STRATEGY_DEFINITION_INVALID', `strategy ${name}: ${problems.join('; ')}`, { details: { problems } });
  }
  return Object.freeze({ name: definition.name, params: definition.params, create: definition.create });
}

/**
 * What is wrong with `value` as a strategy definition (empty when it is one). Checks the shape only:
 * a module's export may come from another copy of clobbot, so no `instanceof`.
 */
export function definitionProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return [`expected an object with name, params and create, got ${describe(value)}`];
  const candidate = value as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof candidate.name !== 'string' || !NAME.test(candidate.name)) {
    problems.push('name must be 1 to 64 letters, digits, _, . or -, starting with a letter or digit');
  }
  const params = candidate.params as { safeParse?: unknown; _zod?: unknown } | undefined;
  if (typeof params !== 'object' || params === null || typeof params.safeParse !== 'function' || params._zod === undefined) {
    problems.push('params must be a zod schema (e.g. z.strictObject({ … }))');
  }
  if (typeof candidate.create !== 'function') problems.push('create must be a function (ctx) => Observable<Intent>');
  return problems;
}

/** True when `value` has the shape of a StrategyDefinition. */
export function isStrategyDefinition(value: unknown): value is StrategyDefinition {
  return definitionProblems(value).length === 0;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
