/**
 * The book's depth reads share unchanged sides and levels with the previous read: after any mix of
 * adds, cancels, fills and undos they must equal the depth summed afresh from the resting orders.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OrderBook, type BookOrder, type PriceLevel } from '../../src/venue/order-book.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

/** The simple version: every resting order summed per price, best first. */
function freshDepth(book: OrderBook, limit: number) {
  const side = (isBid: boolean) => {
    const totals = new Map<bigint, bigint>();
    for (const order of book.orders(isBid)) totals.set(order.price, (totals.get(order.price) ?? 0n) + order.remaining);
    return [...totals].slice(0, Math.max(0, Math.ceil(limit)));
  };
  return { bids: side(true), asks: side(false) };
}

const step = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), isBuy: fc.boolean(), price: fc.integer({ min: 1, max: 12 }), size: fc.integer({ min: 1, max: 9 }) }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('reduce' as const), pick: fc.nat(), by: fc.integer({ min: 1, max: 9 }) }),
  fc.record({ kind: fc.constant('undo' as const) }),
  fc.record({ kind: fc.constant('read' as const), limit: fc.constantFrom(1, 2, 3, 5, 2.5, 100, 0, -1) }),
);

describe('OrderBook depth', () => {
  it('equals the depth summed afresh after every change, read at any limit', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
        const book = new OrderBook();
        const resting: BookOrder[] = [];
        const undo: (() => void)[] = [];
        let id = 1n;
        for (const s of steps) {
          if (s.kind === 'add') {
            const order: BookOrder = { id: id++, isBuy: s.isBuy, price: BigInt(s.price), priceKey: s.price, remaining: BigInt(s.size), prev: null, next: null, level: null };
            book.add(order);
            resting.push(order);
            undo.length = 0;
          } else if (s.kind === 'remove' && resting.length > 0) {
            const [order] = resting.splice(s.pick % resting.length, 1);
            const level = order!.level as PriceLevel;
            const prev = book.remove(order!);
            undo.length = 0;
            undo.push(() => {
              book.restore(order!, level, prev);
              resting.push(order!);
            });
          } else if (s.kind === 'reduce' && resting.length > 0) {
            const order = resting[s.pick % resting.length]!;
            const before = order.remaining;
            if (BigInt(s.by) >= before) continue;
            book.reduce(order, BigInt(s.by));
            undo.length = 0;
            undo.push(() => book.setRemaining(order, before));
          } else if (s.kind === 'undo') {
            undo.pop()?.();
          } else if (s.kind === 'read') {
            expect(book.depth(s.limit)).toEqual(freshDepth(book, s.limit));
          }
          expect(book.depth(100)).toEqual(freshDepth(book, 100));
        }
      }),
      fuzzSettings({ numRuns: 300 }),
    );
  });
});
