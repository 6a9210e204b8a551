/**
 * Real data: two minutes of Binance BTCUSDT streams (test/fixtures/binance-capture). The book is
 * rebuilt from the REST snapshot and the depth diffs by Binance's documented procedure and checked
 * against the bookTicker stream; the trades go through the de-duplication and the bar builder, and
 * every candle is recomputed independently from the trades.
 */
import { from, lastValueFrom, toArray, concatMap } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.ts';
import type { Trade } from '../../src/protocol/market-data.ts';
import { BarBuilder } from '../../src/market/bar-builder.ts';
import { candleToKline, type Candle } from '../../src/market/candle.ts';
import { depthDiffSchema, type DepthDiff } from '../../src/market/depth-diff.ts';
import { buildBars } from '../../src/market/operators/build-bars.ts';
import { dedupeTrades } from '../../src/market/operators/dedupe-trades.ts';
import { parseDepthBody } from '../../src/market/parse-depth-body.ts';
import { tradesToUnits, type UnitTrade } from '../../src/market/unit-trade.ts';
import { BTCUSDT, readCapture, snapshotBody } from './support/capture.ts';

interface StreamMessage {
  readonly stream: string;
  readonly data: Record<string, unknown>;
}

const messages = readCapture('btcusdt_20240808_2min.txt.gz') as StreamMessage[];
const diffs: DepthDiff[] = messages.filter((m) => m.stream === 'btcusdt@depth@100ms').map((m) => depthDiffSchema.parse(m.data));
const tickers = messages
  .filter((m) => m.stream === 'btcusdt@bookTicker')
  .map((m) => m.data as { u: number; b: string; B: string; a: string; A: string });
/** Binance trade stream messages as the REST trade records our venue serves. */
const wireTrades: Trade[] = messages
  .filter((m) => m.stream === 'btcusdt@trade')
  .map((m) => {
    const d = m.data as { t: number; p: string; q: string; T: number; m: boolean };
    return { id: d.t, price: d.p, qty: d.q, time: d.T, isBuyerMaker: d.m };
  });

describe('book rebuilt from the real snapshot and diffs', () => {
  it("follows Binance's procedure without a gap, never crosses, and matches bookTicker at equal update ids", () => {
    const book = parseDepthBody(snapshotBody(), BTCUSDT);
    const snapshotId = book.lastUpdateId;
    const tops = new Map<number, { bid: string; bidSize: string; ask: string; askSize: string }>();
    let stale = 0;
    let applied = 0;
    let previousU: number | undefined;
    for (const diff of diffs) {
      // Binance: drop diffs with u <= lastUpdateId of the snapshot
      if (diff.u <= snapshotId) {
        expect(book.applyDiff(diff)).toEqual({ status: 'stale' });
        stale++;
        continue;
      }
      // the first kept diff straddles lastUpdateId + 1; each next one starts at the previous u + 1
      if (previousU === undefined) expect(diff.U <= snapshotId + 1 && snapshotId + 1 <= diff.u).toBe(true);
      else expect(diff.U).toBe(previousU + 1);
      previousU = diff.u;
      expect(book.applyDiff(diff)).toEqual({ status: 'applied' });
      applied++;
      expect(book.isCrossed()).toBe(false);
      const bid = book.bestBid()!;
      const ask = book.bestAsk()!;
      tops.set(diff.u, { bid: book.humanPrice(bid.price), bidSize: book.humanSize(bid.size), ask: book.humanPrice(ask.price), askSize: book.humanSize(ask.size) });
    }
    expect(stale).toBeGreaterThan(0);
    expect(applied).toBeGreaterThan(1000);

    let compared = 0;
    for (const ticker of tickers) {
      const top = tops.get(ticker.u);
      if (!top) continue;
      const canonical = (text: string) => new Decimal(text).toFixed();
      expect({ u: ticker.u, ...top }).toEqual({ u: ticker.u, bid: canonical(ticker.b), bidSize: canonical(ticker.B), ask: canonical(ticker.a), askSize: canonical(ticker.A) });
      compared++;
    }
    expect(compared).toBeGreaterThan(150);
  });
});

/** Candles recomputed from the trades with decimal.js only, grouped by floor(time / interval). */
function expectedKlines(trades: readonly Trade[], intervalMs: number) {
  const groups = new Map<number, Trade[]>();
  for (const trade of trades) {
    const open = Math.floor(trade.time / intervalMs) * intervalMs;
    groups.set(open, [...(groups.get(open) ?? []), trade]);
  }
  return groups;
}

function checkCandles(candles: readonly Candle[], trades: readonly Trade[], intervalMs: number) {
  const groups = expectedKlines(trades, intervalMs);
  const klines = candles.map((candle) => candleToKline(candle, BTCUSDT));
  let previousClose: string | undefined;
  let counted = 0;
  for (const [i, kline] of klines.entries()) {
    expect(kline.openTime % intervalMs).toBe(0);
    expect(kline.closeTime).toBe(kline.openTime + intervalMs - 1);
    if (i > 0) expect(kline.openTime).toBe(klines[i - 1]!.openTime + intervalMs);
    const own = groups.get(kline.openTime) ?? [];
    if (own.length === 0) {
      expect(kline).toMatchObject({ open: previousClose, high: previousClose, low: previousClose, close: previousClose, volume: '0', quoteVolume: '0', numTrades: 0 });
    } else {
      const prices = own.map((t) => new Decimal(t.price));
      expect(kline).toEqual({
        openTime: kline.openTime,
        closeTime: kline.openTime + intervalMs - 1,
        open: prices[0]!.toFixed(),
        high: Decimal.max(...prices).toFixed(),
        low: Decimal.min(...prices).toFixed(),
        close: prices[prices.length - 1]!.toFixed(),
        volume: own.reduce((sum, t) => sum.plus(t.qty), new Decimal(0)).toFixed(),
        quoteVolume: own.reduce((sum, t) => sum.plus(new Decimal(t.price).times(t.qty)), new Decimal(0)).toFixed(),
        numTrades: own.length,
      });
    }
    counted += own.length;
    previousClose = kline.close;
  }
  // every trade in exactly one candle, none missing, none twice
  expect(counted).toBe(trades.length);
  expect(klines.reduce((sum, k) => sum + k.numTrades, 0)).toBe(trades.length);
  expect(klines.reduce((sum, k) => sum.plus(k.volume), new Decimal(0)).eq(trades.reduce((sum, t) => sum.plus(t.qty), new Decimal(0)))).toBe(true);
  expect(groups.size).toBe(klines.filter((k) => k.numTrades > 0).length);
}

describe('bar builder on the real trades', () => {
  it('has the capture it expects: thousands of trades, ids without gaps, times in order', () => {
    expect(wireTrades.length).toBe(2570);
    wireTrades.forEach((trade, i) => {
      if (i > 0) {
        expect(trade.id).toBe(wireTrades[i - 1]!.id + 1);
        expect(trade.time).toBeGreaterThanOrEqual(wireTrades[i - 1]!.time);
      }
    });
  });

  for (const intervalMs of [100, 1_000, 5_000, 60_000]) {
    it(`makes ${intervalMs} ms candles consistent with the trades`, async () => {
      const units = tradesToUnits(wireTrades, BTCUSDT);
      const candles = await lastValueFrom(from(units).pipe(buildBars({ intervalMs }), toArray()));
      checkCandles(candles, wireTrades, intervalMs);
      if (intervalMs === 100) expect(candles.some((c) => c.numTrades === 0)).toBe(true);
    });
  }

  it('gives the same candles when the trades arrive as overlapping polls through the de-duplication', async () => {
    const units = tradesToUnits(wireTrades, BTCUSDT);
    // polls of the 500 most recent trades, every 300 new trades: each overlaps the one before
    const polls: UnitTrade[][] = [];
    for (let end = 300; end < units.length + 300; end += 300) polls.push(units.slice(Math.max(0, end - 500), end));
    const batches = await lastValueFrom(from(polls).pipe(dedupeTrades<UnitTrade>(), toArray()));
    expect(batches.some((batch) => batch.gap)).toBe(false);
    const deduped = batches.flatMap((batch) => batch.trades);
    expect(deduped.map((t) => t.id)).toEqual(units.map((t) => t.id));
    const viaPolls = await lastValueFrom(from(polls).pipe(dedupeTrades<UnitTrade>(), concatMap((b) => b.trades), buildBars({ intervalMs: 1_000 }), toArray()));
    const direct = new BarBuilder({ intervalMs: 1_000 });
    const expected = units.flatMap((trade) => direct.push(trade));
    expected.push(direct.flush()!);
    expect(viaPolls).toEqual(expected);
  });
});
