import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { OwnMarketState, ReplaceSlots } from 'clobbot';
import { checkStrategy, createStrategyHarness } from 'clobbot/testing';
import grid, { gridPrices } from '../../strategies/grid.ts';
import { book, monUsdc } from './fixtures.ts';
import { haltedBy, placesAnything, withKillFile } from './halt-support.ts';

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
  it('builds the ladder: step = stepBps of the center on the tick, at least one tick', async () => {
    expect(gridPrices(350_000n, { levels: 2, stepBps: 10 }, 10n)).toEqual([349_300n, 349_650n, 350_000n, 350_350n, 350_700n]);
    expect(gridPrices(100n, { levels: 1, stepBps: 1 }, 10n)).toEqual([90n, 100n, 110n]);
  });

  it('places its grid around the first mid, leaving the grid price at the mid empty', async () => {
    const result = await checkStrategy(grid, { params, markets: [{ spec: monUsdc, books: [{ at: 0, ...book('0.0349', '0.0351') }] }], until: 3_000 });
    expect(sides(result.states.get('MON_USDC')!)).toEqual({ bids: [348_950n, 349_300n, 349_650n], asks: [350_350n, 350_700n, 351_050n] });
    expect(result.intents).toHaveLength(1);
    expect((result.intents[0]!.intent as ReplaceSlots).ops).toHaveLength(6);
  });

  it('static: keeps its prices as the mid moves, a filled bid becoming the empty level and an ask one step above', async () => {
    const run = await createStrategyHarness(grid, { params: { ...params, center: '0.035' }, markets: [{ spec: monUsdc, book: book('0.0349', '0.0351') }] }).start();
    await run.advanceBy(2_000);
    expect(sides(run.state())).toEqual({ bids: [348_950n, 349_300n, 349_650n], asks: [350_350n, 350_700n, 351_050n] });
    const topBid = run.state().orders.find((order) => order.side === 'BUY' && order.price === 349_650n)!;
    await run.fill(topBid.slot!); // a seller takes it: the price came down to 0.034965
    await run.book(book('0.034955', '0.034975')); // mid 0.034965: the grid price 349650 is now the nearest
    await run.advanceBy(3_000);
    expect(sides(run.state())).toEqual({ bids: [348_950n, 349_300n], asks: [350_000n, 350_350n, 350_700n, 351_050n] });
    expect(run.state().position).toBe(10_000n);
    // Back up: the ask at 350000 sells what was bought one step lower.
    const ask = run.state().orders.find((order) => order.side === 'SELL' && order.price === 350_000n)!;
    await run.fill(ask.slot!);
    await run.book(book('0.0349', '0.0351'));
    await run.advanceBy(3_000);
    expect(sides(run.state())).toEqual({ bids: [348_950n, 349_300n, 349_650n], asks: [350_350n, 350_700n, 351_050n] });
    expect(run.state().position).toBe(0n);
    // One round trip: bought at 0.034965, sold at 0.035, both as maker (no fee on this market).
    expect(run.fills.map((fill) => [fill.side, fill.price, fill.size, fill.liquidity, fill.fee])).toEqual([
      ['BUY', 349_650n, 10_000n, 'maker', 0n],
      ['SELL', 350_000n, 10_000n, 'maker', 0n],
    ]);
    expect(run.state().realizedPnl).toBeGreaterThan(0n);
    // A re-placement signed before the engine heard of a fill in that slot reverts on the venue (a
    // stale slot: docs/execution.md); the engine then reads the slots again and the grid catches up.
    expect(run.reverted.map(({ code }) => code)).toEqual(run.reverted.map(() => 'EXPECTED_ORDER_ID_MISMATCH'));
    await run.stop();
  });

  it('static: does not re-centre when the mid leaves the grid', async () => {
    const result = await checkStrategy(grid, {
      params,
      markets: [{ spec: monUsdc, books: [{ at: 0, ...book('0.0349', '0.0351') }, { at: 1_000, ...book('0.0359', '0.0361') }] }],
    });
    // Every grid price is now below the mid: the nearest (351050) stays empty, the rest are bids.
    expect(sides(result.states.get('MON_USDC')!)).toEqual({ bids: [348_950n, 349_300n, 349_650n, 350_000n, 350_350n, 350_700n], asks: [] });
  });

  it('recenter: moves the grid to the mid once it is further than recenterBps from the center', async () => {
    // The grid's own orders are part of the venue's book: a book that moves only inside them moves no
    // mid. These books move through them: the script's new bids take the grid's asks below them.
    const result = await checkStrategy(grid, {
      params: { ...params, mode: 'recenter', recenterBps: 25 },
      markets: [
        {
          spec: monUsdc,
          books: [
            { at: 0, ...book('0.0349', '0.0351') },
            // Bids up to 0.03505 take the ask at 350350; best ask the own 350700: mid 350600, 17 bp from the center.
            { at: 5_000, ...book('0.03505', '0.03509') },
            // Bids up to 0.03515 take the ask at 351050; best ask 0.03525: mid 0.0352, 57 bp away.
            { at: 10_000, ...book('0.03515', '0.03525') },
          ],
        },
      ],
      until: 15_000,
    });
    // Same grid, the mid on its 350700 level: that one empty, bids below (a new one at 350350), the ask above.
    expect(sides(result.stateAt(9_999))).toEqual({ bids: [348_950n, 349_300n, 349_650n, 350_000n, 350_350n], asks: [351_050n] });
    // New center 352000, step 352 -> 350 on the tick.
    expect(sides(result.states.get('MON_USDC')!)).toEqual({ bids: [350_950n, 351_300n, 351_650n], asks: [352_350n, 352_700n, 353_050n] });
    // The two asks taken: sold 100 MON at 0.035035 and at 0.035105.
    expect(result.fills.map((fill) => [fill.side, fill.price, fill.size])).toEqual([
      ['SELL', 350_350n, 10_000n],
      ['SELL', 351_050n, 10_000n],
    ]);
  });

  it('refuses recenterBps with mode static', async () => {
    await expect(checkStrategy(grid, { params: { ...params, recenterBps: 10 }, markets: [monUsdc] })).rejects.toThrow(/recenterBps applies to mode: recenter only/);
  });

  it('kill switch (HALTED): its orders are all cancelled and it places nothing more, even as the mid moves', async () => {
    await withKillFile(async (file) => {
      const halted = haltedBy(grid);
      const run = await createStrategyHarness(halted.definition, { params: { ...params, mode: 'recenter', recenterBps: 5 }, markets: [{ spec: monUsdc, book: book('0.0349', '0.0351') }], risk: { killSwitch: { file } } }).start();
      await run.waitFor(() => run.state().orders.length === 6 && run.state().pendingRequests === 0);
      writeFileSync(file, '');
      await run.waitFor(() => halted.at() !== undefined);
      expect(halted.states.at(-1)).toEqual({ state: 'HALTED', trigger: 'file', reason: `kill file ${file} exists` });
      // The engine's cancels leave every grid price empty, and the mid moves past recenterBps: a running grid would place again.
      await run.book(book('0.0359', '0.0361'));
      await run.advanceBy(5_000);
      expect(run.state().orders).toEqual([]);
      expect(run.state().pendingRequests).toBe(0);
      const after = run.intents.filter(({ at }) => at >= halted.at()! - run.startMs).map(({ intent }) => intent);
      expect(after.filter(placesAnything)).toEqual([]);
      expect(run.refused).toEqual([]);
      await run.stop();
    });
  });
});
