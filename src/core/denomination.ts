/**
 * The spec's denomination rules for order events, as conversions to human decimals.
 * Inputs are the wire's decimal strings or bigints; outputs are Decimals for display and reports.
 */
import { BaseError } from './base-error.ts';
import { Decimal } from './decimal.ts';
import { assertPositiveUnit } from './units.ts';

/** fillPrice and every `*InUsd` field carry 18 decimals (rules 4 and 5). */
export const FIXED18 = 10n ** 18n;

/** @inline */
type Integerish = bigint | string;

/**
 * Recent results per divisor. Order events repeat the same few sizes, prices and amounts, and a
 * Decimal is immutable, so one instance serves every equal conversion (parsing and dividing is most
 * of the cost). Each map is emptied when it reaches `CACHED_PER_DIVISOR` entries; the divisors (a
 * handful of precisions) are searched in a short list.
 */
const CACHED_PER_DIVISOR = 4096;
const CACHED_DIVISORS = 16;
const recent: { readonly divisor: bigint; readonly byValue: Map<string, Decimal> }[] = [];

function scaled(value: Integerish, divisor: bigint, name: string): Decimal {
  assertPositiveUnit(divisor, name);
  const text = value.toString();
  let byValue: Map<string, Decimal> | undefined;
  for (const entry of recent) {
    if (entry.divisor === divisor) {
      byValue = entry.byValue;
      break;
    }
  }
  if (byValue === undefined) {
    if (recent.length >= CACHED_DIVISORS) recent.length = 0;
    byValue = new Map();
    recent.push({ divisor, byValue });
  }
  let result = byValue.get(text);
  if (result === undefined) {
    result = new Decimal(text).div(divisor.toString());
    if (byValue.size >= CACHED_PER_DIVISOR) byValue.clear();
    byValue.set(text, result);
  }
  return result;
}

/** Rule 1: size, orderSize, filledSize, remainingSize, updatedSize are size-precision units. */
export function sizeToHuman(size: Integerish, sizePrecision: Integerish): Decimal {
  return scaled(size, BigInt(sizePrecision), 'sizePrecision');
}

/** Rule 3: price of order-created and order-canceled events is in price-precision units. */
export function priceToHuman(price: Integerish, pricePrecision: Integerish): Decimal {
  return scaled(price, BigInt(pricePrecision), 'pricePrecision');
}

/** Rules 4 and 5: fillPrice and `*InUsd` fields are 1e18 fixed point. */
export function fixed18ToHuman(value: Integerish): Decimal {
  return scaled(value, FIXED18, 'fixed18');
}

/**
 * Rules 2 and 6: baseDeposited, baseFilled and basePositionValue are raw base-token units,
 * always in base terms whatever the side; divide by 10^decimals of the base token.
 */
export function baseTokenToHuman(raw: Integerish, decimals: number): Decimal {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 77) {
    throw new BaseError('UNITS_PRECISION_INVALID', `token decimals must be an integer in 0..77, got ${decimals}`, {
      details: { decimals },
    });
  }
  return scaled(raw, 10n ** BigInt(decimals), 'decimals');
}
