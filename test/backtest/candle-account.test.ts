/**
 * The candle backtest's account: the venue's rules that need no book (atomic intents, slots, funds,
 * FOK), applied at a bar's open.
 */
import { describe, expect, it } from 'vitest';
import { CandleAccount } from '../../src/backtest/candle-account.ts';
import { MAKER_SLOTS } from '../../src/protocol/constants.ts';
import type { Intent, OrderRequest } from '../../src/strategy/intents.ts';
import { btcUsdt } from './candle-fixtures.ts';

const order = (side: 'BUY' | 'SELL', price: bigint, tif: 'GTC' | 'IOC' | 'FOK', size = 1_000n): OrderRequest => ({ side, price, size, tif, executionInstruction: 'NONE', minSizeAfterBlock: 0n });
const batch = (orders: readonly OrderRequest[], cancelSlots: readonly number[] = []): Intent => ({ type: 'PlaceAndCancel', market: btcUsdt.address, purpose: 'test', cancelSlots, orders });
/** 1 BTC and 1,000 USDT. */
const funded = () => new CandleAccount(btcUsdt, { base: 10n ** 8n, quote: 1_000n * 10n ** 6n });

describe('candle account', () => {
  it('reverts a whole intent that breaks a rule: nothing of it stays, not even its fills', () => {
    const account = funded();
    expect(account.apply(batch([order('BUY', 9_000n, 'GTC')]), 10_000n, 0, 1).status).toBe('CONFIRMED');
    const before = account.state();
    // A fill at the open, then a FOK that cannot fill (its price is below the open): REVERTED.
    const fate = account.apply(batch([order('BUY', 10_100n, 'IOC'), order('BUY', 9_900n, 'FOK')], [0]), 10_000n, 0, 2);
    expect(fate).toMatchObject({ status: 'REVERTED', code: 'INVALID_ORDER', reason: 'order 1: fill-or-kill order cannot be filled in full' });
    expect(account.takeFills()).toEqual([]);
    expect(account.state()).toBe(before);
    expect(account.position).toBe(0n);
  });

  it('fills a FOK through the open whole; refuses an order the balance cannot cover at its worst case', () => {
    const account = funded();
    expect(account.apply(batch([order('SELL', 9_900n, 'FOK')]), 10_000n, 0, 1).status).toBe('CONFIRMED');
    expect(account.takeFills().map((fill) => [fill.side, fill.price, fill.liquidity])).toEqual([['SELL', 10_000n, 'taker']]);
    // 10 BTC at 100.00 is 1,000 USDT plus the taker fee: more than the 1,000 USDT + 99.98 from the sale.
    const fate = account.apply(batch([order('BUY', 11_000n, 'IOC', 10_000n)]), 10_000n, 0, 2);
    expect(fate).toMatchObject({ status: 'REVERTED', code: 'INSUFFICIENT_BALANCE' });
    expect(account.takeFills()).toEqual([]);
  });

  it('gives GTC orders slots (a batch the lowest free, a place op its own) and refuses one with no free slot', () => {
    const account = funded();
    const sixtyTwo = Array.from({ length: MAKER_SLOTS }, (_, i) => order('BUY', 5_000n + BigInt(i), 'GTC', 1n));
    expect(account.apply(batch(sixtyTwo), 10_000n, 0, 1).status).toBe('CONFIRMED');
    expect(account.apply(batch([order('BUY', 4_000n, 'GTC', 1n)]), 10_000n, 0, 2)).toMatchObject({ status: 'REVERTED', code: 'NO_FREE_SLOT' });
    const replace: Intent = { type: 'ReplaceSlots', market: btcUsdt.address, purpose: 'test', ops: [{ slotIdx: 7, kind: 'place', side: 'SELL', postOnly: true, price: 10_500n, size: 1n, minSizeAfterBlock: 0n }, { slotIdx: 8, kind: 'cancel' }] };
    expect(account.apply(replace, 10_000n, 0, 3).status).toBe('CONFIRMED');
    const slots = account.state().slots;
    expect([slots[7]?.side, slots[7]?.price, slots[8]]).toEqual(['SELL', 10_500n, null]);
    expect(account.apply({ type: 'CancelAll', purpose: 'test' }, 10_000n, 0, 4).status).toBe('CONFIRMED');
    expect(account.state().orders).toEqual([]);
    expect(account.apply({ type: 'CancelAll', purpose: 'test' }, 10_000n, 0, 5).status).toBe('NOTHING_TO_DO');
  });
});
