/**
 * What the matching engine reports, in the order it happened: readonly, past-tense data from which
 * the server builds order events, trades, klines and active orders. Prices and sizes are in the
 * market's precision units; `quote`, `base` and fees in raw token units.
 */
import type { Address } from '../protocol/encoding.ts';
import type { OrderSide, TimeInForce } from '../protocol/constants.ts';

/** An order was accepted and given its id (every order, including IOC and FOK ones). */
export interface OrderPlaced {
  readonly type: 'OrderPlaced';
  readonly market: Address;
  readonly orderId: bigint;
  readonly accountId: bigint;
  readonly side: OrderSide;
  readonly price: bigint;
  readonly size: bigint;
  readonly tif: TimeInForce;
  readonly postOnly: boolean;
  readonly minSizeAfterBlock: bigint;
  /** The maker slot a GTC order took (freed again if it fills at once); null for IOC and FOK. */
  readonly slot: number | null;
}

/** One match of an incoming (taker) order against a resting (maker) order, at the maker's price. */
export interface OrderFilled {
  readonly type: 'OrderFilled';
  readonly market: Address;
  /** Per market, from 1. */
  readonly tradeId: bigint;
  readonly price: bigint;
  readonly size: bigint;
  /** Raw quote paid by the buyer (before fees) = raw quote owed to the seller (before fees). */
  readonly quote: bigint;
  /** Raw base moved from the seller to the buyer. */
  readonly base: bigint;
  /** The taker's side; the maker is on the other one. */
  readonly takerSide: OrderSide;
  readonly makerOrderId: bigint;
  readonly makerAccountId: bigint;
  readonly makerSlot: number;
  /** The maker's open size after this fill (0: the order is gone and its slot free). */
  readonly makerRemaining: bigint;
  /** Raw quote-token fee charged to the maker. */
  readonly makerFee: bigint;
  readonly takerOrderId: bigint;
  readonly takerAccountId: bigint;
  /** The taker's unfilled size after this fill. */
  readonly takerRemaining: bigint;
  /** Raw quote-token fee charged to the taker. */
  readonly takerFee: bigint;
}

/**
 * Why an order stopped resting (or never did) without being filled:
 * - `requested`: a cancel of the batch or a cancel op;
 * - `replaced`: a place op cancelled the order in its slot first;
 * - `self-trade`: an incoming order of the same account reached it (policy: cancel resting);
 * - `unfilled`: the rest of an IOC order after matching;
 * - `min-size-after-block`: at the end of a block its open size was below its minSizeAfterBlock.
 */
export type CancelReason = 'requested' | 'replaced' | 'self-trade' | 'unfilled' | 'min-size-after-block';

export interface OrderCanceled {
  readonly type: 'OrderCanceled';
  readonly market: Address;
  readonly orderId: bigint;
  readonly accountId: bigint;
  readonly side: OrderSide;
  readonly price: bigint;
  /** The order's original size. */
  readonly size: bigint;
  /** The open size that was cancelled. */
  readonly canceledSize: bigint;
  /** The slot it was freed from; null for an IOC remainder. */
  readonly slot: number | null;
  readonly reason: CancelReason;
}

export type VenueEvent = OrderPlaced | OrderFilled | OrderCanceled;
