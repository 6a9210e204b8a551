/**
 * Signed human amounts for strategy params (an inventory target may be short), and their units.
 * Like `decimalAmount`, a YAML fraction is refused (binary floating point cannot hold money): quote it.
 */
import { z } from 'zod';
import { toUnits, type Rounding } from '../core/units.ts';

const SIGNED_DECIMAL = /^-?[0-9]+(?:\.[0-9]+)?$/;

/**
 * zod: a decimal amount that may be negative (`"-1500.5"`, `"0"`, or a YAML integer), kept as a
 * plain decimal string.
 *
 * @example signedDecimalAmount().parse('-250') // '-250'
 */
export function signedDecimalAmount() {
  return z.unknown().transform((value, ctx): string => {
    let text: string | undefined;
    if (typeof value === 'string' && SIGNED_DECIMAL.test(value.trim())) text = value.trim();
    else if ((typeof value === 'number' && Number.isSafeInteger(value)) || typeof value === 'bigint') text = value.toString();
    if (text === undefined) {
      const hint = typeof value === 'number' && !Number.isInteger(value) ? ' (quote fractional amounts, e.g. "-0.5")' : '';
      const got = value === undefined ? 'required: ' : '';
      ctx.addIssue({ code: 'custom', message: `${got}expected a decimal amount such as "-1500.25"${hint}` });
      return z.NEVER;
    }
    return text.replace(/^-(?=[0.]+$)/, '');
  });
}

/**
 * A signed human amount -> signed integer units, the magnitude rounded as asked (default: exact).
 *
 * @example toSignedUnits('-1.5', 100n) // -150n
 */
export function toSignedUnits(value: string, precision: bigint, rounding: Rounding = 'exact'): bigint {
  const text = value.trim();
  return text.startsWith('-') ? -toUnits(text.slice(1), precision, rounding) : toUnits(text, precision, rounding);
}
