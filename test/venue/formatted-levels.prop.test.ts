/**
 * The venue formats each block's depth once, reusing the strings of the previous block's unchanged
 * levels: whatever the books, limits and reads, what it answers must be what formatting afresh gives.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromUnits } from '../../src/core/units.ts';
import type { MarketSpec } from '../../src/protocol/market-spec.ts';
import { formattedLevels } from '../../src/venue/create-sim-venue.ts';
import type { DepthSnapshot } from '../../src/venue/order-book.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

type Level = readonly [bigint, bigint];

/** A side in wire order from a set of price -> size (bids descending, asks ascending). */
const wire = (levels: Map<bigint, bigint>, isBid: boolean): Level[] =>
  [...levels].sort(([a], [b]) => (a === b ? 0 : (a > b) === isBid ? -1 : 1)).map(([price, size]) => [price, size] as const);

const same = (before: Level[], now: Level[]): Level[] =>
  before.length === now.length && before.every(([price, size], i) => price === now[i]![0] && size === now[i]![1]) ? before : now;

const step = fc.record({
  changes: fc.array(fc.record({ bid: fc.boolean(), price: fc.integer({ min: 1, max: 60 }), size: fc.integer({ min: 0, max: 4 }) }), { maxLength: 12 }),
  reads: fc.array(fc.record({ bid: fc.boolean(), limit: fc.integer({ min: 1, max: 40 }) }), { maxLength: 4 }),
});

describe('formattedLevels', () => {
  it('answers what formatting afresh answers, block after block', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 15 }), fc.constantFrom(1n, 100n, 10_000_000n), fc.constantFrom(1n, 100n), fc.integer({ min: 0, max: 3 }), (steps, pricePrecision, sizePrecision, id) => {
        const market = { address: `0x${id.toString(16).padStart(40, '0')}`, pricePrecision, sizePrecision } as unknown as MarketSpec;
        const bids = new Map<bigint, bigint>();
        const asks = new Map<bigint, bigint>();
        const last: { bids: Level[]; asks: Level[] } = { bids: [], asks: [] };
        for (const { changes, reads } of steps) {
          for (const { bid, price, size } of changes) {
            // Bids below 31, asks above 30 (×10 units): never crossed, prices reused between blocks.
            const units = BigInt(bid ? Math.min(price, 30) : Math.max(price, 31)) * 10n;
            const side = bid ? bids : asks;
            if (size === 0) side.delete(units);
            else side.set(units, BigInt(size) * 25n);
          }
          // An unchanged side is the same array as the block before, as the engine shares it.
          const book: DepthSnapshot = { bids: (last.bids = same(last.bids, wire(bids, true))), asks: (last.asks = same(last.asks, wire(asks, false))) };
          for (const { bid, limit } of [...reads, { bid: true, limit: 100 }, { bid: false, limit: 100 }]) {
            const name = bid ? 'bids' : 'asks';
            const expected = book[name].slice(0, limit).map(([price, size]) => [fromUnits(price, pricePrecision), fromUnits(size, sizePrecision)]);
            expect(formattedLevels(book, name, market, limit)).toEqual(expected);
          }
        }
      }),
      fuzzSettings({ numRuns: 500 }),
    );
  });
});
