/**
 * Prices and sizes of text sources (`"61837.63000000"`) as integer multiples of a step (the tick
 * size or the lot size), exactly: no floating point, and a value that is not a multiple is refused
 * rather than rounded.
 */
import { BaseError } from '../core/base-error.ts';

const DECIMAL = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

/** A positive decimal step (`0.01`) as mantissa and decimals (1n, 2). */
export interface DecimalStep {
  readonly text: string;
  readonly mantissa: bigint;
  readonly decimals: number;
}

/** Parses a positive step such as `0.01`; UNITS_PRECISION_INVALID otherwise. */
export function parseStep(text: string): DecimalStep {
  const match = DECIMAL.exec(text);
  const fraction = match?.[2]?.replace(/0+$/, '') ?? '';
  const mantissa = match ? BigInt(`${match[1]}${fraction}`) : 0n;
  if (mantissa <= 0n) throw new BaseError('UNITS_PRECISION_INVALID', `step ${JSON.stringify(text.slice(0, 40))} is not a positive decimal number`, { details: { step: text.slice(0, 40) } });
  return { text: formatScaled(mantissa, fraction.length), mantissa, decimals: fraction.length };
}

/** `mantissa / 10^decimals` as a plain decimal string. */
export function formatScaled(mantissa: bigint, decimals: number): string {
  const negative = mantissa < 0n;
  const digits = (negative ? -mantissa : mantissa).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/**
 * Counts of `step` in decimal texts.
 *
 * @example
 * const ticks = decimalScale(parseStep('0.01'));
 * ticks.units('61837.63000000') // 6183763n
 * ticks.units('61837.635')      // undefined: not a multiple of 0.01
 */
export function decimalScale(step: DecimalStep): { units(text: string): bigint | undefined } {
  const { mantissa, decimals } = step;
  const pad = '0'.repeat(decimals);
  return {
    units(text) {
      const dot = text.indexOf('.');
      let whole = text;
      let fraction = '';
      if (dot >= 0) {
        whole = text.slice(0, dot);
        fraction = text.slice(dot + 1);
        if (fraction.length > decimals) {
          // Digits past the step's decimals must all be zero.
          for (let i = decimals; i < fraction.length; i += 1) if (fraction.charCodeAt(i) !== 48) return undefined;
          fraction = fraction.slice(0, decimals);
        }
      }
      if (!DECIMAL.test(dot >= 0 ? `${whole}.${fraction || '0'}` : whole)) return undefined;
      const scaled = BigInt(whole + (fraction + pad).slice(0, decimals));
      if (scaled % mantissa !== 0n) return undefined;
      return scaled / mantissa;
    },
  };
}

/**
 * The largest step every one of the values is a multiple of (their decimal GCD), for sources that
 * do not state their tick or lot size; undefined when every value is zero.
 *
 * @example inferStep(['61837.63000000', '61837.60000000']) // { text: '0.01', … }
 */
export function inferStep(values: Iterable<string>): DecimalStep | undefined {
  let decimals = 0;
  const scaled: { whole: string; fraction: string }[] = [];
  for (const value of values) {
    const match = DECIMAL.exec(value);
    if (!match) continue;
    const fraction = (match[2] ?? '').replace(/0+$/, '');
    decimals = Math.max(decimals, fraction.length);
    scaled.push({ whole: match[1]!, fraction });
  }
  let gcd = 0n;
  for (const { whole, fraction } of scaled) {
    let value = BigInt(whole + fraction.padEnd(decimals, '0'));
    let a = gcd;
    while (value !== 0n) [a, value] = [value, a % value];
    gcd = a;
    if (gcd === 1n) break;
  }
  if (gcd === 0n) return undefined;
  let mantissa = gcd;
  let places = decimals;
  while (places > 0 && mantissa % 10n === 0n) {
    mantissa /= 10n;
    places -= 1;
  }
  return { text: formatScaled(mantissa, places), mantissa, decimals: places };
}
