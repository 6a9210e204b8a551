/**
 * zod schemas of the field types that config files share. Money and units are never JS numbers:
 * human amounts stay decimal strings, integer units become bigint. Messages say what was expected and
 * never repeat the value (it may be a secret).
 */
import { z } from 'zod';
import { isDecimalString } from '../protocol/decimal-string.ts';
import { type Address } from '../protocol/encoding.ts';
import { describeKind } from './config-error-map.ts';

/** `expected X, got a string`, or `required: expected X` when the key is missing. Never the value. */
function expectation(what: string, value: unknown): string {
  return value === undefined ? `required: expected ${what}` : `expected ${what}, got ${describeKind(value)}`;
}

export interface IntegerUnitsOptions {
  /** Smallest allowed value (default 0). */
  readonly min?: bigint;
  /** Largest allowed value. */
  readonly max?: bigint;
}

/**
 * zod: an integer amount in units (sizes, prices, fees in pps, balances in raw units), written as a
 * YAML integer or a decimal-integer string, parsed to bigint.
 *
 * @example integerUnits({ min: 1n }).parse('1000000000000000000000') // 1000000000000000000000n
 */
export function integerUnits(options: IntegerUnitsOptions = {}) {
  const min = options.min ?? 0n;
  const max = options.max;
  const range = max === undefined ? `>= ${min}` : `in ${min}..${max}`;
  return z.unknown().transform((value, ctx): bigint => {
    let parsed: bigint | undefined;
    if (typeof value === 'bigint') parsed = value;
    else if (typeof value === 'number' && Number.isSafeInteger(value)) parsed = BigInt(value);
    else if (typeof value === 'string' && /^-?[0-9]+$/.test(value.trim()) && value.trim().length <= 80) parsed = BigInt(value.trim());
    if (parsed === undefined) {
      ctx.addIssue({ code: 'custom', message: expectation('an integer (a YAML integer or a string of digits)', value) });
      return z.NEVER;
    }
    if (parsed < min || (max !== undefined && parsed > max)) {
      ctx.addIssue({ code: 'custom', message: `expected an integer ${range}` });
      return z.NEVER;
    }
    return parsed;
  });
}

/**
 * zod: a non-negative human amount (a position, a notional, a price), kept as a plain decimal string.
 * A YAML integer is accepted; a YAML fractional number is refused (binary floating point cannot hold
 * money exactly): quote it.
 *
 * @example decimalAmount().parse('1500.25') // '1500.25'
 */
export function decimalAmount(options: { readonly positive?: boolean } = {}) {
  return z.unknown().transform((value, ctx): string => {
    let text: string | undefined;
    if (typeof value === 'string' && isDecimalString(value.trim())) text = value.trim();
    else if ((typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) || (typeof value === 'bigint' && value >= 0n)) {
      text = value.toString();
    }
    if (text === undefined) {
      const hint = typeof value === 'number' && !Number.isInteger(value) ? ' (quote fractional amounts, e.g. "0.5")' : '';
      ctx.addIssue({ code: 'custom', message: `${expectation('a non-negative decimal amount such as "1500.25"', value)}${hint}` });
      return z.NEVER;
    }
    if (options.positive && /^[0.]+$/.test(text)) {
      ctx.addIssue({ code: 'custom', message: 'expected an amount above zero' });
      return z.NEVER;
    }
    return text;
  });
}

/** zod: a whole number in `min..max` (counts, ports, basis points). Not for money. */
export function intInRange(min: number, max: number) {
  return z.number().int().min(min).max(max);
}

/**
 * A market symbol as written by a user (`mon_usdc`, `Mon_Usdc`) in its canonical form (`MON_USDC`):
 * symbols are matched case-insensitively on input and printed in capitals.
 */
export function canonicalMarketSymbol(text: string): string {
  return text.trim().toUpperCase();
}

/** zod: a market symbol `BASE_QUOTE` in any case, read in capitals: `mon_usdc` is `MON_USDC`. */
export const marketSymbol = z
  .string()
  .transform(canonicalMarketSymbol)
  .pipe(z.string().regex(/^[A-Z0-9]{1,16}_[A-Z0-9]{1,16}$/, 'expected a market symbol BASE_QUOTE, e.g. MON_USDC'));

/** zod: a token symbol, e.g. `USDC`. */
export const tokenSymbol = z.string().regex(/^[A-Z0-9]{1,16}$/, 'expected a token symbol in capitals and digits, e.g. USDC');

/** zod: a 20-byte address in any case, normalised to lowercase. */
export const configAddress = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'expected an address: 0x and 40 hex characters')
  .transform((text) => text.toLowerCase() as Address);

export const ENV_NAME_MESSAGE = 'expected the name of an environment variable (letters, digits, _), not its value';

/** zod: the name of an environment variable. */
export const envVarName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, ENV_NAME_MESSAGE);

const DURATION_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * What to say of a bare number written where a duration belongs: it is refused, whatever it is, because
 * a unit would have to be guessed (a run file's `duration: 90` read as seconds once, a latency's `20`
 * as milliseconds): `expected a duration with a unit, 90s or 90ms: a bare number is ambiguous`.
 */
export function bareNumberDuration(value: number): string {
  const n = Number.isFinite(value) ? String(value) : 'n';
  return `expected a duration with a unit, ${n}s or ${n}ms: a bare number is ambiguous`;
}

/**
 * zod: a duration with its unit (`500ms`, `90s`, `5m`, `1h`, `1d`), parsed to milliseconds. A bare
 * number is refused (`bareNumberDuration`): every duration of a run file, of a strategy's params and
 * of a fault script is written with its unit (docs/configuration.md, "Durations").
 *
 * @example durationMs.parse('5m') // 300000
 */
export const durationMs = z.unknown().transform((value, ctx): number => {
  if (typeof value === 'number') {
    ctx.addIssue({ code: 'custom', message: bareNumberDuration(value) });
    return z.NEVER;
  }
  let ms: number | undefined;
  if (typeof value === 'string') {
    const match = /^([0-9]+(?:\.[0-9]+)?)\s*(ms|s|m|h|d)$/.exec(value.trim());
    if (match) ms = Number(match[1]) * DURATION_UNITS_MS[match[2] as keyof typeof DURATION_UNITS_MS];
  }
  if (ms === undefined || !(ms > 0) || !Number.isFinite(ms)) {
    ctx.addIssue({ code: 'custom', message: expectation('a positive duration with a unit: ms, s, m, h or d (e.g. 500ms, 90s, 5m, 2h, 1d)', value) });
    return z.NEVER;
  }
  return Math.round(ms);
});

/**
 * zod: a duration with its unit, or the word `word` (`idleTimeout: off`). One schema rather than a union,
 * so a bare number gets the duration's own message, not "does not match any of the allowed forms".
 */
export function durationMsOr<const W extends string>(word: W) {
  return z.unknown().transform((value, ctx): number | W => {
    if (value === word) return word;
    const parsed = durationMs.safeParse(value);
    if (parsed.success) return parsed.data;
    const message = parsed.error.issues[0]?.message ?? 'expected a duration';
    ctx.addIssue({ code: 'custom', message: typeof value === 'number' ? message : `${message.replace(/, got .*$/, '')}, or ${word}${value === undefined ? '' : `, got ${describeKind(value)}`}` });
    return z.NEVER;
  });
}
