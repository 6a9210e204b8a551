import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PlaceAndCancel, ReplaceSlots } from 'clobbot';
import { checkStrategy, createStrategyHarness } from 'clobbot/testing';
import twap, { twapDue } from '../../strategies/twap.ts';
import { book, monUsdc, wethUsdc } from './fixtures.ts';
import { haltedBy, placesAnything, withKillFile } from './halt-support.ts';

const ioc = { side: 'buy', quantity: '1000', duration: '10s', slices: 5 } as const;

/** The IOC orders of the run: time, side, price, size. */
function iocOrders(intents: readonly { at: number; intent: unknown }[]) {
  return intents.map(({ at, intent }) => {
    const order = (intent as PlaceAndCancel).orders[0]!;
    expect(order.tif).toBe('IOC');
    return { at, side: order.side, price: order.price, size: order.size };
  });
}

describe('twap', () => {
  it('splits the quantity evenly, the last slice taking the rounding remainder', async () => {
    expect([0, 1, 2].map((k) => twapDue(100n, 3, k))).toEqual([33n, 66n, 100n]);
  });

  it('ioc: slices the quantity over the window and stops at the target', async () => {
    const result = await checkStrategy(twap, { params: ioc, markets: [{ spec: monUsdc, books: [{ at: 0, ...book('0.0349', '0.0351') }] }], until: 60_000 });
    // 1000 MON = 100000 units in 5 slices of 20000, every 2 s, priced 10 bp through the ask: 351000 x 1.001 = 351351 -> 351350.
    expect(iocOrders(result.intents)).toEqual([0, 2_000, 4_000, 6_000, 8_000].map((at) => ({ at, side: 'BUY', price: 351_350n, size: 20_000n })));
    expect(result.fills.reduce((sum, fill) => sum + fill.size, 0n)).toBe(100_000n);
    expect(result.fills.every((fill) => fill.price === 351_000n && fill.liquidity === 'taker')).toBe(true);
    expect(result.states.get('MON_USDC')!.position).toBe(100_000n);
    expect(result.completed).toBe(true);
  });

  it('ioc: catches up what a thin book did not fill, and stops when the window ends', async () => {
    // Each new book offers only 150 MON (15000 units) at 0.0351.
    const thin = (at: number) => ({ at, bids: [['0.0349', '1000']] as const, asks: [['0.0351', '150']] as const });
    const result = await checkStrategy(twap, { params: ioc, markets: [{ spec: monUsdc, books: [0, 2_000, 4_000, 6_000, 8_000].map(thin) }], until: 60_000 });
    // Due 20000 by 0 s, 40000 by 2 s, … ; each IOC takes the 15000 offered. An IOC stays a pending
    // request until the engine has its outcome and its fills (order events, seconds later), and a slice
    // is skipped while a request is pending: the 2 s and 6 s slices send nothing, the next catch up.
    // At 4 s: due 60000, filled 15000, and 20000 - 15000 of the IOC sent within IOC_SETTLE_MS still
    // counted in flight: 40000. At 8 s: due 100000, filled 30000, 40000 - 15000 in flight: 45000.
    expect(iocOrders(result.intents).map(({ at, size }) => [at, size])).toEqual([
      [0, 20_000n],
      [4_000, 40_000n],
      [8_000, 45_000n],
    ]);
    expect(result.fills.map((fill) => [fill.price, fill.size, fill.liquidity])).toEqual([0, 1, 2].map(() => [351_000n, 15_000n, 'taker']));
    expect(result.states.get('MON_USDC')!.position).toBe(45_000n);
    expect(result.completed).toBe(true);
    expect(result.intentsBetween(8_001, 60_000)).toEqual([]);
  });

  it('ioc: never pays beyond limitPrice, and sells through the bid', async () => {
    const capped = await checkStrategy(twap, {
      params: { ...ioc, limitPrice: '0.03511' },
      markets: [{ spec: monUsdc, books: [{ at: 0, ...book('0.0349', '0.0351') }] }],
      until: 20_000,
    });
    expect(new Set(iocOrders(capped.intents).map((order) => order.price))).toEqual(new Set([351_100n]));

    const out = await checkStrategy(twap, {
      params: { ...ioc, limitPrice: '0.0350' },
      markets: [{ spec: monUsdc, books: [{ at: 0, ...book('0.0349', '0.0351') }] }],
      until: 20_000,
    });
    expect(out.intents).toEqual([]);
    expect(out.completed).toBe(true);

    const sell = await checkStrategy(twap, { params: { ...ioc, side: 'SELL', slices: 1 }, markets: [{ spec: monUsdc, books: [{ at: 0, ...book('0.0349', '0.0351') }] }] });
    // 349000 x 0.999 = 348651 -> up to the tick: 348660.
    expect(iocOrders(sell.intents)).toEqual([{ at: 0, side: 'SELL', price: 348_660n, size: 100_000n }]);
    expect(sell.states.get('MON_USDC')!.position).toBe(-100_000n);
    expect(sell.completed).toBe(true);
  });

  it('limit: rests one post-only order at its side of the book, re-sized each slice, cancelled at the end', async () => {
    const result = await checkStrategy(twap, {
      params: { side: 'SELL', quantity: '300', duration: '3s', slices: 3, mode: 'limit' },
      markets: [{ spec: monUsdc, books: [{ at: 0, ...book('0.0349', '0.0351') }], fills: [{ at: 500, slot: 0 }] }],
      until: 10_000,
    });
    const ops = result.intents.map(({ at, intent }) => ({ at, ops: (intent as ReplaceSlots).ops }));
    expect(ops).toEqual([
      { at: 0, ops: [{ slotIdx: 0, kind: 'place', side: 'SELL', postOnly: true, price: 351_000n, size: 10_000n, minSizeAfterBlock: 0n }] },
      // The engine learns the resting order's id (and its fill at 500 ms) from order events a second or
      // so after their block: at the second slice the order has no id yet, so the quote manager waits.
      // By the third, 100 MON were filled and 300 are due: 200 MON rest in slot 0.
      { at: 2_000, ops: [{ slotIdx: 0, kind: 'place', side: 'SELL', postOnly: true, price: 351_000n, size: 20_000n, minSizeAfterBlock: 0n }] },
      // The window ends: cancelled.
      { at: 3_000, ops: [{ slotIdx: 0, kind: 'cancel' }] },
    ]);
    expect(result.states.get('MON_USDC')!.orders).toEqual([]);
    expect(result.states.get('MON_USDC')!.position).toBe(-10_000n);
    expect(result.completed).toBe(true);
  });

  it('limit: completes as soon as its fills reach the quantity', async () => {
    const result = await checkStrategy(twap, {
      params: { side: 'BUY', quantity: '100', duration: '10s', slices: 1, mode: 'limit' },
      markets: [{ spec: monUsdc, books: [{ at: 0, ...book('0.0349', '0.0351') }], fills: [{ at: 700, slot: 0 }] }],
      until: 60_000,
    });
    expect(result.intents).toHaveLength(1);
    expect(result.states.get('MON_USDC')!.position).toBe(10_000n);
    expect(result.completed).toBe(true);
    expect(result.intentsBetween(701, 60_000)).toEqual([]);
  });

  it('trades exactly one market', async () => {
    await expect(checkStrategy(twap, { params: ioc, markets: [monUsdc, wethUsdc] })).rejects.toThrow(/twap trades exactly one market; it was given 2/);
  });

  it('ioc, kill switch (HALTED): the slices after the trip send nothing; the window still ends it', async () => {
    await withKillFile(async (file) => {
      const halted = haltedBy(twap);
      const run = await createStrategyHarness(halted.definition, { params: ioc, markets: [{ spec: monUsdc, book: book('0.0349', '0.0351') }], risk: { killSwitch: { file } } }).start();
      // Slices at 0, 2, 4, 6 and 8 s: the switch trips between 3 and 4 s, after two of them.
      await run.advanceTo(3_000);
      writeFileSync(file, '');
      await run.waitFor(() => halted.at() !== undefined);
      expect(halted.at()! - run.startMs).toBeLessThan(4_000);
      expect(halted.states.at(-1)).toEqual({ state: 'HALTED', trigger: 'file', reason: `kill file ${file} exists` });
      await run.advanceTo(20_000);
      expect(iocOrders(run.intents).map(({ at }) => at)).toEqual([0, 2_000]);
      expect(run.refused).toEqual([]);
      expect(run.state().position).toBe(40_000n);
      expect(run.completed).toBe(true);
      await run.stop();
    });
  });

  it('limit, kill switch (HALTED): its resting order is cancelled and not placed again', async () => {
    await withKillFile(async (file) => {
      const halted = haltedBy(twap);
      const run = await createStrategyHarness(halted.definition, {
        params: { side: 'SELL', quantity: '300', duration: '10s', slices: 5, mode: 'limit' },
        markets: [{ spec: monUsdc, book: book('0.0349', '0.0351') }],
        risk: { killSwitch: { file } },
      }).start();
      await run.waitFor(() => run.state().orders.length === 1 && run.state().orders[0]!.orderId !== undefined);
      writeFileSync(file, '');
      await run.waitFor(() => halted.at() !== undefined);
      await run.advanceTo(20_000);
      expect(run.state().orders).toEqual([]);
      const after = run.intents.filter(({ at }) => at >= halted.at()! - run.startMs).map(({ intent }) => intent);
      expect(after.filter(placesAnything)).toEqual([]);
      expect(run.refused).toEqual([]);
      expect(run.completed).toBe(true);
      await run.stop();
    });
  });
});
