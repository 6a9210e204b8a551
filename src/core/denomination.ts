/**
 * The spec's denomination rules for order events, as conversions to human decimals.
 * Inputs are the wire's decimal strings or bigints; outputs are Decimals for display and reports.
 */
import { BaseError } from './base-error.ts';
import { Decimal } from './decimal.ts';
import { assertPositiveUnit } from './units.ts';

/** fillPrice and every `*InUsd` field carry 18 decimals (rules 4 and 5). */
export const FIXED18 = 10n ** 18n;

type Integerish = bigint | string;

function scaled(value: Integerish, divisor: bigint, name: string): Decimal {
  assertPositiveUnit(divisor, name);
  return new Decimal(value.toString()).div(divisor.toString());
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
