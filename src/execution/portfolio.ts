/**
 * The execution engine's state per market: orders by maker slot and by id, fills, position and
 * balances, realized and unrealized PnL and fees, kept from two sources and exposed as RxJS streams
 * and synchronous getters. Its parts, in `portfolio/`: the engine's requests in flight and until
 * they settle (`pending-placements.ts`), each market's fill ledger (`fill-ledger.ts`), the token
 * balances (`token-balances.ts`) and each market's published state (`market-state-projection.ts`).
 * This file keeps the order registry (orders by id and slot, the slot replay's bookkeeping,
 * `slot-replay.ts`, and its upkeep: binding, settling, pruning, retiring), the translation of
 * events and outcomes into facts for the parts, and one derivation per change.
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
 * Denomination (spec rules): sizes (`size`, `filledSize`, `updatedSize`, `remainingSize`) are
 * size-precision units and prices of created/canceled orders price-precision units, both kept as
 * they are; `fillPrice` is 1e18 fixed point, so a fill's raw quote amount is
 * `floor(fillPrice * filledSize * 10^quoteDecimals / (1e18 * sizePrecision))` (equal to the
 * venue's `quoteRaw` when the price is on the grid); `baseFilled` is raw base-token units, base
 * terms whatever the side. An event whose precisions or tokens differ from the market spec is
 * ignored (reported as such): its units cannot be trusted.
 *
 * Fees are not in the events: a fill took liquidity (taker fee) when it happened in the transaction
 * that created its order (an on-chain order matches only while being placed), else it made it
 * (maker fee). Only the order registry knows that, and may learn it late: it tells the ledger.
 *
 * Order ids and slots. The k-th order id created in a placement's transaction (ascending) is its
 * k-th order. Neither order events nor active orders name a slot, so slots are inferred by
 * replaying the confirmed placements against the frees learned from events (`slot-replay.ts`):
 * exact for ReplaceSlots, the lowest free slot for PlaceAndCancel GTC orders (the local venue's
 * policy). A placement's slots become final `settleMs` after its confirmation once its ids are
 * known (or after ten times that in any case); until then a late fact can still move them.
 * `restoreSlots` seeds slots known from elsewhere (e.g. the journal after a restart).
 * Placements with only IOC/FOK orders and no cancel move no slot: until they settle they cost next
 * to nothing per change (their ids bind when their transaction's created events arrive).
 *
 * Balances: `setBalance(token, raw, asOfMs)` sets a baseline that the fills after `asOfMs` move;
 * the live orders' locks are summed by the projection with the orders and handed to the balances.
 *
 * Why still this size: the order registry's binding, liveness rules and slot upkeep share one
 * market book and one walk of its open orders per change.
 */
import { BaseError } from '../core/base-error.ts';
import { Subject, type Observable } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import { UINT64_MAX } from '../core/units.ts';
import { MAKER_SLOTS, type OrderSide } from '../protocol/constants.ts';
import type { Address, Hex } from '../protocol/encoding.ts';
import type { ActiveOrder, OrderEvent } from '../protocol/user-data.ts';
import type { Intent } from '../strategy/intents.ts';
import { amountScale, type AmountScale, type MarketSpec } from '../protocol/market-spec.ts';
import type { LedgerCheckpoint } from './account-ledger.ts';
import { FillLedger, fillKey, fillOf, type CarriedLedger, type Fill, type FillFacts, type FillRecord, type PnL } from './portfolio/fill-ledger.ts';
import { MarketStateProjection, publishStates, type MarketState, type PendingOrder, type PortfolioOrder } from './portfolio/market-state-projection.ts';
import { PendingPlacements, type RequestStatus } from './portfolio/pending-placements.ts';
import { TokenBalances, type TokenBalance } from './portfolio/token-balances.ts';
import { blankRecord, minDefined, movesSlots, replaySlots, type OrderRecord, type Placement, type SlotReplayContext } from './slot-replay.ts';

// The parts' names stay importable from here: callers see one portfolio.
export { fillKey, type CarriedLedger, type Fill, type MarketState, type PendingOrder, type PnL, type PortfolioOrder, type RequestStatus, type TokenBalance };

/** 1e18: fillPrice (rule 4). */
const FIXED18 = 10n ** 18n;
/** How long after its confirmation a placement's inferred slots are kept open to late facts. */
export const DEFAULT_SETTLE_MS = 30_000;
/** An order created this shortly before an active-orders snapshot may be missing from it (indexing lag). */
export const DEFAULT_ACTIVE_ORDERS_GRACE_MS = 5_000;

/** What became of one applied event or snapshot entry. */
export type ApplyResult =
  | { readonly status: 'applied' }
  | { readonly status: 'duplicate' }
  | { readonly status: 'ignored'; readonly reason: 'unknown-market' | 'spec-mismatch' };

export interface PortfolioContext {
  readonly clock: Pick<Clock, 'now'>;
}

export interface PortfolioParameters {
  readonly markets: readonly MarketSpec[];
  /** See the module comment. Default 30 s. */
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

// ---------------------------------------------------------------------------------------------
// Internal records
// ---------------------------------------------------------------------------------------------

interface MarketBook {
  readonly spec: MarketSpec;
  readonly scale: AmountScale;
  readonly byId: Map<bigint, OrderRecord>;
  /** Records by the transaction that created them. */
  readonly createdIn: Map<Hex, Set<OrderRecord>>;
  /** Records that may still be live. */
  readonly open: Set<OrderRecord>;
  /** Records with a final slot, until they stop mattering to the replay. */
  readonly slotted: Set<OrderRecord>;
  /** Records that ended, oldest first, with the clock time they left the open set. */
  readonly closed: { readonly record: OrderRecord; readonly at: number }[];
  /** Ids of orders that ended long ago and were dropped: their late events change nothing but fills. */
  readonly retired: Set<bigint>;
  readonly ledger: FillLedger;
  /** Confirmed placements not yet settled, in confirmation order. */
  readonly placements: Placement[];
  /** Those that may move this market's slots (`movesSlots`), in the same order: the replay's work. */
  readonly movers: Placement[];
  /** Unsettled placements of this market whose records may bind to order ids at the next compute (see `#bind`). */
  readonly binding: Set<Placement>;
  /** The others with unbound records, by transaction, while it holds no unbound created order: `#setCreated` moves them back. */
  readonly awaiting: Map<Hex, Placement[]>;
  snapshot: { readonly asOf: number; readonly ids: ReadonlySet<bigint>; readonly txs: ReadonlySet<Hex> } | undefined;
  table: (OrderRecord | null)[];
  readonly projection: MarketStateProjection;
  dirty: boolean;
}

const compareBig = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

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
  readonly #settleMs: number;
  readonly #graceMs: number;
  readonly #markets = new Map<Address, MarketBook>();
  readonly #projections: MarketStateProjection[] = [];
  /** The engine's requests, in flight and until their slots settle. */
  readonly #requests: PendingPlacements;
  /** Earliest block time seen per transaction hash. */
  readonly #txTime = new Map<Hex, number>();
  readonly #balances: TokenBalances;
  readonly #fills$ = new Subject<Fill>();
  /** Fills applied since the last flush; emitted with their liquidity as it stands then. */
  #newFills: FillRecord[] = [];
  readonly #replayContexts = new Map<MarketBook, { -readonly [K in keyof SlotReplayContext]: SlotReplayContext[K] }>();

  constructor(context: PortfolioContext, params: PortfolioParameters) {
    this.#clock = context.clock;
    this.#settleMs = params.settleMs ?? DEFAULT_SETTLE_MS;
    this.#graceMs = params.activeOrdersGraceMs ?? DEFAULT_ACTIVE_ORDERS_GRACE_MS;
    this.#balances = new TokenBalances(params.markets);
    this.#requests = new PendingPlacements(context.clock, {
      tracked: (market, requestId) => this.#trackedMarket(market, requestId).spec.address,
      all: () => this.#markets.keys(),
      table: (market) => this.#book(market).table,
      target: (market, slot, expected) => this.#target(this.#book(market), slot, expected),
    });
    for (const spec of params.markets) {
      const scale = amountScale(spec);
      const ledger = new FillLedger(spec, scale, this.#balances.flow);
      const projection = new MarketStateProjection(spec, scale, ledger);
      this.#projections.push(projection);
      this.#markets.set(spec.address, {
        spec,
        scale,
        byId: new Map(),
        createdIn: new Map(),
        open: new Set(),
        slotted: new Set(),
        closed: [],
        retired: new Set(),
        ledger,
        placements: [],
        movers: [],
        binding: new Set(),
        awaiting: new Map(),
        snapshot: undefined,
        table: new Array<OrderRecord | null>(MAKER_SLOTS).fill(null),
        projection,
        dirty: false,
      });
    }
  }

  // ---- reading -------------------------------------------------------------------------------

  /** The markets tracked. */
  markets(): readonly Address[] {
    return [...this.#markets.keys()];
  }

  /** The market spec of a tracked market. Throws PORTFOLIO_UNKNOWN_MARKET otherwise. */
  spec(market: Address): MarketSpec {
    return this.#book(market).spec;
  }

  /** The current state of `market`. */
  state(market: Address): MarketState {
    return this.#book(market).projection.current;
  }

  /** The state of `market`: the current value at once, then every change. */
  state$(market: Address): Observable<MarketState> {
    return this.#book(market).projection.changes;
  }

  /** Every new fill (duplicates never), in the order they were learned. */
  get fills$(): Observable<Fill> {
    return this.#fills$.asObservable();
  }

  /** The fills of `market` in canonical order (block time, transaction, order id). */
  fills(market: Address): readonly Fill[] {
    return this.#book(market).ledger.fills();
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
    return this.#book(market).ledger.pnl(mark);
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
    for (const market of placement.markets) this.#book(market).dirty = true;
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
    for (const market of placement.markets) this.#book(market).dirty = true;
    this.#flush();
    return true;
  }

  /**
   * Seeds slots known from elsewhere (the journal after a restart): each order id is live in that
   * slot until events say otherwise.
   */
  restoreSlots(market: Address, entries: readonly { readonly slot: number; readonly orderId: bigint; readonly side: OrderSide; readonly price: bigint; readonly size: bigint }[]): void {
    const book = this.#book(market);
    for (const entry of entries) {
      const record = this.#record(book, entry.orderId, { side: entry.side, price: entry.price, size: entry.size });
      record.knownSlot = entry.slot;
      book.slotted.add(record);
    }
    book.dirty = true;
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
    const book = this.#book(market);
    const derived = this.state(market).slots;
    const replayed = (record: OrderRecord) => record.placement !== undefined && record.placement.unsettledIn.has(book.spec.address);
    let adopted = 0;
    let corrected = 0;
    let differing = 0;
    orderIds.forEach((orderId, slot) => {
      if (orderId === null || slot >= MAKER_SLOTS) return;
      const record = book.byId.get(orderId);
      if (record === undefined || !book.open.has(record)) return;
      if (replayed(record)) {
        if (derived[slot]?.orderId !== orderId) differing++;
        return;
      }
      if (record.knownSlot === slot) return;
      if (record.knownSlot === undefined) adopted++;
      else corrected++;
      for (const other of book.slotted) if (other !== record && other.knownSlot === slot && !replayed(other)) other.knownSlot = undefined;
      record.knownSlot = slot;
      book.slotted.add(record);
    });
    if (adopted + corrected > 0) {
      book.dirty = true;
      this.#flush();
    }
    return { adopted, corrected, differing };
  }

  /**
   * Starts `market`'s ledger from what earlier runs counted (the journal's ledger checkpoint): the
   * position, basis, realized PnL and fees carry over, and fills the checkpoint counted, when their
   * events come again, change their orders but not the ledger. Only before the market's first fill.
   */
  carry(market: Address, checkpoint: LedgerCheckpoint): void {
    const book = this.#book(market);
    book.ledger.carry(checkpoint);
    book.dirty = true;
    this.#flush();
  }

  /** The ledger checkpoint of `market`: the carried ledger and this run's fills, horizon at `horizonMs` (block time). */
  ledger(market: Address, horizonMs: number): LedgerCheckpoint {
    return this.#book(market).ledger.checkpoint(horizonMs);
  }

  /**
   * Sets the baseline of a token balance (raw units) as of `asOfMs` (default now): fills with a
   * block time after it are added to it.
   */
  setBalance(token: Address, raw: bigint, asOfMs: number = this.#clock.now()): void {
    const address = token.toLowerCase() as Address;
    let flowBefore = 0n;
    for (const book of this.#markets.values()) {
      if (book.spec.baseToken.address !== address && book.spec.quoteToken.address !== address) continue;
      flowBefore += book.ledger.flowThrough(address, asOfMs);
      book.dirty = true;
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
    const book = this.#book(market);
    for (const orderId of orderIds) {
      const record = book.byId.get(orderId);
      if (record !== undefined && (record.doubtedAt === undefined || atMs < record.doubtedAt)) record.doubtedAt = atMs;
    }
  }

  /**
   * Applies a snapshot of the market's active orders taken at `asOfMs` (the response's `timestamp`).
   * Listed orders are live with their remaining size; with `complete` (default: the list is not
   * truncated), an order created at least `activeOrdersGraceMs` before `asOfMs` that is not listed is
   * gone, and so is one doubted (`doubtOrders`) at or before `asOfMs`.
   */
  applyActiveOrders(market: Address, orders: readonly ActiveOrder[], options: { readonly asOfMs?: number; readonly complete?: boolean } = {}): ApplyResult[] {
    const book = this.#markets.get(market.toLowerCase() as Address);
    if (book === undefined) return orders.map(() => ({ status: 'ignored', reason: 'unknown-market' }) as const);
    const asOf = options.asOfMs ?? this.#clock.now();
    const ids = new Set<bigint>();
    const txs = new Set<Hex>();
    const results: ApplyResult[] = orders.map((order) => {
      if (order.marketaddress !== book.spec.address) return { status: 'ignored', reason: 'unknown-market' };
      if (BigInt(order.sizeprecision) !== book.spec.sizePrecision || BigInt(order.priceprecision) !== book.spec.pricePrecision) {
        return { status: 'ignored', reason: 'spec-mismatch' };
      }
      if (order.iscanceled) return { status: 'applied' };
      const orderId = BigInt(order.orderid);
      if (book.retired.has(orderId)) return { status: 'duplicate' };
      ids.add(orderId);
      txs.add(order.transactionhash);
      const record = this.#record(book, orderId, { side: order.isbuy ? 'BUY' : 'SELL', price: BigInt(order.price), size: BigInt(order.size) });
      const before = record.activeRemaining;
      const remaining = BigInt(order.remainingsize);
      record.activeRemaining = before === undefined || remaining < before ? remaining : before;
      const tx = order.transactionhash;
      const duplicate = record.listed && record.createdTx === tx && before === record.activeRemaining;
      record.listed = true;
      book.open.add(record);
      if (record.createdTx === undefined) {
        this.#setCreated(book, record, tx);
        const at = Date.parse(order.triggertime);
        record.createdAt = minDefined(record.createdAt, Number.isNaN(at) ? undefined : at);
        this.#refreshLiquidity(book, record);
      }
      return duplicate ? { status: 'duplicate' } : { status: 'applied' };
    });
    if (options.complete !== false && (book.snapshot === undefined || asOf >= book.snapshot.asOf)) book.snapshot = { asOf, ids, txs };
    book.dirty = true;
    this.#flush();
    return results;
  }

  // ---- internals: requests ----------------------------------------------------------------------

  #book(market: Address): MarketBook {
    const book = this.#markets.get(market.toLowerCase() as Address);
    if (book === undefined) throw new BaseError('PORTFOLIO_UNKNOWN_MARKET', `market ${market} is not tracked`, { details: { market } });
    return book;
  }

  #trackedMarket(market: Address, requestId: string): MarketBook {
    const book = this.#markets.get(market.toLowerCase() as Address);
    if (book === undefined) {
      throw new BaseError('PORTFOLIO_REQUEST_CONFLICT', `request ${requestId} is for market ${market}, which is not tracked`, {
        details: { requestId, market },
      });
    }
    return book;
  }

  #target(book: MarketBook, slot: number, expected: bigint | undefined): OrderRecord | undefined {
    if (expected === undefined) return book.table[slot] ?? undefined;
    if (expected === UINT64_MAX) return undefined;
    // An id not seen yet (its events are late): a placeholder that its events will fill in.
    return this.#record(book, expected, undefined);
  }

  /** Takes a placement just confirmed into the registry: its cancels, its records, its markets' replays. */
  #confirm(placement: Placement): void {
    for (const cancel of placement.cancels) {
      if (cancel.target !== undefined && cancel.target.canceledBy === undefined) cancel.target.canceledBy = placement;
    }
    const market = placement.market;
    if (market !== undefined) {
      placement.records = placement.newOrders.map((order, index) => {
        // Set on the blank record rather than spread over it (a slow copy of its 22 fields).
        const record = blankRecord(market, undefined, order);
        record.tif = order.tif;
        record.placement = placement;
        record.index = index;
        return record;
      });
      const book = this.#book(market);
      // An IOC/FOK order is never live: it joins the open set only once bound (`#absorb`), to be
      // closed and retired like the others, so unbound takers cost nothing per change.
      for (const record of placement.records) if (record.tif === 'GTC') book.open.add(record);
      if (placement.records.length > 0) book.binding.add(placement);
    }
    for (const marketAddress of placement.markets) {
      const book = this.#book(marketAddress);
      book.placements.push(placement);
      if (movesSlots(placement, marketAddress)) book.movers.push(placement);
      placement.unsettledIn.add(marketAddress);
    }
    if (placement.newOrders.length === 0 && placement.cancels.length === 0) this.#requests.forget(placement);
  }

  // ---- internals: events ------------------------------------------------------------------------

  /** The record of `orderId`, created (open) when new; fills in side/price/size when they were unknown. */
  #record(book: MarketBook, orderId: bigint, order: { side: OrderSide; price: bigint; size: bigint } | undefined): OrderRecord {
    let record = book.byId.get(orderId);
    if (record === undefined) {
      record = blankRecord(book.spec.address, orderId, order);
      book.byId.set(orderId, record);
      book.open.add(record);
    } else if (order !== undefined) {
      if (record.size === 0n) {
        record.side = order.side;
        record.size = order.size;
      }
      if (record.price === 0n) record.price = order.price;
    }
    return record;
  }

  #setCreated(book: MarketBook, record: OrderRecord, tx: Hex): void {
    if (record.createdTx === tx) return;
    if (record.createdTx !== undefined) book.createdIn.get(record.createdTx)?.delete(record);
    record.createdTx = tx;
    let set = book.createdIn.get(tx);
    if (set === undefined) {
      set = new Set();
      book.createdIn.set(tx, set);
    }
    set.add(record);
    // The placements of this transaction waiting for their order ids may bind now.
    const waiting = book.awaiting.get(tx);
    if (waiting === undefined) return;
    book.awaiting.delete(tx);
    for (const placement of waiting) book.binding.add(placement);
  }

  #matchesSpec(book: MarketBook, event: OrderEvent): boolean {
    const data = event.eventData;
    const spec = book.spec;
    return (
      BigInt(data.sizePrecision) === spec.sizePrecision &&
      BigInt(data.pricePrecision) === spec.pricePrecision &&
      data.baseToken.address === spec.baseToken.address &&
      data.quoteToken.address === spec.quoteToken.address &&
      data.baseToken.decimal === spec.baseToken.decimals &&
      data.quoteToken.decimal === spec.quoteToken.decimals
    );
  }

  #applyEvent(event: OrderEvent): ApplyResult {
    const book = this.#markets.get(event.eventData.marketAddress);
    if (book === undefined) return { status: 'ignored', reason: 'unknown-market' };
    if (!this.#matchesSpec(book, event)) return { status: 'ignored', reason: 'spec-mismatch' };
    const at = Date.parse(event.blockTimestamp);
    const tx = event.transactionHash;
    const known = this.#txTime.get(tx);
    if (known === undefined || at < known) this.#txTime.set(tx, at);
    const orderId = BigInt(event.eventData.orderId);
    const side: OrderSide = event.eventData.isBuy ? 'BUY' : 'SELL';
    book.dirty = true;
    if (book.retired.has(orderId) && event.eventType !== 'trade') return { status: 'duplicate' };
    switch (event.eventType) {
      case 'order-created': {
        const data = event.eventData;
        const record = this.#record(book, orderId, { side, price: BigInt(data.price), size: BigInt(data.size) });
        record.firstSeenAt = minDefined(record.firstSeenAt, at);
        if (record.createdTx === tx && record.createdAt === at) return { status: 'duplicate' };
        record.side = side;
        record.price = BigInt(data.price);
        record.size = BigInt(data.size);
        this.#setCreated(book, record, tx);
        record.createdAt = at;
        this.#refreshLiquidity(book, record);
        return { status: 'applied' };
      }
      case 'order-canceled': {
        const data = event.eventData;
        const record = this.#record(book, orderId, { side, price: BigInt(data.price), size: BigInt(data.size) });
        record.firstSeenAt = minDefined(record.firstSeenAt, at);
        if (record.canceled !== undefined) return { status: 'duplicate' };
        record.canceled = { at, tx, remaining: BigInt(data.remainingSize) };
        return { status: 'applied' };
      }
      case 'trade': {
        const data = event.eventData;
        const key = fillKey(tx, orderId, data.filledSize, data.updatedSize);
        if (book.ledger.has(key)) return { status: 'duplicate' };
        // A late fill of a retired order still counts; the order itself stays retired. An order first
        // seen by its fill (its creation event still to come) is priced at the fill: a maker's own price.
        const seenAt = { side, price: (BigInt(data.fillPrice) * book.spec.pricePrecision) / FIXED18, size: BigInt(data.orderSize) };
        const record = book.retired.has(orderId) ? blankRecord(book.spec.address, orderId, seenAt) : this.#record(book, orderId, seenAt);
        record.firstSeenAt = minDefined(record.firstSeenAt, at);
        const size = BigInt(data.filledSize);
        const remaining = BigInt(data.updatedSize);
        const fillPrice = BigInt(data.fillPrice);
        const spec = book.spec;
        const fill: FillFacts = {
          key,
          market: spec.address,
          orderId,
          transactionHash: tx,
          timeMs: at,
          side,
          size,
          fillPrice,
          price: (fillPrice * spec.pricePrecision) / FIXED18,
          quote: (fillPrice * size * 10n ** BigInt(spec.quoteToken.decimals)) / (FIXED18 * spec.sizePrecision),
          base: BigInt(data.baseFilled),
          remaining,
        };
        record.fillKeys.push(key);
        record.filled += size;
        if (record.minUpdated === undefined || remaining < record.minUpdated) record.minUpdated = remaining;
        if (remaining === 0n && (record.zeroAt === undefined || at < record.zeroAt.at)) record.zeroAt = { at, tx };
        if (!book.ledger.countedBefore(key, at)) this.#newFills.push(book.ledger.add(fill, this.#liquidityOf(record, tx)));
        return { status: 'applied' };
      }
    }
  }

  /** Whether `record`'s fill in transaction `tx` took liquidity (fees are not in the events). */
  #liquidityOf(record: OrderRecord, tx: Hex): 'maker' | 'taker' {
    if (record.tif === 'IOC' || record.tif === 'FOK') return 'taker';
    const created = record.createdTx ?? record.placement?.txHash;
    if (created !== undefined) return created === tx ? 'taker' : 'maker';
    // The order's creation not seen yet (its event late): a fill in one of our own placement
    // transactions is of an order that transaction created, which took liquidity as it came.
    return this.#requests.ofTransaction(tx) !== undefined ? 'taker' : 'maker';
  }

  #refreshLiquidity(book: MarketBook, record: OrderRecord): void {
    for (const key of record.fillKeys) {
      const fill = book.ledger.get(key);
      if (fill !== undefined) book.ledger.setLiquidity(fill, this.#liquidityOf(record, fill.fill.transactionHash));
    }
  }

  // ---- internals: derivation ----------------------------------------------------------------------

  /** A pending placement's transaction holds this record's creation: not live until CONFIRMED. */
  #held(record: OrderRecord): boolean {
    if (record.placement !== undefined || record.createdTx === undefined) return false;
    return this.#requests.ofTransaction(record.createdTx)?.status === 'pending';
  }

  #remaining(record: OrderRecord): bigint {
    let remaining = record.size - record.filled;
    if (record.minUpdated !== undefined && record.minUpdated < remaining) remaining = record.minUpdated;
    if (record.activeRemaining !== undefined && record.activeRemaining < remaining) remaining = record.activeRemaining;
    return remaining < 0n ? 0n : remaining;
  }

  #createdTime(record: OrderRecord): number | undefined {
    return minDefined(record.createdAt, record.firstSeenAt, record.placement?.confirmedAt);
  }

  #gone(book: MarketBook, record: OrderRecord): boolean {
    const snapshot = book.snapshot;
    if (snapshot === undefined) return false;
    if (record.orderId === undefined) {
      // Its id never came (its events were lost, e.g. with a venue that restarted with its state
      // wiped): gone when a snapshot taken long enough after its confirmation lists nothing its
      // transaction created.
      const placement = record.placement;
      if (placement?.status !== 'confirmed' || placement.txHash === undefined) return false;
      return placement.confirmedAt <= snapshot.asOf - this.#graceMs && !snapshot.txs.has(placement.txHash);
    }
    if (snapshot.ids.has(record.orderId)) return false;
    if (record.doubtedAt !== undefined && record.doubtedAt <= snapshot.asOf) return true;
    const created = this.#createdTime(record);
    return created !== undefined && created <= snapshot.asOf - this.#graceMs;
  }

  #terminal(book: MarketBook, record: OrderRecord): boolean {
    if (record.canceled !== undefined || record.canceledBy !== undefined || record.zeroAt !== undefined) return true;
    if (record.tif === 'IOC' || record.tif === 'FOK') return true;
    if (record.size > 0n && this.#remaining(record) === 0n) return true;
    return this.#gone(book, record);
  }

  #exists(record: OrderRecord): boolean {
    if (record.placement !== undefined) return record.placement.status === 'confirmed';
    return record.createdTx !== undefined || record.firstSeenAt !== undefined || record.listed || record.knownSlot !== undefined;
  }

  /** `terminal`: `#terminal(book, record)` when the caller has it already. */
  #live(book: MarketBook, record: OrderRecord, terminal?: boolean): boolean {
    return this.#exists(record) && !this.#held(record) && !(terminal ?? this.#terminal(book, record)) && record.size > 0n;
  }

  /** When a record stopped holding its slot, outside any placement still being replayed. */
  #freeTime(book: MarketBook, record: OrderRecord): number | undefined {
    return minDefined(
      record.canceled?.at,
      record.zeroAt?.at,
      record.freedAt,
      record.canceledBy !== undefined ? this.#placementTime(record.canceledBy) : undefined,
      this.#gone(book, record) ? book.snapshot?.asOf : undefined,
    );
  }

  #placementTime(placement: Placement): number {
    return placement.txHash === undefined ? Number.POSITIVE_INFINITY : (this.#txTime.get(placement.txHash) ?? Number.POSITIVE_INFINITY);
  }

  /**
   * Binds the records of confirmed placements to the order ids created in their transactions.
   * Only `book.binding` is tried, in confirmation order: a placement whose transaction holds no
   * unbound created order waits in `book.awaiting` until `#setCreated` adds one (a try would change
   * nothing); one still partly bound is tried again at each compute.
   */
  #bind(book: MarketBook): void {
    if (book.binding.size === 0) return;
    const due = [...book.binding].sort((a, b) => a.confirmSeq - b.confirmSeq);
    for (const placement of due) {
      if (placement.records.every((record) => record.orderId !== undefined)) {
        book.binding.delete(placement);
        continue;
      }
      if (placement.txHash === undefined) this.#claimTransaction(book, placement);
      const tx = placement.txHash;
      if (tx === undefined) continue;
      const group = [...(book.createdIn.get(tx) ?? [])]
        .filter((record) => record.placement === undefined && record.orderId !== undefined)
        .sort((a, b) => compareBig(a.orderId!, b.orderId!));
      if (group.length === 0) {
        book.binding.delete(placement);
        const waiting = book.awaiting.get(tx);
        if (waiting === undefined) book.awaiting.set(tx, [placement]);
        else waiting.push(placement);
        continue;
      }
      const bound = placement.records.filter((record) => record.orderId !== undefined).length;
      if (bound === 0 && group.length === placement.newOrders.length) {
        group.forEach((record, index) => this.#absorb(book, placement.records[index]!, record));
        continue;
      }
      // Partial knowledge (e.g. active orders only): pair by content, in order.
      let next = 0;
      for (const record of group) {
        for (let k = next; k < placement.records.length; k++) {
          const slot = placement.records[k]!;
          const order = placement.newOrders[k]!;
          if (slot.orderId !== undefined || order.side !== record.side || order.price !== record.price || order.size !== record.size) continue;
          this.#absorb(book, slot, record);
          next = k + 1;
          break;
        }
      }
    }
  }

  /** A placement confirmed without a transaction hash claims the first unclaimed transaction whose created orders are its orders. */
  #claimTransaction(book: MarketBook, placement: Placement): void {
    const groups = new Map<Hex, OrderRecord[]>();
    for (const [tx, records] of book.createdIn) {
      if (this.#requests.ofTransaction(tx) !== undefined) continue;
      const list = [...records].filter((record) => record.placement === undefined && record.orderId !== undefined);
      if (list.length > 0) groups.set(tx, list);
    }
    const candidates = [...groups.entries()]
      .map(([tx, records]) => ({ tx, records: records.sort((a, b) => compareBig(a.orderId!, b.orderId!)), at: this.#txTime.get(tx) ?? 0 }))
      .filter(({ records }) =>
        records.length === placement.newOrders.length &&
        records.every((record, k) => {
          const order = placement.newOrders[k]!;
          return order.side === record.side && order.price === record.price && order.size === record.size;
        }),
      )
      .sort((a, b) => a.at - b.at || (a.tx < b.tx ? -1 : 1));
    const chosen = candidates[0];
    if (chosen === undefined) return;
    this.#requests.bindTransaction(placement, chosen.tx);
  }

  /** The provisional record of a placement takes over the facts of the id record `from`. */
  #absorb(book: MarketBook, into: OrderRecord, from: OrderRecord): void {
    into.orderId = from.orderId;
    into.side = from.side;
    into.price = from.price;
    into.size = from.size;
    if (from.createdTx !== undefined) {
      book.createdIn.get(from.createdTx)?.delete(from);
      this.#setCreated(book, into, from.createdTx);
    }
    into.createdAt = from.createdAt;
    into.firstSeenAt = from.firstSeenAt;
    into.fillKeys = from.fillKeys;
    into.filled = from.filled;
    into.minUpdated = from.minUpdated;
    into.zeroAt = from.zeroAt;
    into.canceled = from.canceled;
    into.canceledBy ??= from.canceledBy;
    into.activeRemaining = from.activeRemaining;
    into.listed = from.listed;
    book.byId.set(from.orderId!, into);
    book.open.delete(from);
    book.slotted.delete(from);
    // Already there unless it is an IOC/FOK order (see `#confirm`): the open set closes it if it ended.
    book.open.add(into);
    this.#refreshLiquidity(book, into);
  }

  /** Makes the slots of old, fully bound placements final, first to last. */
  #settle(book: MarketBook, assigned: Map<OrderRecord, number | undefined>, freedIn: Map<Placement, OrderRecord[]>): void {
    const now = this.#clock.now();
    while (book.placements.length > 0) {
      const placement = book.placements[0]!;
      const time = this.#placementTime(placement);
      const age = now - placement.confirmedAt;
      // Events that never come must not hold the replay open for ever: after ten times the delay,
      // the slots as inferred become final.
      const ready =
        age >= 10 * this.#settleMs ||
        (age >= this.#settleMs &&
          placement.records.every((record) => record.orderId !== undefined) &&
          (Number.isFinite(time) || placement.newOrders.length === 0));
      if (!ready) return;
      // Each market settles its part of a placement (a CancelAll may span several); the request is
      // forgotten once no market replays it any more.
      const at = Number.isFinite(time) ? time : placement.confirmedAt;
      book.placements.shift();
      if (book.movers[0] === placement) book.movers.shift();
      this.#stopBinding(book, placement);
      placement.unsettledIn.delete(book.spec.address);
      for (const cancel of placement.cancels) if (cancel.market === book.spec.address && cancel.target !== undefined) cancel.target.freedAt ??= at;
      for (const record of freedIn.get(placement) ?? []) record.freedAt ??= at;
      if (placement.market === book.spec.address) {
        for (const record of placement.records) {
          const slot = assigned.get(record);
          if (slot === undefined) continue;
          record.knownSlot = slot;
          book.slotted.add(record);
        }
      }
      if (placement.unsettledIn.size > 0) continue;
      this.#requests.forget(placement);
    }
  }

  /** A settled placement binds no more (as before: only unsettled placements were tried). */
  #stopBinding(book: MarketBook, placement: Placement): void {
    book.binding.delete(placement);
    const waiting = placement.txHash === undefined ? undefined : book.awaiting.get(placement.txHash);
    if (waiting === undefined || !waiting.includes(placement)) return;
    if (waiting.length === 1) book.awaiting.delete(placement.txHash!);
    else waiting.splice(waiting.indexOf(placement), 1);
  }

  /**
   * Drops orders that ended more than ten settle delays ago and that no replay needs any more,
   * keeping their ids (and their fills): memory stays bounded by the recent orders.
   */
  #retire(book: MarketBook): void {
    const horizon = this.#clock.now() - 10 * this.#settleMs;
    while (book.closed.length > 0 && book.closed[0]!.at <= horizon) {
      const { record } = book.closed.shift()!;
      if (book.open.has(record) || record.orderId === undefined || book.byId.get(record.orderId) !== record) continue;
      if (book.slotted.has(record) || (record.placement !== undefined && this.#requests.has(record.placement.requestId))) {
        book.closed.push({ record, at: this.#clock.now() });
        continue;
      }
      book.byId.delete(record.orderId);
      if (record.createdTx !== undefined) {
        const set = book.createdIn.get(record.createdTx);
        set?.delete(record);
        if (set?.size === 0) book.createdIn.delete(record.createdTx);
      }
      book.retired.add(record.orderId);
    }
  }

  /**
   * The replay's view of `book`, made once (closures and an object per compute cost more than the
   * replay's work): the book's lists (changed in place, never replaced) and readers.
   */
  #replayContext(book: MarketBook, inFlightSince: number): SlotReplayContext {
    let context = this.#replayContexts.get(book);
    if (context === undefined) {
      context = {
        market: book.spec.address,
        placements: book.placements,
        movers: book.movers,
        slotted: book.slotted,
        inFlightSince,
        placementOf: (tx) => this.#requests.ofTransaction(tx),
        placementTime: (placement) => this.#placementTime(placement),
        terminal: (record) => this.#terminal(book, record),
        live: (record) => this.#live(book, record),
        freeTime: (record) => this.#freeTime(book, record),
        fill: (key) => book.ledger.get(key)?.fill,
      };
      this.#replayContexts.set(book, context);
    }
    context.inFlightSince = inFlightSince;
    return context;
  }

  #compute(book: MarketBook): MarketState {
    this.#bind(book);
    let inFlightSince = Number.POSITIVE_INFINITY;
    for (const request of this.#requests.inFlight) {
      if (request.markets.has(book.spec.address)) inFlightSince = Math.min(inFlightSince, request.signedAt - this.#settleMs);
    }
    const { table, assigned, freedIn } = replaySlots(this.#replayContext(book, inFlightSince));
    book.table = table;
    const slotOf = new Map<OrderRecord, number>();
    for (let slot = 0; slot < table.length; slot++) if (table[slot]) slotOf.set(table[slot]!, slot);
    for (const record of book.open) {
      const terminal = this.#terminal(book, record);
      if (terminal && !this.#pinned(record)) {
        book.open.delete(record);
        book.closed.push({ record, at: this.#clock.now() });
        continue;
      }
      if (this.#live(book, record, terminal)) book.projection.addOrder(record, slotOf.get(record), this.#remaining(record));
    }
    const state = book.projection.build(this.#requests.inFlight);
    this.#balances.setLocked(book.spec.address, state.locked.base, state.locked.quote);
    this.#settle(book, assigned, freedIn);
    this.#retire(book);
    return state;
  }

  /** Terminal records that an unsettled placement still refers to stay in the open set. */
  #pinned(record: OrderRecord): boolean {
    return record.placement !== undefined && record.placement.status === 'confirmed' && this.#requests.has(record.placement.requestId) && record.orderId === undefined;
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
    for (const book of this.#markets.values()) {
      if (!book.dirty) continue;
      book.dirty = false;
      (computed ??= new Map()).set(book.projection, this.#compute(book));
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
