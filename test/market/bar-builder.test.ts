import { describe, expect, it } from 'vitest';
import { BarBuilder, WEEKLY_OFFSET_MS } from '../../src/market/bar-builder.ts';
import { candleToKline, klineToCandle } from '../../src/market/candle.ts';

const market = { pricePrecision: 100n, sizePrecision: 1000n };

describe('BarBuilder', () => {
  it('aligns open times to the interval, closeTime = open + interval - 1, OHLC, volumes and count', () => {
    const bars = new BarBuilder({ intervalMs: 60_000 });
    expect(bars.push({ time: 120_500, price: 10_000n, qty: 1_500n })).toEqual([]);
    bars.push({ time: 130_000, price: 10_050n, qty: 500n });
    bars.push({ time: 179_999, price: 9_990n, qty: 1_000n });
    const [candle] = bars.push({ time: 180_000, price: 10_010n, qty: 1n });
    expect(candle).toEqual({
      openTime: 120_000,
      closeTime: 179_999,
      open: 10_000n,
      high: 10_050n,
      low: 9_990n,
      close: 9_990n,
      volume: 3_000n,
      quoteVolume: 10_000n * 1_500n + 10_050n * 500n + 9_990n * 1_000n,
      numTrades: 3,
    });
    expect(candleToKline(candle!, market)).toEqual({
      openTime: 120_000,
      open: '100',
      high: '100.5',
      low: '99.9',
      close: '99.9',
      volume: '3',
      closeTime: 179_999,
      quoteVolume: '300.15',
      numTrades: 3,
    });
    expect(klineToCandle(candleToKline(candle!, market), market)).toEqual(candle);
  });

  it('fills empty intervals with flat candles at the previous close, volume 0', () => {
    const bars = new BarBuilder({ intervalMs: 1_000 });
    bars.push({ time: 500, price: 7n, qty: 1n });
    bars.push({ time: 900, price: 8n, qty: 1n });
    const closed = bars.push({ time: 3_100, price: 9n, qty: 1n });
    expect(closed.map((c) => [c.openTime, c.open, c.close, c.volume, c.numTrades])).toEqual([
      [0, 7n, 8n, 2n, 2],
      [1_000, 8n, 8n, 0n, 0],
      [2_000, 8n, 8n, 0n, 0],
    ]);
    expect(bars.current()?.openTime).toBe(3_000);
  });

  it('closes by the clock: candles whose close is before the given time', () => {
    const bars = new BarBuilder({ intervalMs: 100 });
    expect(bars.closeUntil(1_000)).toEqual([]); // nothing before the first trade
    bars.push({ time: 10, price: 5n, qty: 1n });
    expect(bars.closeUntil(99)).toEqual([]);
    expect(bars.closeUntil(100).map((c) => c.openTime)).toEqual([0]);
    expect(bars.closeUntil(350).map((c) => [c.openTime, c.close, c.volume])).toEqual([
      [100, 5n, 0n],
      [200, 5n, 0n],
    ]);
    // a trade reaching the flat candle in progress makes it a real one
    bars.push({ time: 320, price: 6n, qty: 2n });
    expect(bars.current()).toMatchObject({ openTime: 300, open: 6n, high: 6n, low: 6n, close: 6n, volume: 2n, numTrades: 1 });
    expect(bars.flush()).toMatchObject({ openTime: 300, numTrades: 1 });
    expect(bars.flush()).toBeUndefined();
  });

  it('drops and counts trades older than the candle in progress', () => {
    const bars = new BarBuilder({ intervalMs: 10 });
    bars.push({ time: 25, price: 1n, qty: 1n });
    expect(bars.push({ time: 19, price: 2n, qty: 1n })).toEqual([]);
    expect(bars.lateTrades).toBe(1);
    expect(bars.current()?.volume).toBe(1n);
  });

  it('handles times before the epoch and a shifted grid (Binance weeks open on Mondays)', () => {
    expect(new BarBuilder({ intervalMs: 1_000 }).openTimeOf(-1)).toBe(-1_000);
    const weeks = new BarBuilder({ intervalMs: 604_800_000, offsetMs: WEEKLY_OFFSET_MS });
    const open = weeks.openTimeOf(Date.UTC(2024, 7, 8, 23, 54)); // a Thursday
    expect(new Date(open).toISOString()).toBe('2024-08-05T00:00:00.000Z'); // the Monday before
  });

  it('refuses an interval that is not a positive integer', () => {
    for (const intervalMs of [0, -5, 1.5, Number.NaN]) {
      expect(() => new BarBuilder({ intervalMs })).toThrowError(expect.objectContaining({ code: 'MARKET_PLAN_INVALID' }));
    }
  });
});
