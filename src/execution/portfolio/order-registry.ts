/**
 * One market's order registry: every order of ours the portfolio knows (`OrderRecord`), by id, by
 * the transaction that created it and by maker slot, kept from the facts the portfolio hands it
 * (order events, active-order snapshots, confirmed placements, slots known from elsewhere), and its
 * upkeep once per change (`update`): binding order ids to the placements' orders
 * (`order-binding.ts`), the slot replay (`slot-replay.ts`), handing the live orders (which ones:
 * `order-liveness.ts`) to the projection, settling, and retiring old orders.
 *
 * Slots. Neither order events nor active orders name a slot, so slots are inferred by replaying
 * the confirmed placements against the frees learned from events (`slot-replay.ts`): exact for
 * ReplaceSlots, the lowest free slot for PlaceAndCancel GTC orders (the local venue's policy). A
 * placement's slots become final `settleMs` after its confirmation once its ids are known (or
 * after ten times that in any case); until then a late fact can still move them. `restore` seeds
 * slots known from elsewhere (e.g. the journal after a restart). Placements with only IOC/FOK
 * orders and no cancel move no slot: until they settle they cost next to nothing per change
 * (their ids bind when their transaction's created events arrive).
 *
 * Fees are not in the events: a fill took liquidity (taker fee) when it happened in the transaction
 * that created its order (an on-chain order matches only while being placed), else it made it
 * (maker fee). Only the registry knows that, and may learn it late: it tells the fill ledger.
 *
 * Why over 400 lines: taking facts, merging bound records, settling and retiring all change the
 * same indexes (by id, by transaction, open, slotted); what only reads them (liveness) or queues
 * placements (binding) lives apart.
 */
import type { Clock } from '../../core/clock.ts';
import { UINT64_MAX } from '../../core/units.ts';
import { MAKER_SLOTS, type OrderSide } from '../../protocol/constants.ts';
import type { Address, Hex } from '../../protocol/encoding.ts';
import { blankRecord, minDefined, movesSlots, replaySlots, type OrderRecord, type Placement, type SlotReplayContext } from '../slot-replay.ts';
import type { FillFacts, FillLedger } from './fill-ledger.ts';
import type { MarketStateProjection, PortfolioOrder } from './market-state-projection.ts';
import { OrderBinding } from './order-binding.ts';
import { OrderLiveness, type LivenessContext } from './order-liveness.ts';

/** What the registries of all markets share. */
export interface OrderRegistryContext extends LivenessContext {
  readonly clock: Pick<Clock, 'now'>;
  /** See `PortfolioParameters.settleMs`. */
  readonly settleMs: number;
}

/** An order as its events or snapshots describe it. */
export interface OrderTerms {
  readonly side: OrderSide;
  readonly price: bigint;
  readonly size: bigint;
}

/** A slot known from elsewhere (the journal after a restart). */
export interface KnownSlot extends OrderTerms {
  readonly slot: number;
  readonly orderId: bigint;
}

export class OrderRegistry {
  readonly #context: OrderRegistryContext;
  readonly #market: Address;
  readonly #ledger: FillLedger;
  readonly #liveness: OrderLiveness;
  readonly #byId = new Map<bigint, OrderRecord>();
  /** Records by the transaction that created them. */
  readonly #createdIn = new Map<Hex, Set<OrderRecord>>();
  /** Records that may still be live. */
  readonly #open = new Set<OrderRecord>();
  /** Records with a final slot, until they stop mattering to the replay. */
  readonly #slotted = new Set<OrderRecord>();
  /** Records that ended, oldest first, with the clock time they left the open set. */
  readonly #closed: { readonly record: OrderRecord; readonly at: number }[] = [];
  /** Ids of orders that ended long ago and were dropped, with the transaction that created each: their late events change nothing but fills. */
  readonly #retired = new Map<bigint, Hex | undefined>();
  /** Confirmed placements not yet settled, in confirmation order. */
  readonly #placements: Placement[] = [];
  /** Those that may move this market's slots (`movesSlots`), in the same order: the replay's work. */
  readonly #movers: Placement[] = [];
  /** The unsettled placements whose records still wait for their order ids. */
  readonly #binding: OrderBinding;
  #table: (OrderRecord | null)[] = new Array<OrderRecord | null>(MAKER_SLOTS).fill(null);
  /** The replay's view, made once (closures and an object per update cost more than the replay's work). */
  readonly #replay: { -readonly [K in keyof SlotReplayContext]: SlotReplayContext[K] };

  constructor(context: OrderRegistryContext, market: Address, ledger: FillLedger) {
    this.#context = context;
    this.#market = market;
    this.#ledger = ledger;
    const liveness = new OrderLiveness(context);
    this.#liveness = liveness;
    this.#binding = new OrderBinding(context, { createdIn: this.#createdIn, absorb: (into, from) => this.#absorb(into, from) });
    this.#replay = {
      market,
      placements: this.#placements,
      movers: this.#movers,
      slotted: this.#slotted,
      inFlightSince: Number.POSITIVE_INFINITY,
      placementOf: (tx) => context.requests.ofTransaction(tx),
      placementTime: (placement) => liveness.placementTime(placement),
      terminal: (record) => liveness.terminal(record),
      live: (record) => liveness.live(record),
      freeTime: (record) => liveness.freeTime(record),
      fill: (key) => ledger.get(key)?.fill,
    };
  }

  /** The live record in each slot, as the last update's replay put it. */
  get table(): readonly (OrderRecord | null)[] {
    return this.#table;
  }

  /** The order a cancel of `slot` targets: the one expected there (uint64 max for none), else the one there now. */
  target(slot: number, expected: bigint | undefined): OrderRecord | undefined {
    if (expected === undefined) return this.#table[slot] ?? undefined;
    if (expected === UINT64_MAX) return undefined;
    // An id not seen yet (its events are late): a placeholder that its events will fill in.
    return this.#record(expected, undefined);
  }

  /** Takes this market's part of a placement just confirmed: its cancels, its new orders, its replay. */
  confirm(placement: Placement): void {
    const market = this.#market;
    for (const cancel of placement.cancels) {
      if (cancel.market === market && cancel.target !== undefined && cancel.target.canceledBy === undefined) cancel.target.canceledBy = placement;
    }
    if (placement.market === market) {
      placement.records = placement.newOrders.map((order, index) => {
        // Set on the blank record rather than spread over it (a slow copy of its 22 fields).
        const record = blankRecord(market, undefined, order);
        record.tif = order.tif;
        record.placement = placement;
        record.index = index;
        return record;
      });
      // An IOC/FOK order is never live: it joins the open set only once bound (`#absorb`), to be
      // closed and retired like the others, so unbound takers cost nothing per change.
      for (const record of placement.records) if (record.tif === 'GTC') this.#open.add(record);
      if (placement.records.length > 0) this.#binding.add(placement);
    }
    this.#placements.push(placement);
    if (movesSlots(placement, market)) this.#movers.push(placement);
    placement.unsettledIn.add(market);
  }

  // ---- facts ---------------------------------------------------------------------------------------

  /** Whether `orderId` ended long ago and was dropped (its late events are duplicates, its fills not). */
  isRetired(orderId: bigint): boolean {
    return this.#retired.has(orderId);
  }

  /**
   * An order `orderId` created in `tx`: when a retired order of that id was created in another
   * transaction, the id names a new order (a venue whose state was wiped numbers its orders from
   * the start again), and the old one is forgotten, so the new one's events apply.
   */
  forgetReusedId(orderId: bigint, tx: Hex): void {
    const retiredTx = this.#retired.get(orderId);
    if (retiredTx !== undefined && retiredTx !== tx) this.#retired.delete(orderId);
  }

  /** An order-created event; false when it was known already. */
  created(orderId: bigint, order: OrderTerms, tx: Hex, at: number): boolean {
    const record = this.#record(orderId, order);
    record.firstSeenAt = minDefined(record.firstSeenAt, at);
    if (record.createdTx === tx && record.createdAt === at) return false;
    record.side = order.side;
    record.price = order.price;
    record.size = order.size;
    this.#setCreated(record, tx);
    record.createdAt = at;
    this.#refreshLiquidity(record);
    return true;
  }

  /** An order-canceled event leaving `remaining`; false when the cancel was known already. */
  canceled(orderId: bigint, order: OrderTerms, tx: Hex, at: number, remaining: bigint): boolean {
    const record = this.#record(orderId, order);
    record.firstSeenAt = minDefined(record.firstSeenAt, at);
    if (record.canceled !== undefined) return false;
    record.canceled = { at, tx, remaining };
    return true;
  }

  /** A fill (new to the ledger) of an order of `orderSize`: recorded on its order; returns whether it took liquidity. */
  traded(fill: FillFacts, orderSize: bigint): 'maker' | 'taker' {
    // A late fill of a retired order still counts; the order itself stays retired. An order first
    // seen by its fill (its creation event still to come) is priced at the fill: a maker's own price.
    const seenAt = { side: fill.side, price: fill.price, size: orderSize };
    const record = this.#retired.has(fill.orderId) ? blankRecord(this.#market, fill.orderId, seenAt) : this.#record(fill.orderId, seenAt);
    const at = fill.timeMs;
    record.firstSeenAt = minDefined(record.firstSeenAt, at);
    record.fillKeys.push(fill.key);
    record.filled += fill.size;
    if (record.minUpdated === undefined || fill.remaining < record.minUpdated) record.minUpdated = fill.remaining;
    if (fill.remaining === 0n && (record.zeroAt === undefined || at < record.zeroAt.at)) record.zeroAt = { at, tx: fill.transactionHash };
    return this.#liquidityOf(record, fill.transactionHash);
  }

  /**
   * An order listed by an active-orders snapshot with `remaining` open, created in `tx` (at
   * `createdAt` when the snapshot says); false when the snapshot changed nothing of it.
   */
  listed(orderId: bigint, order: OrderTerms, remaining: bigint, tx: Hex, createdAt: number | undefined): boolean {
    const record = this.#record(orderId, order);
    const before = record.activeRemaining;
    record.activeRemaining = before === undefined || remaining < before ? remaining : before;
    const duplicate = record.listed && record.createdTx === tx && before === record.activeRemaining;
    record.listed = true;
    this.#open.add(record);
    if (record.createdTx === undefined) {
      this.#setCreated(record, tx);
      record.createdAt = minDefined(record.createdAt, createdAt);
      this.#refreshLiquidity(record);
    }
    return !duplicate;
  }

  /** A complete active-orders snapshot taken at `asOf`: the ids it listed and their transactions. */
  takeSnapshot(asOf: number, ids: ReadonlySet<bigint>, txs: ReadonlySet<Hex>): void {
    this.#liveness.takeSnapshot(asOf, ids, txs);
  }

  /** An intent expecting these orders reverted at `atMs`: see `Portfolio.doubtOrders`. */
  doubt(orderIds: readonly bigint[], atMs: number): void {
    for (const orderId of orderIds) {
      const record = this.#byId.get(orderId);
      if (record !== undefined && (record.doubtedAt === undefined || atMs < record.doubtedAt)) record.doubtedAt = atMs;
    }
  }

  /** Slots known from elsewhere: each order is live in its slot until events say otherwise. */
  restore(entries: readonly KnownSlot[]): void {
    for (const entry of entries) {
      const record = this.#record(entry.orderId, { side: entry.side, price: entry.price, size: entry.size });
      record.knownSlot = entry.slot;
      this.#slotted.add(record);
    }
  }

  /** The chain's slot view against the slots `derived` last: see `Portfolio.adoptSlotView`. */
  adoptSlotView(orderIds: readonly (bigint | null)[], derived: readonly (PortfolioOrder | null)[]): { readonly adopted: number; readonly corrected: number; readonly differing: number } {
    const market = this.#market;
    const replayed = (record: OrderRecord) => record.placement !== undefined && record.placement.unsettledIn.has(market);
    let adopted = 0;
    let corrected = 0;
    let differing = 0;
    orderIds.forEach((orderId, slot) => {
      if (orderId === null || slot >= MAKER_SLOTS) return;
      const record = this.#byId.get(orderId);
      if (record === undefined || !this.#open.has(record)) return;
      if (replayed(record)) {
        if (derived[slot]?.orderId !== orderId) differing++;
        return;
      }
      if (record.knownSlot === slot) return;
      if (record.knownSlot === undefined) adopted++;
      else corrected++;
      for (const other of this.#slotted) if (other !== record && other.knownSlot === slot && !replayed(other)) other.knownSlot = undefined;
      record.knownSlot = slot;
      this.#slotted.add(record);
    });
    return { adopted, corrected, differing };
  }

  /** The record of `orderId`, created (open) when new; fills in side/price/size when they were unknown. */
  #record(orderId: bigint, order: OrderTerms | undefined): OrderRecord {
    let record = this.#byId.get(orderId);
    if (record === undefined) {
      record = blankRecord(this.#market, orderId, order);
      this.#byId.set(orderId, record);
      this.#open.add(record);
    } else if (order !== undefined) {
      if (record.size === 0n) {
        record.side = order.side;
        record.size = order.size;
      }
      if (record.price === 0n) record.price = order.price;
    }
    return record;
  }

  #setCreated(record: OrderRecord, tx: Hex): void {
    if (record.createdTx === tx) return;
    if (record.createdTx !== undefined) this.#createdIn.get(record.createdTx)?.delete(record);
    record.createdTx = tx;
    let set = this.#createdIn.get(tx);
    if (set === undefined) {
      set = new Set();
      this.#createdIn.set(tx, set);
    }
    set.add(record);
    this.#binding.created(tx);
  }

  /** Whether `record`'s fill in transaction `tx` took liquidity. */
  #liquidityOf(record: OrderRecord, tx: Hex): 'maker' | 'taker' {
    if (record.tif === 'IOC' || record.tif === 'FOK') return 'taker';
    const created = record.createdTx ?? record.placement?.txHash;
    if (created !== undefined) return created === tx ? 'taker' : 'maker';
    // The order's creation not seen yet (its event late): a fill in one of our own placement
    // transactions is of an order that transaction created, which took liquidity as it came.
    return this.#context.requests.ofTransaction(tx) !== undefined ? 'taker' : 'maker';
  }

  #refreshLiquidity(record: OrderRecord): void {
    for (const key of record.fillKeys) {
      const fill = this.#ledger.get(key);
      if (fill !== undefined) this.#ledger.setLiquidity(fill, this.#liquidityOf(record, fill.fill.transactionHash));
    }
  }

  // ---- upkeep, once per change ----------------------------------------------------------------------

  /**
   * Binds ids, replays the slots, closes the records that ended and hands each live one to
   * `projection`, then settles and retires what no replay needs any more.
   */
  update(projection: MarketStateProjection): void {
    const { requests, settleMs } = this.#context;
    const liveness = this.#liveness;
    this.#binding.bind();
    let inFlightSince = Number.POSITIVE_INFINITY;
    for (const request of requests.inFlight) {
      if (request.markets.has(this.#market)) inFlightSince = Math.min(inFlightSince, request.signedAt - settleMs);
    }
    this.#replay.inFlightSince = inFlightSince;
    const { table, assigned, freedIn } = replaySlots(this.#replay);
    this.#table = table;
    const slotOf = new Map<OrderRecord, number>();
    for (let slot = 0; slot < table.length; slot++) if (table[slot]) slotOf.set(table[slot]!, slot);
    for (const record of this.#open) {
      const terminal = liveness.terminal(record);
      if (terminal && !this.#pinned(record)) {
        this.#open.delete(record);
        this.#closed.push({ record, at: this.#context.clock.now() });
        continue;
      }
      if (liveness.live(record, terminal)) projection.addOrder(record, slotOf.get(record), liveness.remaining(record));
    }
    this.#settle(assigned, freedIn);
    this.#retire();
  }

  /** Terminal records that an unsettled placement still refers to stay in the open set. */
  #pinned(record: OrderRecord): boolean {
    return record.placement !== undefined && record.placement.status === 'confirmed' && this.#context.requests.has(record.placement.requestId) && record.orderId === undefined;
  }

  /** The provisional record of a placement takes over the facts of the id record `from`. */
  #absorb(into: OrderRecord, from: OrderRecord): void {
    into.orderId = from.orderId;
    into.side = from.side;
    into.price = from.price;
    into.size = from.size;
    if (from.createdTx !== undefined) {
      this.#createdIn.get(from.createdTx)?.delete(from);
      this.#setCreated(into, from.createdTx);
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
    this.#byId.set(from.orderId!, into);
    this.#open.delete(from);
    this.#slotted.delete(from);
    // Already there unless it is an IOC/FOK order (see `confirm`): the open set closes it if it ended.
    this.#open.add(into);
    this.#refreshLiquidity(into);
  }

  /** Makes the slots of old, fully bound placements final, first to last. */
  #settle(assigned: Map<OrderRecord, number | undefined>, freedIn: Map<Placement, OrderRecord[]>): void {
    const { clock, settleMs, requests } = this.#context;
    const market = this.#market;
    const now = clock.now();
    while (this.#placements.length > 0) {
      const placement = this.#placements[0]!;
      const time = this.#liveness.placementTime(placement);
      const age = now - placement.confirmedAt;
      // Events that never come must not hold the replay open for ever: after ten times the delay,
      // the slots as inferred become final.
      const ready =
        age >= 10 * settleMs ||
        (age >= settleMs && placement.records.every((record) => record.orderId !== undefined) && (Number.isFinite(time) || placement.newOrders.length === 0));
      if (!ready) return;
      // Each market settles its part of a placement (a CancelAll may span several); the request is
      // forgotten once no market replays it any more.
      const at = Number.isFinite(time) ? time : placement.confirmedAt;
      this.#placements.shift();
      if (this.#movers[0] === placement) this.#movers.shift();
      this.#binding.stop(placement);
      placement.unsettledIn.delete(market);
      for (const cancel of placement.cancels) if (cancel.market === market && cancel.target !== undefined) cancel.target.freedAt ??= at;
      for (const record of freedIn.get(placement) ?? []) record.freedAt ??= at;
      if (placement.market === market) {
        for (const record of placement.records) {
          const slot = assigned.get(record);
          if (slot === undefined) continue;
          record.knownSlot = slot;
          this.#slotted.add(record);
        }
      }
      if (placement.unsettledIn.size > 0) continue;
      requests.forget(placement);
    }
  }

  /**
   * Drops orders that ended more than ten settle delays ago and that no replay needs any more,
   * keeping their ids (and their fills): memory stays bounded by the recent orders.
   */
  #retire(): void {
    const { clock, settleMs, requests } = this.#context;
    const horizon = clock.now() - 10 * settleMs;
    while (this.#closed.length > 0 && this.#closed[0]!.at <= horizon) {
      const { record } = this.#closed.shift()!;
      if (this.#open.has(record) || record.orderId === undefined || this.#byId.get(record.orderId) !== record) continue;
      if (this.#slotted.has(record) || (record.placement !== undefined && requests.has(record.placement.requestId))) {
        this.#closed.push({ record, at: clock.now() });
        continue;
      }
      this.#byId.delete(record.orderId);
      if (record.createdTx !== undefined) {
        const set = this.#createdIn.get(record.createdTx);
        set?.delete(record);
        if (set?.size === 0) this.#createdIn.delete(record.createdTx);
      }
      this.#retired.set(record.orderId, record.createdTx);
    }
  }
}
