/**
 * Prices for quotes: from a reference in price units (a Decimal such as a mid or a microprice) to
 * a price on the market's tick, buys rounded down and sells rounded up, so rounding never makes a
 * quote more aggressive than asked.
 *
 * The results are those of the Decimal arithmetic (100 significant digits) written out in
 * `decimalOnTick` and `decimalAtOffset`; the usual case is computed exactly in bigint instead, which
 * gives the same price whenever every intermediate value has fewer than 100 digits (see `exactOnTick`).
 * Other inputs take the Decimal path.
 */
import { Decimal } from '../core/decimal.ts';
import { MAX_PRICE_UNITS } from '../core/units.ts';
import type { OrderSide } from '../protocol/constants.ts';

const TEN_THOUSAND = new Decimal(10_000);

/** A coefficient below 10^99 has at most 99 digits: Decimal holds it, and any product or sum of them it rounds, exactly. */
const EXACT_LIMIT = 10n ** 99n;

const POWERS_OF_TEN: bigint[] = [1n];
function pow10(exponent: number): bigint {
  for (let i = POWERS_OF_TEN.length; i <= exponent; i++) POWERS_OF_TEN.push(POWERS_OF_TEN[i - 1]! * 10n);
  return POWERS_OF_TEN[exponent]!;
}

/**
 * A finite Decimal as `coefficient / 10^scale` (scale >= 0), read from its digits (base 10^7 words,
 * the first without leading zeros) and exponent (of the first digit), which decimal.js documents.
 */
export function decimalParts(value: Decimal): { readonly coefficient: bigint; readonly scale: number } {
  const words = value.d;
  const first = words[0]!;
  let coefficient = BigInt(first);
  for (let i = 1; i < words.length; i++) coefficient = coefficient * 10_000_000n + BigInt(words[i]!);
  let digits = 7 * (words.length - 1) + 1;
  for (let rest = first; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  // The last digit stands at 10^(e - digits + 1).
  const scale = digits - 1 - value.e;
  if (value.s < 0) coefficient = -coefficient;
  return scale >= 0 ? { coefficient, scale } : { coefficient: coefficient * pow10(-scale), scale: 0 };
}

/** The original definition: Decimal throughout. */
function decimalOnTick(value: Decimal, tickSize: bigint, side: OrderSide): bigint | undefined {
  const ticks = value.div(tickSize.toString());
  const whole = side === 'BUY' ? ticks.floor() : ticks.ceil();
  const price = BigInt(whole.toFixed(0)) * tickSize;
  return price < 1n || price > MAX_PRICE_UNITS ? undefined : price;
}

function decimalAtOffset(reference: Decimal, bps: number | string | Decimal, side: OrderSide, tickSize: bigint): bigint | undefined {
  const offset = new Decimal(bps).div(TEN_THOUSAND);
  const factor = side === 'BUY' ? new Decimal(1).minus(offset) : new Decimal(1).plus(offset);
  return priceOnTick(reference.times(factor), tickSize, side);
}

/**
 * `coefficient / 10^scale` on the tick, for `0 < coefficient < 10^99` and `tickSize > 0`. The same as
 * `decimalOnTick`: with q = coefficient / (10^scale × tick), Decimal's q is off by less than
 * q × 10^-99 < 1 / (10^scale × tick), the least distance from a q that is not whole to a whole
 * number, so its floor and ceiling are those of q; and a whole q (< 10^99) is exact in Decimal.
 */
function exactOnTick(coefficient: bigint, scale: number, tickSize: bigint, side: OrderSide): bigint | undefined {
  const divisor = pow10(scale) * tickSize;
  let whole = coefficient / divisor;
  if (side === 'SELL' && whole * divisor !== coefficient) whole += 1n;
  const price = whole * tickSize;
  return price < 1n || price > MAX_PRICE_UNITS ? undefined : price;
}

/**
 * A price in price units (any Decimal) -> the tick grid: BUY down, SELL up. Undefined when the
 * result is not a valid price (below one tick, or above the uint32 maximum).
 *
 * @example priceOnTick(new Decimal('350012.5'), 10n, 'BUY') // 350010n
 */
export function priceOnTick(value: Decimal, tickSize: bigint, side: OrderSide): bigint | undefined {
  if (!value.isFinite()) return undefined;
  if (tickSize <= 0n) return decimalOnTick(value, tickSize, side);
  const { coefficient, scale } = decimalParts(value);
  // Not above zero: no valid price either way (rounding keeps the sign).
  if (coefficient <= 0n) return undefined;
  return coefficient < EXACT_LIMIT ? exactOnTick(coefficient, scale, tickSize, side) : decimalOnTick(value, tickSize, side);
}

/**
 * `reference × (1 − bps / 10 000)` for a BUY, `reference × (1 + bps / 10 000)` for a SELL, on the tick
 * (BUY down, SELL up). `bps` may be negative (inside the reference) or fractional.
 *
 * @example priceAtOffset(new Decimal(350_000), 20, 'SELL', 10n) // 350700n
 */
export function priceAtOffset(reference: Decimal, bps: number | string | Decimal, side: OrderSide, tickSize: bigint): bigint | undefined {
  if (!reference.isFinite() || tickSize <= 0n) return decimalAtOffset(reference, bps, side, tickSize);
  let bpsCoefficient: bigint;
  let bpsScale: number;
  if (typeof bps === 'number' && Number.isSafeInteger(bps)) {
    bpsCoefficient = BigInt(bps);
    bpsScale = 0;
  } else {
    const parsed = new Decimal(bps);
    if (!parsed.isFinite()) return decimalAtOffset(reference, bps, side, tickSize);
    ({ coefficient: bpsCoefficient, scale: bpsScale } = decimalParts(parsed));
  }
  // factor = (10^s ∓ bps) / 10^s with s = bpsScale + 4; each value below 10^99 is what Decimal computes.
  const one = pow10(bpsScale + 4);
  const factor = side === 'BUY' ? one - bpsCoefficient : one + bpsCoefficient;
  const { coefficient, scale } = decimalParts(reference);
  const product = coefficient * factor;
  const exact = bpsCoefficient < EXACT_LIMIT && bpsCoefficient > -EXACT_LIMIT && factor < EXACT_LIMIT && factor > -EXACT_LIMIT && product < EXACT_LIMIT;
  if (!exact) return decimalAtOffset(reference, bps, side, tickSize);
  return product <= 0n ? undefined : exactOnTick(product, scale + bpsScale + 4, tickSize, side);
}
