/**
 * The whole feed on a virtual clock, over a scripted MarketDataSource (the transport seam).
 */
import { Writable } from 'node:stream';
import type { Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/logger.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import type { Depth, Kline, Ticker24hr, Trade } from '../../src/protocol/market-data.ts';
import type { Bbo } from '../../src/market/bbo.ts';
import type { Candle } from '../../src/market/candle.ts';
import { createMarketFeed } from '../../src/market/create-market-feed.ts';
import type { FeedHealth, SourceHealth } from '../../src/market/feed-health.ts';
import type { MarketFeedPlan } from '../../src/market/market-feed-plan.ts';
import type { OrderBookView } from '../../src/market/order-book-model.ts';
import type { UnitTrade } from '../../src/market/unit-trade.ts';
import { runFor, ScriptedSource, type Answer } from './support/scripted-source.ts';

const T0 = Date.UTC(2024, 7, 8, 23, 55);
const market = { pricePrecision: 100n, sizePrecision: 1000n };
const plan: MarketFeedPlan = {
  symbol: 'MON_USDC',
  market,
  depth: { everyMs: 1_000, limit: 100 },
  trades: { everyMs: 1_000, limit: 500 },
  ticker: { everyMs: 5_000 },
};

const depth = (lastUpdateId: number, bid = '10', ask = '11'): Answer<Depth> => ({
  value: { lastUpdateId, bids: [[bid, '1']], asks: [[ask, '2']] },
});
const trades = (...ids: number[]): Answer<Trade[]> => ({
  value: ids.map((id) => ({ id, price: '10.5', qty: '0.001', time: T0 + id, isBuyerMaker: id % 2 === 0 })),
});
const ticker = (lastPrice: string): Answer<Ticker24hr> => ({
  value: {
    symbol: 'MON_USDC',
    priceChange: '-0.1',
    priceChangePercent: '-1',
    lastPrice,
    bidPrice: '10',
    askPrice: '11',
    openPrice: '10.6',
    highPrice: '11',
    lowPrice: '9',
    volume: '100',
    quoteVolume: '1000',
    openTime: T0 - 86_400_000,
    closeTime: T0,
    count: 5,
  },
});

function setup(extra: Partial<MarketFeedPlan> = {}, options: Parameters<typeof createMarketFeed>[3] = {}) {
  const clock = new VirtualClock(T0);
  const source = new ScriptedSource(clock);
  const feed = createMarketFeed(source, { ...plan, ...extra }, clock, options);
  const health: FeedHealth[] = [];
  const subscriptions: Subscription[] = [feed.health$.subscribe((h) => health.push(h))];
  const collect = <T>(stream: { subscribe(next: (value: T) => void): Subscription }) => {
    const seen: T[] = [];
    const subscription = stream.subscribe((value: T) => seen.push(value));
    subscriptions.push(subscription);
    return { seen, subscription };
  };
  const statuses = (name: keyof FeedHealth) =>
    health
      .map((h) => h[name])
      .filter((h, i, all): h is SourceHealth => h !== undefined && (i === 0 || h !== all[i - 1]));
  return { clock, source, feed, health, collect, statuses, stop: () => subscriptions.forEach((s) => s.unsubscribe()) };
}

const callTimes = (source: ScriptedSource, method: string) => source.callsOf(method).map((call) => call.at - T0);

describe('createMarketFeed', () => {
  it('refuses a plan over the weight budget at creation, stating the weight per minute', () => {
    const clock = new VirtualClock(T0);
    expect(() => createMarketFeed(new ScriptedSource(clock), { ...plan, depth: { everyMs: 500, limit: 1_000 } }, clock)).toThrowError(
      expect.objectContaining({ code: 'MARKET_PLAN_OVER_BUDGET', message: expect.stringContaining('1272 request weight per minute') }),
    );
    expect(() => createMarketFeed(new ScriptedSource(clock), plan, clock, { weightBudgetPerMinute: 100 })).toThrowError(
      expect.objectContaining({ code: 'MARKET_PLAN_OVER_BUDGET', details: expect.objectContaining({ weightPerMinute: 132 }) }),
    );
  });

  it('polls each source once however many subscribers, on the clock, and only while subscribed', async () => {
    const { clock, source, feed, collect, statuses } = setup();
    source.script('depth', [depth(1), depth(2), depth(3), depth(4)]);
    await runFor(clock, 5_000);
    expect(source.calls).toEqual([]); // health$ alone polls nothing

    const a = collect<OrderBookView>(feed.book$);
    const b = collect<OrderBookView>(feed.book$);
    const c = collect<Bbo>(feed.bbo$);
    await runFor(clock, 2_500);
    expect(callTimes(source, 'depth')).toEqual([5_000, 6_000, 7_000]);
    expect(a.seen.map((book) => book.lastUpdateId)).toEqual([1, 2, 3]);
    expect(b.seen).toEqual(a.seen); // the same book objects
    expect(c.seen.map((bbo) => bbo.lastUpdateId)).toEqual([1]); // the top did not change

    // a late subscriber gets the latest book at once
    const late = collect<OrderBookView>(feed.book$);
    expect(late.seen.map((book) => book.lastUpdateId)).toEqual([3]);

    for (const s of [a, b, c, late]) s.subscription.unsubscribe();
    await runFor(clock, 5_000);
    expect(callTimes(source, 'depth')).toEqual([5_000, 6_000, 7_000]);
    expect(statuses('depth').map((h) => h.status)).toEqual(['idle', 'pending', 'ok', 'ok', 'ok', 'idle']);
    expect(source.callsOf('depth')[0]?.parameters).toEqual({ symbol: 'MON_USDC', limit: 100, state: 'committed' });
  });

  it('never lets book$ go back: older or equal lastUpdateIds are dropped, also after a pause', async () => {
    const { clock, source, feed, collect, stop } = setup();
    source.script('depth', [depth(5), depth(4), depth(5), depth(7, '10.5'), depth(6), depth(9, '10.25')]);
    const books = collect<OrderBookView>(feed.book$);
    const mids = collect(feed.mid$);
    await runFor(clock, 4_500);
    expect(books.seen.map((book) => book.lastUpdateId)).toEqual([5, 7]);
    expect(mids.seen.map((mid) => mid.toFixed())).toEqual(['1050', '1075']);
    books.subscription.unsubscribe();
    mids.subscription.unsubscribe();
    // resubscribed: the next answer (6) is still older than the last book emitted (7)
    const again = collect<OrderBookView>(feed.book$);
    await runFor(clock, 1_500);
    expect(again.seen.map((book) => book.lastUpdateId)).toEqual([9]);
    expect(again.seen[0]?.toHuman()).toEqual({ lastUpdateId: 9, bids: [['10.25', '1']], asks: [['11', '2']] });
    stop();
  });

  it('emits each trade once in id order across overlapping polls, and reports gaps on health$', async () => {
    const { clock, source, feed, collect, statuses, stop } = setup();
    source.script('trades', [trades(1, 2, 3), trades(2, 3, 4), trades(4), trades(8, 9), trades(9, 10)]);
    const seen = collect<UnitTrade>(feed.trades$);
    const other = collect<UnitTrade>(feed.trades$);
    await runFor(clock, 4_500);
    expect(seen.seen.map((t) => t.id)).toEqual([1, 2, 3, 4, 8, 9, 10]);
    expect(other.seen).toEqual(seen.seen);
    expect(seen.seen[0]).toEqual({ id: 1, time: T0 + 1, price: 1_050n, qty: 1n, isBuyerMaker: false });
    expect(callTimes(source, 'trades')).toEqual([0, 1_000, 2_000, 3_000, 4_000]);
    expect(source.callsOf('trades')[0]?.parameters).toEqual({ symbol: 'MON_USDC', limit: 500 });
    expect(statuses('trades')).toEqual([
      { status: 'idle' },
      { status: 'pending', since: T0 },
      { status: 'ok', at: T0 },
      { status: 'ok', at: T0 + 1_000 },
      { status: 'ok', at: T0 + 2_000 },
      { status: 'gap', at: T0 + 3_000, expected: 5, got: 8 },
      { status: 'ok', at: T0 + 4_000 },
    ]);
    stop();
  });

  it('backs off after failed polls, reports the source stale since the first failure, and recovers', async () => {
    const { clock, source, feed, collect, statuses, stop } = setup();
    const down = new Error('HTTP 503');
    source.script('depth', [depth(1), { error: down }, { error: down }, { error: down }, depth(2), depth(3)]);
    const books = collect<OrderBookView>(feed.book$);
    let completed = false;
    const watcher = feed.book$.subscribe({ complete: () => (completed = true), error: () => (completed = true) });
    await runFor(clock, 10_500);
    // answers at 0; failures at 1000 (+1000), 2000 (+2000), 4000 (+4000); answers at 8000 and 9000
    expect(callTimes(source, 'depth')).toEqual([0, 1_000, 2_000, 4_000, 8_000, 9_000, 10_000]);
    expect(books.seen.map((book) => book.lastUpdateId)).toEqual([1, 2, 3]);
    expect(completed).toBe(false);
    expect(statuses('depth').slice(2, 7)).toEqual([
      { status: 'ok', at: T0 },
      { status: 'stale', since: T0 + 1_000, error: down, failures: 1, retryAt: T0 + 2_000, lastOkAt: T0 },
      { status: 'stale', since: T0 + 1_000, error: down, failures: 2, retryAt: T0 + 4_000, lastOkAt: T0 },
      { status: 'stale', since: T0 + 1_000, error: down, failures: 3, retryAt: T0 + 8_000, lastOkAt: T0 },
      { status: 'ok', at: T0 + 8_000 },
    ]);
    watcher.unsubscribe();
    stop();
  });

  it('follows a venue that restarted with its state wiped: ids that begin again after a failure are a new sequence', async () => {
    const { clock, source, feed, collect, stop } = setup();
    const down = new Error('connection refused');
    // Without a failure between them, an older answer is a lagging replica's: dropped.
    source.script('depth', [depth(50), depth(49), { error: down }, depth(3), depth(2), depth(4)]);
    source.script('trades', [trades(40, 41), trades(39, 40), { error: down }, trades(1, 2), trades(1, 2, 3)]);
    const books = collect<OrderBookView>(feed.book$);
    const seen = collect<UnitTrade>(feed.trades$);
    await runFor(clock, 6_500);
    expect(books.seen.map((book) => book.lastUpdateId)).toEqual([50, 3, 4]);
    expect(seen.seen.map((trade) => trade.id)).toEqual([40, 41, 1, 2, 3]);
    stop();
  });

  it('treats an answer that does not fit the market as a failed poll, and a hung call as one after timeoutMs', async () => {
    const { clock, source, feed, collect, statuses, stop } = setup({}, { timeoutMs: 3_000 });
    source.script('depth', [{ value: { lastUpdateId: 1, bids: [['10.001', '1']], asks: [] } }, 'hang', depth(2)]);
    const books = collect<OrderBookView>(feed.book$);
    await runFor(clock, 6_500);
    const [bad, hung] = statuses('depth').filter((h) => h.status === 'stale');
    expect(bad).toMatchObject({ since: T0, failures: 1, lastOkAt: undefined, error: expect.objectContaining({ code: 'UNITS_NOT_REPRESENTABLE' }) });
    // the call at 1000 hangs: it fails at 4000 and is aborted; retried at 4000 + 2000
    expect(hung).toMatchObject({ since: T0, failures: 2, retryAt: T0 + 6_000, error: expect.objectContaining({ name: 'TimeoutError' }) });
    expect(source.callsOf('depth').map((call) => [call.at - T0, call.aborted])).toEqual([
      [0, false],
      [1_000, true],
      [6_000, false],
    ]);
    expect(books.seen.map((book) => book.lastUpdateId)).toEqual([2]);
    stop();
  });

  it('polls the ticker and klines, replays the latest ticker, emits new and changed candles', async () => {
    const { clock, source, feed, collect, health, stop } = setup({ klines: { everyMs: 60_000, interval: '1m', limit: 2 } });
    const kline = (openTime: number, close: string, numTrades: number): Kline => ({
      openTime,
      open: '10',
      high: '11',
      low: '9',
      close,
      volume: '1.5',
      closeTime: openTime + 59_999,
      quoteVolume: '15.75',
      numTrades,
    });
    source.script('ticker24hr', [ticker('10.5'), ticker('10.6')]);
    source.script('klines', [{ value: [kline(T0 - 60_000, '10', 3), kline(T0, '10.5', 1)] }, { value: [kline(T0, '10.75', 4), kline(T0 + 60_000, '10.8', 1)] }]);
    const tickers = collect<Ticker24hr>(feed.ticker$);
    const candles = collect<Candle>(feed.klines$);
    await runFor(clock, 60_500);
    expect(tickers.seen.map((t) => t.lastPrice)).toEqual(['10.5', '10.6', '10.6', '10.6', '10.6', '10.6', '10.6', '10.6', '10.6', '10.6', '10.6', '10.6', '10.6']);
    expect(collect<Ticker24hr>(feed.ticker$).seen.map((t) => t.lastPrice)).toEqual(['10.6']);
    expect(candles.seen.map((c) => [c.openTime - T0, c.close, c.numTrades])).toEqual([
      [-60_000, 1_000n, 3],
      [0, 1_050n, 1],
      [0, 1_075n, 4],
      [60_000, 1_080n, 1],
    ]);
    expect(candles.seen[0]).toMatchObject({ volume: 1_500n, quoteVolume: 1_575_000n });
    expect(source.callsOf('klines')[0]?.parameters).toEqual({ symbol: 'MON_USDC', interval: '1m', limit: 2 });
    expect(health.at(-1)?.klines).toEqual({ status: 'ok', at: T0 + 60_000 });
    stop();
  });

  it('has no klines stream nor klines health without klines in the plan', async () => {
    const { feed, health } = setup();
    let completed = false;
    feed.klines$.subscribe({ complete: () => (completed = true) });
    expect(completed).toBe(true);
    expect(health.at(-1)).toEqual({ depth: { status: 'idle' }, trades: { status: 'idle' }, ticker: { status: 'idle' } });
  });

  it('logs failures and recoveries through the given logger, never on the console', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ level: 'info', destination });
    const { clock, source, feed, collect, stop } = setup({}, { logger });
    source.script('ticker24hr', [{ error: new Error('socket hang up') }, ticker('10')]);
    collect(feed.ticker$);
    await runFor(clock, 5_500);
    stop();
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map((r) => [r['msg'], r['source'], r['component'], r['symbol']])).toEqual([
      ['market source poll failed', 'ticker', 'market-feed', 'MON_USDC'],
      ['market source recovered', 'ticker', 'market-feed', 'MON_USDC'],
    ]);
  });
});
