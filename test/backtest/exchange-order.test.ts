import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExchangeOrder, NO_ROW } from '../../src/backtest/exchange-order.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

interface Row {
  readonly exchMs: number;
  readonly seq: number;
}
const earliest = (rows: readonly Row[]) => rows.reduce((a, b) => (b.exchMs < a.exchMs || (b.exchMs === a.exchMs && b.seq < a.seq) ? b : a));

describe('ExchangeOrder', () => {
  it('always releases the earliest held row (exchange time, then file order) with its columns, pushes and pops interleaved', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 3 })), { maxLength: 300 }), (steps) => {
        const order = new ExchangeOrder();
        const held: Row[] = [];
        let seq = 0;
        const popOne = () => {
          const expected = earliest(held);
          const slot = order.peek();
          expect(order.pop()).toBe(slot);
          expect([order.exchMs[slot], order.id[slot], order.kind[slot], order.side[slot], order.price[slot], order.qty[slot]]).toEqual([
            expected.exchMs,
            BigInt(expected.seq),
            expected.seq % 11,
            (expected.seq % 3) - 1,
            expected.seq * 7,
            BigInt(expected.seq * 13),
          ]);
          // Slots are reused once given back: the next rows overwrite this one's columns.
          order.release(slot);
          held.splice(held.indexOf(expected), 1);
        };
        for (const [exchMs, pops] of steps) {
          seq += 1;
          order.push(exchMs, seq % 11, (seq % 3) - 1, seq * 7, BigInt(seq * 13), BigInt(seq));
          held.push({ exchMs, seq });
          for (let i = 0; i < pops && held.length > 0; i += 1) popOne();
          expect(order.size).toBe(held.length);
        }
        while (held.length > 0) popOne();
        expect(order.peek()).toBe(NO_ROW);
        expect(order.pop()).toBe(NO_ROW);
      }),
      fuzzSettings({ numRuns: 300 }),
    );
  });

  it('keeps rows apart across growth of its columns', () => {
    const order = new ExchangeOrder();
    for (let i = 0; i < 5_000; i += 1) order.push(5_000 - i, 1, 1, i * 10, 0n, BigInt(i));
    for (let i = 4_999; i >= 0; i -= 1) {
      const slot = order.pop();
      expect([order.id[slot], order.price[slot]]).toEqual([BigInt(i), i * 10]);
    }
  });
});
