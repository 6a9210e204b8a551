/**
 * Whether one of our orders is live, and when it stopped holding its slot: the rules that the order
 * registry and its slot replay read, over an order's facts (`OrderRecord`), the engine's requests and
 * the market's latest complete active-orders snapshot, which this keeps.
 *
 * An order is live when it exists (its placement confirmed, or an event or a snapshot showed it), is
 * not held (a request still in flight carries its creation: live only after CONFIRMED), has a size
 * and has not ended. It ended when cancelled (by its event, or by a confirmed placement's cancel),
 * filled up, if it was IOC/FOK, or when gone: missing from a complete snapshot taken at least
 * `graceMs` after its creation (the user-data index may lag the chain), or taken after an intent
 * that expected it reverted (`doubtedAt`).
 *
 * Separate from the registry because these rules only read facts: the registry keeps and links the
 * records, and asks here on every change which of them still count.
 */
import type { Hex } from '../../protocol/encoding.ts';
import { minDefined, type OrderRecord, type Placement } from '../slot-replay.ts';
import type { PendingPlacements } from './pending-placements.ts';

/** What the liveness rules read besides the records. */
export interface LivenessContext {
  readonly requests: PendingPlacements;
  /** Earliest block time seen per transaction hash (all markets). */
  readonly txTime: ReadonlyMap<Hex, number>;
  /** See `PortfolioParameters.activeOrdersGraceMs`. */
  readonly graceMs: number;
}

/** A complete active-orders snapshot: the order ids it listed and the transactions that created them. */
interface ActiveSnapshot {
  readonly asOf: number;
  readonly ids: ReadonlySet<bigint>;
  readonly txs: ReadonlySet<Hex>;
}

export class OrderLiveness {
  readonly #context: LivenessContext;
  #snapshot: ActiveSnapshot | undefined;

  constructor(context: LivenessContext) {
    this.#context = context;
  }

  /** Takes a complete snapshot taken at `asOf`, unless a later one was taken already. */
  takeSnapshot(asOf: number, ids: ReadonlySet<bigint>, txs: ReadonlySet<Hex>): void {
    if (this.#snapshot === undefined || asOf >= this.#snapshot.asOf) this.#snapshot = { asOf, ids, txs };
  }

  /** `terminal`: `terminal(record)` when the caller has it already. */
  live(record: OrderRecord, terminal?: boolean): boolean {
    return this.#exists(record) && !this.#held(record) && !(terminal ?? this.terminal(record)) && record.size > 0n;
  }

  terminal(record: OrderRecord): boolean {
    if (record.canceled !== undefined || record.canceledBy !== undefined || record.zeroAt !== undefined) return true;
    if (record.tif === 'IOC' || record.tif === 'FOK') return true;
    if (record.size > 0n && this.remaining(record) === 0n) return true;
    return this.#gone(record);
  }

  /** Size units still open, by the lowest of what fills, trades and the snapshots said. */
  remaining(record: OrderRecord): bigint {
    let remaining = record.size - record.filled;
    if (record.minUpdated !== undefined && record.minUpdated < remaining) remaining = record.minUpdated;
    if (record.activeRemaining !== undefined && record.activeRemaining < remaining) remaining = record.activeRemaining;
    return remaining < 0n ? 0n : remaining;
  }

  /** When a record stopped holding its slot, outside any placement still being replayed. */
  freeTime(record: OrderRecord): number | undefined {
    return minDefined(
      record.canceled?.at,
      record.zeroAt?.at,
      record.freedAt,
      record.canceledBy !== undefined ? this.placementTime(record.canceledBy) : undefined,
      this.#gone(record) ? this.#snapshot?.asOf : undefined,
    );
  }

  /** The block time of `placement`'s transaction; infinite while unknown. */
  placementTime(placement: Placement): number {
    return placement.txHash === undefined ? Number.POSITIVE_INFINITY : (this.#context.txTime.get(placement.txHash) ?? Number.POSITIVE_INFINITY);
  }

  /** A pending placement's transaction holds this record's creation: not live until CONFIRMED. */
  #held(record: OrderRecord): boolean {
    if (record.placement !== undefined || record.createdTx === undefined) return false;
    return this.#context.requests.ofTransaction(record.createdTx)?.status === 'pending';
  }

  #exists(record: OrderRecord): boolean {
    if (record.placement !== undefined) return record.placement.status === 'confirmed';
    return record.createdTx !== undefined || record.firstSeenAt !== undefined || record.listed || record.knownSlot !== undefined;
  }

  #gone(record: OrderRecord): boolean {
    const snapshot = this.#snapshot;
    if (snapshot === undefined) return false;
    const graceMs = this.#context.graceMs;
    if (record.orderId === undefined) {
      // Its id never came (its events were lost, e.g. with a venue that restarted with its state
      // wiped): gone when a snapshot taken long enough after its confirmation lists nothing its
      // transaction created.
      const placement = record.placement;
      if (placement?.status !== 'confirmed' || placement.txHash === undefined) return false;
      return placement.confirmedAt <= snapshot.asOf - graceMs && !snapshot.txs.has(placement.txHash);
    }
    if (snapshot.ids.has(record.orderId)) return false;
    if (record.doubtedAt !== undefined && record.doubtedAt <= snapshot.asOf) return true;
    const created = minDefined(record.createdAt, record.firstSeenAt, record.placement?.confirmedAt);
    return created !== undefined && created <= snapshot.asOf - graceMs;
  }
}
