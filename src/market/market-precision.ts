/**
 * The two precisions of a market that the market streams need: prices are integers in
 * price-precision units, sizes in size-precision units. Both are powers of ten (`MarketSpec` of the
 * venue satisfies this interface).
 */
import { BaseError } from '../core/base-error.ts';

export interface MarketPrecision {
  /** Price units per 1 quote per 1 base, a power of ten (e.g. 100n: a price of 1.23 is 123n). */
  readonly pricePrecision: bigint;
  /** Size units per 1 base, a power of ten (e.g. 10n ** 8n). */
  readonly sizePrecision: bigint;
}

/** Most decimals a precision may have: 10^36 units per whole is already beyond any token. */
export const MAX_PRECISION_DECIMALS = 36;

/**
 * The number of decimals of a power-of-ten precision: 1000n -> 3. Anything else is refused with
 * `UNITS_PRECISION_INVALID`: the fast parsers read decimals digit by digit.
 *
 * @example precisionDecimals(10n ** 8n, 'sizePrecision') // 8
 */
export function precisionDecimals(precision: bigint, name: string): number {
  let rest = precision;
  let decimals = 0;
  while (rest >= 10n && rest % 10n === 0n) {
    rest /= 10n;
    decimals++;
  }
  if (rest !== 1n || decimals > MAX_PRECISION_DECIMALS) {
    throw new BaseError('UNITS_PRECISION_INVALID', `${name} must be a power of ten up to 10^${MAX_PRECISION_DECIMALS}`, {
      details: { [name]: precision.toString() },
    });
  }
  return decimals;
}

/** Both precisions as decimal counts, checked. */
export function marketDecimals(market: MarketPrecision): { readonly price: number; readonly size: number } {
  return {
    price: precisionDecimals(market.pricePrecision, 'pricePrecision'),
    size: precisionDecimals(market.sizePrecision, 'sizePrecision'),
  };
}
