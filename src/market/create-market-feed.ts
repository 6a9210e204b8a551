/**
 * `createMarketFeed`: RxJS market streams of one symbol from a polled `MarketDataSource`.
 * docs/market-data.md describes the options, the health states and the rules of each stream.
 */
import { concatMap, defer, distinctUntilChanged, EMPTY, filter, finalize, map, tap, type Observable } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import { Decimal } from '../core/decimal.ts';
import { createLogger, type Logger } from '../core/logger.ts';
import type { RandomSource } from '../core/random.ts';
import type { MarketDataSource } from '../clients/market-data-source.ts';
import type { Ticker24hr } from '../protocol/market-data.ts';
import { bboOf, sameBbo, type Bbo } from './bbo.ts';
import { klineToCandle, type Candle } from './candle.ts';
import { FeedHealthBoard, type FeedHealth } from './feed-health.ts';
import { resolveMarketFeedPlan, type MarketFeedPlan, type PlanWeight, type PolledSource, type ResolvedMarketFeedPlan } from './market-feed-plan.ts';
import { dedupeTrades } from './operators/dedupe-trades.ts';
import { latestCandles } from './operators/latest-candles.ts';
import { monotonicBook } from './operators/monotonic-book.ts';
import { poll, type BackoffParameters, type PollEvent, type PollValue } from './operators/poll.ts';
import { shareEvents, shareLatest } from './operators/share-latest.ts';
import { OrderBook, type OrderBookView } from './order-book-model.ts';
import { parseDepthBody } from './parse-depth-body.ts';
import { tradesToUnits, type UnitTrade } from './unit-trade.ts';

export interface MarketFeedOptions {
  /** Parent logger; the feed logs as its child `{ component: 'market-feed', symbol }`. Default: silent. */
  readonly logger?: Logger;
  /** Request weight per minute the plan may spend (default `MARKET_DATA_WEIGHT_PER_MINUTE`, 1200). */
  readonly weightBudgetPerMinute?: number;
  /** Backoff after failed polls (default: factor 2, at most 30 s). */
  readonly backoff?: BackoffParameters;
  /** A poll without an answer after this long fails, client retries included (default 30 000 ms). */
  readonly timeoutMs?: number;
  /** Spreads retries by up to `jitter` (a ratio, e.g. 0.2) of each backoff wait, drawn from `random`. Default: no jitter. */
  readonly random?: RandomSource;
  readonly jitter?: number;
}

export interface MarketFeed {
  /** Order books, each newer (`lastUpdateId`) than the last; late subscribers get the latest at once. */
  readonly book$: Observable<OrderBookView>;
  /** Best bid and offer, when its prices or sizes change; replays the latest. */
  readonly bbo$: Observable<Bbo>;
  /** (best bid + best ask) / 2 in price units, when it changes; only while both sides have a level. Replays the latest. */
  readonly mid$: Observable<Decimal>;
  /** Each trade once, ascending id, across overlapping polls. Not replayed. */
  readonly trades$: Observable<UnitTrade>;
  /** The 24-hour ticker as polled (wire strings); replays the latest. */
  readonly ticker$: Observable<Ticker24hr>;
  /** Candles when new or changed, ascending open time (EMPTY when the plan has no klines). Not replayed. */
  readonly klines$: Observable<Candle>;
  /** Health of each source; the current state at once, then every change. Subscribing to it polls nothing. */
  readonly health$: Observable<FeedHealth>;
  /** The checked plan, with defaults. */
  readonly plan: ResolvedMarketFeedPlan;
  /** Its request weight per minute when every source is polled. */
  readonly weight: PlanWeight;
}

const isValue = <T>(event: PollEvent<T>): event is PollValue<T> => event.kind === 'value';

/**
 * Market streams of one symbol. Each source is polled once however many subscribers its streams
 * have (reference counted: polling starts with the first subscriber and stops with the last), on
 * `clock.scheduler`, so the same feed runs on wall time and in a backtest. Streams never error or
 * complete: failed polls back off and retry, and `health$` tells which source is stale since when.
 * A plan that would spend more request weight per minute than the budget is refused here, with
 * `MARKET_PLAN_OVER_BUDGET` stating the computed weight.
 *
 * @example
 * const feed = createMarketFeed(client, {
 *   symbol: 'MON_USDC',
 *   market: { pricePrecision: 10_000n, sizePrecision: 1_000n },
 *   depth: { everyMs: 1_000, limit: 100 },
 *   trades: { everyMs: 1_000 },
 *   ticker: { everyMs: 10_000 },
 * }, liveClock, { logger });
 * feed.bbo$.subscribe(({ bid, ask }) => log.info({ bid: bid?.price, ask: ask?.price }, 'top of book'));
 */
export function createMarketFeed(source: MarketDataSource, plan: MarketFeedPlan, clock: Clock, options: MarketFeedOptions = {}): MarketFeed {
  const { plan: resolved, weight } = resolveMarketFeedPlan(plan, { budgetPerMinute: options.weightBudgetPerMinute });
  const { symbol, market } = resolved;
  const log = (options.logger ?? createLogger({ level: 'silent' })).child({ component: 'market-feed', symbol });
  const sources: PolledSource[] = resolved.klines ? ['depth', 'trades', 'ticker', 'klines'] : ['depth', 'trades', 'ticker'];
  const board = new FeedHealthBoard(sources, log);
  const scheduler = clock.scheduler;
  const jitter = options.random && options.jitter ? { random: options.random, ratio: options.jitter } : undefined;

  // Sources that failed since their last answer was taken: the venue may have restarted with its
  // state wiped, so ids that go back begin a new sequence instead of being dropped until they catch up.
  const failedSinceTaken = new Set<PolledSource>();
  const restartedAfterFailure = (name: PolledSource) => () => failedSinceTaken.has(name);

  /** Answers of one source; failures go to the health board. Polling runs while subscribed. */
  const polled = <T>(name: PolledSource, everyMs: number, fetch: (signal: AbortSignal) => PromiseLike<T>): Observable<PollValue<T>> =>
    defer(() => {
      board.started(name, clock.now());
      return poll(fetch, { everyMs, scheduler, timeoutMs: options.timeoutMs, backoff: options.backoff, jitter });
    }).pipe(
      tap((event) => {
        if (event.kind !== 'error') return;
        board.failed(name, event);
        failedSinceTaken.add(name);
      }),
      filter(isValue),
      finalize(() => board.stopped(name)),
    );

  // Cursors outlive a pause in subscriptions: book$ never goes back and no trade comes twice over the feed's life.
  let lastBookId: number | undefined;
  let lastTradeId: number | undefined;
  let lastCandle: Candle | undefined;

  const depthQuery = { symbol, limit: resolved.depth.limit, state: resolved.depth.state };
  const book$ = defer(() =>
    polled('depth', resolved.depth.everyMs, (signal) =>
      source.depthBody
        ? source.depthBody(depthQuery, { signal }).then((body) => parseDepthBody(body, market))
        : source.depth(depthQuery, { signal }).then((depth) => OrderBook.fromDepth(depth, market)),
    ).pipe(
      tap((event) => board.ok('depth', event.at)),
      map((event): OrderBookView => event.value),
      monotonicBook({
        afterUpdateId: lastBookId,
        onDrop: (book, last) => log.debug({ lastUpdateId: book.lastUpdateId, last }, 'dropped a book older than the last one'),
        restarted: restartedAfterFailure('depth'),
        onRestart: (book, last) => log.info({ lastUpdateId: book.lastUpdateId, last }, "the book's update ids began again after the depth source failed: the venue restarted, its new sequence is followed"),
      }),
      tap((book) => {
        lastBookId = book.lastUpdateId;
        failedSinceTaken.delete('depth');
      }),
    ),
  ).pipe(shareLatest());

  const bbo$ = book$.pipe(map(bboOf), distinctUntilChanged(sameBbo), shareLatest());

  // Compared as bid + ask (twice the mid, exact): a Decimal only for a mid that changed.
  const mid$ = bbo$.pipe(
    map((bbo) => bboPriceSum(bbo)),
    filter((sum): sum is bigint => sum !== undefined),
    distinctUntilChanged(),
    map((sum) => new Decimal(sum.toString()).div(2)),
    shareLatest(),
  );

  const trades$ = defer(() =>
    polled('trades', resolved.trades.everyMs, (signal) =>
      source.trades(resolved.trades.limit === undefined ? { symbol } : { symbol, limit: resolved.trades.limit }, { signal }).then((trades) => tradesToUnits(trades, market)),
    ).pipe(
      map((event) => event.value),
      dedupeTrades<UnitTrade>({
        afterId: lastTradeId,
        restarted: restartedAfterFailure('trades'),
        onRestart: (newestId, lastId) => log.info({ newestId, lastId }, 'the trade ids began again after the trades source failed: the venue restarted, its new sequence is followed'),
      }),
      tap((batch) => {
        failedSinceTaken.delete('trades');
        if (batch.gap) board.gap('trades', batch.gap, clock.now());
        else board.ok('trades', clock.now());
        lastTradeId = batch.lastId;
      }),
      concatMap((batch) => batch.trades),
    ),
  ).pipe(shareEvents());

  const ticker$ = polled('ticker', resolved.ticker.everyMs, (signal) => source.ticker24hr({ symbol }, { signal })).pipe(
    tap((event) => board.ok('ticker', event.at)),
    map((event) => event.value),
    shareLatest(),
  );

  const klinesPlan = resolved.klines;
  const klines$: Observable<Candle> = klinesPlan
    ? defer(() =>
        polled('klines', klinesPlan.everyMs, (signal) =>
          source
            .klines(klinesPlan.limit === undefined ? { symbol, interval: klinesPlan.interval } : { symbol, interval: klinesPlan.interval, limit: klinesPlan.limit }, { signal })
            .then((klines) => klines.map((kline) => klineToCandle(kline, market))),
        ).pipe(
          tap((event) => board.ok('klines', event.at)),
          map((event) => event.value),
          latestCandles({ after: lastCandle }),
          tap((candle) => (lastCandle = candle)),
        ),
      ).pipe(shareEvents())
    : EMPTY;

  return { book$, bbo$, mid$, trades$, ticker$, klines$, health$: board.health$, plan: resolved, weight };
}

/** bid + ask in price units: twice the mid of `OrderBook.mid()`. */
function bboPriceSum(bbo: Bbo): bigint | undefined {
  return bbo.bid && bbo.ask ? bbo.bid.price + bbo.ask.price : undefined;
}
