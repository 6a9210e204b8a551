/**
 * The figures of a backtest's summary.json a sweep ranks by and lists (docs/sweeps.md, "Metrics"),
 * each with the direction that is better. Money figures are decimal strings, compared exactly with
 * decimal.js; ratios are numbers; a figure a run could not have (Sharpe of too few intervals) is null
 * and ranks last.
 */
import { BaseError } from '../core/base-error.ts';
import { Decimal } from '../core/decimal.ts';

export interface SweepMetric {
  readonly name: string;
  /** Where in summary.json. */
  readonly path: readonly string[];
  readonly better: 'higher' | 'lower';
  readonly description: string;
}

/** Every metric, in the order of the results' columns. The first is the default. */
export const SWEEP_METRICS: readonly SweepMetric[] = [
  { name: 'netPnl', path: ['pnl', 'net'], better: 'higher', description: 'PnL net of fees, quote token (realized + unrealized at the recorded mid − fees)' },
  { name: 'realizedPnl', path: ['pnl', 'realized'], better: 'higher', description: 'realized PnL, quote token' },
  { name: 'sharpe', path: ['returns', 'sharpe'], better: 'higher', description: 'Sharpe ratio of 60 s returns, annualised' },
  { name: 'sortino', path: ['returns', 'sortino'], better: 'higher', description: 'Sortino ratio of 60 s returns, annualised' },
  { name: 'maxDrawdown', path: ['drawdown', 'max'], better: 'lower', description: 'largest loss from a peak of equity, quote token' },
  { name: 'maxDrawdownFraction', path: ['drawdown', 'maxFraction'], better: 'lower', description: 'the same as a fraction of the peak' },
  { name: 'volume', path: ['volume', 'quote'], better: 'higher', description: 'filled volume, quote token' },
  { name: 'fills', path: ['fills'], better: 'higher', description: 'number of fills' },
  { name: 'fillRatio', path: ['orders', 'fillRatio'], better: 'higher', description: 'orders with a fill / orders placed' },
  { name: 'makerShare', path: ['makerShare'], better: 'higher', description: 'fills as maker / fills' },
  { name: 'quoteUptime', path: ['quoteUptime'], better: 'higher', description: 'share of the time with both sides resting' },
  { name: 'fees', path: ['pnl', 'fees'], better: 'lower', description: 'fees paid, quote token' },
];

export const DEFAULT_SWEEP_METRIC = SWEEP_METRICS[0]!.name;

/** A metric's value as read from a summary: a decimal string or a number, or null. */
export type MetricValue = string | number | null;

/** The metric of a name; CLI_USAGE listing the names for any other. */
export function sweepMetric(name: string): SweepMetric {
  const metric = SWEEP_METRICS.find((candidate) => candidate.name === name);
  if (metric === undefined) {
    throw new BaseError('CLI_USAGE', `sweep: --metric ${JSON.stringify(name.slice(0, 40))} is not a metric (one of ${SWEEP_METRICS.map((m) => m.name).join(', ')})`, {
      details: { command: 'sweep', metric: name },
    });
  }
  return metric;
}

/** Every metric of a summary, by name. */
export function metricValues(summary: unknown): Record<string, MetricValue> {
  const values: Record<string, MetricValue> = {};
  for (const metric of SWEEP_METRICS) {
    let value: unknown = summary;
    for (const key of metric.path) value = (value as Record<string, unknown> | null | undefined)?.[key];
    values[metric.name] = typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) ? value : null;
  }
  return values;
}

/**
 * Orders two values of a metric, better first (negative when `a` is better); null last.
 *
 * @example compareMetric(sweepMetric('netPnl'), '1.5', '-2') // -1
 */
export function compareMetric(metric: SweepMetric, a: MetricValue, b: MetricValue): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  const order = new Decimal(String(a)).comparedTo(new Decimal(String(b)));
  return metric.better === 'higher' ? -order : order;
}
