import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BarBuilder, type BarTrade } from '../../src/market/bar-builder.ts';
import type { Candle } from '../../src/market/candle.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const trade = fc.record({
  time: fc.integer({ min: 0, max: 100_000 }),
  price: fc.bigInt({ min: 1n, max: 1n << 40n }),
  qty: fc.bigInt({ min: 0n, max: 1n << 60n }),
});
const tradeRun = fc.array(trade, { maxLength: 200 }).map((trades) => [...trades].sort((a, b) => a.time - b.time));
const interval = fc.integer({ min: 1, max: 20_000 });

/** All candles of a run: pushes, some clock closes in between, and a final flush. */
function candlesOf(trades: readonly BarTrade[], intervalMs: number, closeEvery: number): Candle[] {
  const bars = new BarBuilder({ intervalMs });
  const out: Candle[] = [];
  trades.forEach((t, i) => {
    // the clock may close candles, never past the next trade's time
    if (closeEvery > 0 && i % closeEvery === 0) out.push(...bars.closeUntil(t.time));
    out.push(...bars.push(t));
  });
  const last = bars.flush();
  if (last) out.push(last);
  expect(bars.lateTrades).toBe(0);
  return out;
}

describe('BarBuilder properties', () => {
  it('sum of candle volumes = sum of trade qty, counts and quote volumes too, for any time-ordered trades', () => {
    fc.assert(
      fc.property(tradeRun, interval, fc.nat(5), (trades, intervalMs, closeEvery) => {
        const candles = candlesOf(trades, intervalMs, closeEvery);
        expect(candles.reduce((sum, c) => sum + c.volume, 0n)).toBe(trades.reduce((sum, t) => sum + t.qty, 0n));
        expect(candles.reduce((sum, c) => sum + c.numTrades, 0)).toBe(trades.length);
        expect(candles.reduce((sum, c) => sum + c.quoteVolume, 0n)).toBe(trades.reduce((sum, t) => sum + t.price * t.qty, 0n));
      }),
      fuzzSettings(),
    );
  });

  it('candles are contiguous, aligned, each consistent with its own trades, empty ones flat at the previous close', () => {
    fc.assert(
      fc.property(tradeRun, interval, fc.nat(5), (trades, intervalMs, closeEvery) => {
        const candles = candlesOf(trades, intervalMs, closeEvery);
        candles.forEach((c, i) => {
          expect(c.openTime % intervalMs).toBe(0);
          expect(c.closeTime).toBe(c.openTime + intervalMs - 1);
          if (i > 0) expect(c.openTime).toBe(candles[i - 1]!.openTime + intervalMs);
          const own = trades.filter((t) => t.time >= c.openTime && t.time <= c.closeTime);
          expect(c.numTrades).toBe(own.length);
          if (own.length === 0) {
            const previous = candles[i - 1]!;
            expect([c.open, c.high, c.low, c.close, c.volume]).toEqual([previous.close, previous.close, previous.close, previous.close, 0n]);
          } else {
            const prices = own.map((t) => t.price);
            expect(c.open).toBe(prices[0]);
            expect(c.close).toBe(prices[prices.length - 1]);
            expect(c.high).toBe(prices.reduce((a, b) => (b > a ? b : a)));
            expect(c.low).toBe(prices.reduce((a, b) => (b < a ? b : a)));
          }
        });
      }),
      fuzzSettings(),
    );
  });
});
