/**
 * A strategy under test, step by step, on the one venue model: the strategy runs through the real
 * execution engine and the composition root of every run against the local venue in this process,
 * on a VirtualClock (check-rig.ts, check-venue.ts). Books, trades and fills of the script become
 * real orders of script accounts on the venue; the strategy sees them through its market feed (polled
 * depth in the committed state, trades) and its own state through the engine (order events, fills),
 * with the venue's blocks and the connection's latency in between. `checkStrategy` runs a whole script
 * through it; use the harness directly to push books and look at the state between steps.
 *
 * Times given to and reported by the harness are ms after the strategy started; the clock's own time
 * of that instant is `startMs`. Before the strategy starts, the harness readies the account (funded,
 * delegated, TRADE granted, as `clobbot run` does), posts each market's `book`, makes its `position`
 * (an own post-only order at `entryPrice` filled by a script taker) and places its `orders`.
 *
 * Why one file of this size: the harness's options and results are its public API, documented here
 * beside the one function that honours them; the machinery lives in check-rig.ts, check-venue.ts
 * and harness-setup.ts.
 */
import type { z } from 'zod';
import { BaseError } from '../core/base-error.ts';
import { createIdSource } from '../core/ids.ts';
import { createLogger, type Logger } from '../core/logger.ts';
import { seededRandom } from '../core/random.ts';
import { VirtualClock } from '../core/virtual-clock.ts';
import type { FaultActionInput } from '../config/fault-config.ts';
import type { RiskConfig } from '../config/run-config.ts';
import { DEFAULT_VIRTUAL_START_MS, type LatencyConfig, type VirtualConfig } from '../config/virtual-config.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import type { StrategyDefinition } from '../strategy/define-strategy.ts';
import type { OwnFill, OwnMarketState, StrategyMarket } from '../strategy/strategy-context.ts';
import type { ExecutionEngine } from '../execution/execution-engine.ts';
import type { JournalFs } from '../execution/journal.ts';
import type { SimVenueModel } from '../venue/sim-venue.ts';
import { loadSigner } from '../execution/signer-source.ts';
import { createPendingWork } from '../runtime/pending-work.ts';
import { createTradingRuntime, type TradingRuntime } from '../runtime/trading-runtime.ts';
import { runOnVirtualClock } from '../runtime/virtual-driver.ts';
import { createCheckVenue, type CheckVenue } from './check-venue.ts';
import { asCheckError, CheckRecord, CHECK_MODULE, gatedStrategy, Waits } from './check-rig.ts';
import { readyMarkets, type HarnessMarket } from './harness-setup.ts';
import { memoryJournalFs } from './memory-journal-fs.ts';
import { sizeUnits, type InvalidIntent, type RefusedIntent, type RevertedIntent, type ScriptedAmount, type ScriptedBook, type ScriptedFill, type ScriptedTrade, type TimedIntent, type TimedState } from './scripted-market.ts';

export type { HarnessMarket } from './harness-setup.ts';

/** The one-way latency between the bot and the venue when a check does not say: a small constant. */
export const DEFAULT_CHECK_LATENCY_MS = 5;
/** The venue's block interval when a check does not say (config/sim.yaml's). */
export const DEFAULT_CHECK_BLOCK_MS = 400;
/** How long a step waits for the strategy to see it before the check fails. */
const STEP_TIMEOUT_MS = 30_000;
/** How long after its block a fill may take to reach the engine (order events are cached for 2 s and polled). */
const FILL_NOTICE_MS = 10_000;
/** Risk limits of a check when it does not say: wide enough never to refuse a strategy's intent. */
const OPEN_RISK: RiskConfig = { maxPosition: '1000000000000', maxOrderSize: '1000000000000', maxNotional: '1000000000000000', priceBandBps: 10_000, maxOrdersPerSecond: 10_000, maxOpenOrders: 100_000 };

export interface StrategyHarnessOptions<S extends z.ZodType = z.ZodType> {
  /** Params as a run file would give them; validated with the strategy's schema. Default `{}`. */
  readonly params?: z.input<S>;
  /** The strategy's markets, in run-file order. */
  readonly markets: readonly (MarketSpec | HarnessMarket)[];
  /** Default: a new VirtualClock at 2026-01-01T00:00:00Z. */
  readonly clock?: VirtualClock;
  /** Seeds `ctx.random`, the wallet, the venue's secrets and the connection's delays. Default 1. */
  readonly seed?: number;
  /** Default: silent. */
  readonly logger?: Logger;
  /** One-way latency between the bot and the venue: ms, or each leg as a run file's `virtual.latency`. Default 5 ms. */
  readonly latency?: number | Partial<VirtualConfig['latency']>;
  /** A block every this many ms. Default 400. */
  readonly blockMs?: number;
  /** The engine's risk limits (run-file form). Default: open. */
  readonly risk?: Partial<RiskConfig>;
  /** The trading wallet's balances, human amounts by token symbol. Default 10^9 of every token. */
  readonly funding?: Readonly<Record<string, string>>;
  /**
   * Default true: an invalid intent (slot >= 62 or twice, off-tick price, size out of range, empty)
   * fails the run with STRATEGY_INTENT_INVALID. False: it is recorded in `invalid` and never sent.
   */
  readonly strict?: boolean;
  /**
   * How long `stop` waits for the final cancels and every signed request to settle. Default 30 s (as
   * a run); a property run waits past the intents' deadline so that every request gets its fate.
   */
  readonly stopTimeoutMs?: number;
  /** The engine's journal's file system. Default: a new one in memory (memoryJournalFs). */
  readonly journalFs?: JournalFs;
}

/** The parts of a started harness that a property run watches (read them; do not drive them). */
export interface HarnessParts {
  readonly engine: ExecutionEngine;
  /** The venue model (its blocks, the book as it is). */
  readonly model: SimVenueModel;
  /** The trading account on the venue. */
  readonly accountId: bigint;
  /** The strategy's markets, as its context has them (feeds, own state, fills). */
  readonly markets: ReadonlyMap<string, StrategyMarket>;
}

/** One event of a script: of the market, or a fault of the connection (the venue's fault actions). */
export type HarnessStep = { readonly book: ScriptedBook } | { readonly trade: ScriptedTrade } | { readonly fill: ScriptedFill } | { readonly fault: FaultActionInput };

export interface StrategyHarness {
  readonly clock: VirtualClock;
  /** Clock time at which the strategy started (after the setup). */
  readonly startMs: number;
  /** Every intent emitted, with its time. */
  readonly intents: readonly TimedIntent[];
  /** Intents the venue executed and reverted, with its reason (or the engine dropped). */
  readonly reverted: readonly RevertedIntent[];
  /** Intents the engine refused or the relay rejected. */
  readonly refused: readonly RefusedIntent[];
  /** Intents refused as malformed (see `strict`). */
  readonly invalid: readonly InvalidIntent[];
  /** Own fills after the start, in order. */
  readonly fills: readonly OwnFill[];
  /** True once the strategy's intent stream completed. */
  readonly completed: boolean;
  /** Readies the venue and the account, then starts the strategy. */
  start(): Promise<StrategyHarness>;
  /** ms since the start. */
  now(): number;
  /** The current own state of a market, as the engine sees it (symbol optional with one market). */
  state(symbol?: string): OwnMarketState;
  /** Every state the market went through since the start, with times. */
  history(symbol?: string): readonly TimedState[];
  /** Replaces the script market maker's book; resolves once the strategy's feed shows it. */
  book(book: ScriptedBook, symbol?: string): Promise<void>;
  /** A public trade; resolves once the strategy's feed shows it. */
  trade(trade: ScriptedTrade, symbol?: string): Promise<void>;
  /** A script taker fills the own order in `slot` (default all that remains); resolves once the engine reports the fill. */
  fill(slot: number, size?: ScriptedAmount, symbol?: string): Promise<void>;
  /** Runs until `ms` after the start. */
  advanceTo(ms: number): Promise<void>;
  advanceBy(ms: number): Promise<void>;
  /** Runs until `ready()` holds (checked at every event), or fails with STRATEGY_CHECK_INVALID after `timeoutMs`. */
  waitFor(ready: () => boolean, timeoutMs?: number): Promise<void>;
  /** Schedules a market event `at` ms after the start (before the strategy's own timers due then). */
  schedule(at: number, step: HarnessStep, symbol?: string): void;
  /**
   * Puts a book, trade or fault on the venue now, without waiting for the strategy to see it (a
   * property run's market goes on whether or not the feed keeps up). A fill needs `fill`.
   */
  post(step: Exclude<HarnessStep, { readonly fill: ScriptedFill }>, symbol?: string): void;
  /** The engine, the venue model and the strategy's markets (after `start`). */
  parts(): HarnessParts;
  /** Stops the strategy, cancels its orders through the engine and stops the venue. */
  stop(): Promise<void>;
}

function latencyOf(option: StrategyHarnessOptions['latency']): VirtualConfig['latency'] {
  const constant = (ms: number): LatencyConfig => ({ kind: 'constant', ms });
  if (typeof option === 'number') return { relay: constant(option), marketData: constant(option), userData: constant(option) };
  const fallback = constant(DEFAULT_CHECK_LATENCY_MS);
  return { relay: option?.relay ?? fallback, marketData: option?.marketData ?? fallback, userData: option?.userData ?? fallback };
}

/**
 * A harness for one strategy. Params that fail the schema throw STRATEGY_CHECK_INVALID with the
 * issues; `start()` readies the venue and runs `create(ctx)`.
 *
 * @example
 * const run = await createStrategyHarness(marketMaker, { params, markets: [{ spec: monUsdc, book }] }).start();
 * await run.advanceBy(5_000);
 * expect(run.state().orders).toHaveLength(6);
 * await run.stop();
 */
export function createStrategyHarness<S extends z.ZodType>(definition: StrategyDefinition<S>, options: StrategyHarnessOptions<S>): StrategyHarness {
  const parsed = definition.params.safeParse(options.params ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(params)'}: ${issue.message}`);
    throw new BaseError('STRATEGY_CHECK_INVALID', `params of ${definition.name} do not match its schema: ${issues.join('; ')}`, { details: { issues } });
  }
  if (options.markets.length === 0) throw new BaseError('STRATEGY_CHECK_INVALID', 'a strategy needs at least one market');
  const markets = options.markets.map((entry): HarnessMarket => ('spec' in entry ? entry : { spec: entry }));
  const symbols = markets.map((market) => market.spec.symbol);
  const duplicate = symbols.find((symbol, index) => symbols.indexOf(symbol) !== index);
  if (duplicate !== undefined) throw new BaseError('STRATEGY_CHECK_INVALID', `market ${duplicate} is given twice`);

  const clock = options.clock ?? new VirtualClock(DEFAULT_VIRTUAL_START_MS);
  const seed = options.seed ?? 1;
  const logger = options.logger ?? createLogger({ level: 'silent' });
  const record = new CheckRecord(clock);
  const waits = new Waits(clock);
  const pending = createPendingWork();
  const gated = gatedStrategy(definition, { params: parsed.data, symbols, strict: options.strict ?? true, record });
  const latest = new Map<string, OwnMarketState>();
  const lastBookId = new Map<string, number>();
  const lastTradeTime = new Map<string, number>();
  const blockTimes = new Map<bigint, number>();
  let venue: CheckVenue | undefined;
  let runtime: TradingRuntime | undefined;
  let kitFailure: BaseError | undefined;
  let rejectFailed: (error: BaseError) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (rejectFailed = reject));
  failed.catch(() => undefined);
  const failure = () => gated.failure() ?? kitFailure ?? runtime?.failure();
  const fail = (error: BaseError) => {
    kitFailure ??= error;
    rejectFailed(failure()!);
  };
  let started = false;
  let stopped = false;

  const drive = async <T>(work: () => Promise<T>): Promise<T> => {
    const before = failure();
    if (before !== undefined) throw before;
    let result: T;
    try {
      result = await runOnVirtualClock(clock, () => Promise.race([work(), failed]), { busy: pending.busy });
    } catch (error) {
      throw failure() ?? asCheckError(error);
    }
    const after = failure();
    if (after !== undefined) throw after;
    return result;
  };
  const specOf = (symbol: string | undefined): MarketSpec => {
    if (symbol === undefined) {
      if (markets.length !== 1) throw new BaseError('STRATEGY_CHECK_INVALID', `name the market: the strategy has ${markets.length} markets`);
      return markets[0]!.spec;
    }
    const market = markets.find((entry) => entry.spec.symbol === symbol);
    if (market === undefined) throw new BaseError('STRATEGY_CHECK_INVALID', `${symbol} is not a market of the strategy (${symbols.join(', ')})`);
    return market.spec;
  };
  const needStarted = () => {
    if (!started || venue === undefined) throw new BaseError('STRATEGY_CHECK_INVALID', 'start the harness first');
    return venue;
  };

  /** Resolves once no book step is in flight and the feed of `spec` shows the block that executed the last. */
  const bookShown = async (spec: MarketSpec) => {
    await waits.until(() => !venue!.booksPending(), `the book of ${spec.symbol} on the venue`, STEP_TIMEOUT_MS);
    const block = Number(venue!.model.blockNumber());
    await waits.until(() => (lastBookId.get(spec.symbol) ?? -1) >= block, `the book of ${spec.symbol} on the strategy's feed`, STEP_TIMEOUT_MS);
  };
  const filled = async (spec: MarketSpec, slot: number, size: bigint | undefined) => {
    const from = record.allFills.length;
    const { orderId, amount, txHash } = venue!.fillSlot(spec, slot, size);
    const done = () => record.allFills.slice(from).reduce((sum, fill) => sum + (fill.orderId === orderId ? fill.size : 0n), 0n) >= amount;
    // The order may change between the step and the taker's block (a requote lands first): then no fill comes.
    const missed = () => {
      const block = venue!.executed(txHash);
      const at = block === undefined ? undefined : blockTimes.get(block);
      return at !== undefined && clock.now() >= at + FILL_NOTICE_MS;
    };
    await waits.until(() => done() || missed(), `the fill of slot ${slot} of ${spec.symbol} reaching the engine`, STEP_TIMEOUT_MS);
    if (!done()) {
      throw new BaseError('STRATEGY_CHECK_INVALID', `the script's taker did not reach the order in slot ${slot} of ${spec.symbol}: it changed on the venue before the taker's block`, {
        details: { slot, orderId: String(orderId) },
      });
    }
  };
  const apply = (step: HarnessStep, spec: MarketSpec): Promise<void> => {
    if ('fault' in step) {
      venue!.applyFault(step.fault);
      return Promise.resolve();
    }
    if ('book' in step) {
      venue!.postBook(spec, step.book);
      return bookShown(spec);
    }
    if ('trade' in step) {
      const [, taker] = venue!.postTrade(spec, step.trade);
      return (async () => {
        await waits.until(() => venue!.executed(taker!) !== undefined, `the trade on ${spec.symbol}`, STEP_TIMEOUT_MS);
        const at = blockTimes.get(venue!.executed(taker!)!) ?? clock.now();
        await waits.until(() => (lastTradeTime.get(spec.symbol) ?? -1) >= at, `the trade on the strategy's feed of ${spec.symbol}`, STEP_TIMEOUT_MS);
      })();
    }
    const { slot, size } = step.fill;
    return filled(spec, slot, size === undefined ? undefined : sizeUnits(size, spec));
  };

  const harness: StrategyHarness = {
    clock,
    get startMs() {
      return record.startMs ?? clock.now();
    },
    intents: record.intents,
    reverted: record.reverted,
    refused: record.refused,
    invalid: record.invalid,
    fills: record.fills,
    get completed() {
      return record.completed;
    },
    async start() {
      if (started) throw new BaseError('STRATEGY_CHECK_INVALID', 'the harness is already started');
      started = true;
      await drive(async () => {
        const wallet = await loadSigner({ source: { kind: 'ephemeral' }, network: 'sim', env: {}, random: seededRandom(seed ^ 0x4e7) });
        const ids = createIdSource({ clock, random: seededRandom(seed ^ 0x1d5) });
        venue = await createCheckVenue({
          markets,
          clock,
          wallet,
          blockMs: options.blockMs ?? DEFAULT_CHECK_BLOCK_MS,
          latency: latencyOf(options.latency),
          ...(options.funding === undefined ? {} : { funding: options.funding }),
          seed,
          pending,
          ids,
          logger,
        });
        runtime = createTradingRuntime({
          venue: venue.connection,
          clock,
          config: {
            strategies: [{ name: definition.name, module: CHECK_MODULE, markets: symbols, params: {}, idleTimeout: 'off' }],
            engine: { maxPendingOutcomes: 48, queuePolicy: 'coalesce' },
            risk: { ...OPEN_RISK, ...options.risk },
          },
          strategies: [gated.loaded],
          wallet,
          seed,
          ids,
          logger,
          journalDir: '/check/journal',
          journalFs: options.journalFs ?? memoryJournalFs(),
          idleWarnMs: 24 * 3_600_000,
          ...(options.stopTimeoutMs === undefined ? {} : { stopTimeoutMs: options.stopTimeoutMs }),
        });
        void runtime.stopRequested.then((reason) => {
          if (reason.kind === 'failed') rejectFailed(failure()!);
        });
        const model = venue.model;
        model.blocks$.subscribe((block) => {
          blockTimes.set(block.number, block.timestamp);
          const problem = venue?.problem();
          if (problem !== undefined) fail(problem);
          waits.poke();
        });
        await runtime.start();
        runtime.engine.reports$.subscribe(({ intent, fate }) => record.onFate(intent, fate));
        for (const [symbol, market] of gated.context()!.markets) {
          market.state$.subscribe((state) => {
            latest.set(symbol, state);
            if (record.startMs !== undefined) record.histories.get(symbol)?.push({ at: record.now(), state });
            waits.poke();
          });
          market.fills$.subscribe((fill) => {
            record.allFills.push(fill);
            if (record.startMs !== undefined) record.fills.push(fill);
            waits.poke();
          });
          market.feed.book$.subscribe((book) => {
            lastBookId.set(symbol, book.lastUpdateId);
            waits.poke();
          });
          market.feed.trades$.subscribe((trade) => {
            lastTradeTime.set(symbol, trade.time);
            waits.poke();
          });
        }
        await readyMarkets({ markets, venue, engine: runtime.engine, waits, latest, bookShown, filled, timeoutMs: STEP_TIMEOUT_MS });
      });
      record.startMs = clock.now();
      for (const symbol of symbols) record.histories.set(symbol, [{ at: 0, state: latest.get(symbol)! }]);
      gated.open();
      await drive(async () => undefined);
      return harness;
    },
    now: () => record.now(),
    state: (symbol) => latest.get(specOf(symbol).symbol)!,
    history: (symbol) => record.histories.get(specOf(symbol).symbol) ?? [],
    book: (book, symbol) => (needStarted(), drive(() => apply({ book }, specOf(symbol)))),
    trade: (trade, symbol) => (needStarted(), drive(() => apply({ trade }, specOf(symbol)))),
    fill: (slot, size, symbol) => (needStarted(), drive(() => apply({ fill: size === undefined ? { slot } : { slot, size } }, specOf(symbol)))),
    advanceTo(ms) {
      needStarted();
      const due = record.startMs! + ms;
      return drive(() => new Promise<void>((resolve) => clock.scheduler.schedule(() => resolve(), Math.max(0, due - clock.now()))));
    },
    advanceBy: (ms) => harness.advanceTo(record.now() + ms),
    waitFor: (ready, timeoutMs = STEP_TIMEOUT_MS) => (needStarted(), drive(() => waits.until(ready, 'the condition waited for', timeoutMs))),
    schedule(at, step, symbol) {
      needStarted();
      const spec = specOf(symbol);
      const due = record.startMs! + at;
      if (!Number.isFinite(at) || due < clock.now()) throw new BaseError('STRATEGY_CHECK_INVALID', `a step at ${at} is before now (${record.now()})`);
      clock.scheduler.schedule(() => {
        apply(step, spec).catch((error: unknown) => fail(asCheckError(error)));
      }, due - clock.now());
    },
    post(step, symbol) {
      const checkVenue = needStarted();
      const spec = specOf(symbol);
      if ('fault' in step) checkVenue.applyFault(step.fault);
      else if ('book' in step) checkVenue.postBook(spec, step.book);
      else checkVenue.postTrade(spec, step.trade);
    },
    parts() {
      const checkVenue = needStarted();
      return { engine: runtime!.engine, model: checkVenue.model, accountId: checkVenue.connection.accountId, markets: gated.context()!.markets };
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (runtime === undefined) return venue?.stop();
      const active = runtime;
      try {
        await runOnVirtualClock(clock, () => active.stop(), { busy: pending.busy });
      } finally {
        venue?.stop();
      }
    },
  };
  return harness;
}
