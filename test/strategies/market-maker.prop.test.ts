/**
 * The market maker over random books and fills: every intent is valid (the harness is strict), none
 * reverts (so no new post-only quote ever crossed the book it was made for), and the bids resting
 * never let the position pass maxInventory if they all fill (asks likewise). A quote kept within the
 * threshold may sit at a price the next scripted book has moved through: on the venue it would have
 * filled; a scripted book does not know it. fast-check prints the seed and path of a failure.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createStrategyHarness } from 'clobbot/testing';
import marketMaker from '../../strategies/market-maker.ts';
import { monUsdc } from './fixtures.ts';

const params = { levels: 3, spreadBps: 5, levelSpacingBps: 3, size: '2000', maxInventory: '7000', skewBps: 15, requoteThresholdBps: 2 } as const;
const MAX = 700_000n;

const stepArbitrary = fc.record({
  move: fc.integer({ min: -30, max: 30 }),
  halfSpread: fc.integer({ min: 1, max: 20 }),
  fills: fc.array(fc.record({ pick: fc.nat(), part: fc.constantFrom(1n, 2n, 4n) }), { maxLength: 3 }),
});

describe('market-maker (random books and fills)', () => {
  it('stays valid, never reverts (no new quote crosses the book) and respects maxInventory', () => {
    fc.assert(
      fc.property(fc.array(stepArbitrary, { minLength: 1, maxLength: 25 }), fc.constantFrom('mid', 'microprice'), (steps, priceSource) => {
        const run = createStrategyHarness(marketMaker, { params: { ...params, priceSource }, markets: [monUsdc] }).start();
        let mid = 35_000n; // in ticks of 10 units
        for (const step of steps) {
          mid += BigInt(step.move);
          const bid = (mid - BigInt(step.halfSpread)) * 10n;
          const ask = (mid + BigInt(step.halfSpread)) * 10n;
          run.book({ bids: [[bid, 500_000n]], asks: [[ask, 300_000n]] });
          const { position, orders } = run.state();
          const bids = orders.filter((o) => o.side === 'BUY').reduce((sum, o) => sum + o.remaining, 0n);
          const asks = orders.filter((o) => o.side === 'SELL').reduce((sum, o) => sum + o.remaining, 0n);
          expect(position + bids).toBeLessThanOrEqual(MAX);
          expect(position - asks).toBeGreaterThanOrEqual(-MAX);
          for (const fill of step.fills) {
            const resting = run.state().orders;
            if (resting.length === 0) break;
            const order = resting[fill.pick % resting.length]!;
            run.advanceBy(100);
            run.fill(order.slot!, order.remaining / fill.part || order.remaining);
          }
          run.advanceBy(400);
        }
        expect(run.invalid).toEqual([]);
        expect(run.reverted).toEqual([]);
        run.stop();
      }),
      { numRuns: 60 },
    );
  });
});
