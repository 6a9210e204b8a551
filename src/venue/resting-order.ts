/**
 * An order inside the venue: the book's links, the slot it lives in, the balances it settles
 * against and the funds it keeps locked. The engine alone mutates it; everyone else sees the
 * readonly `RestingOrder` view.
 */
import type { Address } from '../protocol/encoding.ts';
import type { OrderSide, TimeInForce } from '../protocol/constants.ts';
import type { MakerSlots, TokenBalance } from './accounts.ts';
import type { BookOrder, PriceLevel } from './order-book.ts';

/** The readonly view of an order of the venue. */
export interface RestingOrder {
  /** uint64, assigned by the venue from 1. */
  readonly id: bigint;
  readonly market: Address;
  readonly accountId: bigint;
  readonly side: OrderSide;
  readonly price: bigint;
  /** The size it was placed with. */
  readonly size: bigint;
  /** The open size. */
  readonly remaining: bigint;
  readonly tif: TimeInForce;
  readonly postOnly: boolean;
  readonly minSizeAfterBlock: bigint;
  /** Its maker slot, or -1 for IOC and FOK orders. */
  readonly slot: number;
  /** Raw units locked for the open size: quote incl. the maker fee for a buy, base for a sell. */
  readonly locked: bigint;
}

/** The engine's mutable order. One class, one shape: the matching loop stays monomorphic. */
export class VenueOrder implements BookOrder, RestingOrder {
  readonly id: bigint;
  readonly market: Address;
  readonly accountId: bigint;
  readonly isBuy: boolean;
  readonly side: OrderSide;
  readonly price: bigint;
  readonly priceKey: number;
  readonly size: bigint;
  remaining: bigint;
  readonly tif: TimeInForce;
  readonly postOnly: boolean;
  readonly minSizeAfterBlock: bigint;
  readonly slot: number;
  locked = 0n;
  /** The owner's slots on this market (the order sits at `slot` while it rests). */
  readonly slots: MakerSlots<VenueOrder>;
  readonly baseBalance: TokenBalance;
  readonly quoteBalance: TokenBalance;
  prev: BookOrder | null = null;
  next: BookOrder | null = null;
  level: PriceLevel | null = null;

  constructor(
    id: bigint,
    market: Address,
    accountId: bigint,
    isBuy: boolean,
    price: bigint,
    size: bigint,
    tif: TimeInForce,
    postOnly: boolean,
    minSizeAfterBlock: bigint,
    slots: MakerSlots<VenueOrder>,
    slot: number,
    baseBalance: TokenBalance,
    quoteBalance: TokenBalance,
  ) {
    this.id = id;
    this.market = market;
    this.accountId = accountId;
    this.isBuy = isBuy;
    this.side = isBuy ? 'BUY' : 'SELL';
    this.price = price;
    this.priceKey = Number(price);
    this.size = size;
    this.remaining = size;
    this.tif = tif;
    this.postOnly = postOnly;
    this.minSizeAfterBlock = minSizeAfterBlock;
    this.slots = slots;
    this.slot = slot;
    this.baseBalance = baseBalance;
    this.quoteBalance = quoteBalance;
  }

  /** The balance its lock comes from: quote for a buy, base for a sell. */
  get lockBalance(): TokenBalance {
    return this.isBuy ? this.quoteBalance : this.baseBalance;
  }
}
