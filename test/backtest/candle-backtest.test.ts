/**
 * The candle backtest's fill rules (docs/backtesting.md, "Candle backtests"), each on hand-made bars
 * with a strategy that emits scripted intents after given bars; and the inputs it refuses.
 */
import { EMPTY, from, mergeMap } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { isBaseError } from '../../src/core/base-error.ts';
import { defineStrategy, type StrategyDefinition } from '../../src/strategy/define-strategy.ts';
import type { Intent, OrderRequest } from '../../src/strategy/intents.ts';
import { z } from 'zod';
import marketMaker from '../../strategies/market-maker.ts';
import { btcUsdt, MINUTE, runBars, T0, type Bar } from './candle-fixtures.ts';

/** A strategy that emits `script.get(k)` once bar k has closed. */
function scripted(script: ReadonlyMap<number, readonly Intent[]>): StrategyDefinition {
  return defineStrategy({
    name: 'scripted',
    params: z.strictObject({}),
    create: (ctx) => {
      let bar = -1;
      return ctx.markets.get('BTC_USDT')!.feed.klines$.pipe(mergeMap(() => from(script.get((bar += 1)) ?? [])));
    },
  });
}

const order = (side: 'BUY' | 'SELL', price: bigint, tif: 'GTC' | 'IOC' | 'FOK', postOnly = false): OrderRequest => ({ side, price, size: 1_000n, tif, executionInstruction: postOnly ? 'POST_ONLY' : 'NONE', minSizeAfterBlock: 0n });
const batch = (orders: readonly OrderRequest[], cancelSlots: readonly number[] = []): Intent => ({ type: 'PlaceAndCancel', market: btcUsdt.address, purpose: 'test', cancelSlots, orders });

async function refusal(action: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await action();
  } catch (error) {
    if (isBaseError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('candle backtest fill rules', () => {
  // Prices in cents. Bar 0 is the signal bar of the first batch: its low (94.00) reaches the limit buy at
  // 95.00 it places, which must not fill there.
  const bars: Bar[] = [
    [10_000, 10_050, 9_400, 10_000],
    [10_020, 10_080, 9_600, 10_050],
    [10_050, 10_100, 9_450, 9_600],
    [10_500, 10_600, 10_400, 10_550],
    [10_550, 10_560, 10_540, 10_550],
  ];
  const script = new Map<number, Intent[]>([
    // A market order (an IOC through the book), a limit buy below, a limit sell above (slots 0 and 1).
    [0, [batch([order('BUY', 10_100n, 'IOC'), order('SELL', 10_400n, 'GTC'), order('BUY', 9_500n, 'GTC')])]],
    // A post-only buy through bar 2's open, with a cancel of the limit sell: the whole batch reverts.
    [1, [batch([order('BUY', 10_100n, 'GTC', true)], [0])]],
    // A limit buy above bar 3's open: marketable when it arrives.
    [2, [batch([order('BUY', 10_600n, 'GTC')])]],
  ]);

  it('fills a market order at the next open, limits when a later bar reaches them, a gap at the open, with the fees of the market', async () => {
    const { fills, reports, run } = await runBars(bars, scripted(script), {});
    const at = (ms: number) => (ms - T0) / MINUTE;
    expect(fills.map((fill) => [at(fill.timeMs), fill.side, fill.price, fill.liquidity, fill.fee])).toEqual([
      // Bar 1's open, as a taker: 2 bp of 100.20 USDT.
      [1, 'BUY', 10_020n, 'taker', 20_040n],
      // Bar 2 reaches 95.00 (its low 94.50): at the limit, as a maker (1 bp), stamped with the bar's last ms.
      [2 + (MINUTE - 1) / MINUTE, 'BUY', 9_500n, 'maker', 9_500n],
      // Bar 3: the limit buy at 106.00 arrives marketable: at the open, as a taker.
      [3, 'BUY', 10_500n, 'taker', 21_000n],
      // Bar 3 opens at 105.00, through the resting sell at 104.00: at the open, as a maker.
      [3 + (MINUTE - 1) / MINUTE, 'SELL', 10_500n, 'maker', 10_500n],
    ]);
    expect(reports.map(({ fate }) => (fate.status === 'REVERTED' ? [fate.status, fate.code, fate.reason] : [fate.status]))).toEqual([
      ['CONFIRMED'],
      ['REVERTED', 'INVALID_ORDER', 'order 0: post-only order would cross the book'],
      ['CONFIRMED'],
    ]);
    expect(run.cancelledAtEnd).toBe(0);
    expect(run.stats).toEqual({ candles: 5, firstMs: T0, lastMs: T0 + 5 * MINUTE, intervalMs: MINUTE });
  });

  it('never fills an order inside the bar that produced it, even when that bar reached its price', async () => {
    // Only the limit buy at 95.00 after bar 0 (low 94.00), and no later bar reaches 95.00.
    const high: Bar[] = [bars[0]!, [9_600, 9_700, 9_550, 9_650], [9_650, 9_700, 9_600, 9_650]];
    const { fills, run } = await runBars(high, scripted(new Map([[0, [batch([order('BUY', 9_500n, 'GTC')])]]])), {});
    expect(fills).toEqual([]);
    // It rested to the end, and the end cancelled it.
    expect(run.cancelledAtEnd).toBe(1);
  });

  it('refuses what an intent after the last bar would need a bar for', async () => {
    const { reports, fills } = await runBars(bars.slice(0, 1), scripted(script), {});
    expect(fills).toEqual([]);
    expect(reports.map(({ fate }) => [fate.status, fate.status === 'REFUSED' ? fate.code : undefined])).toEqual([['REFUSED', 'ENGINE_STOPPED']]);
  });
});

describe('candle backtest refusals', () => {
  it('BACKTEST_NO_BARS: a strategy that reads no bars (the reference market maker reads books)', async () => {
    const params = { levels: 1, spreadBps: 10, size: '0.01', maxInventory: '1' };
    const { code, message } = await refusal(() => runBars([[10_000, 10_000, 10_000, 10_000]], marketMaker, params));
    expect(code).toBe('BACKTEST_NO_BARS');
    expect(message).toContain('strategy tested (test) reads no bars');
  });

  it('FEED_FOREIGN: a strategy that trades a market besides the feed\'s', async () => {
    const { code, message } = await refusal(() => runBars([[10_000, 10_000, 10_000, 10_000]], scripted(new Map()), {}, { markets: ['BTC_USDT', 'MON_USDC'] }));
    expect(code).toBe('FEED_FOREIGN');
    expect(message).toContain('a candle feed of BTC_USDT only, and strategy tested also trades MON_USDC');
  });

  it('a strategy that completes without reading a bar is not refused: it is done', async () => {
    const done = defineStrategy({ name: 'done', params: z.strictObject({}), create: () => EMPTY });
    const { run } = await runBars([[10_000, 10_000, 10_000, 10_000]], done, {});
    expect(run.reason).toEqual({ kind: 'completed' });
  });
});
