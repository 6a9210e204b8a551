/**
 * One market's published state (`MarketState`), what strategies and risk read: the live orders
 * by slot and id with what they lock, the orders of requests in flight, the fill ledger's totals
 * and the token balances, as a current value and a stream of changes.
 *
 * Separate from the order registry because it only reads: the registry walks its open orders once
 * per change, for its own upkeep, and hands each live one here (`addOrder`) with its slot and
 * remaining size; `build` turns them into a fresh state, and `publishStates` emits the fresh
 * states and, with new balances, the states of the markets sharing their tokens.
 */
import { BehaviorSubject, type Observable } from 'rxjs';
import { UINT64_MAX } from '../../core/units.ts';
import { MAKER_SLOTS, type OrderSide, type TimeInForce } from '../../protocol/constants.ts';
import type { Address } from '../../protocol/encoding.ts';
import { restingLockRaw, type AmountScale, type MarketSpec } from '../../protocol/market-spec.ts';
import type { OrderRecord, Placement } from '../slot-replay.ts';
import { NOTHING_CARRIED, type CarriedLedger, type FillLedger } from './fill-ledger.ts';
import { sameBalance, type TokenBalance, type TokenBalances } from './token-balances.ts';

/** A live order of the account. */
export interface PortfolioOrder {
  readonly market: Address;
  /** Stable within the run: `id:<orderId>`, or `req:<requestId>:<index>` while the id is not known. */
  readonly key: string;
  /** The venue's order id; undefined between the CONFIRMED outcome and the order's events. */
  readonly orderId: bigint | undefined;
  /** Maker slot 0..61; undefined when it cannot be known (an order placed outside this engine). */
  readonly slot: number | undefined;
  readonly side: OrderSide;
  /** Price units. */
  readonly price: bigint;
  /** Size units, as placed. */
  readonly size: bigint;
  /** Size units still open. */
  readonly remaining: bigint;
  /** The engine request that placed it, when known. */
  readonly requestId: string | undefined;
}

/** An order of a request in flight (signed, no terminal outcome yet): not live. */
export interface PendingOrder {
  readonly requestId: string;
  readonly side: OrderSide;
  readonly price: bigint;
  readonly size: bigint;
  readonly tif: TimeInForce;
  /** The slot of a ReplaceSlots op. */
  readonly slot: number | undefined;
}

export interface MarketState {
  readonly market: Address;
  readonly symbol: string;
  /** Live orders, by slot then by id (orders of unknown slot last). */
  readonly orders: readonly PortfolioOrder[];
  /** MAKER_SLOTS entries: the live order in each slot, or null. */
  readonly slots: readonly (PortfolioOrder | null)[];
  /** Orders of requests in flight (not live). */
  readonly pending: readonly PendingOrder[];
  /** Requests in flight that touch this market. */
  readonly pendingRequests: number;
  /**
   * Size units, signed (long > 0): the account's position, the sum of its signed fills: those this
   * run learned and those `carried` over from earlier runs (the journal's ledger).
   */
  readonly position: bigint;
  /** Raw quote units: the cost of the open position (negative for a short), carried over included. */
  readonly costBasis: bigint;
  /** Raw quote units, average cost, gross of fees, carried over included. */
  readonly realizedPnl: bigint;
  /** Raw quote units paid in fees, carried over included. */
  readonly fees: bigint;
  /** What earlier runs left (the journal's ledger checkpoint; zeros for a new journal). */
  readonly carried: CarriedLedger;
  /** Fills learned in this run (those after the carried ledger); the volumes and flows below are theirs. */
  readonly fillCount: number;
  /** Size units bought and sold; raw quote paid and received (before fees). */
  readonly volume: { readonly bought: bigint; readonly sold: bigint; readonly quotePaid: bigint; readonly quoteReceived: bigint };
  /** Raw units the fills of this market moved: base, and quote including fees. */
  readonly flows: { readonly base: bigint; readonly quote: bigint };
  /** Raw units locked by this market's live orders. */
  readonly locked: { readonly base: bigint; readonly quote: bigint };
  /** Account balances of the market's tokens, once a baseline was set. */
  readonly balances: { readonly base: TokenBalance | undefined; readonly quote: TokenBalance | undefined };
}

const compareBig = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

function emptyState(spec: MarketSpec): MarketState {
  return {
    market: spec.address,
    symbol: spec.symbol,
    orders: [],
    slots: new Array<PortfolioOrder | null>(MAKER_SLOTS).fill(null),
    pending: [],
    pendingRequests: 0,
    position: 0n,
    costBasis: 0n,
    realizedPnl: 0n,
    fees: 0n,
    carried: NOTHING_CARRIED,
    fillCount: 0,
    volume: { bought: 0n, sold: 0n, quotePaid: 0n, quoteReceived: 0n },
    flows: { base: 0n, quote: 0n },
    locked: { base: 0n, quote: 0n },
    balances: { base: undefined, quote: undefined },
  };
}

export class MarketStateProjection {
  readonly spec: MarketSpec;
  readonly #scale: AmountScale;
  readonly #ledger: FillLedger;
  readonly #subject: BehaviorSubject<MarketState>;
  // The state being built: fresh arrays per state, as a published state is never changed.
  #orders: PortfolioOrder[] = [];
  #slots: (PortfolioOrder | null)[] = new Array<PortfolioOrder | null>(MAKER_SLOTS).fill(null);
  #lockBase = 0n;
  #lockQuote = 0n;

  constructor(spec: MarketSpec, scale: AmountScale, ledger: FillLedger) {
    this.spec = spec;
    this.#scale = scale;
    this.#ledger = ledger;
    this.#subject = new BehaviorSubject(emptyState(spec));
  }

  /** The state published last. */
  get current(): MarketState {
    return this.#subject.getValue();
  }

  /** The current state at once, then every change. */
  get changes(): Observable<MarketState> {
    return this.#subject.asObservable();
  }

  /** Adds a live order to the state being built. */
  addOrder(record: OrderRecord, slot: number | undefined, remaining: bigint): void {
    const view: PortfolioOrder = {
      market: this.spec.address,
      key: record.orderId !== undefined ? `id:${record.orderId}` : `req:${record.placement?.requestId}:${record.index}`,
      orderId: record.orderId,
      slot,
      side: record.side,
      price: record.price,
      size: record.size,
      remaining,
      requestId: record.placement?.requestId,
    };
    this.#orders.push(view);
    if (slot !== undefined) this.#slots[slot] = view;
    const lock = restingLockRaw(this.spec, this.#scale, record.side, record.price, remaining);
    if (record.side === 'BUY') this.#lockQuote += lock;
    else this.#lockBase += lock;
  }

  /**
   * The state of the orders added since the last build and of the requests `inFlight` (its
   * balances unset: `publishStates` sets them), and starts the next.
   */
  build(inFlight: Iterable<Placement>): MarketState {
    const orders = this.#orders;
    orders.sort((a, b) => (a.slot ?? MAKER_SLOTS) - (b.slot ?? MAKER_SLOTS) || compareBig(a.orderId ?? UINT64_MAX, b.orderId ?? UINT64_MAX) || (a.key < b.key ? -1 : 1));
    const pending: PendingOrder[] = [];
    let pendingRequests = 0;
    for (const placement of inFlight) {
      if (!placement.markets.has(this.spec.address)) continue;
      pendingRequests++;
      if (placement.market !== this.spec.address) continue;
      for (const order of placement.newOrders) {
        pending.push({ requestId: placement.requestId, side: order.side, price: order.price, size: order.size, tif: order.tif, slot: order.slot });
      }
    }
    const ledger = this.#ledger;
    const position = ledger.position;
    const state: MarketState = {
      market: this.spec.address,
      symbol: this.spec.symbol,
      orders,
      slots: this.#slots,
      pending,
      pendingRequests,
      position: position.size,
      costBasis: position.basis,
      realizedPnl: position.realized,
      fees: ledger.fees,
      carried: ledger.carried,
      fillCount: ledger.fillCount,
      volume: ledger.volume(),
      flows: ledger.flows(),
      locked: { base: this.#lockBase, quote: this.#lockQuote },
      balances: { base: undefined, quote: undefined },
    };
    this.#orders = [];
    this.#slots = new Array<PortfolioOrder | null>(MAKER_SLOTS).fill(null);
    this.#lockBase = 0n;
    this.#lockQuote = 0n;
    return state;
  }

  /** Emits `state` (or, when undefined, the current state) with the balances as they are now, if anything changed. */
  publish(state: MarketState | undefined, balances: TokenBalances): void {
    const next = { base: balances.balance(this.spec.baseToken.address), quote: balances.balance(this.spec.quoteToken.address) };
    if (state === undefined) {
      const current = this.current;
      if (sameBalance(current.balances.base, next.base) && sameBalance(current.balances.quote, next.quote)) return;
      this.#subject.next({ ...current, balances: next });
      return;
    }
    // A fresh state is nobody's yet: it takes its balances in place of a copy (a spread of 16 fields).
    (state as { balances: MarketState['balances'] }).balances = next;
    this.#subject.next(state);
  }
}

/**
 * Publishes the `fresh` states, and the current states of the other markets of `all` that share a
 * token with them when their balances changed.
 */
export function publishStates(all: Iterable<MarketStateProjection>, fresh: ReadonlyMap<MarketStateProjection, MarketState>, balances: TokenBalances): void {
  const touched = new Set<Address>();
  for (const projection of fresh.keys()) {
    touched.add(projection.spec.baseToken.address);
    touched.add(projection.spec.quoteToken.address);
  }
  for (const projection of all) {
    const state = fresh.get(projection);
    if (state === undefined && !touched.has(projection.spec.baseToken.address) && !touched.has(projection.spec.quoteToken.address)) continue;
    projection.publish(state, balances);
  }
}
