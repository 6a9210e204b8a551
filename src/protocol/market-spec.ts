/**
 * The parameters of one market of the venue, and the exact integer arithmetic that turns a fill
 * (price units x size units) into raw token amounts and fees.
 *
 * Rounding (ours): every conversion floors. The buyer pays `quoteRaw(price, size)` and the seller
 * receives the same amount less its fee, so no raw unit is created or lost; the sub-unit remainder
 * of a fill is simply never charged (it stays with the buyer, or with the payer of a fee).
 */
import { BaseError } from '../core/base-error.ts';
import { MAX_SIZE_UNITS } from '../core/units.ts';
import { isHexBytes, type Address } from './encoding.ts';

/** Fees are parts per ten million (pps): 10_000 pps = 0.1 % (venue). */
export const FEE_DENOMINATOR = 10_000_000n;

export interface TokenSpec {
  /** Lowercase 20-byte address. */
  readonly address: Address;
  readonly symbol: string;
  /** Decimals of the raw token amount, 0..36. */
  readonly decimals: number;
}

export interface MarketSpec {
  /** `BASE_QUOTE`, e.g. `MON_USDC`. */
  readonly symbol: string;
  /** Lowercase 20-byte market address. */
  readonly address: Address;
  readonly baseToken: TokenSpec;
  readonly quoteToken: TokenSpec;
  /** Price units per 1 quote per 1 base (a power of ten). */
  readonly pricePrecision: bigint;
  /** Size units per 1 base (a power of ten). */
  readonly sizePrecision: bigint;
  /** Prices must be multiples of this, in price units. */
  readonly tickSize: bigint;
  /** Smallest order size, in size units (at least 1). */
  readonly minSize: bigint;
  /** Largest order size, in size units (at most uint96 max). */
  readonly maxSize: bigint;
  /** Fee of the resting side of a fill, in pps of its quote amount (0..1e7). */
  readonly makerFeePps: bigint;
  /** Fee of the incoming side of a fill, in pps of its quote amount (0..1e7). */
  readonly takerFeePps: bigint;
}

function isPowerOfTen(value: bigint): boolean {
  if (value < 1n) return false;
  let rest = value;
  while (rest % 10n === 0n) rest /= 10n;
  return rest === 1n;
}

/** One rule a market spec breaks, at the field that breaks it. */
export interface MarketSpecIssue {
  /** The field at fault, e.g. `['baseToken', 'decimals']`. */
  readonly field: readonly string[];
  /** What is wrong, read after the field's name: `must be positive`. */
  readonly message: string;
}

function tokenIssues(token: TokenSpec, name: 'baseToken' | 'quoteToken'): MarketSpecIssue[] {
  const issues: MarketSpecIssue[] = [];
  if (!isHexBytes(token.address, 20)) issues.push({ field: [name, 'address'], message: 'must be a lowercase 20-byte address' });
  if (!/^[A-Za-z0-9]+$/.test(token.symbol)) issues.push({ field: [name, 'symbol'], message: 'must be letters and digits' });
  if (!Number.isInteger(token.decimals) || token.decimals < 0 || token.decimals > 36) {
    issues.push({ field: [name, 'decimals'], message: 'must be an integer in 0..36' });
  }
  return issues;
}

/**
 * Every rule a market spec breaks, each at its field (empty when valid). Config files locate them
 * in the file (`markets[0].tickSize: must be positive`).
 *
 * @example marketSpecIssues({ ...spec, tickSize: 0n }) // [{ field: ['tickSize'], message: 'must be positive' }]
 */
export function marketSpecIssues(spec: MarketSpec): MarketSpecIssue[] {
  const issues = [...tokenIssues(spec.baseToken, 'baseToken'), ...tokenIssues(spec.quoteToken, 'quoteToken')];
  const at = (field: string, message: string) => issues.push({ field: [field], message });
  if (spec.symbol !== `${spec.baseToken.symbol}_${spec.quoteToken.symbol}`) at('symbol', 'must be BASE_QUOTE of the token symbols');
  if (!isHexBytes(spec.address, 20)) at('address', 'must be a lowercase 20-byte address');
  if (spec.baseToken.address === spec.quoteToken.address) issues.push({ field: ['quoteToken', 'address'], message: 'must differ from baseToken.address' });
  if (!isPowerOfTen(spec.pricePrecision)) at('pricePrecision', 'must be a power of ten');
  if (!isPowerOfTen(spec.sizePrecision)) at('sizePrecision', 'must be a power of ten');
  if (spec.tickSize < 1n) at('tickSize', 'must be positive');
  if (spec.minSize < 1n) at('minSize', 'must be positive');
  if (spec.maxSize < spec.minSize || spec.maxSize > MAX_SIZE_UNITS) at('maxSize', 'must be in minSize..uint96 max');
  if (spec.makerFeePps < 0n || spec.makerFeePps > FEE_DENOMINATOR) at('makerFeePps', `must be in 0..${FEE_DENOMINATOR}`);
  if (spec.takerFeePps < 0n || spec.takerFeePps > FEE_DENOMINATOR) at('takerFeePps', `must be in 0..${FEE_DENOMINATOR}`);
  return issues;
}

/**
 * Every rule a market spec breaks, as short sentences (empty when valid).
 *
 * @example marketSpecProblems({ ...spec, tickSize: 0n }) // ['tickSize must be positive']
 */
export function marketSpecProblems(spec: MarketSpec): string[] {
  return marketSpecIssues(spec).map((issue) => `${issue.field.join('.')} ${issue.message}`);
}

/**
 * Validates and freezes a market spec. Markets come from configuration, so a bad one is a
 * configuration error and throws `CONFIG_INVALID` with every problem in `details.problems`.
 *
 * @example createMarketSpec({ symbol: 'MON_USDC', address, baseToken, quoteToken, pricePrecision: 10_000n, ... })
 */
export function createMarketSpec(spec: MarketSpec): MarketSpec {
  const problems = marketSpecProblems(spec);
  if (problems.length > 0) {
    throw new BaseError('CONFIG_INVALID', `market ${spec.symbol}: ${problems.join('; ')}`, {
      details: { market: spec.symbol, problems },
    });
  }
  return Object.freeze({
    ...spec,
    baseToken: Object.freeze({ ...spec.baseToken }),
    quoteToken: Object.freeze({ ...spec.quoteToken }),
  });
}

/**
 * The integer factors of a market's conversions, reduced once so the matching path does one
 * multiplication and one division per amount:
 * - `quoteRaw = floor(price * size * 10^quoteDecimals / (pricePrecision * sizePrecision))`
 * - `baseRaw  = floor(size * 10^baseDecimals / sizePrecision)`
 */
export interface AmountScale {
  readonly quoteMul: bigint;
  readonly quoteDiv: bigint;
  readonly baseMul: bigint;
  readonly baseDiv: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function reduced(mul: bigint, div: bigint): readonly [bigint, bigint] {
  const g = gcd(mul, div);
  return [mul / g, div / g];
}

/** The reduced conversion factors of `spec`. */
export function amountScale(spec: Pick<MarketSpec, 'baseToken' | 'quoteToken' | 'pricePrecision' | 'sizePrecision'>): AmountScale {
  const [quoteMul, quoteDiv] = reduced(10n ** BigInt(spec.quoteToken.decimals), spec.pricePrecision * spec.sizePrecision);
  const [baseMul, baseDiv] = reduced(10n ** BigInt(spec.baseToken.decimals), spec.sizePrecision);
  return { quoteMul, quoteDiv, baseMul, baseDiv };
}

/**
 * Raw quote-token amount of `size` at `price`, floored.
 *
 * @example quoteRaw(amountScale(monUsdc), 12_345n, 1_000n) // price 1.2345 USDC x 1 MON = 1234500n (USDC, 6 decimals)
 */
export function quoteRaw(scale: AmountScale, price: bigint, size: bigint): bigint {
  return scale.quoteDiv === 1n ? price * size * scale.quoteMul : (price * size * scale.quoteMul) / scale.quoteDiv;
}

/** Raw base-token amount of `size`, floored. */
export function baseRaw(scale: AmountScale, size: bigint): bigint {
  return scale.baseDiv === 1n ? size * scale.baseMul : (size * scale.baseMul) / scale.baseDiv;
}

/**
 * What a resting order locks, raw units: a buy its quote amount and its maker fee, a sell its base
 * amount (the venue's rule, src/venue/matching-engine.ts).
 *
 * @example restingLockRaw(monUsdc, amountScale(monUsdc), 'BUY', 350_000n, 2_000n) // quote raw + maker fee
 */
export function restingLockRaw(spec: Pick<MarketSpec, 'makerFeePps'>, scale: AmountScale, side: 'BUY' | 'SELL', price: bigint, remaining: bigint): bigint {
  if (side === 'SELL') return baseRaw(scale, remaining);
  const quote = quoteRaw(scale, price, remaining);
  return quote + feeRaw(quote, spec.makerFeePps);
}

/**
 * Fee on a raw quote amount at `pps` (1e7 denominator), floored: the payer keeps the sub-unit.
 *
 * @example feeRaw(1_000_000n, 2_500n) // 250n
 */
export function feeRaw(quote: bigint, pps: bigint): bigint {
  return pps === 0n ? 0n : (quote * pps) / FEE_DENOMINATOR;
}
