import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExchangeOrder, type HeldRow } from '../../src/backtest/exchange-order.ts';

const row = (exchMs: number, seq: number): HeldRow => ({ exchMs, seq, kind: 2, side: 1, price: 1n, qty: 1n, id: BigInt(seq) });
const earliest = (rows: readonly HeldRow[]) => rows.reduce((a, b) => (b.exchMs < a.exchMs || (b.exchMs === a.exchMs && b.seq < a.seq) ? b : a));

describe('ExchangeOrder', () => {
  it('always releases the earliest held row (exchange time, then file order), pushes and pops interleaved', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 3 })), { maxLength: 300 }), (steps) => {
        const order = new ExchangeOrder();
        const held: HeldRow[] = [];
        let seq = 0;
        const popOne = () => {
          const expected = earliest(held);
          expect(order.peek()).toBe(expected);
          expect(order.pop()).toBe(expected);
          held.splice(held.indexOf(expected), 1);
        };
        for (const [exchMs, pops] of steps) {
          const pushed = row(exchMs, (seq += 1));
          order.push(pushed);
          held.push(pushed);
          for (let i = 0; i < pops && held.length > 0; i += 1) popOne();
          expect(order.size).toBe(held.length);
        }
        while (held.length > 0) popOne();
        expect(order.pop()).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});
