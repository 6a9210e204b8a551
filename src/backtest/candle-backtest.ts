/**
 * The candle backtest: a run file's bar strategies on a candle feed (feeds/candle-feed.ts), filled
 * by the bar rules (candle-fill-rules.ts) in one tight loop over the feed's columns.
 *
 * Why not through the execution engine, as the event backtest goes: a candle holds no book, no
 * trades and no times inside it, so the engine's work (signing, nonces, the relay's outcomes, order
 * events, the venue's blocks and polls on the virtual clock) would have nothing of the market to
 * meet, and would cost thousands of events per bar: a candle backtest is for long histories (a year
 * of minutes is 525,600 bars) at hundreds of thousands of bars a second. What is the same: the
 * strategy module and its StrategyContext, hosted by the runtime's own strategy host (its params,
 * intent checks, fates, trading state, figures), the run file and its market, the market's fees,
 * and the summary, metrics and output files (cli/backtest/backtest-outputs.ts).
 *
 * The loop, per bar: the clock moves to its open; the intents the strategies emitted since the last
 * bar are carried out at the open, in order; the resting orders the bar reaches fill; the clock moves
 * to its end (timers inside it run); the fills, then the new own state, then the bar itself go to the
 * strategies, whose intents wait for the next bar's open. So no intent fills inside the bar that
 * produced it. Prices are read from the batch's BigInt64Array columns as they are; one `Candle` per
 * bar is made, the one `klines$` emits.
 */
import { BehaviorSubject, NEVER, Subject, type Observable } from 'rxjs';
import { BaseError } from '../core/base-error.ts';
import type { Logger } from '../core/logger.ts';
import { seededRandom } from '../core/random.ts';
import { VirtualClock } from '../core/virtual-clock.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import type { Candle } from '../market/candle.ts';
import type { FeedHealth } from '../market/feed-health.ts';
import type { Intent } from '../strategy/intents.ts';
import type { LoadedStrategy } from '../strategy/load-strategy.ts';
import type { IntentFate, IntentFateReport, OwnFill, OwnMarketState, StrategyMarket, TradingState } from '../strategy/strategy-context.ts';
import type { CandleFeedReader } from '../feeds/candle-feed.ts';
import { createStrategyHost, type StrategyHost } from '../runtime/strategy-host.ts';
import type { StopReason } from '../runtime/stop-reason.ts';
import { backtestMetrics, type BacktestMetrics } from './backtest-metrics.ts';
import type { BacktestSamples } from './backtest-sampler.ts';
import { CandleAccount, type CandleFunding } from './candle-account.ts';
import { createCandleSampler } from './candle-sampler.ts';

/** At most this many samples of equity, inventory and quotes (thinned evenly beyond; an even number). */
export const CANDLE_MAX_SAMPLES = 100_000;
/** A strategy that has emitted nothing after this many bars gets a warning. */
const IDLE_WARN_BARS = 1_000;

export interface CandleBacktestParameters {
  readonly feed: CandleFeedReader;
  /** The market traded: the feed's, as the run file gives it. */
  readonly spec: MarketSpec;
  /** Price units per feed tick, size units per feed lot. */
  readonly unitsPerTick: bigint;
  readonly unitsPerLot: bigint;
  readonly strategies: readonly LoadedStrategy[];
  /** The run file's `idleTimeout` of each strategy, ms (absent: off). */
  readonly idleTimeoutMs?: ReadonlyMap<string, number>;
  readonly funding: CandleFunding;
  /** Only the bars that open in [fromMs, toMs). */
  readonly fromMs?: number;
  readonly toMs?: number;
  /** Seeds the strategies' random sources as a run or an event backtest does. */
  readonly seed: number;
  /** The run's clock (its logger's too), at or before the first bar: the backtest moves it from bar to bar. */
  readonly clock: VirtualClock;
  readonly logger: Logger;
}

/** What the feed gave. */
export interface CandleStats {
  /** Bars replayed. */
  readonly candles: number;
  /** Open time of the first bar and end of the last (close time + 1 ms), ms; undefined without bars. */
  readonly firstMs: number | undefined;
  readonly lastMs: number | undefined;
  /** The length of the first bar, ms. */
  readonly intervalMs: number | undefined;
}

export interface CandleRun {
  readonly reason: StopReason;
  readonly hosts: readonly StrategyHost[];
  readonly samples: BacktestSamples;
  readonly metrics: BacktestMetrics;
  readonly stats: CandleStats;
  /** The return interval of the Sharpe and Sortino ratios: the bars between two samples. */
  readonly returnIntervalMs: number;
  /** Orders the run cancelled when it ended. */
  readonly cancelledAtEnd: number;
  readonly endMs: number;
}

export interface CandleBacktest {
  /** Every intent's fate (`IntentReport`s, as the engine's `reports$`). */
  readonly reports$: Observable<IntentFateReport>;
  readonly fills$: Observable<OwnFill>;
  readonly state$: Observable<OwnMarketState>;
  /** Reads the feed and runs the strategies to its end, or until they stop; a second call gets the same run. */
  run(): Promise<CandleRun>;
}

const noBars = (strategy: LoadedStrategy) =>
  new BaseError('BACKTEST_NO_BARS', `strategy ${strategy.name} (${strategy.module}) reads no bars (its market's klines$): a candle feed cannot drive it; backtest it on an event feed`, {
    details: { strategy: strategy.name, module: strategy.module },
  });

/**
 * @example
 * const backtest = createCandleBacktest({ feed, spec, unitsPerTick: 1n, unitsPerLot: 10n, strategies, funding, seed: 1, clock: new VirtualClock(0), logger });
 * backtest.fills$.subscribe((fill) => fills.push(fill));
 * const run = await backtest.run();
 */
export function createCandleBacktest(params: CandleBacktestParameters): CandleBacktest {
  const { feed, spec, unitsPerTick, unitsPerLot, clock, logger } = params;
  const fromMs = params.fromMs ?? Number.NEGATIVE_INFINITY;
  const toMs = params.toMs ?? Number.POSITIVE_INFINITY;
  for (const strategy of params.strategies) {
    const others = strategy.markets.filter((symbol) => symbol !== spec.symbol);
    if (others.length > 0) {
      throw new BaseError('FEED_FOREIGN', `${feed.path}: a candle feed of ${spec.symbol} only, and strategy ${strategy.name} also trades ${others.join(', ')}`, { details: { path: feed.path, strategy: strategy.name } });
    }
  }
  const account = new CandleAccount(spec, params.funding);
  const reports = new Subject<IntentFateReport>();
  const fills = new Subject<OwnFill>();
  const state = new BehaviorSubject<OwnMarketState>(account.state());
  const tradingState = new BehaviorSubject<TradingState>({ state: 'ACTIVE' });
  // Nothing is polled on candles: no book, trades or ticker, only bars.
  const health = new BehaviorSubject<FeedHealth>({ depth: { status: 'idle' }, trades: { status: 'idle' }, ticker: { status: 'idle' } });
  let intentCount = 0;
  let queue: { readonly intent: Intent; readonly settle: (fate: IntentFate) => void }[] = [];
  let lastSettled: Promise<unknown> = Promise.resolve();
  const submit = (intent: Intent): Promise<IntentFate> => {
    const fate = new Promise<IntentFate>((settle) => queue.push({ intent, settle }));
    lastSettled = fate;
    return fate;
  };
  const settle = (item: (typeof queue)[number], fate: IntentFate) => {
    item.settle(fate);
    reports.next({ intent: item.intent, fate });
  };
  /** The fills since the last call, then the state they made (fills first: the state no longer holds a filled order). */
  const publish = () => {
    for (const fill of account.takeFills()) fills.next(fill);
    const next = account.state();
    if (next !== state.value) state.next(next);
  };

  const run = async (): Promise<CandleRun> => {
    const batches = feed.batches();
    let first = await batches.next();
    while (first.done !== true && first.value.length === 0) first = await batches.next();
    const firstOpenMs = first.done === true ? 0 : Number(first.value.openTime[0]! / 1_000_000n);
    const intervalMs = first.done === true ? undefined : Number((first.value.closeTime[0]! - first.value.openTime[0]!) / 1_000_000n) + 1;
    const startMs = Number.isFinite(fromMs) && fromMs > firstOpenMs ? fromMs : firstOpenMs;
    if (startMs > clock.now()) clock.advanceTo(startMs);

    // 1. The strategies, each with its own bars subject (to tell which reads none).
    let stopReason: StopReason | undefined;
    const bars: Subject<Candle>[] = [];
    const hosts = params.strategies.map((strategy, index) => {
      const klines = new Subject<Candle>();
      bars.push(klines);
      const market: StrategyMarket = {
        spec,
        feed: { book$: NEVER, bbo$: NEVER, mid$: NEVER, trades$: NEVER, ticker$: NEVER, klines$: klines, health$: health },
        state$: state,
        fills$: fills,
      };
      const idleTimeoutMs = params.idleTimeoutMs?.get(strategy.name);
      return createStrategyHost({
        strategy,
        markets: new Map([[spec.symbol, market]]),
        clock,
        random: seededRandom((params.seed + 7919 * (index + 1)) | 0),
        logger,
        submit,
        reports$: reports,
        tradingState$: tradingState,
        idleWarnMs: IDLE_WARN_BARS * (intervalMs ?? 60_000),
        ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
        onFailure: (error) => (stopReason ??= { kind: 'failed', strategy: strategy.name, code: error.code }),
        onComplete: () => {
          if (hosts.every((host) => host.completed())) stopReason ??= { kind: 'completed' };
        },
      });
    });
    for (const host of hosts) host.start();
    const deaf = hosts.findIndex((host, index) => host.failure() === undefined && !host.completed() && !bars[index]!.observed);
    if (deaf >= 0) {
      for (const host of hosts) host.stop();
      throw noBars(params.strategies[deaf]!);
    }

    // 2. The bars.
    // The first batch's length times the batches: the bars, when every batch but the last is as long.
    const sampler = createCandleSampler(CANDLE_MAX_SAMPLES, first.done === true ? 0 : first.value.length * feed.batchCount);
    const lotQuote = unitsPerTick * unitsPerLot;
    // A feed in the market's own units needs no conversion: no bigint made for it.
    const perTick = unitsPerTick !== 1n;
    const perLot = unitsPerLot !== 1n;
    const perQuote = lotQuote !== 1n;
    let candles = 0;
    let firstMs: number | undefined;
    let lastMs: number | undefined;
    let lastClose = 0n;
    let batch = first;
    outer: while (batch.done !== true && stopReason === undefined) {
      const { length, openTime, closeTime, open: opens, high: highs, low: lows, close: closes, volume, quoteVolume, trades } = batch.value;
      for (let i = 0; i < length; i += 1) {
        const openMs = Number(openTime[i]! / 1_000_000n);
        if (openMs < fromMs) continue;
        if (openMs >= toMs) break outer;
        const closeMs = Number(closeTime[i]! / 1_000_000n);
        const open = perTick ? opens[i]! * unitsPerTick : opens[i]!;
        const high = perTick ? highs[i]! * unitsPerTick : highs[i]!;
        const low = perTick ? lows[i]! * unitsPerTick : lows[i]!;
        const close = perTick ? closes[i]! * unitsPerTick : closes[i]!;
        if (openMs > clock.now()) clock.advanceTo(openMs);
        if (queue.length > 0) {
          const due = queue;
          queue = [];
          for (const item of due) settle(item, account.apply(item.intent, open, openMs, (intentCount += 1)));
          publish();
        }
        const filled = account.resting && account.fillResting(open, high, low, closeMs, candles);
        if (closeMs + 1 > clock.now()) clock.advanceTo(closeMs + 1);
        if (filled) publish();
        if (sampler.due(candles)) {
          const { bestBid, bestAsk } = account.quotes();
          sampler.add(closeMs + 1, account.equity(close), account.position, close, bestBid, bestAsk);
        }
        firstMs ??= openMs;
        lastMs = closeMs + 1;
        lastClose = close;
        candles += 1;
        const candle: Candle = { openTime: openMs, closeTime: closeMs, open, high, low, close, volume: perLot ? volume[i]! * unitsPerLot : volume[i]!, quoteVolume: perQuote ? quoteVolume[i]! * lotQuote : quoteVolume[i]!, numTrades: Number(trades[i]!) };
        for (const klines of bars) klines.next(candle);
        if (stopReason !== undefined) break outer;
      }
      batch = await batches.next();
    }
    await batches.return?.();

    // 3. The end, as a run's: the strategies hear HALTED, what they emitted after the last bar is refused, resting orders are cancelled.
    const endMs = clock.now();
    for (const host of hosts) host.stop('the candles ended');
    for (const item of queue) settle(item, { status: 'REFUSED', code: 'ENGINE_STOPPED', message: 'the backtest ended: no bar came after it to carry it out' });
    queue = [];
    const cancelledAtEnd = account.cancelAll();
    publish();
    if (lastMs !== undefined) {
      const { bestBid, bestAsk } = account.quotes();
      sampler.add(endMs, account.equity(lastClose), account.position, lastClose, bestBid, bestAsk);
    }
    // The hosts count fates as their promises settle.
    await lastSettled;
    const samples = sampler.samples;
    const returnIntervalMs = (intervalMs ?? 60_000) * sampler.stride;
    const capital = samples.equity[0]?.equity ?? 0n;
    return {
      reason: stopReason ?? { kind: 'duration', ms: endMs - (firstMs ?? endMs) },
      hosts,
      samples,
      metrics: backtestMetrics({ ...samples, intervalMs: returnIntervalMs, capital: capital > 0n ? capital : 1n, endMs }),
      stats: { candles, firstMs, lastMs, intervalMs },
      returnIntervalMs,
      cancelledAtEnd,
      endMs,
    };
  };

  let running: Promise<CandleRun> | undefined;
  return {
    reports$: reports.asObservable(),
    fills$: fills.asObservable(),
    state$: state.asObservable(),
    run: () => (running ??= run()),
  };
}
