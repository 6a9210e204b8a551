/** Trades, klines and the 24-hour ticker built from fills (Binance rules). */
import { describe, expect, it } from 'vitest';
import { klinesSchema, ticker24hrSchema, tradesSchema } from '../../src/protocol/market-data.ts';
import { MarketHistory, klineOpenTime } from '../../src/venue/market-history.ts';
import type { OrderFilled } from '../../src/venue/venue-events.ts';
import { monUsdc } from './fixtures.ts';

/** Monday 2025-01-06 00:00 UTC. */
const T0 = Date.UTC(2025, 0, 6);
const MIN = 60_000;

let tradeId = 0n;
function fill(price: bigint, size: bigint, takerSide: 'BUY' | 'SELL' = 'BUY'): OrderFilled {
  tradeId += 1n;
  return {
    type: 'OrderFilled',
    market: monUsdc.address,
    tradeId,
    price,
    size,
    quote: 0n,
    base: 0n,
    takerSide,
    makerOrderId: 1n,
    makerAccountId: 1n,
    makerSlot: 0,
    makerRemaining: 1n,
    makerFee: 0n,
    takerOrderId: 2n,
    takerAccountId: 2n,
    takerRemaining: 0n,
    takerFee: 0n,
  };
}

/** monUsdc: prices in 0.01, sizes in 0.001. Trades at minutes 0, 0, 3 (none in 1 and 2), 5. */
function history(): MarketHistory {
  tradeId = 0n;
  const h = new MarketHistory([monUsdc]);
  h.recordFill(fill(150n, 1000n), T0 + 1_000);
  h.recordFill(fill(160n, 500n, 'SELL'), T0 + 30_000);
  h.recordFill(fill(140n, 2000n), T0 + 3 * MIN + 5_000);
  h.recordFill(fill(145n, 1000n, 'SELL'), T0 + 5 * MIN);
  return h;
}

describe('MarketHistory: trades', () => {
  it('returns the newest trades, oldest first, in human decimals', () => {
    const trades = tradesSchema.parse(history().trades(monUsdc, 2));
    expect(trades).toEqual([
      { id: 3, price: '1.4', qty: '2', quoteQty: '2.8', time: T0 + 3 * MIN + 5_000, isBuyerMaker: false, isBestMatch: true },
      { id: 4, price: '1.45', qty: '1', quoteQty: '1.45', time: T0 + 5 * MIN, isBuyerMaker: true, isBestMatch: true },
    ]);
    expect(history().trades(monUsdc, 500)).toHaveLength(4);
  });
});

describe('MarketHistory: klines', () => {
  const now = T0 + 6 * MIN + 10_000;

  it('fills intervals without trades with a flat candle at the previous close and volume 0', () => {
    const klines = klinesSchema.parse(history().klines(monUsdc, { interval: '1m', limit: 500 }, now));
    expect(klines.map((k) => [k.openTime - T0, k.open, k.high, k.low, k.close, k.volume, k.quoteVolume, k.numTrades])).toEqual([
      [0, '1.5', '1.6', '1.5', '1.6', '1.5', '2.3', 2],
      [MIN, '1.6', '1.6', '1.6', '1.6', '0', '0', 0],
      [2 * MIN, '1.6', '1.6', '1.6', '1.6', '0', '0', 0],
      [3 * MIN, '1.4', '1.4', '1.4', '1.4', '2', '2.8', 1],
      [4 * MIN, '1.4', '1.4', '1.4', '1.4', '0', '0', 0],
      [5 * MIN, '1.45', '1.45', '1.45', '1.45', '1', '1.45', 1],
      // The current interval, still open.
      [6 * MIN, '1.45', '1.45', '1.45', '1.45', '0', '0', 0],
    ]);
    expect(klines[0]!.closeTime).toBe(T0 + MIN - 1);
  });

  it('without startTime answers the newest `limit` candles up to endTime', () => {
    const h = history();
    expect(h.klines(monUsdc, { interval: '1m', limit: 2 }, now).map((k) => k.openTime - T0)).toEqual([5 * MIN, 6 * MIN]);
    expect(h.klines(monUsdc, { interval: '1m', limit: 2, endTime: T0 + 4 * MIN + 1 }, now).map((k) => k.openTime - T0)).toEqual([3 * MIN, 4 * MIN]);
    expect(h.klines(monUsdc, { interval: '1m', limit: 500, endTime: T0 - 1 }, now)).toEqual([]);
  });

  it('with startTime answers candles opening at or after it, the first `limit`', () => {
    const h = history();
    // Binance: startTime inside a candle starts at the next candle.
    expect(h.klines(monUsdc, { interval: '1m', limit: 3, startTime: T0 + 1 }, now).map((k) => k.openTime - T0)).toEqual([MIN, 2 * MIN, 3 * MIN]);
    expect(h.klines(monUsdc, { interval: '1m', limit: 2, startTime: T0 + MIN }, now).map((k) => [k.openTime - T0, k.close])).toEqual([
      [MIN, '1.6'],
      [2 * MIN, '1.6'],
    ]);
    expect(
      h.klines(monUsdc, { interval: '1m', limit: 500, startTime: T0 + 2 * MIN, endTime: T0 + 4 * MIN }, now).map((k) => k.openTime - T0),
    ).toEqual([2 * MIN, 3 * MIN, 4 * MIN]);
    // A startTime before the first trade starts at the first trade's candle.
    expect(h.klines(monUsdc, { interval: '1m', limit: 1, startTime: T0 - 10 * MIN }, now)[0]!.openTime).toBe(T0);
  });

  it('aggregates longer intervals, weeks opening on Monday 00:00 UTC', () => {
    const h = history();
    expect(h.klines(monUsdc, { interval: '5m', limit: 500 }, now).map((k) => [k.openTime - T0, k.open, k.high, k.low, k.close, k.volume, k.numTrades])).toEqual([
      [0, '1.5', '1.6', '1.4', '1.4', '3.5', 3],
      [5 * MIN, '1.45', '1.45', '1.45', '1.45', '1', 1],
    ]);
    expect(klineOpenTime('1w', T0 + 3 * 86_400_000)).toBe(T0);
    expect(klineOpenTime('1w', T0 - 1)).toBe(T0 - 7 * 86_400_000);
    expect(klineOpenTime('1d', T0 + 5 * MIN)).toBe(T0);
    expect(h.klines(monUsdc, { interval: '1w', limit: 500 }, now)).toMatchObject([{ openTime: T0, closeTime: T0 + 7 * 86_400_000 - 1, numTrades: 4 }]);
  });

  it('has no candles before the first trade', () => {
    expect(new MarketHistory([monUsdc]).klines(monUsdc, { interval: '1m', limit: 10 }, T0)).toEqual([]);
  });
});

describe('MarketHistory: 24-hour ticker', () => {
  it('summarises the trades of the rolling window with the given bid and ask', () => {
    const now = T0 + 10 * MIN;
    const ticker = ticker24hrSchema.parse(history().ticker24hr(monUsdc, now, { bid: [144n, 3000n], ask: [146n, 1500n] }));
    expect(ticker).toMatchObject({
      symbol: 'MON_USDC',
      openPrice: '1.5',
      highPrice: '1.6',
      lowPrice: '1.4',
      lastPrice: '1.45',
      priceChange: '-0.05',
      priceChangePercent: '-3.333',
      volume: '4.5',
      quoteVolume: '6.55',
      bidPrice: '1.44',
      bidQty: '3',
      askPrice: '1.46',
      askQty: '1.5',
      openTime: now - 86_400_000,
      closeTime: now,
      count: 4,
      firstId: 1,
      lastId: 4,
    });
  });

  it('drops trades older than 24 hours; with none left it is flat at the last price', () => {
    const h = history();
    const later = T0 + 86_400_000 + 4 * MIN;
    expect(h.ticker24hr(monUsdc, later, { bid: undefined, ask: undefined })).toMatchObject({ count: 1, openPrice: '1.45', volume: '1' });
    const quiet = h.ticker24hr(monUsdc, T0 + 2 * 86_400_000, { bid: undefined, ask: undefined });
    expect(quiet).toMatchObject({ count: 0, lastPrice: '1.45', openPrice: '1.45', priceChange: '0', priceChangePercent: '0.000', volume: '0', bidPrice: '0', firstId: -1 });
    expect(new MarketHistory([monUsdc]).ticker24hr(monUsdc, T0, { bid: undefined, ask: undefined })).toMatchObject({ lastPrice: '0', count: 0 });
  });
});
