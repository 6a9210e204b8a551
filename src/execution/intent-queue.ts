/**
 * The queue in front of the in-flight cap: intents wait here while `maxPendingOutcomes`
 * transactions await their outcome, or while the engine reconciles.
 *
 * - Risk-reducing intents (`isRiskReducing`: cancels, CancelAll, the kill switch) come out first,
 *   first in first out among themselves, and are never refused, superseded or cleared.
 * - Placements come out after them, in queue order, and under the policy of the run config:
 *   - `coalesce`: a newer intent for the same market and purpose supersedes the queued placement of
 *     that key (quotes go stale). A newer placement takes the older one's place in the queue, so a
 *     key that re-quotes often is not starved; a newer risk-reducing intent removes it. A CancelAll
 *     without a market matches its purpose on every market. Queued risk-reducing intents are kept:
 *     dropping a cancel could leave an order resting that the strategy meant to remove.
 *   - `queue`: every intent is kept, in order.
 *   - `reject`: a placement is refused when the queue already holds `maxQueued` intents.
 * - `take({ placementsAllowed: false })` (while reconciling, or after the kill switch) returns only
 *   risk-reducing intents; placements keep waiting.
 *
 * Every pushed intent is taken, or reported once as dropped (`superseded`, `refused`, `cleared`):
 * in the result of the call that dropped it and on `dropped$`.
 */
import { Subject, type Observable } from 'rxjs';
import type { QueuePolicy } from '../config/run-config.ts';
import { isRiskReducing, type Intent } from '../strategy/intents.ts';

/** Default bound of the `reject` policy. */
export const DEFAULT_MAX_QUEUED = 64;

export type DropReason = 'superseded' | 'refused' | 'cleared';

/** An intent in the queue, with the caller's `meta` and its push sequence number (from 1). */
export interface QueuedIntent<M> {
  readonly intent: Intent;
  readonly meta: M;
  readonly seq: number;
  readonly riskReducing: boolean;
}

/** An intent that will never be taken, and why. */
export interface DroppedIntent<M> extends QueuedIntent<M> {
  readonly reason: DropReason;
  /** For `superseded`: the `seq` of the newer intent that replaced it. */
  readonly supersededBy?: number;
}

export type PushResult<M> =
  | { readonly status: 'queued'; readonly entry: QueuedIntent<M>; readonly superseded: readonly DroppedIntent<M>[] }
  | { readonly status: 'refused'; readonly dropped: DroppedIntent<M> };

export interface IntentQueueParameters {
  readonly policy: QueuePolicy;
  /** `reject` only: refuse a placement when this many intents are queued. Default 64. */
  readonly maxQueued?: number;
}

export interface TakeOptions {
  /** False while reconciling: only risk-reducing intents come out. Default true. */
  readonly placementsAllowed?: boolean;
}

/** A position in the placement lane; `entry` is replaced in place when coalesced, cleared when removed. */
interface Cell<M> {
  entry: QueuedIntent<M> | undefined;
}

/** A lane of cells with a moving head; dead cells are skipped and the array is compacted now and then. */
class Lane<M> {
  cells: Cell<M>[] = [];
  head = 0;

  push(cell: Cell<M>): void {
    this.cells.push(cell);
  }

  shift(): QueuedIntent<M> | undefined {
    while (this.head < this.cells.length) {
      const cell = this.cells[this.head]!;
      this.head += 1;
      if (cell.entry !== undefined) {
        const entry = cell.entry;
        cell.entry = undefined;
        this.compact();
        return entry;
      }
    }
    this.compact();
    return undefined;
  }

  live(): QueuedIntent<M>[] {
    const out: QueuedIntent<M>[] = [];
    for (let i = this.head; i < this.cells.length; i++) {
      const entry = this.cells[i]!.entry;
      if (entry !== undefined) out.push(entry);
    }
    return out;
  }

  clear(): void {
    for (let i = this.head; i < this.cells.length; i++) this.cells[i]!.entry = undefined;
    this.cells = [];
    this.head = 0;
  }

  private compact(): void {
    if (this.head === this.cells.length) {
      this.cells = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.cells.length) {
      this.cells = this.cells.slice(this.head);
      this.head = 0;
    }
  }
}

function marketOf(intent: Intent): string | undefined {
  return 'market' in intent ? intent.market?.toLowerCase() : undefined;
}

/**
 * The intent queue of one engine. `M` is whatever the engine keeps beside an intent (its strategy,
 * an id for reporting).
 *
 * @example
 * const queue = new IntentQueue<{ strategy: string }>({ policy: 'coalesce' });
 * queue.dropped$.subscribe((d) => strategyOf(d.meta).onIntentDropped(d.intent, d.reason));
 * queue.push(intent, { strategy: 'mm' });
 * const next = queue.take({ placementsAllowed: !reconciling });
 */
export class IntentQueue<M = undefined> {
  readonly policy: QueuePolicy;
  readonly maxQueued: number;
  readonly #risk = new Lane<M>();
  readonly #placements = new Lane<M>();
  /** coalesce: purpose -> market -> the cell of the queued placement of that key. */
  readonly #byKey = new Map<string, Map<string, Cell<M>>>();
  readonly #dropped = new Subject<DroppedIntent<M>>();
  #seq = 0;
  #riskCount = 0;
  #placementCount = 0;

  /** Every intent dropped from the queue, as it is dropped. Completes on `close()`. */
  readonly dropped$: Observable<DroppedIntent<M>> = this.#dropped.asObservable();

  constructor(params: IntentQueueParameters) {
    this.policy = params.policy;
    this.maxQueued = params.maxQueued ?? DEFAULT_MAX_QUEUED;
  }

  /** Intents queued. */
  get size(): number {
    return this.#riskCount + this.#placementCount;
  }

  /** Risk-reducing intents queued. */
  get riskReducingSize(): number {
    return this.#riskCount;
  }

  /** Placements queued. */
  get placementSize(): number {
    return this.#placementCount;
  }

  /** Queues `intent` under the policy; returns what it superseded, or that it was refused. */
  push(intent: Intent, meta: M): PushResult<M> {
    this.#seq += 1;
    const entry: QueuedIntent<M> = { intent, meta, seq: this.#seq, riskReducing: isRiskReducing(intent) };

    if (!entry.riskReducing && this.policy === 'reject' && this.size >= this.maxQueued) {
      const dropped: DroppedIntent<M> = { ...entry, reason: 'refused' };
      this.#dropped.next(dropped);
      return { status: 'refused', dropped };
    }

    const superseded: DroppedIntent<M>[] = [];
    if (this.policy === 'coalesce') {
      const market = marketOf(intent);
      const byMarket = this.#byKey.get(intent.purpose);
      const cells = byMarket === undefined ? [] : market === undefined ? [...byMarket.entries()] : [[market, byMarket.get(market)] as const];
      for (const [key, cell] of cells) {
        if (cell?.entry === undefined) continue;
        superseded.push({ ...cell.entry, reason: 'superseded', supersededBy: entry.seq });
        // A newer placement of the same key takes the older one's place; anything else removes it.
        if (!entry.riskReducing && key === market) {
          cell.entry = entry;
        } else {
          cell.entry = undefined;
          byMarket!.delete(key);
          this.#placementCount -= 1;
        }
      }
      if (!entry.riskReducing && market !== undefined && byMarket?.get(market)?.entry === entry) {
        for (const dropped of superseded) this.#dropped.next(dropped);
        return { status: 'queued', entry, superseded };
      }
    }

    if (entry.riskReducing) {
      this.#risk.push({ entry });
      this.#riskCount += 1;
    } else {
      const cell: Cell<M> = { entry };
      this.#placements.push(cell);
      this.#placementCount += 1;
      const market = marketOf(intent);
      if (this.policy === 'coalesce' && market !== undefined) {
        let byMarket = this.#byKey.get(intent.purpose);
        if (byMarket === undefined) this.#byKey.set(intent.purpose, (byMarket = new Map()));
        byMarket.set(market, cell);
      }
    }
    for (const dropped of superseded) this.#dropped.next(dropped);
    return { status: 'queued', entry, superseded };
  }

  /**
   * The next intent to sign: the oldest risk-reducing one, else (when placements are allowed) the
   * first placement; undefined when none may go.
   */
  take(options: TakeOptions = {}): QueuedIntent<M> | undefined {
    const risk = this.#risk.shift();
    if (risk !== undefined) {
      this.#riskCount -= 1;
      return risk;
    }
    if (options.placementsAllowed === false) return undefined;
    const placement = this.#placements.shift();
    if (placement === undefined) return undefined;
    this.#placementCount -= 1;
    const market = marketOf(placement.intent);
    if (market !== undefined) {
      const byMarket = this.#byKey.get(placement.intent.purpose);
      if (byMarket?.get(market)?.entry === undefined) {
        byMarket?.delete(market);
        if (byMarket?.size === 0) this.#byKey.delete(placement.intent.purpose);
      }
    }
    return placement;
  }

  /** The queued intents in the order `take()` would return them (placements allowed). */
  snapshot(): readonly QueuedIntent<M>[] {
    return [...this.#risk.live(), ...this.#placements.live()];
  }

  /**
   * Drops every queued placement (the kill switch stops placing) and reports each as `cleared`;
   * risk-reducing intents stay.
   */
  clearPlacements(): readonly DroppedIntent<M>[] {
    const dropped = this.#placements.live().map((entry): DroppedIntent<M> => ({ ...entry, reason: 'cleared' }));
    this.#placements.clear();
    this.#byKey.clear();
    this.#placementCount = 0;
    for (const item of dropped) this.#dropped.next(item);
    return dropped;
  }

  /** Completes `dropped$`. */
  close(): void {
    this.#dropped.complete();
  }
}
