/**
 * `assertStrategy`: the property runner for use inside a test. It runs `checkStrategy`'s property mode
 * and throws STRATEGY_PROPERTY_FAILED with a report a person can act on: the invariant and what broke
 * it, the line that replays it, the shrunk scenario, the params, and the intents, fills and states
 * around the violation.
 */
import type { z } from 'zod';
import { BaseError } from '../core/base-error.ts';
import { fromUnits } from '../core/units.ts';
import type { StrategyDefinition } from '../strategy/define-strategy.ts';
import { propertyCheck, type PropertyCheckOptions, type PropertyCheckResult, type PropertyFailure } from './property-check.ts';
import type { Scenario } from './scenario.ts';

const json = (value: unknown) => JSON.stringify(value, (_, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner));

/** The scenario in a few lines: market, start, segments and faults. */
export function describeScenario(scenario: Scenario): string[] {
  const spec = scenario.market;
  const price = (units: bigint) => fromUnits(units, spec.pricePrecision);
  const lines = [
    `market ${spec.symbol}: price precision ${spec.pricePrecision}, tick ${spec.tickSize}, size precision ${spec.sizePrecision}, sizes ${spec.minSize}..${spec.maxSize}, fees maker ${spec.makerFeePps} / taker ${spec.takerFeePps} pps`,
    `start: mid ${price(scenario.mid)}, half spread ${scenario.halfSpreadTicks} ticks, ${scenario.levels} levels of ${scenario.levelSize} x min size, trades ${scenario.tradePct} % of steps, seed ${scenario.seed}`,
    ...scenario.segments.map((segment, index) => `segment ${index + 1}: ${json(segment.regime)} for ${segment.steps} s`),
    ...scenario.faults.map((fault) => `fault at ${fault.at} ms: ${json(fault.fault)}`),
    ...(scenario.killAt === undefined ? [] : [`kill switch tripped at ${scenario.killAt} ms`]),
  ];
  return lines;
}

/** A failure as text, for a test's output. */
export function formatPropertyFailure(failure: PropertyFailure, strategy: string): string {
  const { violation, around } = failure;
  return [
    `${strategy} broke invariant "${violation.invariant}" at ${violation.at} ms: ${violation.message}`,
    `replay: CLOBBOT_FUZZ_SEED=${failure.seed} CLOBBOT_FUZZ_PATH=${failure.path} (or checkStrategy(…, { seed: ${failure.seed}, path: '${failure.path}' }))`,
    `shrunk ${failure.shrinks} times to:`,
    ...describeScenario(failure.scenario).map((line) => `  ${line}`),
    `params: ${json(failure.params)}`,
    `around ${violation.at} ms:`,
    ...around.intents.map(({ at, intent }) => `  ${at} ms intent ${json(intent)}`),
    ...around.states.map(({ at, state }) => `  ${at} ms state position ${state.position}, orders ${state.orders.map((order) => `${order.side} ${order.remaining}@${order.price}`).join(' ') || 'none'}`),
    `fills: ${failure.record.fills.length}; details: ${json(violation.details ?? {})}`,
  ].join('\n');
}

/**
 * @example
 * it('holds its invariants', async () => {
 *   await assertStrategy(marketMaker, { runs: 100, seed: 7, params, scenarios: { market: monUsdc } });
 * });
 */
export async function assertStrategy<S extends z.ZodType>(definition: StrategyDefinition<S>, options: PropertyCheckOptions<S>): Promise<PropertyCheckResult> {
  const result = await propertyCheck(definition, options);
  if (result.failure !== undefined) {
    throw new BaseError('STRATEGY_PROPERTY_FAILED', formatPropertyFailure(result.failure, definition.name), {
      details: { invariant: result.failure.violation.invariant, seed: result.failure.seed, path: result.failure.path },
    });
  }
  return result;
}
