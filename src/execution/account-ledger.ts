/**
 * The account's ledger on one market across runs: what its fills added up to (position, cost basis,
 * realized PnL, fees), kept in the journal as a checkpoint so a restarted bot starts from the
 * account's position, not from zero.
 *
 * A checkpoint counts every fill the bot has seen: those with a block time before its horizon
 * `throughMs`, and those after it whose keys it lists (`recent`). The horizon is the time before
 * which every order event has been seen (the engine's events cursor), so a fill reported late is
 * after it and, unlisted, not counted. A restarted engine reads the order events from a little
 * before the horizon: the fills the checkpoint counted change the orders they belong to but not the
 * ledger, and the others (made while the bot was down, or seen after the last checkpoint) are
 * counted once, as new.
 */
import type { CostPosition } from './average-cost.ts';
import { applyFill, FLAT_POSITION } from './average-cost.ts';

export interface LedgerCheckpoint {
  readonly position: CostPosition;
  /** Raw quote units paid in fees. */
  readonly fees: bigint;
  /** Fills counted. */
  readonly fills: number;
  /** Block time (ms) of the horizon: fills before it are counted. 0: none. */
  readonly throughMs: number;
  /** The counted fills at or after the horizon: key -> block time (ms). */
  readonly recent: ReadonlyMap<string, number>;
}

/** The ledger of an account that has not traded. */
export const EMPTY_LEDGER: LedgerCheckpoint = Object.freeze({ position: FLAT_POSITION, fees: 0n, fills: 0, throughMs: 0, recent: new Map<string, number>() });

/** A fill as the ledger counts it. */
export interface LedgerFill {
  readonly key: string;
  readonly timeMs: number;
  readonly side: 'BUY' | 'SELL';
  readonly size: bigint;
  readonly quote: bigint;
  readonly fee: bigint;
}

/** Whether the checkpoint counted the fill of block time `timeMs` and key `key`. */
export function countedBy(checkpoint: LedgerCheckpoint, timeMs: number, key: string): boolean {
  return timeMs < checkpoint.throughMs || checkpoint.recent.has(key);
}

/**
 * The checkpoint after `fills` (none counted by `from`) with the horizon moved to `horizonMs` (it
 * never moves back).
 *
 * @example const next = extendLedger(carried, portfolioFills, eventsCursorMs);
 */
export function extendLedger(from: LedgerCheckpoint, fills: Iterable<LedgerFill>, horizonMs: number): LedgerCheckpoint {
  let position = from.position;
  let fees = from.fees;
  let count = from.fills;
  const throughMs = Math.max(from.throughMs, horizonMs);
  const recent = new Map<string, number>();
  for (const [key, timeMs] of from.recent) if (timeMs >= throughMs) recent.set(key, timeMs);
  for (const fill of fills) {
    position = applyFill(position, fill.side, fill.size, fill.quote);
    fees += fill.fee;
    count += 1;
    if (fill.timeMs >= throughMs) recent.set(fill.key, fill.timeMs);
  }
  return { position, fees, fills: count, throughMs, recent };
}
