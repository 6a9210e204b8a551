/**
 * `checkStrategy`: runs a strategy over a scripted market on the one venue model and returns what it
 * did. The strategy runs through the real execution engine against the local venue in this process on
 * a VirtualClock (strategy-harness.ts): scripted books are real orders of a script market maker,
 * scripted trades real trades, scripted fills real taker orders that reach the strategy's order. What
 * comes back is what the venue did: order ids it gave, fees it charged, reverts with its reasons.
 */
import type { z } from 'zod';
import { BaseError } from '../core/base-error.ts';
import type { Intent } from '../strategy/intents.ts';
import type { StrategyDefinition } from '../strategy/define-strategy.ts';
import type { OwnFill, OwnMarketState } from '../strategy/strategy-context.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import type { InvalidIntent, RefusedIntent, RevertedIntent, ScriptedAmount, ScriptedBook, ScriptedTrade, TimedIntent, TimedState } from './scripted-market.ts';
import { propertyCheck, type PropertyCheckOptions, type PropertyCheckResult } from './property-check.ts';
import { createStrategyHarness, type HarnessMarket, type HarnessStep, type StrategyHarness, type StrategyHarnessOptions } from './strategy-harness.ts';

/** Something that happens at a time, ms after the strategy started. */
export type At<T> = T & { readonly at: number };

/** How long a check runs past its last scripted event when `until` is not given: time to react. */
export const DEFAULT_SETTLE_MS = 10_000;

/** A market of a check: its spec, its own state at the start, and its script. */
export interface CheckMarket extends Omit<HarnessMarket, 'book'> {
  /** Books, each the script market maker's from `at` until the next; a book at 0 is the market when the strategy starts. */
  readonly books?: readonly At<ScriptedBook>[];
  /** Public trades. */
  readonly trades?: readonly At<ScriptedTrade>[];
  /** Fills of the own order in `slot` by a script taker (default: all that remains). */
  readonly fills?: readonly At<{ readonly slot: number; readonly size?: ScriptedAmount }>[];
}

export interface CheckStrategyOptions<S extends z.ZodType = z.ZodType> extends Omit<StrategyHarnessOptions<S>, 'markets'> {
  readonly markets: readonly (MarketSpec | CheckMarket)[];
  /** ms after the start to run until. Default: the last scripted event + 10 s. */
  readonly until?: number;
}

export interface CheckStrategyResult {
  /** Clock time at which the strategy started; every `at` below is ms after it. */
  readonly startMs: number;
  readonly intents: readonly TimedIntent[];
  /** Intents the venue executed and reverted, with its reason (`INVALID_ORDER: …`). */
  readonly reverted: readonly RevertedIntent[];
  /** Intents the engine refused (risk) or the relay rejected. */
  readonly refused: readonly RefusedIntent[];
  readonly invalid: readonly InvalidIntent[];
  /** Own fills after the start: price, size, maker or taker, the fee the venue charged. */
  readonly fills: readonly OwnFill[];
  /** The own state of each market at `until`, by symbol. */
  readonly states: ReadonlyMap<string, OwnMarketState>;
  /** True when the strategy's intent stream completed. */
  readonly completed: boolean;
  /** The own state at `ms` (the last one at or before it; symbol optional with one market). */
  stateAt(ms: number, symbol?: string): OwnMarketState;
  /** Every state a market went through. */
  history(symbol?: string): readonly TimedState[];
  /** Intents emitted at times in `[fromMs, toMs)`. */
  intentsBetween(fromMs: number, toMs: number): Intent[];
}

/**
 * Two modes, one harness. **Property mode** (`runs` given): `runs` scenarios drawn from `seed`, each
 * held to the invariants; resolves `{ ok, runs, failure? }` (property-check.ts). **Scripted mode**
 * (`markets` with their scripts): runs `definition` over scripted books, trades and fills until
 * `until` (ms after its start) and resolves with what it did. Scripted events at one time run in market order (books, then trades,
 * then fills) and before the strategy's own timers. Rejects with STRATEGY_FAILED if the strategy
 * throws or errors, STRATEGY_INTENT_INVALID for a malformed intent (unless `strict: false`),
 * STRATEGY_CHECK_INVALID for a malformed script or params. Same options, same result.
 *
 * @example
 * const result = await checkStrategy(marketMaker, {
 *   params: { levels: 1, spreadBps: 20, size: '2000', maxInventory: '40000' },
 *   markets: [{ spec: monUsdc, books: [{ at: 0, bids: [['0.0349', '5000']], asks: [['0.0351', '5000']] }] }],
 *   until: 10_000,
 * });
 * expect(result.states.get('MON_USDC')?.orders).toHaveLength(2);
 */
export function checkStrategy<S extends z.ZodType>(definition: StrategyDefinition<S>, options: PropertyCheckOptions<S>): Promise<PropertyCheckResult>;
export function checkStrategy<S extends z.ZodType>(definition: StrategyDefinition<S>, options: CheckStrategyOptions<S>): Promise<CheckStrategyResult>;
export function checkStrategy<S extends z.ZodType>(definition: StrategyDefinition<S>, options: CheckStrategyOptions<S> | PropertyCheckOptions<S>): Promise<CheckStrategyResult | PropertyCheckResult> {
  return 'runs' in options ? propertyCheck(definition, options) : scriptedCheck(definition, options);
}

async function scriptedCheck<S extends z.ZodType>(definition: StrategyDefinition<S>, options: CheckStrategyOptions<S>): Promise<CheckStrategyResult> {
  const steps: { at: number; step: HarnessStep; symbol: string }[] = [];
  const markets = options.markets.map((entry): HarnessMarket => {
    if (!('spec' in entry)) return { spec: entry };
    const { books = [], trades = [], fills = [], ...market } = entry;
    const symbol = entry.spec.symbol;
    let start: ScriptedBook | undefined;
    for (const { at, ...book } of books) {
      if (at === 0 && start === undefined) start = book;
      else steps.push({ at, step: { book }, symbol });
    }
    for (const { at, ...trade } of trades) steps.push({ at, step: { trade }, symbol });
    for (const { at, ...fill } of fills) steps.push({ at, step: { fill }, symbol });
    return start === undefined ? market : { ...market, book: start };
  });
  for (const { at } of steps) {
    if (!Number.isFinite(at) || at < 0) throw new BaseError('STRATEGY_CHECK_INVALID', `a step at ${at} is before the start (0)`);
  }
  // A stable sort: same-time steps keep their order.
  steps.sort((a, b) => a.at - b.at);
  const until = options.until ?? steps.reduce((last, { at }) => Math.max(last, at), 0) + DEFAULT_SETTLE_MS;

  const harness = createStrategyHarness(definition, { ...options, markets });
  try {
    await harness.start();
    for (const { at, step, symbol } of steps) harness.schedule(at, step, symbol);
    await harness.advanceTo(until);
    return snapshot(harness, markets.map((market) => market.spec.symbol), until);
  } finally {
    await harness.stop();
  }
}

/** The result as of now (`until`): copies, so the stop's cancels are not in it. */
function snapshot(harness: StrategyHarness, symbols: readonly string[], until: number): CheckStrategyResult {
  const histories = new Map(symbols.map((symbol) => [symbol, [...harness.history(symbol)]]));
  const historyOf = (symbol: string | undefined): readonly TimedState[] => {
    if (symbol === undefined && symbols.length !== 1) throw new BaseError('STRATEGY_CHECK_INVALID', `name the market: the strategy has ${symbols.length} markets`);
    const history = histories.get(symbol ?? symbols[0]!);
    if (history === undefined) throw new BaseError('STRATEGY_CHECK_INVALID', `${symbol} is not a market of the strategy (${symbols.join(', ')})`);
    return history;
  };
  const intents = [...harness.intents];
  return {
    startMs: harness.startMs,
    intents,
    reverted: [...harness.reverted],
    refused: [...harness.refused],
    invalid: [...harness.invalid],
    fills: [...harness.fills],
    states: new Map(symbols.map((symbol) => [symbol, stateAt(historyOf(symbol), until)])),
    completed: harness.completed,
    stateAt: (ms, symbol) => stateAt(historyOf(symbol), ms),
    history: historyOf,
    intentsBetween: (fromMs, toMs) => intents.filter(({ at }) => at >= fromMs && at < toMs).map(({ intent }) => intent),
  };
}

function stateAt(history: readonly TimedState[], ms: number): OwnMarketState {
  let found = history[0]!.state;
  for (const entry of history) {
    if (entry.at > ms) break;
    found = entry.state;
  }
  return found;
}
