import { describe, expect, it } from 'vitest';
import { isBaseError } from '../../src/core/base-error.ts';
import { MAKER_SLOTS } from '../../src/protocol/constants.ts';
import { Accounts } from '../../src/venue/accounts.ts';
import { address, USDC } from './fixtures.ts';

describe('accounts', () => {
  it('assigns ids from 1, one account per owner, owners lowercased', () => {
    const accounts = new Accounts();
    const a = accounts.open('0x00000000000000000000000000000000000000AB');
    const b = accounts.open(address(2));
    expect(a.id).toBe(1n);
    expect(b.id).toBe(2n);
    expect(a.owner).toBe('0x00000000000000000000000000000000000000ab');
    expect(accounts.open(address(0xab))).toBe(a);
    expect(accounts.byOwnerAddress('0x00000000000000000000000000000000000000AB')).toBe(a);
    expect(accounts.get(2n)).toBe(b);
    expect(accounts.get(3n)).toBeUndefined();
    expect(accounts.size).toBe(2);
  });

  it('funds an owner, creating the account once', () => {
    const accounts = new Accounts();
    const a = accounts.fund({ owner: address(5), token: USDC.address, amount: 100n });
    accounts.fund({ owner: address(5), token: USDC.address, amount: 50n });
    expect(a.balance(USDC.address)).toEqual({ available: 150n, locked: 0n });
    expect(accounts.size).toBe(1);
  });

  it('refuses negative credits', () => {
    const accounts = new Accounts();
    const a = accounts.open(address(1));
    try {
      accounts.credit(a, USDC.address, -1n);
      expect.unreachable();
    } catch (error) {
      expect(isBaseError(error, 'UNITS_OUT_OF_RANGE')).toBe(true);
    }
    expect(a.peekBalance(USDC.address)).toBeUndefined();
  });

  it('has 62 empty maker slots per market', () => {
    const accounts = new Accounts();
    const a = accounts.open(address(1));
    expect(a.slotOrderIds(address(0xb1))).toEqual(new Array(MAKER_SLOTS).fill(null));
    const slots = a.slots(address(0xb1));
    expect(slots).toHaveLength(MAKER_SLOTS);
    slots[3] = { id: 42n };
    expect(a.slotOrderIds(address(0xb1))[3]).toBe(42n);
    expect(a.slotOrderIds(address(0xb2))[3]).toBeNull();
  });
});
