/**
 * `dedupeTrades`: overlapping polls of recent trades -> each trade once, in id order, with gaps.
 */
import { defer, map, type OperatorFunction } from 'rxjs';

/** Trades between two polls that neither poll returned: ids `expected` .. `got - 1` are missing. */
export interface TradeGap {
  /** The id that should have come next: the last seen id + 1. */
  readonly expected: number;
  /** The oldest id of the poll. */
  readonly got: number;
}

export interface TradeBatch<T> {
  /** Trades not seen before, ascending id. */
  readonly trades: readonly T[];
  /** Set when this poll did not reach back to the last seen trade. */
  readonly gap?: TradeGap;
  /** Highest id seen so far (undefined before any trade). */
  readonly lastId: number | undefined;
}

export interface DedupeTradesParameters {
  /** Id of the last trade already emitted: older ones are dropped and a gap after it is reported. */
  readonly afterId?: number;
  /**
   * Asked when a poll's newest trade is older than the last seen: true when the source may have
   * restarted since (it failed in between), so the poll's ids start a new sequence.
   */
  readonly restarted?: () => boolean;
  /** Told of each poll taken as a new sequence, and the id it replaced. */
  readonly onRestart?: (newestId: number, lastId: number) => void;
}

/** Sorted ascending by id with duplicates removed (a copy, only when needed). */
function ascendingUnique<T extends { readonly id: number }>(trades: readonly T[]): readonly T[] {
  for (let i = 1; i < trades.length; i++) {
    if (trades[i]!.id <= trades[i - 1]!.id) {
      const sorted = [...trades].sort((a, b) => a.id - b.id);
      return sorted.filter((trade, j) => j === 0 || trade.id !== sorted[j - 1]!.id);
    }
  }
  return trades;
}

/** First index whose id is above `id` (binary search over ascending ids). */
function firstAfter<T extends { readonly id: number }>(trades: readonly T[], id: number): number {
  let lo = 0;
  let hi = trades.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (trades[mid]!.id <= id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Turns each poll (an array of recent trades, any order, overlapping earlier polls) into the
 * trades not seen before, ascending id, and reports a gap when the poll's oldest trade is beyond
 * the last seen id + 1 (the poll came too late, or `limit` is too small for the trade rate).
 * Keeps only the last seen id, so memory does not grow. A venue that restarted with its state wiped
 * (its ids begin again) is followed once `restarted` says so.
 *
 * @example polls$.pipe(dedupeTrades(), concatMap((batch) => batch.trades))
 */
export function dedupeTrades<T extends { readonly id: number }>(params: DedupeTradesParameters = {}): OperatorFunction<readonly T[], TradeBatch<T>> {
  return (source) =>
    defer(() => {
      let lastId = params.afterId;
      return source.pipe(
        map((poll): TradeBatch<T> => {
          const trades = ascendingUnique(poll);
          const oldest = trades[0];
          if (oldest === undefined) return { trades: [], lastId };
          const newestPolled = trades[trades.length - 1]!.id;
          if (lastId !== undefined && newestPolled < lastId && params.restarted?.() === true) {
            params.onRestart?.(newestPolled, lastId);
            lastId = undefined;
          }
          const gap = lastId !== undefined && oldest.id > lastId + 1 ? { expected: lastId + 1, got: oldest.id } : undefined;
          const fresh = lastId === undefined ? trades : trades.slice(firstAfter(trades, lastId));
          const newest = fresh[fresh.length - 1];
          if (newest !== undefined) lastId = newest.id;
          return gap ? { trades: fresh, gap, lastId } : { trades: fresh, lastId };
        }),
      );
    });
}
