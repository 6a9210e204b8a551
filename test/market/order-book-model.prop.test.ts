import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.ts';
import { fromUnits } from '../../src/core/units.ts';
import { OrderBook } from '../../src/market/order-book-model.ts';
import { parseDepthBody } from '../../src/market/parse-depth-body.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const decimals = fc.integer({ min: 0, max: 18 });
const units = fc.bigInt({ min: 1n, max: (1n << 96n) - 1n });

/** A human decimal for `value` units, written with 0..3 extra trailing zeros (as Binance pads to 8 decimals). */
function human(value: bigint, places: number, pad: number): string {
  const text = fromUnits(value, 10n ** BigInt(places));
  if (pad === 0) return text;
  return text.includes('.') ? text + '0'.repeat(pad) : `${text}.${'0'.repeat(pad)}`;
}

/** A random valid depth record with its precisions: distinct prices, bids below asks. */
const depthCase = fc
  .record({
    priceDecimals: decimals,
    sizeDecimals: decimals,
    prices: fc.uniqueArray(units, { maxLength: 40, comparator: (a, b) => a === b }),
    sizes: fc.array(units, { minLength: 40, maxLength: 40 }),
    split: fc.nat(),
    pad: fc.nat(3),
    lastUpdateId: fc.nat(),
  })
  .map(({ priceDecimals, sizeDecimals, prices, sizes, split, pad, lastUpdateId }) => {
    const sorted = [...prices].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const cut = prices.length === 0 ? 0 : split % (prices.length + 1);
    const level = (price: bigint, i: number): [string, string] => [human(price, priceDecimals, pad), human(sizes[i]!, sizeDecimals, pad)];
    const bids = sorted.slice(0, cut).reverse().map(level);
    const asks = sorted.slice(cut).map((price, i) => level(price, i + cut));
    return {
      market: { pricePrecision: 10n ** BigInt(priceDecimals), sizePrecision: 10n ** BigInt(sizeDecimals) },
      depth: { lastUpdateId, bids, asks },
    };
  });

const canonical = (text: string) => new Decimal(text).toFixed();

describe('OrderBook properties', () => {
  it('round-trips human -> units -> human (the canonical decimal), through both parsers', () => {
    fc.assert(
      fc.property(depthCase, fc.boolean(), ({ market, depth }, pretty) => {
        const body = JSON.stringify(depth, null, pretty ? 2 : undefined);
        const fast = parseDepthBody(body, market);
        const slow = OrderBook.fromDepth(depth, market);
        const expected = {
          lastUpdateId: depth.lastUpdateId,
          bids: depth.bids.map(([p, s]) => [canonical(p), canonical(s)]),
          asks: depth.asks.map(([p, s]) => [canonical(p), canonical(s)]),
        };
        expect(fast.toHuman()).toEqual(expected);
        expect(slow.toHuman()).toEqual(expected);
        expect(fast.levels('bid')).toEqual(slow.levels('bid'));
        expect(fast.levels('ask')).toEqual(slow.levels('ask'));
      }),
      fuzzSettings(),
    );
  });

  it('volume to a price grows monotonically as the price gets worse, and equals the sum of depths', () => {
    fc.assert(
      fc.property(depthCase, fc.array(units, { maxLength: 10 }), ({ market, depth }, probes) => {
        const book = OrderBook.fromDepth(depth, market);
        for (const side of ['bid', 'ask'] as const) {
          const levels = book.levels(side);
          const points = [...probes, ...levels.map((l) => l.price), 0n].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
          // worse: lower for bids, higher for asks
          const worseOrder = side === 'bid' ? points.reverse() : points;
          let previous = -1n;
          for (const price of worseOrder) {
            const volume = book.volumeTo(side, price);
            expect(volume).toBeGreaterThanOrEqual(previous);
            previous = volume;
            const better = levels.filter((l) => (side === 'bid' ? l.price >= price : l.price <= price));
            expect(volume).toBe(better.reduce((sum, l) => sum + book.depthAt(side, l.price), 0n));
          }
        }
      }),
      fuzzSettings(),
    );
  });

  it('imbalance stays in [-1, 1] and has the sign of bid minus ask volume', () => {
    fc.assert(
      fc.property(depthCase, fc.integer({ min: 1, max: 50 }), ({ market, depth }, levels) => {
        const book = OrderBook.fromDepth(depth, market);
        const imbalance = book.imbalance(levels);
        const bid = book.topVolume('bid', levels);
        const ask = book.topVolume('ask', levels);
        if (bid + ask === 0n) {
          expect(imbalance).toBeUndefined();
          return;
        }
        expect(imbalance!.gte(-1) && imbalance!.lte(1)).toBe(true);
        expect(imbalance!.isZero() ? 0 : imbalance!.isNegative() ? -1 : 1).toBe(bid > ask ? 1 : bid < ask ? -1 : 0);
      }),
      fuzzSettings(),
    );
  });

  it('microprice lies between the best bid and the best ask of an uncrossed book', () => {
    fc.assert(
      fc.property(depthCase, ({ market, depth }) => {
        const book = OrderBook.fromDepth(depth, market);
        const micro = book.microprice();
        const bid = book.bestBid();
        const ask = book.bestAsk();
        if (!bid || !ask) {
          expect(micro).toBeUndefined();
          return;
        }
        expect(micro!.gte(bid.price.toString()) && micro!.lte(ask.price.toString())).toBe(true);
      }),
      fuzzSettings(),
    );
  });

  it('diffs applied level by level give the same book as a snapshot of the result', () => {
    fc.assert(
      fc.property(depthCase, fc.array(fc.tuple(fc.boolean(), fc.nat(39), fc.bigInt({ min: 0n, max: 1000n })), { maxLength: 30 }), ({ market, depth }, edits) => {
        const book = OrderBook.fromDepth(depth, market);
        const all = [...book.levels('bid'), ...book.levels('ask')].map((l) => l.price);
        if (all.length === 0) return;
        const expected = new Map<string, bigint>();
        for (const side of ['bid', 'ask'] as const) for (const l of book.levels(side)) expected.set(`${side}:${l.price}`, l.size);
        let id = depth.lastUpdateId;
        for (const [isBid, index, size] of edits) {
          const side = isBid ? 'bid' : 'ask';
          const price = all[index % all.length]!;
          const diff = { U: id + 1, u: id + 1, b: [] as [string, string][], a: [] as [string, string][] };
          (isBid ? diff.b : diff.a).push([fromUnits(price, market.pricePrecision), fromUnits(size, market.sizePrecision)]);
          expect(book.applyDiff(diff).status).toBe('applied');
          id++;
          if (size === 0n) expected.delete(`${side}:${price}`);
          else expected.set(`${side}:${price}`, size);
        }
        for (const side of ['bid', 'ask'] as const) {
          const want = [...expected].filter(([key]) => key.startsWith(side)).map(([key, size]) => ({ price: BigInt(key.slice(4)), size }));
          want.sort((a, b) => (a.price === b.price ? 0 : (a.price > b.price) === (side === 'bid') ? -1 : 1));
          expect(book.levels(side)).toEqual(want);
        }
      }),
      fuzzSettings(),
    );
  });
});
