/**
 * The reference crossover (strategies/ma-crossover.ts) on a hand-made candle series whose trades are
 * worked out by hand, through the candle backtest; its averages and params on their own.
 */
import { describe, expect, it } from 'vitest';
import { checkStrategy } from 'clobbot/testing';
import crossover, { CrossingAverages, maCrossoverParams } from '../../strategies/ma-crossover.ts';
import { MINUTE, runBars, T0, type Bar } from '../backtest/candle-fixtures.ts';
import { monUsdc } from './fixtures.ts';

/**
 * fast 2, slow 3, size 1 BTC, IOC orders 1 % through the close (prices in cents):
 * - bars 0-2 close at 100.00: the averages are defined at bar 2, equal: not above, no trade;
 * - bar 3 closes at 103.00: fast (100 + 103) / 2 = 101.5 > slow 303 / 3 = 101: crossing up, an IOC
 *   buy at 104.03; bar 4 opens at 102.00: it fills there (taker, 2 bp: 0.0204 USDT);
 * - bar 4 closes at 104 (fast 103.5 > slow 102.33: still above); bar 5 closes at 101: fast 102.5 <
 *   slow 102.67: crossing down, an IOC sell at 99.99; bar 6 opens at 99.00, below it: nothing fills;
 * - bar 6 closes at 98 (still below): the position is still 1, so a new IOC sell at 97.02; bar 7
 *   opens at 98.50: it fills there (taker: 0.0197 USDT); bars 7 and 8 change nothing.
 */
const bars: Bar[] = [
  [10_000, 10_010, 9_990, 10_000],
  [10_000, 10_010, 9_990, 10_000],
  [10_000, 10_010, 9_990, 10_000],
  [10_000, 10_320, 9_990, 10_300],
  [10_200, 10_450, 10_150, 10_400],
  [10_400, 10_410, 10_050, 10_100],
  [9_900, 9_950, 9_780, 9_800],
  [9_850, 9_870, 9_690, 9_700],
  [9_700, 9_750, 9_650, 9_700],
];

describe('ma-crossover', () => {
  it('trades the crossings of a hand-made series at the next bars\' opens, with the taker fee', async () => {
    const { fills, reports, run } = await runBars(bars, crossover, { fast: 2, slow: 3, size: '1', slippageBps: 100 });
    expect(fills.map((fill) => ({ at: (fill.timeMs - T0) / MINUTE, side: fill.side, price: fill.price, size: fill.size, fee: fill.fee, liquidity: fill.liquidity }))).toEqual([
      { at: 4, side: 'BUY', price: 10_200n, size: 1_000n, fee: 20_400n, liquidity: 'taker' },
      { at: 7, side: 'SELL', price: 9_850n, size: 1_000n, fee: 19_700n, liquidity: 'taker' },
    ]);
    // Three IOC orders: the buy, the sell the gap left unfilled, the sell again.
    expect(reports.map(({ intent, fate }) => [intent.type === 'PlaceAndCancel' ? intent.orders.map((order) => [order.side, order.price, order.tif]) : [], fate.status])).toEqual([
      [[['BUY', 10_403n, 'IOC']], 'CONFIRMED'],
      [[['SELL', 9_999n, 'IOC']], 'CONFIRMED'],
      [[['SELL', 9_702n, 'IOC']], 'CONFIRMED'],
    ]);
    expect(run.hosts[0]!.figures()).toEqual({ figures: { bars: 9, crossesUp: 1, crossesDown: 1, target: '0' } });
    // From the first bar's close to the last: the 100 BTC funded lost 3.00 USDT each (100.00 to 97.00),
    // and the trade 3.5401 USDT (bought at 102.00, sold at 98.50, 0.0401 of fees).
    const equity = run.samples.equity;
    expect(equity[0]!.equity - equity.at(-1)!.equity).toBe(300_000_000n + 3_540_100n);
  });

  it('does not trade before its slow average exists, nor on the regime it first sees', async () => {
    // Rising from the start: fast > slow from bar 2 on, never a crossing.
    const rising: Bar[] = [0, 1, 2, 3, 4, 5].map((k) => [10_000 + 100 * k, 10_050 + 100 * k, 9_950 + 100 * k, 10_000 + 100 * k] as const);
    const { fills, reports } = await runBars(rising, crossover, { fast: 2, slow: 3, size: '1' });
    expect(reports).toEqual([]);
    expect(fills).toEqual([]);
  });

  it('runs live on the bar builder\'s one-minute bars of the venue\'s trades, through the engine', async () => {
    // One trade a minute (each in its own minute, wherever the start falls): 0.035 three times, then 0.036.
    // Bar 3 closes a crossing up: an IOC buy 1 % through 0.036 takes the ask at 0.0361.
    const trades = ['0.0350', '0.0350', '0.0350', '0.0360'].map((price, k) => ({ at: 30_000 + k * MINUTE, price, qty: '100' }));
    const result = await checkStrategy(crossover, {
      params: { fast: 2, slow: 3, size: '1', slippageBps: 100 },
      markets: [{ spec: monUsdc, books: [{ at: 0, bids: [['0.0349', '5000']], asks: [['0.0351', '5000']] }, { at: 3 * MINUTE + 20_000, bids: [['0.0359', '5000']], asks: [['0.0361', '5000']] }], trades }],
      until: 5 * MINUTE,
    });
    // After the minute of the last trade closed (and its grace: a trades poll and a second), within a minute of that trade.
    expect(result.intents.map(({ at, intent }) => [at > 3 * MINUTE + 30_000 && at < 4 * MINUTE + 35_000, intent.type === 'PlaceAndCancel' ? intent.orders.map((order) => [order.side, order.price, order.size, order.tif]) : []])).toEqual([
      [true, [['BUY', 363_600n, 100n, 'IOC']]],
    ]);
    expect(result.fills.map((fill) => [fill.side, fill.price, fill.size, fill.liquidity])).toEqual([['BUY', 361_000n, 100n, 'taker']]);
    expect(result.states.get('MON_USDC')!.position).toBe(100n);
  });

  it('keeps exact averages: crossings of sums, not of rounded means', () => {
    const averages = new CrossingAverages(2, 3);
    // Bar 3: fast 201 / 2 = 100.5, slow 301 / 3 = 100.33: above by a third of a cent.
    expect([100n, 100n, 100n, 101n, 99n, 99n].map((close) => averages.push(close))).toEqual([undefined, undefined, undefined, 'up', 'down', undefined]);
  });

  it('refuses a fast period that is not shorter than the slow one, at the fast field', () => {
    const result = maCrossoverParams.safeParse({ fast: 30, slow: 30, size: '1' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([['fast', 'fast must be fewer bars than slow']]);
    expect(maCrossoverParams.parse({ fast: 10, slow: 30, size: '0.5' })).toEqual({ fast: 10, slow: 30, size: '0.5', slippageBps: 50 });
  });
});
