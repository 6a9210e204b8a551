/**
 * Which order id is which of a confirmed placement's orders: the k-th order id created in the
 * placement's transaction (ascending) is its k-th order. With partial knowledge (only some ids,
 * e.g. from active orders) the ids pair by content, in order; a placement confirmed without a
 * transaction hash claims the first transaction of ours that created exactly its orders.
 *
 * Separate from the order registry because it is a queue of its own: the placements still missing
 * ids, tried in confirmation order, and those parked until their transaction shows an unbound
 * created order. The registry keeps the records and merges each pair (`absorb`).
 */
import type { Hex } from '../../protocol/encoding.ts';
import type { OrderRecord, Placement } from '../slot-replay.ts';
import type { PendingPlacements } from './pending-placements.ts';

/** What binding reads besides the registry. */
export interface BindingContext {
  readonly requests: PendingPlacements;
  /** Earliest block time seen per transaction hash (all markets). */
  readonly txTime: ReadonlyMap<Hex, number>;
}

/** What binding reads and changes of one market's registry. */
export interface BindingRegistry {
  /** Records by the transaction that created them. */
  readonly createdIn: ReadonlyMap<Hex, ReadonlySet<OrderRecord>>;
  /** The provisional record `into` of a placement takes over the facts of the id record `from`. */
  absorb(into: OrderRecord, from: OrderRecord): void;
}

const compareBig = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

export class OrderBinding {
  readonly #context: BindingContext;
  readonly #registry: BindingRegistry;
  /** Unsettled placements whose records may bind to order ids at the next `bind`. */
  readonly #binding = new Set<Placement>();
  /** The others with unbound records, by transaction, while it holds no unbound created order: `created` moves them back. */
  readonly #awaiting = new Map<Hex, Placement[]>();

  constructor(context: BindingContext, registry: BindingRegistry) {
    this.#context = context;
    this.#registry = registry;
  }

  /** A placement just confirmed, with records to bind. */
  add(placement: Placement): void {
    this.#binding.add(placement);
  }

  /** Transaction `tx` created an order: the placements of `tx` waiting for their order ids may bind now. */
  created(tx: Hex): void {
    const waiting = this.#awaiting.get(tx);
    if (waiting === undefined) return;
    this.#awaiting.delete(tx);
    for (const placement of waiting) this.#binding.add(placement);
  }

  /** A settled placement binds no more (only unsettled placements are tried). */
  stop(placement: Placement): void {
    this.#binding.delete(placement);
    const waiting = placement.txHash === undefined ? undefined : this.#awaiting.get(placement.txHash);
    if (waiting === undefined || !waiting.includes(placement)) return;
    if (waiting.length === 1) this.#awaiting.delete(placement.txHash!);
    else waiting.splice(waiting.indexOf(placement), 1);
  }

  /**
   * Binds the records of confirmed placements to the order ids created in their transactions.
   * Only the placements to bind are tried, in confirmation order: one whose transaction holds no
   * unbound created order waits until `created` names it (a try would change nothing); one still
   * partly bound is tried again at each call.
   */
  bind(): void {
    if (this.#binding.size === 0) return;
    const due = [...this.#binding].sort((a, b) => a.confirmSeq - b.confirmSeq);
    for (const placement of due) {
      if (placement.records.every((record) => record.orderId !== undefined)) {
        this.#binding.delete(placement);
        continue;
      }
      if (placement.txHash === undefined) this.#claimTransaction(placement);
      const tx = placement.txHash;
      if (tx === undefined) continue;
      const group = [...(this.#registry.createdIn.get(tx) ?? [])]
        .filter((record) => record.placement === undefined && record.orderId !== undefined)
        .sort((a, b) => compareBig(a.orderId!, b.orderId!));
      if (group.length === 0) {
        this.#binding.delete(placement);
        const waiting = this.#awaiting.get(tx);
        if (waiting === undefined) this.#awaiting.set(tx, [placement]);
        else waiting.push(placement);
        continue;
      }
      const bound = placement.records.filter((record) => record.orderId !== undefined).length;
      if (bound === 0 && group.length === placement.newOrders.length) {
        group.forEach((record, index) => this.#registry.absorb(placement.records[index]!, record));
        continue;
      }
      // Partial knowledge (e.g. active orders only): pair by content, in order.
      let next = 0;
      for (const record of group) {
        for (let k = next; k < placement.records.length; k++) {
          const slot = placement.records[k]!;
          const order = placement.newOrders[k]!;
          if (slot.orderId !== undefined || order.side !== record.side || order.price !== record.price || order.size !== record.size) continue;
          this.#registry.absorb(slot, record);
          next = k + 1;
          break;
        }
      }
    }
  }

  /** A placement confirmed without a transaction hash claims the first unclaimed transaction whose created orders are its orders. */
  #claimTransaction(placement: Placement): void {
    const { requests, txTime } = this.#context;
    const groups = new Map<Hex, OrderRecord[]>();
    for (const [tx, records] of this.#registry.createdIn) {
      if (requests.ofTransaction(tx) !== undefined) continue;
      const list = [...records].filter((record) => record.placement === undefined && record.orderId !== undefined);
      if (list.length > 0) groups.set(tx, list);
    }
    const candidates = [...groups.entries()]
      .map(([tx, records]) => ({ tx, records: records.sort((a, b) => compareBig(a.orderId!, b.orderId!)), at: txTime.get(tx) ?? 0 }))
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
    requests.bindTransaction(placement, chosen.tx);
  }
}
