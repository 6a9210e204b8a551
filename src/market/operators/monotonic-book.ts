/**
 * `monotonicBook`: a book stream that never goes back.
 */
import { defer, filter, type MonoTypeOperatorFunction } from 'rxjs';

export interface MonotonicBookParameters<B> {
  /** `lastUpdateId` of the last book already emitted (books up to it are dropped). */
  readonly afterUpdateId?: number;
  /** Told of each dropped book and the id it lost to. */
  readonly onDrop?: (book: B, lastUpdateId: number) => void;
  /**
   * Asked when a book is older than the last: true when the source may have restarted since (it
   * failed in between), so the older id starts a new sequence instead of being dropped.
   */
  readonly restarted?: () => boolean;
  /** Told of each book taken as a new sequence, and the id it replaced. */
  readonly onRestart?: (book: B, lastUpdateId: number) => void;
}

/**
 * Lets a book through only if its `lastUpdateId` is greater than the last one let through. An
 * equal id is dropped too: it is the same block (or update), so the same state, already emitted.
 * A poll answered by a lagging server replica can thus never move `book$` back in time; a venue
 * that restarted with its state wiped (its ids begin again) is let through once `restarted` says so.
 *
 * @example depthBooks$.pipe(monotonicBook({ onDrop: (book, last) => log.debug({ id: book.lastUpdateId, last }, 'old book') }))
 */
export function monotonicBook<B extends { readonly lastUpdateId: number }>(params: MonotonicBookParameters<B> = {}): MonoTypeOperatorFunction<B> {
  return (source) =>
    defer(() => {
      let last = params.afterUpdateId;
      return source.pipe(
        filter((book) => {
          if (last !== undefined && book.lastUpdateId <= last) {
            if (book.lastUpdateId === last || params.restarted?.() !== true) {
              params.onDrop?.(book, last);
              return false;
            }
            params.onRestart?.(book, last);
          }
          last = book.lastUpdateId;
          return true;
        }),
      );
    });
}
