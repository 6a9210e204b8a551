/**
 * Binance's documented procedure for a local order book, as a state machine that decides and never
 * writes (the importer writes): wait for a REST snapshot; drop diffs with `u <= lastUpdateId`; the
 * first diff kept must straddle `lastUpdateId + 1` (`U <= lastUpdateId + 1 <= u`); every next one
 * must start at the previous `u + 1`. Anything else is a gap, after which the book is unknown until
 * the next snapshot. In a capture the snapshot line arrives after the first diffs it needs (the
 * REST answer is slower than the stream), so diffs are buffered while no snapshot is in force.
 */

/** What the machine needs of a diff; the importer's diffs carry where they came from too. */
export interface SyncDiff {
  readonly U: number;
  readonly u: number;
}

/** Diffs kept while waiting for a snapshot: 10,000 diffs are about 17 minutes of `@depth@100ms`. */
export const MAX_BUFFERED_DIFFS = 10_000;

/** The book does not continue: the updates from `firstMissing` on were never seen. */
export interface SyncGap<D> {
  readonly diff: D;
  /** The update id the book needed next (previous u + 1, or the snapshot's lastUpdateId + 1). */
  readonly firstMissing: number;
  /** What the book was at: the previous diff's u, or the snapshot's lastUpdateId. */
  readonly after: number;
  readonly afterSnapshot: boolean;
}

export type DiffDecision<D> =
  | { readonly action: 'apply' }
  /** Older than the snapshot in force: dropped, as the procedure says. */
  | { readonly action: 'stale' }
  /** Kept until a snapshot comes (none yet, or the book is unknown since a gap). */
  | { readonly action: 'buffer' }
  | { readonly action: 'gap'; readonly gap: SyncGap<D> };

export type SnapshotDecision<D> =
  /** The book is already in sync: a later snapshot adds nothing, it is not applied. */
  | { readonly action: 'ignore' }
  /** The book is the snapshot, then the buffered `apply` diffs (in order); `gap` when the first buffered diff after it does not straddle. */
  | { readonly action: 'sync'; readonly apply: readonly D[]; readonly stale: number; readonly gap?: SyncGap<D> };

/**
 * @example
 * const sync = new CaptureBookSync<SyncDiff>();
 * sync.onDiff({ U: 208, u: 224 });          // { action: 'buffer' }
 * sync.onSnapshot(218);                     // { action: 'sync', apply: [{ U: 208, u: 224 }], stale: 0 }
 * sync.onDiff({ U: 225, u: 237 });          // { action: 'apply' }
 * sync.onDiff({ U: 300, u: 310 });          // { action: 'gap', gap: { firstMissing: 238, after: 237, … } }
 */
export class CaptureBookSync<D extends SyncDiff> {
  /** The id the next diff must contain (U == next, or U <= next <= u for the first after a snapshot); undefined: no book. */
  private next: number | undefined;
  private firstAfterSnapshot = false;
  private lastUpdateId = 0;
  private buffer: D[] = [];
  /** Buffered diffs discarded (a break in the buffer, or over MAX_BUFFERED_DIFFS), not counting stale ones. */
  discarded = 0;

  /** True while a snapshot is in force and no gap came since. */
  get inSync(): boolean {
    return this.next !== undefined;
  }

  /** Diffs still buffered (at the end of a capture: never used). */
  get buffered(): number {
    return this.buffer.length;
  }

  onDiff(diff: D): DiffDecision<D> {
    if (this.next === undefined) {
      this.bufferDiff(diff);
      return { action: 'buffer' };
    }
    if (this.firstAfterSnapshot) {
      if (diff.u < this.next) return { action: 'stale' };
      if (diff.U > this.next) return this.gap(diff, true);
      this.firstAfterSnapshot = false;
    } else if (diff.U !== this.next) {
      return this.gap(diff, false);
    }
    this.next = diff.u + 1;
    return { action: 'apply' };
  }

  onSnapshot(lastUpdateId: number): SnapshotDecision<D> {
    if (this.next !== undefined) return { action: 'ignore' };
    this.lastUpdateId = lastUpdateId;
    this.next = lastUpdateId + 1;
    this.firstAfterSnapshot = true;
    const buffered = this.buffer;
    this.buffer = [];
    const apply: D[] = [];
    let stale = 0;
    for (let i = 0; i < buffered.length; i += 1) {
      const decision = this.onDiff(buffered[i]!);
      if (decision.action === 'stale') stale += 1;
      else if (decision.action === 'apply') apply.push(buffered[i]!);
      else if (decision.action === 'gap') {
        // The machine is back to waiting: what follows the gap stays buffered for the next snapshot.
        for (let j = i + 1; j < buffered.length; j += 1) this.bufferDiff(buffered[j]!);
        return { action: 'sync', apply, stale, gap: decision.gap };
      }
    }
    return { action: 'sync', apply, stale };
  }

  private gap(diff: D, afterSnapshot: boolean): DiffDecision<D> {
    const firstMissing = this.next!;
    this.next = undefined;
    this.firstAfterSnapshot = false;
    // The diff that shows the gap may be the one the next snapshot needs.
    this.buffer = [];
    this.bufferDiff(diff);
    return { action: 'gap', gap: { diff, firstMissing, after: afterSnapshot ? this.lastUpdateId : firstMissing - 1, afterSnapshot } };
  }

  private bufferDiff(diff: D): void {
    const last = this.buffer[this.buffer.length - 1];
    // A break inside the buffer: no snapshot could bridge it, so what came before is of no use.
    if (last !== undefined && diff.U !== last.u + 1) {
      this.discarded += this.buffer.length;
      this.buffer = [];
    }
    if (this.buffer.length === MAX_BUFFERED_DIFFS) {
      this.buffer.shift();
      this.discarded += 1;
    }
    this.buffer.push(diff);
  }
}
