/**
 * Which maker slot holds which of our orders. Neither order events nor active orders name a slot,
 * so the portfolio infers slots by replaying its confirmed placements, in block-time order, against
 * the frees it learns from events:
 *
 * - Placements replay in confirmation order (the order of their transactions); one whose block time
 *   is not known yet (no event of its transaction) takes the earliest known time of the placements
 *   confirmed after it. A free at the same time as a placement comes first.
 * - A placement first empties the slots it cancels (PlaceAndCancel cancel slots, every ReplaceSlots
 *   op's slot, the slots of a CancelAll). Then, in order, each new GTC order takes a slot: a
 *   ReplaceSlots op its own slot (exact); a PlaceAndCancel order the lowest free one (the local
 *   venue's policy; the real venue's rule is not public). IOC and FOK orders take none.
 * - Inside the placement's transaction: an order filled up at once frees its slot before the next
 *   order is placed; our resting orders cancelled by self-trade free theirs after the order that
 *   reached them (`selfTradeBy`).
 * - Outside it: an order frees its slot when it is cancelled, filled up, or missing from a complete
 *   active-orders snapshot, at that event's block time.
 *
 * Settled placements (see `portfolio/order-registry.ts`) leave final slots (`knownSlot`) that seed the replay.
 *
 * A slot-free placement (only IOC/FOK orders, no cancel in the market: a taker, a TWAP slice) moves
 * no slot, so the replay skips it: its orders never hold a slot, so freeing them changes nothing.
 * It is replayed only when one of our resting orders was freed inside its transaction (self-trade),
 * as that free must come after the placements earlier in the same block. Its block time still
 * counts in the effective times of the others and in `start`, so the result is the same as
 * replaying it; IOC-only flows then cost nothing here however many of them are unsettled.
 */
import { MAKER_SLOTS, type OrderSide, type TimeInForce } from '../protocol/constants.ts';
import type { Address, Hex } from '../protocol/encoding.ts';

/** A new order of a signed request (a ReplaceSlots place op names its slot). */
export interface NewOrder {
  readonly side: OrderSide;
  readonly price: bigint;
  readonly size: bigint;
  readonly tif: TimeInForce;
  /** Explicit slot (ReplaceSlots place op). */
  readonly slot: number | undefined;
}

/** A slot a request empties, bound to the order it held when the request was signed. */
export interface CancelTarget {
  readonly market: Address;
  readonly slot: number | undefined;
  /** The order the cancel removes (undefined: the slot was expected empty). */
  readonly target: OrderRecord | undefined;
}

/** A signed request the portfolio tracks: its new orders and cancels, and what became of it. */
export interface Placement {
  readonly requestId: string;
  readonly markets: ReadonlySet<Address>;
  /** Market of the new orders. */
  readonly market: Address | undefined;
  readonly newOrders: readonly NewOrder[];
  readonly cancels: readonly CancelTarget[];
  status: 'pending' | 'confirmed';
  /** Clock time of `markPending`. */
  readonly signedAt: number;
  txHash: Hex | undefined;
  confirmedAt: number;
  confirmSeq: number;
  /** One per new order once confirmed (provisional records until bound to an order id). */
  records: OrderRecord[];
  /** Markets whose slot replay still holds this placement. */
  readonly unsettledIn: Set<Address>;
}

/**
 * Everything known of one of our orders (by id, or a confirmed order still waiting for its id):
 * facts only, from which liveness, remaining size and slot are derived.
 */
export interface OrderRecord {
  readonly market: Address;
  orderId: bigint | undefined;
  side: OrderSide;
  price: bigint;
  size: bigint;
  tif: TimeInForce | undefined;
  placement: Placement | undefined;
  index: number;
  createdTx: Hex | undefined;
  createdAt: number | undefined;
  /** Earliest time any event showed the order. */
  firstSeenAt: number | undefined;
  fillKeys: string[];
  filled: bigint;
  minUpdated: bigint | undefined;
  zeroAt: { readonly at: number; readonly tx: Hex } | undefined;
  canceled: { readonly at: number; readonly tx: Hex; readonly remaining: bigint } | undefined;
  canceledBy: Placement | undefined;
  activeRemaining: bigint | undefined;
  listed: boolean;
  knownSlot: number | undefined;
  /** Set when a settled placement freed this order inside its transaction. */
  freedAt: number | undefined;
  /** When an intent that expected it in its slot reverted (Portfolio.doubtOrders). */
  doubtedAt: number | undefined;
}

/** What the replay reads of the order registry. */
export interface SlotReplayContext {
  readonly market: Address;
  /** Unsettled confirmed placements touching the market, in confirmation order (`unsettledIn` has the market). */
  readonly placements: readonly Placement[];
  /** Those that may move the market's slots (`movesSlots`), in the same order. */
  readonly movers: readonly Placement[];
  /** Records with a final slot; the replay drops those that no longer matter. */
  readonly slotted: Set<OrderRecord>;
  /** Earliest block time a request still in flight could have (frees before it may be forgotten). */
  readonly inFlightSince: number;
  readonly placementOf: (tx: Hex) => Placement | undefined;
  readonly placementTime: (placement: Placement) => number;
  readonly terminal: (record: OrderRecord) => boolean;
  readonly live: (record: OrderRecord) => boolean;
  readonly freeTime: (record: OrderRecord) => number | undefined;
  readonly fill: (key: string) => { readonly transactionHash: Hex; readonly price: bigint } | undefined;
}

export interface SlotReplay {
  /** MAKER_SLOTS entries: the live record in each slot, or null. */
  readonly table: (OrderRecord | null)[];
  /** The slot each replayed record of a placement was given (undefined: no free slot). */
  readonly assigned: Map<OrderRecord, number | undefined>;
  /** Records freed inside each placement's transaction. */
  readonly freedIn: Map<Placement, OrderRecord[]>;
}

/**
 * Whether `placement` may move the slots of `market`: it cancels a slot there, or places a GTC
 * order there. The others (IOC/FOK orders only) are slot-free: see the module comment.
 */
export function movesSlots(placement: Placement, market: Address): boolean {
  if (placement.cancels.some((cancel) => cancel.market === market)) return true;
  return placement.market === market && placement.newOrders.some((order) => order.tif === 'GTC');
}

/** The unsettled placement of this market whose transaction frees `record`, if any. */
function freedWithin(context: SlotReplayContext, record: OrderRecord): Placement | undefined {
  // Runs per tracked record on every compute: no closure or array per call.
  const market = context.market;
  if (record.canceledBy !== undefined && record.canceledBy.unsettledIn.has(market)) return record.canceledBy;
  return unsettledOf(context, record.canceled?.tx) ?? unsettledOf(context, record.zeroAt?.tx);
}

function unsettledOf(context: SlotReplayContext, tx: Hex | undefined): Placement | undefined {
  if (tx === undefined) return undefined;
  const placement = context.placementOf(tx);
  return placement !== undefined && placement.unsettledIn.has(context.market) ? placement : undefined;
}

/**
 * The effective time of each placement (aligned with `context.placements`) and the start of the
 * replay. Placements replay in confirmation order (the order of their transactions). One whose
 * block time is not known yet (no event of its transaction) takes the earliest known time of the
 * placements confirmed after it: as late as the known facts allow. Frees before `start` no longer
 * matter: before every unsettled placement, and before any request in flight could have been
 * included (signed at most `settleMs` of clock skew earlier).
 */
function replayTimes(context: SlotReplayContext): { readonly effective: readonly number[]; readonly start: number } {
  const placements = context.placements;
  const effective = new Array<number>(placements.length);
  let later = Number.POSITIVE_INFINITY;
  for (let i = placements.length - 1; i >= 0; i--) {
    later = Math.min(later, context.placementTime(placements[i]!));
    effective[i] = later;
  }
  return { effective, start: Math.min(effective[0] ?? Number.POSITIVE_INFINITY, context.inFlightSince) };
}

/**
 * Replays the unsettled placements of the market in block-time order against the frees learned
 * from events, from the final slots of settled ones. Returns the slot table and the slot each
 * replayed record was given.
 */
export function replaySlots(context: SlotReplayContext): SlotReplay {
  // No named closures here: this runs on every portfolio change, and each costs a `__name` call under tsx.
  const slots = new SlotTable();
  const table = slots.table;
  const assigned = new Map<OrderRecord, number | undefined>();
  const market = context.market;
  // Times cost a pass over every unsettled placement: only when something needs them.
  let times: ReturnType<typeof replayTimes> | undefined;

  const items: ReplayItem[] = [];
  const freedIn = new Map<Placement, OrderRecord[]>();

  for (const record of context.slotted) {
    const at = context.freeTime(record);
    const ended = context.terminal(record);
    if (ended && (at === undefined || at < (times ??= replayTimes(context)).start)) {
      context.slotted.delete(record);
      continue;
    }
    if (record.knownSlot !== undefined && record.knownSlot >= 0 && record.knownSlot < MAKER_SLOTS) slots.put(record.knownSlot, record);
    if (ended) track(context, record, freedIn, items);
  }
  // The orders of slot-free placements are IOC/FOK: they never hold a slot, so their frees are
  // no-ops and are not tracked.
  for (const placement of context.movers) {
    if (placement.market === market) for (const record of placement.records) if (context.terminal(record)) track(context, record, freedIn, items);
  }
  // A slot-free placement is replayed only to free our orders it freed (its item does nothing else).
  const replayed = new Set(context.movers);
  for (const placement of freedIn.keys()) if (placement.market === market) replayed.add(placement);
  if (replayed.size > 0) {
    const { effective } = (times ??= replayTimes(context));
    context.placements.forEach((placement, i) => {
      if (replayed.has(placement)) items.push({ time: effective[i]!, kind: 1, seq: placement.confirmSeq, placement });
    });
  }
  items.sort((a, b) => a.time - b.time || a.kind - b.kind || a.seq - b.seq);

  for (const item of items) {
    if (item.record !== undefined) {
      slots.free(item.record);
      continue;
    }
    const placement = item.placement!;
    // Most placements free nothing inside their transaction: no sets for them (this runs on every compute).
    const freed = freedIn.get(placement);
    const cancelled = freed === undefined ? undefined : new Set<OrderRecord>();
    for (const cancel of placement.cancels) {
      if (cancel.market !== market) continue;
      if (cancel.target !== undefined) {
        slots.free(cancel.target);
        cancelled?.add(cancel.target);
      }
      if (cancel.slot !== undefined) {
        const occupant = table[cancel.slot];
        if (occupant) slots.free(occupant);
      }
    }
    if (placement.market !== market) continue;
    const selfTrade = freed === undefined ? undefined : selfTradeFrees(context, placement, freed, cancelled!);
    const records = placement.records;
    for (let k = 0; k < records.length; k++) {
      const record = records[k]!;
      const order = placement.newOrders[k]!;
      if (order.tif === 'GTC') {
        const slot = order.slot ?? table.indexOf(null);
        if (slot >= 0) slots.put(slot, record);
        assigned.set(record, slot >= 0 ? slot : undefined);
      }
      for (const other of selfTrade?.get(k) ?? NONE) slots.free(other);
      if (record.zeroAt !== undefined && record.zeroAt.tx === placement.txHash) slots.free(record);
    }
    for (const other of selfTrade?.get(-1) ?? NONE) slots.free(other);
  }

  for (let slot = 0; slot < MAKER_SLOTS; slot++) {
    const record = table[slot];
    if (record && !context.live(record)) table[slot] = null;
  }
  return { table, assigned, freedIn };
}

type ReplayItem = { readonly time: number; readonly kind: 0 | 1; readonly seq: number; readonly record?: OrderRecord; readonly placement?: Placement };

/** The replay's slot table, and the slot of each record in it. */
class SlotTable {
  readonly table = new Array<OrderRecord | null>(MAKER_SLOTS).fill(null);
  readonly #where = new Map<OrderRecord, number>();

  put(slot: number, record: OrderRecord): void {
    const previous = this.table[slot];
    if (previous) this.#where.delete(previous);
    const old = this.#where.get(record);
    if (old !== undefined) this.table[old] = null;
    this.table[slot] = record;
    this.#where.set(record, slot);
  }

  free(record: OrderRecord): void {
    const slot = this.#where.get(record);
    if (slot === undefined) return;
    this.table[slot] = null;
    this.#where.delete(record);
  }
}

/** Notes when an ended record frees its slot: inside an unsettled placement's transaction, or at its free time. */
function track(context: SlotReplayContext, record: OrderRecord, freedIn: Map<Placement, OrderRecord[]>, items: ReplayItem[]): void {
  const within = freedWithin(context, record);
  if (within !== undefined) {
    const list = freedIn.get(within) ?? [];
    list.push(record);
    freedIn.set(within, list);
    return;
  }
  const at = context.freeTime(record);
  if (at !== undefined) items.push({ time: at, kind: 0, seq: 0, record });
}

const NONE: readonly OrderRecord[] = [];

/** Our resting orders cancelled in `placement`'s transaction by self-trade, by the order that reached them. */
function selfTradeFrees(context: SlotReplayContext, placement: Placement, freed: readonly OrderRecord[], cancelled: ReadonlySet<OrderRecord>): Map<number, OrderRecord[]> {
  const own = new Set(placement.records);
  const selfTrade = new Map<number, OrderRecord[]>();
  for (const record of freed) {
    if (cancelled.has(record) || (own.has(record) && record.canceled === undefined)) continue;
    const k = selfTradeBy(context, placement, record, own.has(record) ? record.index : -1);
    const list = selfTrade.get(k) ?? [];
    list.push(record);
    selfTrade.set(k, list);
  }
  return selfTrade;
}

/**
 * Which new order of `placement` cancelled our resting order `resting` by self-trade (its index,
 * or -1 when none can have): the first crossing order that certainly reached it (not filled up in
 * the transaction, or filled beyond its price), else the last that may have (filled up at exactly
 * its price: whether it got to our order in the price level's queue is not observable; the guess
 * is that our order sat behind earlier liquidity at its level).
 */
function selfTradeBy(context: SlotReplayContext, placement: Placement, resting: OrderRecord, after: number): number {
  let maybe = -1;
  for (let k = after + 1; k < placement.newOrders.length; k++) {
    const order = placement.newOrders[k]!;
    if (order.side === resting.side) continue;
    const buy = order.side === 'BUY';
    if (buy ? order.price < resting.price : order.price > resting.price) continue;
    const record = placement.records[k]!;
    const filledUp = record.zeroAt !== undefined && record.zeroAt.tx === placement.txHash;
    if (!filledUp) return k;
    let atLevel = false;
    for (const key of record.fillKeys) {
      const fill = context.fill(key);
      if (fill === undefined || fill.transactionHash !== placement.txHash) continue;
      if (buy ? fill.price > resting.price : fill.price < resting.price) return k;
      if (fill.price === resting.price) atLevel = true;
    }
    if (atLevel) maybe = k;
  }
  return maybe;
}


/** A record of `orderId` (undefined: a confirmed order whose id is not known yet) with no facts. */
export function blankRecord(market: Address, orderId: bigint | undefined, order: { side: OrderSide; price: bigint; size: bigint } | undefined): OrderRecord {
  return {
    market,
    orderId,
    side: order?.side ?? 'BUY',
    price: order?.price ?? 0n,
    size: order?.size ?? 0n,
    tif: undefined,
    placement: undefined,
    index: -1,
    createdTx: undefined,
    createdAt: undefined,
    firstSeenAt: undefined,
    fillKeys: [],
    filled: 0n,
    minUpdated: undefined,
    zeroAt: undefined,
    canceled: undefined,
    canceledBy: undefined,
    activeRemaining: undefined,
    listed: false,
    knownSlot: undefined,
    freedAt: undefined,
    doubtedAt: undefined,
  };
}

/** The smallest defined value. */
export function minDefined(...values: (number | undefined)[]): number | undefined {
  let out: number | undefined;
  for (const value of values) if (value !== undefined && (out === undefined || value < out)) out = value;
  return out;
}
