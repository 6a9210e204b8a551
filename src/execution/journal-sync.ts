/**
 * Group commit for the journal. Records written without waiting (`Journal.write`) become durable
 * with one fsync shared by every caller waiting for it (`Journal.sync`), run on libuv's thread pool
 * when the file system offers it, so the main thread signs while the disk flushes. One fsync runs at
 * a time; a caller waiting for a write made after it started gets the next one.
 *
 * A failed fsync is never retried (the kernel may have dropped the dirty pages: PostgreSQL's
 * fsyncgate): every waiter is rejected and the journal fails.
 */

/** Flushes the file; calls `done` once, with the error or null (at once when synchronous). */
export type Flush = (done: (error: unknown) => void) => void;

interface Waiter {
  readonly target: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export class JournalSync {
  readonly #flush: () => Flush;
  readonly #failed: (error: unknown) => unknown;
  #written = 0;
  #synced = 0;
  /** Bumped when the file is replaced or flushed another way: a flush still running is then forgotten. */
  #generation = 0;
  #running = false;
  readonly #waiters: Waiter[] = [];

  /**
   * @param flush the flush of the file as it is now (the file changes at compaction)
   * @param failed makes the journal failed; returns the error to reject waiters with
   */
  constructor(flush: () => Flush, failed: (error: unknown) => unknown) {
    this.#flush = flush;
    this.#failed = failed;
  }

  /** Records written and not yet known durable. */
  get pending(): boolean {
    return this.#written > this.#synced;
  }

  /** A record was written. */
  wrote(): void {
    this.#written += 1;
  }

  /** Everything written is durable (a synchronous fsync, a compaction's new file): waiters resolve. */
  synced(): void {
    this.#synced = this.#written;
    this.#generation += 1;
    this.#running = false;
    this.#settle();
  }

  /** Resolves once everything written before the call is durable. */
  sync(): Promise<void> {
    if (!this.pending) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.#waiters.push({ target: this.#written, resolve, reject });
      this.#start();
    });
  }

  /** Rejects every waiter (the journal failed or closed). */
  fail(error: unknown): void {
    for (const waiter of this.#waiters.splice(0)) waiter.reject(error);
  }

  #start(): void {
    if (this.#running || this.#waiters.length === 0) return;
    this.#running = true;
    const generation = this.#generation;
    const target = this.#written;
    this.#flush()((error) => {
      if (generation !== this.#generation) return;
      this.#running = false;
      if (error !== null && error !== undefined) {
        this.fail(this.#failed(error));
        return;
      }
      this.#synced = Math.max(this.#synced, target);
      this.#settle();
      this.#start();
    });
  }

  #settle(): void {
    let kept = 0;
    for (const waiter of this.#waiters) {
      if (waiter.target <= this.#synced) waiter.resolve();
      else this.#waiters[kept++] = waiter;
    }
    this.#waiters.length = kept;
  }
}
