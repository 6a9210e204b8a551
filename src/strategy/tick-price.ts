/**
 * Prices for quotes: from a reference in price units (a Decimal such as a mid or a microprice) to
 * a price on the market's tick, buys rounded down and sells rounded up, so rounding never makes a
 * quote more aggressive than asked.
 */
import { Decimal } from '../core/decimal.ts';
import { MAX_PRICE_UNITS } from '../core/units.ts';
import type { OrderSide } from '../protocol/constants.ts';

const TEN_THOUSAND = new Decimal(10_000);

/**
 * A price in price units (any Decimal) -> the tick grid: BUY down, SELL up. Undefined when the
 * result is not a valid price (below one tick, or above the uint32 maximum).
 *
 * @example priceOnTick(new Decimal('350012.5'), 10n, 'BUY') // 350010n
 */
export function priceOnTick(value: Decimal, tickSize: bigint, side: OrderSide): bigint | undefined {
  if (!value.isFinite()) return undefined;
  const ticks = value.div(tickSize.toString());
  const whole = side === 'BUY' ? ticks.floor() : ticks.ceil();
  const price = BigInt(whole.toFixed(0)) * tickSize;
  return price < 1n || price > MAX_PRICE_UNITS ? undefined : price;
}

/**
 * `reference × (1 − bps / 10 000)` for a BUY, `reference × (1 + bps / 10 000)` for a SELL, on the tick
 * (BUY down, SELL up). `bps` may be negative (inside the reference) or fractional.
 *
 * @example priceAtOffset(new Decimal(350_000), 20, 'SELL', 10n) // 350700n
 */
export function priceAtOffset(reference: Decimal, bps: number | string | Decimal, side: OrderSide, tickSize: bigint): bigint | undefined {
  const offset = new Decimal(bps).div(TEN_THOUSAND);
  const factor = side === 'BUY' ? new Decimal(1).minus(offset) : new Decimal(1).plus(offset);
  return priceOnTick(reference.times(factor), tickSize, side);
}
