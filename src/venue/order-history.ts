/**
 * Each account's order data, as the user-data API shows it: its order events (`order-created`,
 * `order-canceled`, `trade`) and where each of its resting orders was placed (for active orders).
 * Built from the matching engine's events with their block, transaction and log position.
 *
 * Denomination (spec rules; the field assignment of created/canceled events is ours, see
 * docs/protocol.md "User order data"): sizes in size-precision units, `price` in price-precision
 * units, `fillPrice` and every `*InUsd` 1e18 fixed point, `base*` amounts raw base-token units of
 * the order's size (base terms whatever the side). USD values take the quote token as USD at 1:1:
 * `xInUsd = price x size x 1e18 / (pricePrecision x sizePrecision)`, floored.
 *
 * - A fill gives a `trade` event to both sides, each from its own order's point of view.
 * - `marketId` is the market's position in the venue's market list, from 1 (ours).
 * - Events are kept per account, the newest 100,000 (ours); they are formatted when first read,
 *   once: every later read gives the same object.
 */
import { ORDER_EVENT_TYPES, type OrderEventType } from '../protocol/constants.ts';
import type { Address, Hex } from '../protocol/encoding.ts';
import type { ActiveOrder, EventToken, OrderEvent, OrderEventsQuery } from '../protocol/user-data.ts';
import { invariantBroken } from './invariant.ts';
import { amountScale, baseRaw, type AmountScale, type MarketSpec } from '../protocol/market-spec.ts';
import type { RestingOrder } from './resting-order.ts';
import type { OrderFilled, VenueEvent } from './venue-events.ts';

/** Events kept per account (older ones are dropped). */
export const MAX_EVENTS_PER_ACCOUNT = 100_000;
const FIXED18 = 10n ** 18n;

/** Where a run of engine events happened: block, transaction and the first log index. */
export interface LogContext {
  readonly blockNumber: bigint;
  /** Block time, ms. */
  readonly timestamp: number;
  readonly txHash: Hex;
  readonly txIndex: number;
  readonly firstLogIndex: number;
}

/** Where an order was placed. */
export interface Placement {
  readonly blockNumber: bigint;
  readonly timestamp: number;
  readonly txHash: Hex;
  readonly txIndex: number;
  readonly logIndex: number;
}

interface LiveOrder {
  readonly size: bigint;
  readonly placement: Placement;
}

interface StoredEvent {
  readonly type: OrderEventType;
  readonly time: number;
  readonly txHash: Hex;
  readonly market: Address;
  readonly orderId: bigint;
  readonly isBuy: boolean;
  /** The order's original size. */
  readonly size: bigint;
  /** The order's price (created, canceled) or the fill price (trade), in price units. */
  readonly price: bigint;
  /** created: the size; canceled: the canceled remainder; trade: the filled size. */
  readonly amount: bigint;
  /** trade: the order's open size after the fill. */
  readonly remaining: bigint;
  /** The event as the API shows it, made when first read: an event never changes, and is read many times. */
  view?: OrderEvent;
}

interface MarketInfo {
  readonly spec: MarketSpec;
  readonly id: number;
  readonly scale: AmountScale;
  readonly notionalScale: bigint;
  readonly baseToken: EventToken;
  readonly quoteToken: EventToken;
}

export interface OrderHistoryContext {
  readonly markets: readonly MarketSpec[];
  /** A token's display name. */
  readonly tokenName: (address: Address) => string;
  /** The owner address of an account. */
  readonly ownerOf: (accountId: bigint) => Address | undefined;
}

/** The last time formatted: the events of one block share it, and are formatted together. */
let isoCache = { ms: Number.NaN, text: '' };

function iso(ms: number): string {
  if (isoCache.ms !== ms) isoCache = { ms, text: new Date(ms).toISOString() };
  return isoCache.text;
}

/**
 * Order events and placements of every account.
 *
 * @example
 * const history = new OrderHistory({ markets, tokenName, ownerOf });
 * history.record(result.events, { blockNumber, timestamp, txHash, txIndex, firstLogIndex });
 * history.orderEvents(accountId, { limit: 50, offset: 0 });
 */
export class OrderHistory {
  private readonly context: OrderHistoryContext;
  private readonly markets = new Map<Address, MarketInfo>();
  private readonly events = new Map<bigint, StoredEvent[]>();
  private readonly live = new Map<bigint, LiveOrder>();

  constructor(context: OrderHistoryContext) {
    this.context = context;
    context.markets.forEach((spec, index) => {
      const token = (t: MarketSpec['baseToken']): EventToken => ({
        address: t.address,
        name: context.tokenName(t.address),
        symbol: t.symbol,
        decimal: t.decimals,
        logoUrl: null,
      });
      this.markets.set(spec.address, {
        spec,
        id: index + 1,
        scale: amountScale(spec),
        notionalScale: spec.pricePrecision * spec.sizePrecision,
        baseToken: token(spec.baseToken),
        quoteToken: token(spec.quoteToken),
      });
    });
  }

  private push(accountId: bigint, event: StoredEvent): void {
    let list = this.events.get(accountId);
    if (list === undefined) {
      list = [];
      this.events.set(accountId, list);
    }
    list.push(event);
    if (list.length > MAX_EVENTS_PER_ACCOUNT + MAX_EVENTS_PER_ACCOUNT / 10) list.splice(0, list.length - MAX_EVENTS_PER_ACCOUNT);
  }

  private liveOrder(orderId: bigint): LiveOrder {
    const order = this.live.get(orderId);
    if (order === undefined) invariantBroken('event of an order the history never saw placed', { orderId: orderId.toString() });
    return order;
  }

  /** Records the engine's events of one transaction (or of a block's end), in order. */
  record(events: readonly VenueEvent[], context: LogContext): void {
    const { timestamp: time, txHash } = context;
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      switch (event.type) {
        case 'OrderPlaced': {
          const placement: Placement = {
            blockNumber: context.blockNumber,
            timestamp: time,
            txHash,
            txIndex: context.txIndex,
            logIndex: context.firstLogIndex + i,
          };
          this.live.set(event.orderId, { size: event.size, placement });
          this.push(event.accountId, {
            type: 'order-created',
            time,
            txHash,
            market: event.market,
            orderId: event.orderId,
            isBuy: event.side === 'BUY',
            size: event.size,
            price: event.price,
            amount: event.size,
            remaining: event.size,
          });
          break;
        }
        case 'OrderFilled': {
          this.recordTrade(event, event.makerAccountId, event.makerOrderId, event.takerSide !== 'BUY', event.makerRemaining, time, txHash);
          this.recordTrade(event, event.takerAccountId, event.takerOrderId, event.takerSide === 'BUY', event.takerRemaining, time, txHash);
          break;
        }
        case 'OrderCanceled': {
          this.push(event.accountId, {
            type: 'order-canceled',
            time,
            txHash,
            market: event.market,
            orderId: event.orderId,
            isBuy: event.side === 'BUY',
            size: event.size,
            price: event.price,
            amount: event.canceledSize,
            remaining: 0n,
          });
          this.live.delete(event.orderId);
          break;
        }
      }
    }
  }

  /** One side's `trade` event of a fill (positional: a fill records two, and there are many fills). */
  private recordTrade(event: OrderFilled, accountId: bigint, orderId: bigint, isBuy: boolean, remaining: bigint, time: number, txHash: Hex): void {
    const order = this.liveOrder(orderId);
    this.push(accountId, {
      type: 'trade',
      time,
      txHash,
      market: event.market,
      orderId,
      isBuy,
      size: order.size,
      price: event.price,
      amount: event.size,
      remaining,
    });
    if (remaining === 0n) this.live.delete(orderId);
  }

  /** Where a live order was placed, or undefined. */
  placement(orderId: bigint): Placement | undefined {
    return this.live.get(orderId)?.placement;
  }

  /**
   * The account's order events, newest first, after the query's filters, offset and limit. An event
   * is the same object every time it is read (the user-data routes key their cached JSON texts and
   * the order-event faults by it).
   */
  orderEvents(accountId: bigint, query: OrderEventsQuery): { readonly events: OrderEvent[]; readonly total: number } {
    const list = this.events.get(accountId) ?? [];
    const { eventType, fromTimestamp, toTimestamp } = query;
    const market = query.marketAddress?.toLowerCase();
    const offset = Math.max(0, query.offset ?? 0);
    const limit = Math.max(0, query.limit ?? list.length);
    const events: OrderEvent[] = [];
    let total = 0;
    for (let i = list.length - 1; i >= 0; i--) {
      const stored = list[i]!;
      if (eventType !== undefined && stored.type !== eventType) continue;
      if (market !== undefined && stored.market !== market) continue;
      const seconds = Math.floor(stored.time / 1000);
      // Events are stored in time order: everything before this one is older still.
      if (fromTimestamp !== undefined && seconds < fromTimestamp) break;
      if (toTimestamp !== undefined && seconds > toTimestamp) continue;
      if (total >= offset && events.length < limit) events.push((stored.view ??= this.format(accountId, stored)));
      total++;
    }
    return { events, total };
  }

  /** How many events of each type the account has (for tests and diagnostics). */
  eventCounts(accountId: bigint): Record<OrderEventType, number> {
    const counts = Object.fromEntries(ORDER_EVENT_TYPES.map((type) => [type, 0])) as Record<OrderEventType, number>;
    for (const event of this.events.get(accountId) ?? []) counts[event.type]++;
    return counts;
  }

  private format(accountId: bigint, stored: StoredEvent): OrderEvent {
    const info = this.markets.get(stored.market);
    if (info === undefined) invariantBroken('order event of an unknown market', { market: stored.market });
    const owner = this.context.ownerOf(accountId);
    if (owner === undefined) invariantBroken('order event of an unknown account', { accountId: accountId.toString() });
    const { spec, scale, notionalScale } = info;
    const usd = (size: bigint) => ((stored.price * size * FIXED18) / notionalScale).toString();
    const base = {
      orderId: stored.orderId.toString(),
      marketAddress: spec.address,
      owner,
      isBuy: stored.isBuy,
      sizePrecision: spec.sizePrecision.toString(),
      pricePrecision: spec.pricePrecision.toString(),
      baseToken: info.baseToken,
      quoteToken: info.quoteToken,
    };
    const envelope = { transactionHash: stored.txHash, blockTimestamp: iso(stored.time) };
    switch (stored.type) {
      case 'order-created':
        return {
          eventType: 'order-created',
          ...envelope,
          eventData: {
            ...base,
            size: stored.size.toString(),
            price: stored.price.toString(),
            baseDeposited: baseRaw(scale, stored.size).toString(),
            baseDepositedInUsd: usd(stored.size),
          },
        };
      case 'order-canceled':
        return {
          eventType: 'order-canceled',
          ...envelope,
          eventData: {
            ...base,
            size: stored.size.toString(),
            remainingSize: stored.amount.toString(),
            price: stored.price.toString(),
            basePositionValue: baseRaw(scale, stored.amount).toString(),
            basePositionValueInUsd: usd(stored.amount),
          },
        };
      case 'trade':
        return {
          eventType: 'trade',
          ...envelope,
          eventData: {
            ...base,
            marketId: info.id,
            orderSize: stored.size.toString(),
            filledSize: stored.amount.toString(),
            fillPrice: ((stored.price * FIXED18) / spec.pricePrecision).toString(),
            updatedSize: stored.remaining.toString(),
            baseFilled: baseRaw(scale, stored.amount).toString(),
            baseFilledInUsd: usd(stored.amount),
          },
        };
    }
  }

  /**
   * The active-order records of resting orders (newest first, at most `limit`), with the
   * placement of each: block, transaction, log index and block time.
   */
  activeOrders(market: MarketSpec, owner: Address, resting: readonly RestingOrder[], limit: number): ActiveOrder[] {
    const sorted = [...resting].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    const out: ActiveOrder[] = [];
    for (const order of sorted.slice(0, Math.max(0, limit))) {
      const placement = this.placement(order.id);
      if (placement === undefined) invariantBroken('resting order without a placement', { orderId: order.id.toString() });
      out.push({
        orderid: Number(order.id),
        marketaddress: market.address,
        owner,
        size: order.size.toString(),
        price: order.price.toString(),
        isbuy: order.side === 'BUY',
        remainingsize: order.remaining.toString(),
        iscanceled: false,
        blocknumber: placement.blockNumber.toString(),
        txindex: placement.txIndex.toString(),
        logindex: placement.logIndex.toString(),
        transactionhash: placement.txHash,
        triggertime: iso(placement.timestamp),
        fliporderid: 0,
        flipprice: 0,
        lpid: '',
        sizeprecision: market.sizePrecision.toString(),
        priceprecision: market.pricePrecision.toString(),
      });
    }
    return out;
  }
}
