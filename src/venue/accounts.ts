/**
 * Venue accounts: a uint40 id, an owner address, token balances and 62 maker slots per market.
 * Balances are raw token units (bigint): `available` can fund new orders, `locked` backs resting ones.
 */
import { assertInRange, UINT256_MAX, UINT40_MAX } from '../core/units.ts';
import type { Address } from '../protocol/encoding.ts';
import { MAKER_SLOTS } from '../protocol/constants.ts';
import { invariantBroken } from './invariant.ts';

/** One token balance of one account (or the venue's fee balance). Mutated only by the engine. */
export interface TokenBalance {
  available: bigint;
  locked: bigint;
}

/** What a maker slot holds: the resting order's id and whatever the engine keeps for it. */
export interface SlotOrder {
  readonly id: bigint;
}

/** The 62 maker slots of one account on one market: slot index -> resting order, or null. */
export type MakerSlots<O extends SlotOrder = SlotOrder> = (O | null)[];

/** A venue account. */
export class Account<O extends SlotOrder = SlotOrder> {
  /** uint40, from 1. */
  readonly id: bigint;
  /** Lowercase address of the owner. */
  readonly owner: Address;
  private readonly balances = new Map<Address, TokenBalance>();
  private readonly slotsByMarket = new Map<Address, MakerSlots<O>>();

  constructor(id: bigint, owner: Address) {
    this.id = id;
    this.owner = owner;
  }

  /** The live balance object of `token` (created at zero): the engine keeps references to it. */
  balance(token: Address): TokenBalance {
    let balance = this.balances.get(token);
    if (balance === undefined) {
      balance = { available: 0n, locked: 0n };
      this.balances.set(token, balance);
    }
    return balance;
  }

  /** The balance of `token` without creating it. */
  peekBalance(token: Address): Readonly<TokenBalance> | undefined {
    return this.balances.get(token);
  }

  /** Every token this account has held, with its balance. */
  tokens(): IterableIterator<[Address, Readonly<TokenBalance>]> {
    return this.balances.entries();
  }

  /** The live maker slots of `market` (created empty). */
  slots(market: Address): MakerSlots<O> {
    let slots = this.slotsByMarket.get(market);
    if (slots === undefined) {
      slots = new Array<O | null>(MAKER_SLOTS).fill(null);
      this.slotsByMarket.set(market, slots);
    }
    return slots;
  }

  /** The maker slots of `market` without creating them. */
  peekSlots(market: Address): Readonly<MakerSlots<O>> | undefined {
    return this.slotsByMarket.get(market);
  }

  /** The order id in each slot of `market` (null = empty). */
  slotOrderIds(market: Address): (bigint | null)[] {
    const slots = this.slotsByMarket.get(market);
    return slots === undefined ? new Array<bigint | null>(MAKER_SLOTS).fill(null) : slots.map((order) => order?.id ?? null);
  }

  /** Markets where this account has slots. */
  markets(): IterableIterator<Address> {
    return this.slotsByMarket.keys();
  }
}

/**
 * The account registry: ids are assigned in order from 1; one account per owner.
 *
 * @example
 * const accounts = new Accounts();
 * const { id } = accounts.fund({ owner, token: usdc, amount: 1_000_000n });
 */
export class Accounts<O extends SlotOrder = SlotOrder> {
  private readonly byId = new Map<bigint, Account<O>>();
  private readonly byOwner = new Map<Address, Account<O>>();
  private nextId = 1n;

  get size(): number {
    return this.byId.size;
  }

  get(id: bigint): Account<O> | undefined {
    return this.byId.get(id);
  }

  byOwnerAddress(owner: Address): Account<O> | undefined {
    return this.byOwner.get(owner.toLowerCase() as Address);
  }

  /** The owner's account, opened with the next id when it has none. */
  open(owner: Address): Account<O> {
    const key = owner.toLowerCase() as Address;
    const existing = this.byOwner.get(key);
    if (existing !== undefined) return existing;
    if (this.nextId > UINT40_MAX) invariantBroken('account ids exhausted');
    const account = new Account<O>(this.nextId++, key);
    this.byId.set(account.id, account);
    this.byOwner.set(key, account);
    return account;
  }

  /** Credits `amount` raw units of `token` to the account's available balance. */
  credit(account: Account<O>, token: Address, amount: bigint): void {
    assertInRange(amount, UINT256_MAX, 'amount');
    account.balance(token).available += amount;
  }

  /** Opens the owner's account if needed and credits it (the `/sim/fund` operation). */
  fund(params: { owner: Address; token: Address; amount: bigint }): Account<O> {
    const account = this.open(params.owner);
    this.credit(account, params.token.toLowerCase() as Address, params.amount);
    return account;
  }

  all(): IterableIterator<Account<O>> {
    return this.byId.values();
  }
}
