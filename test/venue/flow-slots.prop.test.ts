/**
 * The background flow's slot scans and pending cancels against the simple version they replace:
 * arrays of the live orders (filtered through a map of cancel requests), sorted by id when needed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  countSides,
  farthestLive,
  liveCount,
  nthLive,
  oldestLiveAfter,
  openCount,
  PendingCancels,
  type FlowRestingOrder,
} from '../../src/venue/flow-slots.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const slotList = fc
  .array(fc.option(fc.record({ id: fc.integer({ min: 1, max: 20 }), buy: fc.boolean(), price: fc.integer({ min: 1, max: 50 }) }), { nil: null }), { maxLength: 62 })
  .map((slots) => {
    const seen = new Set<number>();
    return slots.map((entry, slot): FlowRestingOrder | null => {
      if (entry === null || seen.has(entry.id)) return null;
      seen.add(entry.id);
      return { id: BigInt(entry.id), slot, side: entry.buy ? 'BUY' : 'SELL', price: BigInt(entry.price), remaining: 1n };
    });
  });

/** Cancel requests at non-decreasing times, then reads at a later time. */
// Times in steps of 100 ms, so that expiries often fall exactly on a read.
const requests = fc.array(fc.record({ id: fc.integer({ min: 1, max: 20 }), gap: fc.constantFrom(0, 100, 200) }), { maxLength: 30 });

describe('flow slots', () => {
  it('answer like live arrays filtered through a map of cancel requests', () => {
    fc.assert(
      fc.property(slotList, requests, fc.constantFrom(0, 100, 400, 1000), fc.constantFrom(0, 100, 200, 400), fc.double({ min: 0, max: 60, noNaN: true }), fc.nat(70), (slots, asked, settleMs, later, mid, n) => {
        const cancels = new PendingCancels();
        const map = new Map<bigint, number>();
        let at = 0;
        for (const { id, gap } of asked) {
          at += gap;
          cancels.expire(at);
          cancels.add(BigInt(id), at + settleMs);
          map.set(BigInt(id), at + settleMs);
        }
        at += later;
        cancels.expire(at);
        const live = slots.filter((o): o is FlowRestingOrder => o !== null && !((map.get(o.id) ?? -Infinity) > at));
        expect(openCount(slots)).toBe(slots.filter((o) => o !== null).length);
        expect(liveCount(slots, cancels)).toBe(live.length);
        expect(nthLive(slots, cancels, n)).toBe(live[n]);
        let farthest: FlowRestingOrder | undefined = live[0];
        for (const o of live) if (Math.abs(Number(o.price) - mid) > Math.abs(Number(farthest!.price) - mid)) farthest = o;
        expect(farthestLive(slots, cancels, mid)).toBe(farthest);
        const byId = [...live].sort((a, b) => (a.id < b.id ? -1 : 1));
        let after = -1n;
        for (const expected of byId) {
          const oldest = oldestLiveAfter(slots, cancels, after);
          expect(oldest).toBe(expected);
          after = oldest!.id;
        }
        expect(oldestLiveAfter(slots, cancels, after)).toBeUndefined();
        const counts = { bids: 0, asks: 0 };
        countSides(slots, counts);
        expect(counts).toEqual({ bids: slots.filter((o) => o?.side === 'BUY').length, asks: slots.filter((o) => o?.side === 'SELL').length });
      }),
      fuzzSettings({ numRuns: 500 }),
    );
  });
});
