/**
 * An incremental depth update in Binance's form (the `<symbol>@depth` stream's `depthUpdate`):
 * the levels that changed between update ids `U` and `u`, each `[price, quantity]` with the new
 * absolute quantity; a quantity of 0 removes the level. Recorded captures and Binance-compatible
 * streams carry it; `OrderBook.applyDiff` applies it.
 */
import { z } from 'zod';
import { decimalString } from '../protocol/decimal-string.ts';

const level = z.tuple([decimalString, decimalString]);
const updateId = z.int().min(0);

/** Binance `depthUpdate` data (extra fields such as `e`, `E`, `s` are kept). */
export const depthDiffSchema = z.looseObject({
  /** First update id in the event. */
  U: updateId,
  /** Final update id in the event. */
  u: updateId,
  b: z.array(level),
  a: z.array(level),
});
/**
 * A depth update (Binance `depthUpdate` data): `b` and `a` are the changed bid and ask levels,
 * each `[price, quantity]`.
 *
 * @useDeclaredType
 */
export type DepthDiff = z.output<typeof depthDiffSchema>;

/** What `applyDiff` did with a diff. */
export type DiffResult =
  | { readonly status: 'applied' }
  /** Every update of the diff is already in the book (`u <= lastUpdateId`): ignored. */
  | { readonly status: 'stale' }
  /** Updates between the book and the diff are missing (`U > lastUpdateId + 1`): the book is unchanged and must be re-synced from a snapshot. */
  | { readonly status: 'gap'; readonly expected: number; readonly got: number };
