import { describe, expect, it } from 'vitest';
import type { OwnMarketState, ReplaceSlots } from 'clobbot';
import { checkStrategy, createStrategyHarness } from 'clobbot/testing';
import marketMaker from '../../strategies/market-maker.ts';
import { book, monUsdc, wethUsdc } from './fixtures.ts';

/** config/market-maker.yaml's params. */
const params = {
  levels: 3,
  spreadBps: 20,
  levelSpacingBps: 10,
  size: '2000',
  priceSource: 'mid',
  targetInventory: '0',
  maxInventory: '40000',
  skewBps: 15,
  requoteThresholdBps: 4,
} as const;

const SIZE = 200_000n; // 2000 MON in 0.01 units

function quotes(state: OwnMarketState) {
  const prices = (side: 'BUY' | 'SELL') =>
    state.orders
      .filter((order) => order.side === side)
      .map((order) => order.price)
      .sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  return { bids: prices('BUY'), asks: prices('SELL').reverse() };
}

describe('market-maker', () => {
  it('quotes both sides around the mid at the configured spreads, in one packed replacement', () => {
    const result = checkStrategy(marketMaker, { params, markets: [{ spec: monUsdc, books: [{ at: 0, ...book('0.0349', '0.0351') }] }], until: 1_000 });
    // mid 0.035 = 350000 units; levels at 20, 30, 40 bps, bids rounded down and asks up to the tick of 10.
    expect(quotes(result.states.get('MON_USDC')!)).toEqual({ bids: [349_300n, 348_950n, 348_600n], asks: [350_700n, 351_050n, 351_400n] });
    expect(result.states.get('MON_USDC')!.orders.every((order) => order.size === SIZE)).toBe(true);
    expect(result.intents).toHaveLength(1);
    const intent = result.intents[0]!.intent as ReplaceSlots;
    expect(intent.type).toBe('ReplaceSlots');
    expect(intent.ops.map((op) => op.slotIdx)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(intent.ops.every((op) => op.kind === 'place' && op.postOnly)).toBe(true);
    expect(result.reverted).toEqual([]);
  });

  it('quotes around the microprice when asked', () => {
    // Bid 0.0349 x 100000, ask 0.0351 x 300000: the microprice leans to the bid (0.03495).
    const skewedBook = { bids: [[349_000n, 10_000_000n]] as const, asks: [[351_000n, 30_000_000n]] as const };
    const result = checkStrategy(marketMaker, {
      params: { ...params, levels: 1, priceSource: 'microprice' },
      markets: [{ spec: monUsdc, books: [{ at: 0, ...skewedBook }] }],
    });
    // 349500 x 0.998 = 348801 -> 348800; x 1.002 = 350199 -> 350200.
    expect(quotes(result.states.get('MON_USDC')!)).toEqual({ bids: [348_800n], asks: [350_200n] });
  });

  it('does not requote while the quotes stay within the threshold, and requotes past it', () => {
    const result = checkStrategy(marketMaker, {
      params,
      markets: [
        {
          spec: monUsdc,
          books: [
            { at: 0, ...book('0.0349', '0.0351') },
            // mid 0.035007: 0.2 bp away, under the 4 bp threshold.
            { at: 1_000, ...book('0.034907', '0.035107') },
            // mid 0.03502: about 5.7 bp, past it.
            { at: 2_000, ...book('0.03492', '0.03512') },
          ],
        },
      ],
      until: 3_000,
    });
    expect(result.intentsBetween(0, 1)).toHaveLength(1);
    expect(result.intentsBetween(1, 2_000)).toEqual([]);
    const requote = result.intentsBetween(2_000, 3_000);
    expect(requote).toHaveLength(1);
    // Wanted now: bids 349490, 349140, 348790; asks 350910, 351260, 351610. The asks resting at 351050
    // and 351400 are within 4 bp of 350910 and 351260, so they stay; the other four orders are replaced
    // in their own slots.
    expect((requote[0] as ReplaceSlots).ops).toHaveLength(4);
    expect((requote[0] as ReplaceSlots).ops.every((op) => op.kind === 'place')).toBe(true);
    expect(quotes(result.states.get('MON_USDC')!)).toEqual({ bids: [349_490n, 349_140n, 348_790n], asks: [351_050n, 351_400n, 351_610n] });
  });

  it('skews its quotes toward the target as inventory builds up', () => {
    // 20000 MON long, target 0, max 40000: half-way, so the quotes shift down by 7.5 bp.
    const result = checkStrategy(marketMaker, {
      params: { ...params, levels: 1 },
      markets: [{ spec: monUsdc, position: 2_000_000n, books: [{ at: 0, ...book('0.0349', '0.0351') }] }],
    });
    // center 350000 x (1 - 0.00075) = 349737.5; bid x 0.998 = 349038.0 -> 349030; ask x 1.002 = 350437.0 -> 350440.
    expect(quotes(result.states.get('MON_USDC')!)).toEqual({ bids: [349_030n], asks: [350_440n] });
  });

  it('skews after its own fills: a filled bid moves both quotes down', () => {
    const run = createStrategyHarness(marketMaker, { params: { ...params, levels: 1, maxInventory: '4000', requoteThresholdBps: 0 }, markets: [monUsdc] }).start();
    run.book(book('0.0349', '0.0351'));
    const before = quotes(run.state());
    const bidSlot = run.state().orders.find((order) => order.side === 'BUY')!.slot!;
    run.advanceBy(1_000);
    run.fill(bidSlot); // +2000 MON: half of maxInventory -> 7.5 bp lower
    const after = quotes(run.state());
    expect(run.state().position).toBe(SIZE);
    expect(after.bids[0]).toBeLessThan(before.bids[0]!);
    expect(after.asks[0]).toBeLessThan(before.asks[0]!);
    expect(after).toEqual({ bids: [349_030n], asks: [350_440n] });
    run.stop();
  });

  it('stops quoting the side whose fills would take the position beyond maxInventory', () => {
    const state = (position: bigint) =>
      checkStrategy(marketMaker, { params, markets: [{ spec: monUsdc, position, books: [{ at: 0, ...book('0.0349', '0.0351') }] }] }).states.get('MON_USDC')!;
    // 35000 MON long: two bid levels fit under 40000 (37000, 39000), the third would reach 41000.
    expect(quotes(state(3_500_000n)).bids).toHaveLength(2);
    expect(quotes(state(3_500_000n)).asks).toHaveLength(3);
    // 39000 long: no bid at all; 39000 short: no ask at all.
    expect(quotes(state(3_900_000n))).toMatchObject({ bids: [] });
    expect(quotes(state(3_900_000n)).asks).toHaveLength(3);
    expect(quotes(state(-3_900_000n))).toMatchObject({ asks: [] });
    expect(quotes(state(-3_900_000n)).bids).toHaveLength(3);
  });

  it('pulls its quotes when the book loses a side, and never crosses the book', () => {
    const result = checkStrategy(marketMaker, {
      params: { ...params, skewBps: 5_000, spreadBps: 1, levelSpacingBps: 0, levels: 1 },
      markets: [
        {
          spec: monUsdc,
          position: 4_000_000n, // at max inventory: quotes shift 50 % down, far below the bid
          books: [
            { at: 0, ...book('0.0349', '0.0351') },
            { at: 1_000, bids: [], asks: [['0.0351', '100']] },
          ],
        },
      ],
      until: 2_000,
    });
    const first = result.stateAt(999);
    // No bid (max inventory); the ask is clamped one tick above the best bid instead of crossing it.
    expect(quotes(first)).toEqual({ bids: [], asks: [349_010n] });
    expect(result.states.get('MON_USDC')!.orders).toEqual([]);
    expect(result.reverted).toEqual([]);
  });

  it('quotes each of its markets', () => {
    const result = checkStrategy(marketMaker, {
      params: { ...params, levels: 1, size: '1' },
      markets: [
        { spec: monUsdc, books: [{ at: 0, ...book('0.0349', '0.0351') }] },
        { spec: wethUsdc, books: [{ at: 0, bids: [['3000', '10']], asks: [['3001', '10']] }] },
      ],
    });
    expect(result.states.get('MON_USDC')!.orders).toHaveLength(2);
    // mid 3000.50 = 300050 cents: 300050 x 0.998 = 299449.9 -> 299449; x 1.002 = 300650.1 -> 300651.
    expect(quotes(result.states.get('WETH_USDC')!)).toEqual({ bids: [299_449n], asks: [300_651n] });
  });

  it('refuses a size below the market minimum as a config error', () => {
    expect(() => checkStrategy(marketMaker, { params: { ...params, size: '0.5' }, markets: [monUsdc] })).toThrow(/size 0.5 is outside MON_USDC/);
  });
});
