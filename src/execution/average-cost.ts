/**
 * Average-cost accounting of one market's position, in integers: the position in size units
 * (signed: long > 0, short < 0), its cost basis and the realized PnL in raw quote-token units.
 *
 * Method (average cost):
 * - A fill on the side of the position (or from flat) opens: the position grows and its quote
 *   amount is added to the basis (a buy adds what was paid; a sell, opening a short, subtracts what
 *   was received, so a short's basis is negative and `basis / size` is always the average price).
 * - A fill against the position closes `closed = min(fill size, |position|)` first: the basis
 *   released is `basis * closed / |position|` (truncated toward zero), and
 *   `realized += proceeds of the closed part - released basis` (for a short: released basis - cost).
 *   Any rest of the fill opens a position on the other side at the fill's price.
 * - The quote amount of a fill that both closes and opens is split by size, floored; the parts sum
 *   to the fill's quote amount exactly.
 * - Unrealized PnL at a mark price = mark value of the position - basis, with the mark value
 *   `sign(size) * quoteRaw(mark, |size|)`.
 *
 * Every quote amount is accounted once, so for any sequence of fills
 * `realized + unrealized = sum(sell quotes) - sum(buy quotes) + mark value` exactly: the
 * mark-to-market change of the account. Fees are kept apart (gross PnL); the portfolio reports
 * them next to it.
 */
import { quoteRaw, type AmountScale } from '../protocol/market-spec.ts';
import type { OrderSide } from '../protocol/constants.ts';

export interface CostPosition {
  /** Size units, signed: long > 0, short < 0. */
  readonly size: bigint;
  /** Raw quote units, the sign of `size`: what the open position cost (long) or brought in (short, negative). */
  readonly basis: bigint;
  /** Raw quote units realized by closing fills, gross of fees. */
  readonly realized: bigint;
}

export const FLAT_POSITION: CostPosition = Object.freeze({ size: 0n, basis: 0n, realized: 0n });

const abs = (value: bigint): bigint => (value < 0n ? -value : value);

/**
 * The position after one fill of `size` units on `side` whose quote amount is `quote` raw units.
 *
 * @example
 * let p = applyFill(FLAT_POSITION, 'BUY', 10n, 10_000_000n); // 10 @ 1.00 (USDC, 6 decimals)
 * p = applyFill(p, 'BUY', 10n, 12_000_000n);                 // 10 @ 1.20: avg 1.10
 * p = applyFill(p, 'SELL', 15n, 19_500_000n);                // 15 @ 1.30: realized 3_000_000n
 */
export function applyFill(position: CostPosition, side: OrderSide, size: bigint, quote: bigint): CostPosition {
  if (size <= 0n) return position;
  const buy = side === 'BUY';
  const held = position.size;
  if (held === 0n || held > 0n === buy) {
    return { size: held + (buy ? size : -size), basis: position.basis + (buy ? quote : -quote), realized: position.realized };
  }
  const open = abs(held);
  const closed = size < open ? size : open;
  const released = (position.basis * closed) / open;
  const closeQuote = closed === size ? quote : (quote * closed) / size;
  const realized = position.realized + (buy ? -released - closeQuote : closeQuote - released);
  let basis = position.basis - released;
  const rest = quote - closeQuote;
  if (closed < size) basis += buy ? rest : -rest;
  return { size: held + (buy ? size : -size), basis, realized };
}

/**
 * Mark value of a signed position at `mark` (price units): what it would fetch (long) or cost to
 * close (short, negative), floored in magnitude like every venue conversion.
 */
export function markValue(scale: AmountScale, size: bigint, mark: bigint): bigint {
  return size >= 0n ? quoteRaw(scale, mark, size) : -quoteRaw(scale, mark, -size);
}

/**
 * Unrealized PnL of `position` at `mark` (price units), raw quote units.
 *
 * @example unrealizedPnl(scale, { size: 5n, basis: 5_500_000n, realized: 0n }, 125n) // 750_000n at 1.25
 */
export function unrealizedPnl(scale: AmountScale, position: CostPosition, mark: bigint): bigint {
  return markValue(scale, position.size, mark) - position.basis;
}
