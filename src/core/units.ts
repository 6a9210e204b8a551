import { BaseError } from './base-error.ts';
import { Decimal, type DecimalInput } from './decimal.ts';

/** Which way to round an amount that does not fall on the grid. `exact` refuses to round. */
export type Rounding = 'down' | 'up' | 'exact';
export type Side = 'buy' | 'sell';

export const UINT32_MAX = (1n << 32n) - 1n;
export const UINT40_MAX = (1n << 40n) - 1n;
export const UINT64_MAX = (1n << 64n) - 1n;
export const UINT96_MAX = (1n << 96n) - 1n;
export const UINT256_MAX = (1n << 256n) - 1n;
/** 0xFFFFFFFF is reserved by the venue, so the largest usable price is one less. */
export const MAX_PRICE_UNITS = UINT32_MAX - 1n;
export const MAX_SIZE_UNITS = UINT96_MAX;

const plainDecimal = /^(\d+)(?:\.(\d+))?$/;

/** A non-negative decimal as an exact fraction `digits / 10^scale`. */
interface Fraction {
  readonly digits: bigint;
  readonly scale: bigint;
}

function parseHuman(value: DecimalInput): Fraction {
  const text = typeof value === 'string' ? value.trim() : value.isFinite() ? value.toFixed() : String(value);
  const match = plainDecimal.exec(text);
  if (!match) {
    throw new BaseError('UNITS_INVALID_DECIMAL', `not a plain non-negative decimal: ${JSON.stringify(text)}`, {
      details: { value: text },
    });
  }
  const fraction = match[2] ?? '';
  return { digits: BigInt(match[1]! + fraction), scale: 10n ** BigInt(fraction.length) };
}

function divideRounded(numerator: bigint, denominator: bigint, rounding: Rounding, what: string): bigint {
  const quotient = numerator / denominator;
  const remainder = numerator % denominator;
  if (remainder === 0n) return quotient;
  if (rounding === 'exact') {
    throw new BaseError('UNITS_NOT_REPRESENTABLE', `${what} is not a whole number of units`, {
      details: { numerator: numerator.toString(), denominator: denominator.toString() },
    });
  }
  return rounding === 'up' ? quotient + 1n : quotient;
}

/** Checks that a precision (or tick size) is a positive integer. */
export function assertPositiveUnit(value: bigint, name: string): void {
  if (value <= 0n) {
    throw new BaseError('UNITS_PRECISION_INVALID', `${name} must be a positive integer`, {
      details: { [name]: value.toString() },
    });
  }
}

/** Checks `0 <= value <= max` (or `1 <=` when `nonZero`) and returns the value. */
export function assertInRange(value: bigint, max: bigint, name: string, nonZero = false): bigint {
  if (value < (nonZero ? 1n : 0n) || value > max) {
    throw new BaseError('UNITS_OUT_OF_RANGE', `${name} ${value} is outside ${nonZero ? 1 : 0}..${max}`, {
      details: { [name]: value.toString(), max: max.toString() },
    });
  }
  return value;
}

/**
 * Human decimal -> integer units at `precision` (e.g. 10^6), rounded as asked.
 *
 * @example toUnits('1.2345', 1000n, 'down') // 1234n
 */
export function toUnits(value: DecimalInput, precision: bigint, rounding: Rounding = 'exact'): bigint {
  assertPositiveUnit(precision, 'precision');
  const { digits, scale } = parseHuman(value);
  return divideRounded(digits * precision, scale, rounding, 'amount');
}

/** Decimals of each precision seen (-1: not a power of ten), checked once. */
const precisionDecimals = new Map<bigint, number>();

/**
 * Integer units -> human decimal string (exact, no exponent, no trailing zeros).
 *
 * @example fromUnits(1234n, 1000n) // '1.234'
 */
export function fromUnits(units: bigint, precision: bigint): string {
  let decimals = precisionDecimals.get(precision);
  if (decimals === undefined) {
    assertPositiveUnit(precision, 'precision');
    const text = precision.toString();
    decimals = /^10*$/.test(text) ? text.length - 1 : -1;
    if (precisionDecimals.size >= 64) precisionDecimals.clear();
    precisionDecimals.set(precision, decimals);
  }
  return decimals < 0 ? new Decimal(units.toString()).div(precision.toString()).toFixed() : placePoint(units, decimals);
}

/** `units / 10^decimals` as a plain decimal: the point placed in the digits, no division. */
function placePoint(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString();
  const sign = negative ? '-' : '';
  if (decimals === 0) return sign + digits;
  const point = digits.length - decimals;
  // The fraction without its trailing zeros.
  let end = digits.length;
  while (end > point && end > 0 && digits.charCodeAt(end - 1) === 48) end--;
  if (point > 0) return sign + (end > point ? `${digits.slice(0, point)}.${digits.slice(point, end)}` : digits.slice(0, point));
  return end > 0 ? `${sign}0.${'0'.repeat(-point)}${digits.slice(0, end)}` : `${sign}0`;
}

export interface PriceGrid {
  /** Price-precision units per 1 quote per base, e.g. 10^4. */
  readonly pricePrecision: bigint;
  /** The smallest price step, in price-precision units. */
  readonly tickSize: bigint;
}

/**
 * Human price -> price units on the tick grid: buys round down, sells round up, so rounding never
 * makes a quote more aggressive than asked. The result is a non-zero uint32 (not 0xFFFFFFFF).
 *
 * @example toPriceUnits('1.23456', { pricePrecision: 10000n, tickSize: 5n }, 'sell') // 12350n
 */
export function toPriceUnits(value: DecimalInput, grid: PriceGrid, side: Side): bigint {
  assertPositiveUnit(grid.pricePrecision, 'pricePrecision');
  assertPositiveUnit(grid.tickSize, 'tickSize');
  const { digits, scale } = parseHuman(value);
  const ticks = divideRounded(digits * grid.pricePrecision, scale * grid.tickSize, side === 'buy' ? 'down' : 'up', 'price');
  return assertInRange(ticks * grid.tickSize, MAX_PRICE_UNITS, 'price', true);
}

/** Price units -> the tick grid, buys down and sells up. */
export function roundPriceToTick(price: bigint, tickSize: bigint, side: Side): bigint {
  assertPositiveUnit(tickSize, 'tickSize');
  return divideRounded(price, tickSize, side === 'buy' ? 'down' : 'up', 'price') * tickSize;
}

/**
 * Human size -> size units (uint96, non-zero). Rounds down by default: never trade more than asked.
 *
 * @example toSizeUnits('0.015', 100n) // 1n
 */
export function toSizeUnits(value: DecimalInput, sizePrecision: bigint, rounding: Rounding = 'down'): bigint {
  return assertInRange(toUnits(value, sizePrecision, rounding), MAX_SIZE_UNITS, 'size', true);
}
