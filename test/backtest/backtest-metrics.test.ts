import { describe, expect, it } from 'vitest';
import { isBaseError } from '../../src/core/base-error.ts';
import {
  backtestMetrics,
  inventoryStats,
  maxDrawdown,
  MS_PER_YEAR,
  quoteUptime,
  returnRatios,
  type EquitySample,
} from '../../src/backtest/backtest-metrics.ts';

const MINUTE = 60_000;
/** Equity values one minute apart from t = 0. */
const curve = (...values: bigint[]): EquitySample[] => values.map((equity, i) => ({ atMs: i * MINUTE, equity }));

describe('maxDrawdown', () => {
  it('finds the largest fall from a running peak, and the largest relative fall', () => {
    // falls from the running peak: 100 -> 80 = 20, 120 -> 90 = 30, 200 -> 150 = 50
    const equity = curve(100n, 80n, 120n, 90n, 200n, 150n, 210n);
    // relative falls: 20/100 = 0.2, 30/120 = 0.25, 50/200 = 0.25 -> 0.25; absolute: 50 from 200 (t4) to 150 (t5)
    expect(maxDrawdown(equity)).toEqual({ maxDrawdown: 50n, peakAtMs: 4 * MINUTE, troughAtMs: 5 * MINUTE, maxDrawdownFraction: '0.250000' });
  });

  it('reports the relative fall of another drawdown than the absolute one when that is larger', () => {
    // 10 -> 5 is 0.5 of its peak; 1000 -> 900 is 100 but only 0.1
    expect(maxDrawdown(curve(10n, 5n, 1000n, 900n))).toMatchObject({ maxDrawdown: 100n, maxDrawdownFraction: '0.500000' });
  });

  it('rounds the fraction half-even to 6 decimals', () => {
    // 1/3 and 2/3; exact ties 1/2_000_000 = 0.0000005 and 3/2_000_000 = 0.0000015 go to the even digit
    expect(maxDrawdown(curve(3n, 2n)).maxDrawdownFraction).toBe('0.333333');
    expect(maxDrawdown(curve(3n, 1n)).maxDrawdownFraction).toBe('0.666667');
    expect(maxDrawdown(curve(2_000_000n, 1_999_999n)).maxDrawdownFraction).toBe('0.000000'); // 0.0000005 -> even 0
    expect(maxDrawdown(curve(2_000_000n, 1_999_997n)).maxDrawdownFraction).toBe('0.000002'); // 0.0000015 -> even 2
  });

  it('handles curves without a fall, empty curves and curves never above zero', () => {
    expect(maxDrawdown(curve(1n, 2n, 3n))).toEqual({ maxDrawdown: 0n, peakAtMs: null, troughAtMs: null, maxDrawdownFraction: '0.000000' });
    expect(maxDrawdown([])).toEqual({ maxDrawdown: 0n, peakAtMs: null, troughAtMs: null, maxDrawdownFraction: null });
    expect(maxDrawdown(curve(0n, -5n))).toEqual({ maxDrawdown: 5n, peakAtMs: 0, troughAtMs: MINUTE, maxDrawdownFraction: null });
  });

  it('keeps money exact beyond 2^53', () => {
    const big = 10n ** 30n;
    expect(maxDrawdown(curve(big, big - 1n)).maxDrawdown).toBe(1n);
  });
});

describe('returnRatios', () => {
  const yearly = Math.sqrt(MS_PER_YEAR / MINUTE); // √525600 one-minute intervals a year

  it('computes Sharpe and Sortino as spelled out', () => {
    // equity 1000, 1010, 1000, 1030: d = 10, -10, 30; capital 1000: r = 0.01, -0.01, 0.03
    // mean r = 0.01; sample variance = ((0)² + (-0.02)² + (0.02)²) / (3 - 1) = 0.0004, s = 0.02
    // Sharpe = 0.01 / 0.02 × √525600 = 0.5 × 724.98276 = 362.4914
    // downside deviation = √((0 + 0.01² + 0) / 3) = 0.0057735; Sortino = 0.01 / 0.0057735 × √525600 = √3 × 724.98276 = 1255.7070
    const ratios = returnRatios(curve(1000n, 1010n, 1000n, 1030n), { intervalMs: MINUTE, capital: 1000n });
    expect(ratios.intervals).toBe(3);
    expect(ratios.meanReturn).toBeCloseTo(0.01, 15);
    expect(ratios.sharpe).toBe(Math.round(0.5 * yearly * 10_000) / 10_000);
    expect(ratios.sharpe).toBe(362.4914);
    expect(ratios.sortino).toBe(Math.round(Math.sqrt(3) * yearly * 10_000) / 10_000);
    expect(ratios.sortino).toBe(1255.7070);
  });

  it('does not depend on the capital, but the mean return does', () => {
    const ratios = returnRatios(curve(1000n, 1010n, 1000n, 1030n), { intervalMs: MINUTE, capital: 10n ** 9n });
    expect(ratios).toMatchObject({ sharpe: 362.4914, sortino: 1255.7070 });
    expect(ratios.meanReturn).toBeCloseTo(1e-8, 20);
  });

  it('samples the curve at each interval end (the last sample at or before it) and drops a partial interval', () => {
    // hourly intervals from t = 0: cuts at 60 min (value 1010, sampled at 50 min) and 120 min (1000, at 100 min);
    // the 150-min sample is in a partial interval. d = 10, -10: mean 0 -> Sharpe 0, Sortino 0.
    const equity: EquitySample[] = [
      { atMs: 0, equity: 1000n },
      { atMs: 50 * MINUTE, equity: 1010n },
      { atMs: 100 * MINUTE, equity: 1000n },
      { atMs: 150 * MINUTE, equity: 5000n },
    ];
    expect(returnRatios(equity, { intervalMs: 60 * MINUTE, capital: 1000n })).toEqual({ intervals: 2, meanReturn: 0, sharpe: 0, sortino: 0 });
  });

  it('is null with fewer than 2 intervals, without variation, or (Sortino) without a losing interval', () => {
    const options = { intervalMs: MINUTE, capital: 1000n };
    expect(returnRatios([], options)).toEqual({ intervals: 0, meanReturn: null, sharpe: null, sortino: null });
    expect(returnRatios(curve(1000n, 1010n), options)).toEqual({ intervals: 1, meanReturn: 0.01, sharpe: null, sortino: null });
    expect(returnRatios(curve(1000n, 1010n, 1020n, 1030n), options)).toMatchObject({ intervals: 3, sharpe: null, sortino: null });
    // d = 10, 20: mean 15, s = √50; Sharpe = 15 / √50 × √525600; no loss: Sortino null
    expect(returnRatios(curve(1000n, 1010n, 1030n), options)).toMatchObject({ sharpe: Math.round((15 / Math.sqrt(50)) * yearly * 10_000) / 10_000, sortino: null });
  });

  it('throws CONFIG_INVALID for a bad interval or capital', () => {
    for (const options of [{ intervalMs: 0, capital: 1n }, { intervalMs: 1.5, capital: 1n }, { intervalMs: MINUTE, capital: 0n }]) {
      let caught: unknown;
      try {
        returnRatios(curve(1n, 2n), options);
      } catch (error) {
        caught = error;
      }
      expect(isBaseError(caught, 'CONFIG_INVALID')).toBe(true);
    }
  });
});

describe('inventoryStats', () => {
  it('gives min, max, the mean of samples and the time-weighted mean', () => {
    // held: 0 for 10 ms, 4 for 30 ms, -2 for 10 ms (until the end at 50): (0 + 120 - 20) / 50 = 2
    const samples = [
      { atMs: 0, position: 0n },
      { atMs: 10, position: 4n },
      { atMs: 40, position: -2n },
    ];
    expect(inventoryStats(samples, 50)).toEqual({ min: -2n, max: 4n, mean: '0.666667', timeWeightedMean: '2.000000' });
  });

  it('counts the last of samples at the same time, and nothing after the end', () => {
    // 5 at t=0 is replaced at once by 1; 1 for 20 ms; 7 at 20 ms for 10 ms; 9 at 40 ms is after the end (30)
    const samples = [
      { atMs: 0, position: 5n },
      { atMs: 0, position: 1n },
      { atMs: 20, position: 7n },
      { atMs: 40, position: 9n },
    ];
    // (1 × 20 + 7 × 10) / 30 = 3
    expect(inventoryStats(samples, 30)).toEqual({ min: 1n, max: 9n, mean: '5.500000', timeWeightedMean: '3.000000' });
  });

  it('keeps negative means exact', () => {
    // (-1 × 2 + -2 × 1) / 3 = -1.333…
    expect(inventoryStats([{ atMs: 0, position: -1n }, { atMs: 2, position: -2n }], 3).timeWeightedMean).toBe('-1.333333');
  });

  it('is null without samples or without elapsed time', () => {
    expect(inventoryStats([], 10)).toEqual({ min: null, max: null, mean: null, timeWeightedMean: null });
    expect(inventoryStats([{ atMs: 10, position: 3n }], 10)).toEqual({ min: 3n, max: 3n, mean: '3.000000', timeWeightedMean: null });
  });
});

describe('quoteUptime', () => {
  it('is the fraction of the run with both a bid and an ask resting', () => {
    const samples = [
      { atMs: 0, hasBid: true, hasAsk: true }, // 30 ms
      { atMs: 30, hasBid: true, hasAsk: false }, // 10 ms
      { atMs: 40, hasBid: false, hasAsk: true }, // 20 ms
      { atMs: 60, hasBid: true, hasAsk: true }, // 40 ms until the end
    ];
    expect(quoteUptime(samples, 100)).toBe(0.7);
  });

  it('counts from the first sample and stops at the end', () => {
    expect(quoteUptime([{ atMs: 50, hasBid: true, hasAsk: true }, { atMs: 150, hasBid: false, hasAsk: false }], 100)).toBe(1);
    expect(quoteUptime([], 100)).toBeNull();
    expect(quoteUptime([{ atMs: 100, hasBid: true, hasAsk: true }], 100)).toBeNull();
  });
});

describe('backtestMetrics', () => {
  it('puts the figures together', () => {
    const metrics = backtestMetrics({
      equity: curve(1000n, 1010n, 1000n, 1030n),
      inventory: [{ atMs: 0, position: 2n }],
      quotes: [{ atMs: 0, hasBid: true, hasAsk: true }],
      intervalMs: MINUTE,
      capital: 1000n,
      endMs: 3 * MINUTE,
    });
    expect(metrics).toEqual({
      drawdown: { maxDrawdown: 10n, peakAtMs: MINUTE, troughAtMs: 2 * MINUTE, maxDrawdownFraction: '0.009901' }, // 10 / 1010
      returns: { intervals: 3, meanReturn: expect.closeTo(0.01, 15), sharpe: 362.4914, sortino: 1255.7070 },
      inventory: { min: 2n, max: 2n, mean: '2.000000', timeWeightedMean: '2.000000' },
      quoteUptime: 1,
    });
  });
});
