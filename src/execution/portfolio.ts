/**
 * The execution engine's state per market: orders by maker slot and by id, fills, position and
 * balances, realized and unrealized PnL and fees, kept from two sources and exposed as RxJS streams
 * and synchronous getters. This file is the coordinator: it turns events and outcomes into facts
 * for its parts, in `portfolio/`, and derives each changed market's state once per change:
 * - `pending-placements.ts`: the engine's requests, in flight and until their slots settle;
 * - `order-registry.ts`: each market's orders by id, transaction and slot (binding ids to the
 *   placements' orders, the slot replay of `slot-replay.ts`, settling, retiring), with the rules of
 *   which order is live in `order-liveness.ts`;
 * - `fill-ledger.ts`: each market's fills, fees and average-cost PnL;
 * - `token-balances.ts`: the token balances across markets;
 * - `market-state-projection.ts`: each market's published state, read-only;
 * - `user-data-facts.ts`: the user-data API's records read as facts (spec checks, denomination).
 *
 * Sources:
 * - What the engine itself knows: `markPending(requestId, intent)` when it signs an intent,
 *   `applyOutcome(requestId, status, { txHash })` for its answers (BROADCAST records the transaction
 *   hash, CONFIRMED makes the placement's orders live, REVERTED / DROPPED / REJECTED drop it,
 *   UNKNOWN keeps it in flight). BROADCAST is not success: an order is live only after CONFIRMED.
 * - The user-data API: order events (`applyOrderEvent(s)`) and active-order snapshots
 *   (`applyActiveOrders`), the sources of truth for order ids, remaining sizes and fills.
 *
 * Every fact is kept as a fact (events as a set, de-duplicated; outcomes; the latest active
 * snapshot) and the state is derived from them, so the same facts delivered twice or in another
 * order give the same state (the ledger accounts fills in a canonical order).
 *
 * Balances: `setBalance(token, raw, asOfMs)` sets a baseline that the fills after `asOfMs` move;
 * the live orders' locks are summed by the projection with the orders and handed to the balances.
 *
 * Why over 400 lines: nearly all of it is the public API and its documentation; the work is in
 * the parts.
 */
import { BaseError } from '../core/base-error.ts';
import { Subject, type Observable } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import { UINT64_MAX } from '../core/units.ts';
import type { OrderSide } from '../protocol/constants.ts';
import type { Address, Hex } from '../protocol/encoding.ts';
import type { ActiveOrder, OrderEvent } from '../protocol/user-data.ts';
import type { Intent } from '../strategy/intents.ts';
import { amountScale, type MarketSpec } from '../protocol/market-spec.ts';
import type { LedgerCheckpoint } from './account-ledger.ts';
import { FillLedger, fillKey, fillOf, type CarriedLedger, type Fill, type FillRecord, type PnL } from './portfolio/fill-ledger.ts';
import { MarketStateProjection, publishStates, type MarketState, type PendingOrder, type PortfolioOrder } from './portfolio/market-state-projection.ts';
import { PendingPlacements, type RequestStatus } from './portfolio/pending-placements.ts';
import { TokenBalances, type TokenBalance } from './portfolio/token-balances.ts';
import { OrderRegistry, type OrderRegistryContext } from './portfolio/order-registry.ts';
import { matchesSpec, recordActiveOrder, recordOrderEvent, type ApplyResult } from './portfolio/user-data-facts.ts';
import type { Placement } from './slot-replay.ts';

// The parts' names stay importable from here: callers see one portfolio.
export { fillKey, type ApplyResult, type CarriedLedger, type Fill, type MarketState, type PendingOrder, type PnL, type PortfolioOrder, type RequestStatus, type TokenBalance };

/** How long after its confirmation a placement's inferred slots are kept open to late facts. */
export const DEFAULT_SETTLE_MS = 30_000;
/** An order created this shortly before an active-orders snapshot may be missing from it (indexing lag). */
export const DEFAULT_ACTIVE_ORDERS_GRACE_MS = 5_000;

export interface PortfolioContext {
  readonly clock: Pick<Clock, 'now'>;
}

export interface PortfolioParameters {
  readonly markets: readonly MarketSpec[];
  /** How long after its confirmation a placement's inferred slots stay open to late facts (see `portfolio/order-registry.ts`). Default 30 s. */
  readonly settleMs?: number;
  /**
   * An order missing from a complete active-orders snapshot is gone only if it was created at least
   * this long before the snapshot (the user-data index may lag the chain). Default 5 s.
   */
  readonly activeOrdersGraceMs?: number;
}

export interface MarkPendingOptions {
  /**
   * The expected order ids signed with the intent: one per cancel slot (PlaceAndCancel) or per op
   * (ReplaceSlots), uint64 max for "empty". Default: the ids the portfolio holds in those slots now.
   */
  readonly expectedOrderIds?: readonly bigint[];
}

export interface OutcomeDetails {
  /** The transaction hash (BROADCAST, or the outcome's). */
  readonly txHash?: Hex;
}

/** One market's parts. */
interface MarketParts {
  readonly spec: MarketSpec;
  readonly registry: OrderRegistry;
  readonly ledger: FillLedger;
  readonly projection: MarketStateProjection;
  /** A fact changed it since its state was last derived. */
  dirty: boolean;
}

/**
 * The portfolio. Create it with `createPortfolio`.
 *
 * @example
 * const portfolio = createPortfolio({ clock }, { markets: [monUsdc] });
 * portfolio.markPending(requestId, intent);
 * portfolio.applyOutcome(requestId, 'BROADCAST', { txHash });
 * portfolio.applyOutcome(requestId, 'CONFIRMED', { txHash });
 * portfolio.applyOrderEvents(page.events);
 * portfolio.state$(monUsdc.address).subscribe((state) => render(state.position, state.orders));
 */
export class Portfolio {
  readonly #clock: Pick<Clock, 'now'>;
  readonly #markets = new Map<Address, MarketParts>();
  readonly #projections: MarketStateProjection[] = [];
  /** The engine's requests, in flight and until their slots settle. */
  readonly #requests: PendingPlacements;
  /** Earliest block time seen per transaction hash. */
  readonly #txTime = new Map<Hex, number>();
  readonly #balances: TokenBalances;
  readonly #fills$ = new Subject<Fill>();
  /** Fills applied since the last flush; emitted with their liquidity as it stands then. */
  #newFills: FillRecord[] = [];

  constructor(context: PortfolioContext, params: PortfolioParameters) {
    this.#clock = context.clock;
    this.#balances = new TokenBalances(params.markets);
    this.#requests = new PendingPlacements(context.clock, {
      tracked: (market, requestId) => this.#trackedMarket(market, requestId).spec.address,
      all: () => this.#markets.keys(),
      table: (market) => this.#market(market).registry.table,
      target: (market, slot, expected) => this.#market(market).registry.target(slot, expected),
    });
    const registryContext: OrderRegistryContext = {
      clock: context.clock,
      settleMs: params.settleMs ?? DEFAULT_SETTLE_MS,
      graceMs: params.activeOrdersGraceMs ?? DEFAULT_ACTIVE_ORDERS_GRACE_MS,
      requests: this.#requests,
      txTime: this.#txTime,
    };
    for (const spec of params.markets) {
      const scale = amountScale(spec);
      const ledger = new FillLedger(spec, scale, this.#balances.flow);
      const projection = new MarketStateProjection(spec, scale, ledger);
      this.#projections.push(projection);
      const registry = new OrderRegistry(registryContext, spec.address, ledger);
      this.#markets.set(spec.address, { spec, registry, ledger, projection, dirty: false });
    }
  }

  // ---- reading -------------------------------------------------------------------------------

  /** The markets tracked. */
  markets(): readonly Address[] {
    return [...this.#markets.keys()];
  }

  /** The market spec of a tracked market. Throws PORTFOLIO_UNKNOWN_MARKET otherwise. */
  spec(market: Address): MarketSpec {
    return this.#market(market).spec;
  }

  /** The current state of `market`. */
  state(market: Address): MarketState {
    return this.#market(market).projection.current;
  }

  /** The state of `market`: the current value at once, then every change. */
  state$(market: Address): Observable<MarketState> {
    return this.#market(market).projection.changes;
  }

  /** Every new fill (duplicates never), in the order they were learned. */
  get fills$(): Observable<Fill> {
    return this.#fills$.asObservable();
  }

  /** The fills of `market` in canonical order (block time, transaction, order id). */
  fills(market: Address): readonly Fill[] {
    return this.#market(market).ledger.fills();
  }

  /** The live order with this id, if any. */
  order(market: Address, orderId: bigint): PortfolioOrder | undefined {
    return this.state(market).orders.find((order) => order.orderId === orderId);
  }

  /**
   * The order id in each of the 62 maker slots, as expected order ids: uint64 max for an empty slot,
   * undefined for a slot whose order is live but whose id is not known yet (wait for its events
   * before cancelling it).
   *
   * @example const expected = cancelSlots.map((slot) => portfolio.slotOrderIds(market)[slot]);
   */
  slotOrderIds(market: Address): readonly (bigint | undefined)[] {
    return this.state(market).slots.map((order) => (order === null ? UINT64_MAX : order.orderId));
  }

  /** Realized, unrealized (at `mark`, price units; 0 without one) and fees of `market`, raw quote units. */
  pnl(market: Address, mark?: bigint): PnL {
    return this.#market(market).ledger.pnl(mark);
  }

  /** The account balance of `token` (raw units), once a baseline was set with `setBalance`. */
  balance(token: Address): TokenBalance | undefined {
    return this.#balances.balance(token.toLowerCase() as Address);
  }

  /** Whether `requestId` is tracked and in flight (no terminal outcome yet). */
  isPending(requestId: string): boolean {
    return this.#requests.get(requestId)?.status === 'pending';
  }

  // ---- the engine's own knowledge --------------------------------------------------------------

  /**
   * Records a signed request in flight. Its orders are pending (not live); its cancels bind to the
   * orders in those slots now (or to `expectedOrderIds`). Throws PORTFOLIO_REQUEST_CONFLICT when the
   * id is already in flight or the intent's market is not tracked.
   */
  markPending(requestId: string, intent: Intent, options: MarkPendingOptions = {}): void {
    if (this.#requests.has(requestId)) {
      throw new BaseError('PORTFOLIO_REQUEST_CONFLICT', `request ${requestId} is already tracked`, { details: { requestId } });
    }
    const placement = this.#requests.mark(requestId, intent, options.expectedOrderIds);
    for (const market of placement.markets) this.#market(market).dirty = true;
    this.#flush();
  }

  /**
   * Applies what the relay said about a tracked request. Returns false when the request is not
   * tracked (never marked, or already terminal): the call then changes nothing.
   *
   * - BROADCAST: records the transaction hash; still in flight (not success).
   * - UNKNOWN: still in flight, to be reconciled.
   * - CONFIRMED: the cancels took effect and the new orders are live (ids and slots follow from events).
   * - REVERTED, DROPPED, REJECTED: nothing of it happened; it is forgotten.
   */
  applyOutcome(requestId: string, status: RequestStatus, details: OutcomeDetails = {}): boolean {
    const placement = this.#requests.applyOutcome(requestId, status, details.txHash?.toLowerCase() as Hex | undefined);
    if (placement === undefined) return false;
    if (status === 'CONFIRMED') this.#confirm(placement);
    for (const market of placement.markets) this.#market(market).dirty = true;
    this.#flush();
    return true;
  }

  /**
   * Seeds slots known from elsewhere (the journal after a restart): each order id is live in that
   * slot until events say otherwise.
   */
  restoreSlots(market: Address, entries: readonly { readonly slot: number; readonly orderId: bigint; readonly side: OrderSide; readonly price: bigint; readonly size: bigint }[]): void {
    const parts = this.#market(market);
    parts.registry.restore(entries);
    parts.dirty = true;
    this.#flush();
  }

  /**
   * Takes the chain's slot view (`getOrderId` of every slot: the order id, null when empty). The
   * chain is the truth for every order whose placement has settled: an order no placement of this
   * process made (its history compacted away, or another process's) gets its slot, so a CancelAll
   * can address it (`adopted`); a settled order the replay put in another slot is moved where the
   * chain holds it (`corrected`), and a settled order that claims a slot the chain gives another
   * order lets it go, so slots do not rest on the venue's slot rule, which is not public. Orders
   * of placements still being replayed are left to the replay; a slot where the chain holds
   * another order than the replay says is counted (`differing`: the view may be a block or two
   * older or newer than the replay).
   */
  adoptSlotView(market: Address, orderIds: readonly (bigint | null)[]): { readonly adopted: number; readonly corrected: number; readonly differing: number } {
    const parts = this.#market(market);
    const counts = parts.registry.adoptSlotView(orderIds, parts.projection.current.slots);
    if (counts.adopted + counts.corrected > 0) {
      parts.dirty = true;
      this.#flush();
    }
    return counts;
  }

  /**
   * Starts `market`'s ledger from what earlier runs counted (the journal's ledger checkpoint): the
   * position, basis, realized PnL and fees carry over, and fills the checkpoint counted, when their
   * events come again, change their orders but not the ledger. Only before the market's first fill.
   */
  carry(market: Address, checkpoint: LedgerCheckpoint): void {
    const parts = this.#market(market);
    parts.ledger.carry(checkpoint);
    parts.dirty = true;
    this.#flush();
  }

  /** The ledger checkpoint of `market`: the carried ledger and this run's fills, horizon at `horizonMs` (block time). */
  ledger(market: Address, horizonMs: number): LedgerCheckpoint {
    return this.#market(market).ledger.checkpoint(horizonMs);
  }

  /**
   * Sets the baseline of a token balance (raw units) as of `asOfMs` (default now): fills with a
   * block time after it are added to it.
   */
  setBalance(token: Address, raw: bigint, asOfMs: number = this.#clock.now()): void {
    const address = token.toLowerCase() as Address;
    let flowBefore = 0n;
    for (const parts of this.#markets.values()) {
      if (parts.spec.baseToken.address !== address && parts.spec.quoteToken.address !== address) continue;
      flowBefore += parts.ledger.flowThrough(address, asOfMs);
      parts.dirty = true;
    }
    this.#balances.setBaseline(address, raw, asOfMs, flowBefore);
    this.#flush();
  }

  // ---- the user-data API -------------------------------------------------------------------------

  /** Applies one order event (see `applyOrderEvents`). */
  applyOrderEvent(event: OrderEvent): ApplyResult {
    const result = this.#applyEvent(event);
    this.#flush();
    return result;
  }

  /** Applies a page of order events (any order, duplicates allowed), then updates the streams once. */
  applyOrderEvents(events: readonly OrderEvent[]): ApplyResult[] {
    const results = events.map((event) => this.#applyEvent(event));
    this.#flush();
    return results;
  }

  /**
   * Records that an intent expecting these orders in their slots reverted at `atMs`
   * (EXPECTED_ORDER_ID_MISMATCH): at least one of them had ended. The indexing grace protects a
   * just-created order missing from a snapshot; a doubted one is created long enough before to be
   * indexed, so a complete snapshot at or after `atMs` without it proves it ended. Unknown ids are
   * ignored.
   *
   * @example portfolio.doubtOrders(market, [41n, 42n], clock.now())
   */
  doubtOrders(market: Address, orderIds: readonly bigint[], atMs: number): void {
    this.#market(market).registry.doubt(orderIds, atMs);
  }

  /**
   * Applies a snapshot of the market's active orders taken at `asOfMs` (the response's `timestamp`).
   * Listed orders are live with their remaining size; with `complete` (default: the list is not
   * truncated), an order created at least `activeOrdersGraceMs` before `asOfMs` that is not listed is
   * gone, and so is one doubted (`doubtOrders`) at or before `asOfMs`.
   */
  applyActiveOrders(market: Address, orders: readonly ActiveOrder[], options: { readonly asOfMs?: number; readonly complete?: boolean } = {}): ApplyResult[] {
    const parts = this.#markets.get(market.toLowerCase() as Address);
    if (parts === undefined) return orders.map(() => ({ status: 'ignored', reason: 'unknown-market' }) as const);
    const asOf = options.asOfMs ?? this.#clock.now();
    const ids = new Set<bigint>();
    const txs = new Set<Hex>();
    const results = orders.map((order) => recordActiveOrder(parts, order, ids, txs));
    if (options.complete !== false) parts.registry.takeSnapshot(asOf, ids, txs);
    parts.dirty = true;
    this.#flush();
    return results;
  }

  // ---- internals ---------------------------------------------------------------------------------

  #market(market: Address): MarketParts {
    const parts = this.#markets.get(market.toLowerCase() as Address);
    if (parts === undefined) throw new BaseError('PORTFOLIO_UNKNOWN_MARKET', `market ${market} is not tracked`, { details: { market } });
    return parts;
  }

  #trackedMarket(market: Address, requestId: string): MarketParts {
    const parts = this.#markets.get(market.toLowerCase() as Address);
    if (parts === undefined) {
      throw new BaseError('PORTFOLIO_REQUEST_CONFLICT', `request ${requestId} is for market ${market}, which is not tracked`, {
        details: { requestId, market },
      });
    }
    return parts;
  }

  /** Hands a placement just confirmed to the registries of its markets. */
  #confirm(placement: Placement): void {
    for (const market of placement.markets) this.#market(market).registry.confirm(placement);
    if (placement.newOrders.length === 0 && placement.cancels.length === 0) this.#requests.forget(placement);
  }

  #applyEvent(event: OrderEvent): ApplyResult {
    const parts = this.#markets.get(event.eventData.marketAddress);
    if (parts === undefined) return { status: 'ignored', reason: 'unknown-market' };
    if (!matchesSpec(parts.spec, event)) return { status: 'ignored', reason: 'spec-mismatch' };
    const at = Date.parse(event.blockTimestamp);
    const tx = event.transactionHash;
    const known = this.#txTime.get(tx);
    if (known === undefined || at < known) this.#txTime.set(tx, at);
    parts.dirty = true;
    return recordOrderEvent(parts, event, at, this.#newFills);
  }

  /** Derives the state of `parts` from its facts. */
  #compute(parts: MarketParts): MarketState {
    parts.registry.update(parts.projection);
    const state = parts.projection.build(this.#requests.inFlight);
    this.#balances.setLocked(parts.spec.address, state.locked.base, state.locked.quote);
    return state;
  }

  /** Recomputes the dirty markets (and the markets sharing their tokens) and emits their states. */
  #flush(): void {
    this.#flushStates();
    const fills = this.#newFills;
    this.#newFills = [];
    // Built now, not when applied: the order's own creation, later in the same page of events, may
    // have shown the fill was its taker's (a page is in no particular order).
    for (const record of fills) this.#fills$.next(fillOf(record));
  }

  #flushStates(): void {
    let computed: Map<MarketStateProjection, MarketState> | undefined;
    for (const parts of this.#markets.values()) {
      if (!parts.dirty) continue;
      parts.dirty = false;
      (computed ??= new Map()).set(parts.projection, this.#compute(parts));
    }
    if (computed !== undefined) publishStates(this.#projections, computed, this.#balances);
  }
}

/**
 * The portfolio of the given markets.
 *
 * @example const portfolio = createPortfolio({ clock }, { markets: [monUsdc, wethUsdc] });
 */
export function createPortfolio(context: PortfolioContext, params: PortfolioParameters): Portfolio {
  return new Portfolio(context, params);
}
