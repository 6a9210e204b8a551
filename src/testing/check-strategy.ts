/**
 * `checkStrategy`: runs a strategy over scripted market data on a virtual clock and returns what it
 * did. The own state applies each intent as if confirmed; resting orders fill only where the script
 * says (`fills`), orders that cross the scripted book take from it. Fills against real order flow,
 * queue positions, latency and the engine's risk checks need the venue (`clobbot sim`).
 */
import { BaseError } from '../core/base-error.ts';
import type { z } from 'zod';
import type { Intent } from '../strategy/intents.ts';
import type { StrategyDefinition } from '../strategy/define-strategy.ts';
import type { OwnFill, OwnMarketState } from '../strategy/strategy-context.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import type { ScriptedAmount, ScriptedBook, ScriptedTrade } from './scripted-market.ts';
import type { InvalidIntent, RevertedIntent, TimedIntent, TimedState } from './simulated-account.ts';
import { createStrategyHarness, type HarnessMarket, type HarnessStep, type StrategyHarnessOptions } from './strategy-harness.ts';

/** Something that happens at a clock time (ms). */
export type At<T> = T & { readonly at: number };

/** A market of a check: its spec, its own state at the start, and its script. */
export interface CheckMarket extends HarnessMarket {
  /** Books, each the market's book from `at` until the next. */
  readonly books?: readonly At<ScriptedBook>[];
  /** Public trades on `trades$`. */
  readonly trades?: readonly At<ScriptedTrade>[];
  /** Maker fills of the own order in `slot` (default: all that remains). */
  readonly fills?: readonly At<{ readonly slot: number; readonly size?: ScriptedAmount }>[];
}

export interface CheckStrategyOptions<S extends z.ZodType = z.ZodType> extends Omit<StrategyHarnessOptions<S>, 'markets'> {
  readonly markets: readonly (MarketSpec | CheckMarket)[];
  /** Clock time to run until, ms. Default: the last scripted event. */
  readonly until?: number;
}

export interface CheckStrategyResult {
  readonly intents: readonly TimedIntent[];
  readonly reverted: readonly RevertedIntent[];
  readonly invalid: readonly InvalidIntent[];
  readonly fills: readonly OwnFill[];
  /** The own state of each market at the end, by symbol. */
  readonly states: ReadonlyMap<string, OwnMarketState>;
  /** True when the strategy's intent stream completed. */
  readonly completed: boolean;
  /** The own state at `timeMs` (the last one at or before it; symbol optional with one market). */
  stateAt(timeMs: number, symbol?: string): OwnMarketState;
  /** Every state a market went through. */
  history(symbol?: string): readonly TimedState[];
  /** Intents emitted at times in `[fromMs, toMs)`. */
  intentsBetween(fromMs: number, toMs: number): Intent[];
}

/**
 * Drives `definition` over scripted books, trades and fills on a VirtualClock until `until`. At one
 * time, scripted events come in market order (books, then trades, then fills) and before the
 * strategy's own timers. Throws STRATEGY_FAILED if the strategy throws or errors,
 * STRATEGY_INTENT_INVALID for a malformed intent (unless `strict: false`), STRATEGY_CHECK_INVALID
 * for a malformed script or params.
 *
 * @example
 * const result = checkStrategy(marketMaker, {
 *   params: { levels: 1, spreadBps: 20, size: '2000', maxInventory: '40000' },
 *   markets: [{ spec: monUsdc, books: [{ at: 0, bids: [['0.0349', '5000']], asks: [['0.0351', '5000']] }] }],
 *   until: 10_000,
 * });
 * expect(result.states.get('MON_USDC')?.orders).toHaveLength(2);
 */
export function checkStrategy<S extends z.ZodType>(definition: StrategyDefinition<S>, options: CheckStrategyOptions<S>): CheckStrategyResult {
  const harness = createStrategyHarness(definition, options);
  const start = harness.clock.now();
  const steps: { at: number; step: HarnessStep; symbol: string }[] = [];
  for (const entry of options.markets) {
    if (!('spec' in entry)) continue;
    const symbol = entry.spec.symbol;
    for (const { at, ...book } of entry.books ?? []) steps.push({ at, step: { book }, symbol });
    for (const { at, ...trade } of entry.trades ?? []) steps.push({ at, step: { trade }, symbol });
    for (const { at, ...fill } of entry.fills ?? []) steps.push({ at, step: { fill }, symbol });
  }
  for (const { at } of steps) {
    if (!Number.isFinite(at) || at < start) throw new BaseError('STRATEGY_CHECK_INVALID', `a step at ${at} is before the clock's ${start}`);
  }
  // A stable sort: same-time steps keep their order.
  steps.sort((a, b) => a.at - b.at);
  for (const { at, step, symbol } of steps) harness.schedule(at, step, symbol);
  const until = options.until ?? steps.reduce((last, { at }) => Math.max(last, at), start);
  try {
    harness.start();
    harness.advanceTo(until);
  } finally {
    harness.stop();
  }

  const symbols = options.markets.map((entry) => ('spec' in entry ? entry.spec.symbol : entry.symbol));
  return {
    intents: harness.intents,
    reverted: harness.reverted,
    invalid: harness.invalid,
    fills: harness.fills,
    states: new Map(symbols.map((symbol) => [symbol, harness.state(symbol)])),
    completed: harness.completed,
    stateAt(timeMs, symbol) {
      const history = harness.history(symbol);
      let found = history[0]!.state;
      for (const entry of history) {
        if (entry.at > timeMs) break;
        found = entry.state;
      }
      return found;
    },
    history: (symbol) => harness.history(symbol),
    intentsBetween: (fromMs, toMs) => harness.intents.filter(({ at }) => at >= fromMs && at < toMs).map(({ intent }) => intent),
  };
}
