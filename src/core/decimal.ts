// The named export: under NodeNext a consumer's tsc reads decimal.js's typings as CommonJS, where the default import is the module, not the class.
import { Decimal as DecimalJs } from 'decimal.js';

/**
 * decimal.js configured for money at the human edge: enough significant digits for a uint256
 * with 18 decimals, and plain (never exponential) string output.
 */
export const Decimal = DecimalJs.clone({ precision: 100, rounding: DecimalJs.ROUND_HALF_EVEN, toExpNeg: -100, toExpPos: 100 });
export type Decimal = DecimalJs;

/** Human input of an amount: a plain decimal string or a Decimal. Never a JS number. */
export type DecimalInput = string | DecimalJs;
