import { describe, expect, it } from 'vitest';
import type { OwnMarketState, ReplaceSlots } from 'clobbot';
import { checkStrategy, createStrategyHarness } from 'clobbot/testing';
import grid, { gridPrices } from '../../strategies/grid.ts';
import { book, monUsdc } from './fixtures.ts';

const params = { levels: 3, stepBps: 10, size: '100' } as const;

function sides(state: OwnMarketState) {
  const prices = (side: 'BUY' | 'SELL') =>
    state.orders
      .filter((order) => order.side === side)
      .map((order) => order.price)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { bids: prices('BUY'), asks: prices('SELL') };
}

describe('grid', () => {
  it('builds the ladder: step = stepBps of the center on the tick, at least one tick', () => {
    expect(gridPrices(350_000n, { levels: 2, stepBps: 10 }, 10n)).toEqual([349_300n, 349_650n, 350_000n, 350_350n, 350_700n]);
    expect(gridPrices(100n, { levels: 1, stepBps: 1 }, 10n)).toEqual([90n, 100n, 110n]);
  });

  it('places its grid around the first mid, leaving the grid price at the mid empty', () => {
    const result = checkStrategy(grid, { params, markets: [{ spec: monUsdc, books: [{ at: 0, ...book('0.0349', '0.0351') }] }], until: 1_000 });
    expect(sides(result.states.get('MON_USDC')!)).toEqual({ bids: [348_950n, 349_300n, 349_650n], asks: [350_350n, 350_700n, 351_050n] });
    expect(result.intents).toHaveLength(1);
    expect((result.intents[0]!.intent as ReplaceSlots).ops).toHaveLength(6);
  });

  it('static: keeps its prices as the mid moves, a filled bid becoming the empty level and an ask one step above', () => {
    const run = createStrategyHarness(grid, { params: { ...params, center: '0.035' }, markets: [monUsdc] }).start();
    run.book(book('0.0349', '0.0351'));
    const topBid = run.state().orders.find((order) => order.side === 'BUY' && order.price === 349_650n)!;
    run.advanceBy(1_000);
    run.fill(topBid.slot!); // the price came down to 0.034965
    run.book(book('0.034955', '0.034975')); // mid 0.034965: the grid price 349650 is now the nearest
    expect(sides(run.state())).toEqual({ bids: [348_950n, 349_300n], asks: [350_000n, 350_350n, 350_700n, 351_050n] });
    expect(run.state().position).toBe(10_000n);
    // Back up: the ask at 350000 sells what was bought one step lower.
    const ask = run.state().orders.find((order) => order.side === 'SELL' && order.price === 350_000n)!;
    run.advanceBy(1_000);
    run.fill(ask.slot!);
    run.book(book('0.0349', '0.0351'));
    expect(sides(run.state())).toEqual({ bids: [348_950n, 349_300n, 349_650n], asks: [350_350n, 350_700n, 351_050n] });
    expect(run.state().position).toBe(0n);
    expect(run.reverted).toEqual([]);
    run.stop();
  });

  it('static: does not re-centre when the mid leaves the grid', () => {
    const result = checkStrategy(grid, {
      params,
      markets: [{ spec: monUsdc, books: [{ at: 0, ...book('0.0349', '0.0351') }, { at: 1_000, ...book('0.0359', '0.0361') }] }],
    });
    // Every grid price is now below the mid: the nearest (351050) stays empty, the rest are bids.
    expect(sides(result.states.get('MON_USDC')!)).toEqual({ bids: [348_950n, 349_300n, 349_650n, 350_000n, 350_350n, 350_700n], asks: [] });
  });

  it('recenter: moves the grid to the mid once it is further than recenterBps from the center', () => {
    const result = checkStrategy(grid, {
      params: { ...params, mode: 'recenter', recenterBps: 25 },
      markets: [
        {
          spec: monUsdc,
          books: [
            { at: 0, ...book('0.0349', '0.0351') },
            // mid 0.03507: 20 bp from the center, inside 25: same grid.
            { at: 1_000, ...book('0.03497', '0.03517') },
            // mid 0.0352: 57 bp: a new grid around 352000 (step 352).
            { at: 2_000, ...book('0.0351', '0.0353') },
          ],
        },
      ],
    });
    // Same grid, the mid on its 350700 level: that one empty, bids below, the ask above.
    expect(sides(result.stateAt(1_999))).toEqual({ bids: [348_950n, 349_300n, 349_650n, 350_000n, 350_350n], asks: [351_050n] });
    // New center 352000, step 352 -> 350 on the tick.
    expect(sides(result.states.get('MON_USDC')!)).toEqual({ bids: [350_950n, 351_300n, 351_650n], asks: [352_350n, 352_700n, 353_050n] });
  });

  it('refuses recenterBps with mode static', () => {
    expect(() => checkStrategy(grid, { params: { ...params, recenterBps: 10 }, markets: [monUsdc] })).toThrow(/recenterBps applies to mode: recenter only/);
  });
});
