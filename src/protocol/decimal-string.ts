/**
 * Decimal strings of inbound market and quote data. They stay strings on the wire and in the parsed
 * value: converting to a JS number would lose precision, and the units module converts them to
 * bigint units where the engine needs them.
 */
import { z } from 'zod';

/**
 * The same grammar as the human-amount parser of `core/units.ts` (digits, optional fraction), so
 * every accepted value converts with `toUnits`. No sign, exponent, spaces or bare dot.
 */
const PLAIN_DECIMAL = /^[0-9]+(?:\.[0-9]+)?$/;
/** As above with an optional minus: only for changes (ticker priceChange, priceChangePercent). */
const SIGNED_DECIMAL = /^-?[0-9]+(?:\.[0-9]+)?$/;

/** True when `text` is a plain non-negative decimal such as `0.01070000` or `42574`. */
export function isDecimalString(text: string): boolean {
  return PLAIN_DECIMAL.test(text);
}

/**
 * zod: a plain non-negative decimal string (prices, quantities, volumes), kept as a string.
 *
 * @example decimalString.parse('42574.30000000') // '42574.30000000'
 */
export const decimalString = z.string().regex(PLAIN_DECIMAL, 'expected a plain non-negative decimal string');

/** zod: a plain decimal string that may be negative (a 24-hour price change), kept as a string. */
export const signedDecimalString = z.string().regex(SIGNED_DECIMAL, 'expected a plain decimal string');
