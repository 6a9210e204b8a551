/**
 * The figures of a backtest summary, computed from the series the backtester records: drawdown and
 * return ratios of the equity curve, inventory statistics and quote uptime. Pure and deterministic:
 * money stays bigint throughout, and only ratios (Sharpe, Sortino, uptime) become JS numbers, at the
 * very end. Every series is sorted by `atMs` (integer milliseconds of the run's clock); of samples at
 * the same time the last one counts.
 */
import { BaseError } from '../core/base-error.ts';

/** The portfolio value at a time: quote-token raw units, marked to mid, net of fees. */
export interface EquitySample {
  readonly atMs: number;
  readonly equity: bigint;
}

/** The position at a time, in base size units (negative: short). */
export interface InventorySample {
  readonly atMs: number;
  readonly position: bigint;
}

/** Whether the bot had a bid and an ask resting, from this time until the next sample. */
export interface QuoteSample {
  readonly atMs: number;
  readonly hasBid: boolean;
  readonly hasAsk: boolean;
}

/** A 365-day year: crypto markets trade around the clock. */
export const MS_PER_YEAR = 365 * 24 * 60 * 60 * 1000;

/** Decimals of the exact ratios returned as strings (drawdown fraction, inventory means). */
export const RATIO_DECIMALS = 6;

export interface Drawdown {
  /** The largest fall of equity from a running peak (raw units, >= 0). */
  readonly maxDrawdown: bigint;
  /** Times of the peak and the trough of that fall; null when equity never fell. */
  readonly peakAtMs: number | null;
  readonly troughAtMs: number | null;
  /**
   * The largest fall relative to its running peak, (peak - equity) / peak, as a decimal string of
   * `RATIO_DECIMALS` decimals (half-even); it may come from another fall than `maxDrawdown`. Null when
   * equity never had a positive peak.
   */
  readonly maxDrawdownFraction: string | null;
}

/**
 * Maximum drawdown of an equity curve, absolute and as a fraction of the peak.
 *
 * @example
 * maxDrawdown([{ atMs: 0, equity: 100n }, { atMs: 1, equity: 120n }, { atMs: 2, equity: 90n }, { atMs: 3, equity: 130n }]);
 * // { maxDrawdown: 30n, peakAtMs: 1, troughAtMs: 2, maxDrawdownFraction: '0.250000' }
 */
export function maxDrawdown(equity: readonly EquitySample[]): Drawdown {
  let peak: EquitySample | undefined;
  let worst = 0n;
  let peakAtMs: number | null = null;
  let troughAtMs: number | null = null;
  // The worst fraction as the exact pair (fall, peak); compared by cross-multiplying.
  let fraction: { fall: bigint; peak: bigint } | undefined;
  for (const sample of equity) {
    if (peak === undefined || sample.equity > peak.equity) peak = sample;
    const fall = peak.equity - sample.equity;
    if (fall > worst) {
      worst = fall;
      peakAtMs = peak.atMs;
      troughAtMs = sample.atMs;
    }
    if (peak.equity > 0n && (fraction === undefined || fall * fraction.peak > fraction.fall * peak.equity)) {
      fraction = { fall, peak: peak.equity };
    }
  }
  return {
    maxDrawdown: worst,
    peakAtMs,
    troughAtMs,
    maxDrawdownFraction: fraction === undefined ? null : ratioToDecimal(fraction.fall, fraction.peak, RATIO_DECIMALS),
  };
}

export interface ReturnRatiosOptions {
  /** Length of a return interval (ms), a positive integer, e.g. 60_000. */
  readonly intervalMs: number;
  /** Starting capital (quote raw units, > 0): the denominator of every interval return. */
  readonly capital: bigint;
}

export interface ReturnRatios {
  /** Whole intervals in the curve: floor((last atMs - first atMs) / intervalMs). */
  readonly intervals: number;
  /** Mean interval return (not annualised, not rounded); null without an interval. */
  readonly meanReturn: number | null;
  /** Annualised Sharpe ratio (risk-free rate 0), 4 decimals; null with < 2 intervals or no variation. */
  readonly sharpe: number | null;
  /** Annualised Sortino ratio (target 0), 4 decimals; null with < 2 intervals or no losing interval. */
  readonly sortino: number | null;
}

/**
 * Sharpe and Sortino ratios of interval returns. The curve is cut at first atMs + k × intervalMs
 * (k = 0..K, a trailing partial interval is dropped); the equity at a cut is the last sample at or
 * before it. With d_k the equity change over interval k and C the capital, r_k = d_k / C, and
 * with P = MS_PER_YEAR / intervalMs intervals a year:
 * - Sharpe = mean(r) / s(r) × √P, s the sample standard deviation (divides by K − 1);
 * - Sortino = mean(r) / √(Σ min(r_k, 0)² / K) × √P (downside deviation below 0 over all K
 *   intervals, as empyrical computes it).
 * Both are scale-free, so the value of C does not change them (it does `meanReturn`). They are
 * computed from exact bigint sums, converted to numbers only at the end, and rounded half up to 4
 * decimals. Throws CONFIG_INVALID for an intervalMs that is not a positive integer or a capital <= 0.
 *
 * @example
 * // equity 1000, 1010, 1000, 1030 a minute apart: d = 10, -10, 30; mean 10, s = 20
 * returnRatios(curve, { intervalMs: 60_000, capital: 1000n }).sharpe; // 0.5 × √525600 = 362.4914
 */
export function returnRatios(equity: readonly EquitySample[], options: ReturnRatiosOptions): ReturnRatios {
  const { intervalMs, capital } = options;
  if (!Number.isSafeInteger(intervalMs) || intervalMs <= 0) {
    throw new BaseError('CONFIG_INVALID', `intervalMs must be a positive integer, got ${intervalMs}`, { details: { intervalMs } });
  }
  if (capital <= 0n) throw new BaseError('CONFIG_INVALID', `capital must be positive, got ${capital}`, { details: { capital: capital.toString() } });
  const changes = intervalChanges(equity, intervalMs);
  const count = BigInt(changes.length);
  let sum = 0n;
  let squares = 0n;
  let downside = 0n;
  for (const change of changes) {
    sum += change;
    squares += change * change;
    if (change < 0n) downside += change * change;
  }
  const meanReturn = changes.length === 0 ? null : Number(sum) / changes.length / Number(capital);
  if (changes.length < 2) return { intervals: changes.length, meanReturn, sharpe: null, sortino: null };
  const annualise = Math.sqrt(MS_PER_YEAR / intervalMs);
  // K × Σd² − (Σd)² = K(K − 1) × sample variance of d: exact, and 0 exactly when every d is equal.
  const spread = count * squares - sum * sum;
  const sharpe = spread === 0n ? null : round4(((Number(sum) * Math.sqrt((changes.length - 1) / changes.length)) / Math.sqrt(Number(spread))) * annualise);
  const sortino = downside === 0n ? null : round4((Number(sum) / Math.sqrt(Number(count * downside))) * annualise);
  return { intervals: changes.length, meanReturn, sharpe, sortino };
}

/** Equity changes over each whole interval from the first sample (see `returnRatios`). */
function intervalChanges(equity: readonly EquitySample[], intervalMs: number): bigint[] {
  const first = equity[0];
  const last = equity.at(-1);
  if (first === undefined || last === undefined) return [];
  const intervals = Math.floor((last.atMs - first.atMs) / intervalMs);
  const changes: bigint[] = [];
  let index = 0;
  let previous = first.equity;
  for (let k = 1; k <= intervals; k++) {
    const cut = first.atMs + k * intervalMs;
    while (index + 1 < equity.length && equity[index + 1]!.atMs <= cut) index++;
    const value = equity[index]!.equity;
    changes.push(value - previous);
    previous = value;
  }
  return changes;
}

export interface InventoryStats {
  /** Smallest and largest position sampled; null without samples. */
  readonly min: bigint | null;
  readonly max: bigint | null;
  /** Mean of the samples, each counted once (`RATIO_DECIMALS` decimals); null without samples. */
  readonly mean: string | null;
  /**
   * Mean over time: each sample held until the next one, the last until `endMs`, over
   * [first atMs, endMs] (`RATIO_DECIMALS` decimals); null when that span is empty.
   */
  readonly timeWeightedMean: string | null;
}

/**
 * Inventory statistics of a run ending at `endMs`, exact (means as decimal strings of base size units).
 *
 * @example
 * inventoryStats([{ atMs: 0, position: 0n }, { atMs: 10, position: 4n }, { atMs: 40, position: -2n }], 50);
 * // { min: -2n, max: 4n, mean: '0.666667', timeWeightedMean: '2.000000' } (0×10 + 4×30 − 2×10) / 50
 */
export function inventoryStats(samples: readonly InventorySample[], endMs: number): InventoryStats {
  const first = samples[0];
  if (first === undefined) return { min: null, max: null, mean: null, timeWeightedMean: null };
  let min = first.position;
  let max = first.position;
  let sum = 0n;
  let weighted = 0n;
  samples.forEach((sample, i) => {
    if (sample.position < min) min = sample.position;
    if (sample.position > max) max = sample.position;
    sum += sample.position;
    weighted += sample.position * BigInt(heldMs(samples, i, endMs));
  });
  const span = Math.round(endMs - first.atMs);
  return {
    min,
    max,
    mean: ratioToDecimal(sum, BigInt(samples.length), RATIO_DECIMALS),
    timeWeightedMean: span > 0 ? ratioToDecimal(weighted, BigInt(span), RATIO_DECIMALS) : null,
  };
}

/**
 * The fraction of [first atMs, endMs] during which the bot had both a bid and an ask resting, each
 * sample holding until the next (record one at the start of the run: time before the first sample
 * does not count). Null when the span is empty.
 *
 * @example
 * quoteUptime([{ atMs: 0, hasBid: true, hasAsk: true }, { atMs: 30, hasBid: true, hasAsk: false }, { atMs: 40, hasBid: true, hasAsk: true }], 100);
 * // 0.9: both sides for 30 + 60 of 100 ms
 */
export function quoteUptime(samples: readonly QuoteSample[], endMs: number): number | null {
  const first = samples[0];
  if (first === undefined) return null;
  const span = Math.round(endMs - first.atMs);
  if (span <= 0) return null;
  let quoted = 0;
  samples.forEach((sample, i) => {
    if (sample.hasBid && sample.hasAsk) quoted += heldMs(samples, i, endMs);
  });
  return quoted / span;
}

/** How long sample i holds: until the next sample or endMs, whichever is first; never negative. */
function heldMs(samples: readonly { readonly atMs: number }[], i: number, endMs: number): number {
  const until = Math.min(samples[i + 1]?.atMs ?? endMs, endMs);
  return Math.max(Math.round(until - samples[i]!.atMs), 0);
}

export interface BacktestMetricsInput {
  readonly equity: readonly EquitySample[];
  readonly inventory: readonly InventorySample[];
  readonly quotes: readonly QuoteSample[];
  /** Return interval of the Sharpe and Sortino ratios (ms). */
  readonly intervalMs: number;
  /** Starting capital (quote raw units, > 0). */
  readonly capital: bigint;
  /** The end of the run (ms of the run's clock). */
  readonly endMs: number;
}

export interface BacktestMetrics {
  readonly drawdown: Drawdown;
  readonly returns: ReturnRatios;
  readonly inventory: InventoryStats;
  /** See `quoteUptime`. */
  readonly quoteUptime: number | null;
}

/**
 * Every figure of a backtest summary (see `maxDrawdown`, `returnRatios`, `inventoryStats`, `quoteUptime`).
 * Throws CONFIG_INVALID for a bad intervalMs or capital.
 *
 * @example
 * const metrics = backtestMetrics({ equity, inventory, quotes, intervalMs: 60_000, capital: 1_000_000_000n, endMs });
 * metrics.returns.sharpe; // e.g. 1.2345
 */
export function backtestMetrics(input: BacktestMetricsInput): BacktestMetrics {
  return {
    drawdown: maxDrawdown(input.equity),
    returns: returnRatios(input.equity, { intervalMs: input.intervalMs, capital: input.capital }),
    inventory: inventoryStats(input.inventory, input.endMs),
    quoteUptime: quoteUptime(input.quotes, input.endMs),
  };
}

/** Rounds half up to 4 decimals, without a negative zero. */
function round4(value: number): number {
  return Math.round(value * 10_000) / 10_000 + 0;
}

/** numerator / denominator (> 0) as a decimal string of exactly `decimals` decimals, rounded half-even. */
function ratioToDecimal(numerator: bigint, denominator: bigint, decimals: number): string {
  const scale = 10n ** BigInt(decimals);
  const magnitude = numerator < 0n ? -numerator : numerator;
  let quotient = (magnitude * scale) / denominator;
  const twice = ((magnitude * scale) % denominator) * 2n;
  if (twice > denominator || (twice === denominator && quotient % 2n === 1n)) quotient += 1n;
  const sign = numerator < 0n && quotient > 0n ? '-' : '';
  const whole = quotient / scale;
  const fraction = (quotient % scale).toString().padStart(decimals, '0');
  return decimals === 0 ? `${sign}${whole}` : `${sign}${whole}.${fraction}`;
}
