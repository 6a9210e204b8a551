/**
 * A sweep's results: one row per run, ranked by the chosen metric (better first, ties in the plan's
 * order, failed runs last in the plan's order), written as `results.csv` and `results.json`. Nothing
 * in them depends on the wall clock, the machine or the number of workers: the same sweep gives the
 * same bytes, however and however often it ran.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BacktestJobOutcome } from './backtest-job.ts';
import type { SweepPlan } from './plan-sweep.ts';
import { compareMetric, metricValues, SWEEP_METRICS, type MetricValue, type SweepMetric } from './sweep-metrics.ts';

export const SWEEP_RESULTS_VERSION = 1;

export interface SweepResultRow {
  /** 1 for the best; null for a failed run. */
  readonly rank: number | null;
  readonly hash: string;
  readonly params: Readonly<Record<string, string>>;
  readonly feed: string;
  readonly seed: number;
  readonly status: 'ok' | 'failed';
  /** Why the backtest stopped (`duration`, `killed`, …); null when it did not run to a stop. */
  readonly stop: string | null;
  /** The error of a failed run: the one that stopped it, or the strategy's failure. */
  readonly error: { readonly code: string | null; readonly message: string } | null;
  readonly metrics: Readonly<Record<string, MetricValue>>;
}

export interface SweepResults {
  readonly version: number;
  readonly runFile: SweepPlan['runFile'];
  readonly code: SweepPlan['code'];
  readonly metric: { readonly name: string; readonly better: 'higher' | 'lower' };
  readonly params: readonly { readonly name: string; readonly values: readonly string[] }[];
  readonly feeds: SweepPlan['feeds'];
  readonly seeds: readonly number[];
  readonly runs: readonly SweepResultRow[];
}

interface StopOfSummary {
  readonly kind: string;
  readonly description?: string;
  readonly code?: string;
}

/**
 * Why a run failed, or null: the error that stopped its job, or the failure of a strategy, which
 * stopped the backtest (its figures are those of a broken run).
 */
export function runFailure(outcome: BacktestJobOutcome): SweepResultRow['error'] {
  if (outcome.status === 'failed') return outcome.error;
  const stop = outcome.result.summary['stop'] as StopOfSummary;
  return stop.kind === 'failed' ? { code: stop.code ?? null, message: stop.description ?? stop.kind } : null;
}

function row(plan: SweepPlan, index: number, outcome: BacktestJobOutcome): Omit<SweepResultRow, 'rank'> {
  const { job, params } = plan.runs[index]!;
  const error = runFailure(outcome);
  const summary = outcome.status === 'ok' ? outcome.result.summary : undefined;
  return {
    hash: job.hash,
    params: Object.fromEntries(params),
    feed: job.feed.path,
    seed: job.seed,
    status: error === null ? 'ok' : 'failed',
    stop: summary === undefined ? null : (summary['stop'] as StopOfSummary).kind,
    error,
    metrics: metricValues(summary),
  };
}

/**
 * The ranked results of a sweep, from the outcome of each of the plan's runs (by index).
 *
 * @example const results = rankSweepResults(plan, outcomes, sweepMetric('netPnl'));
 */
export function rankSweepResults(plan: SweepPlan, outcomes: readonly BacktestJobOutcome[], metric: SweepMetric): SweepResults {
  const rows = plan.runs.map((_run, index) => row(plan, index, outcomes[index]!));
  const ok = rows.filter((candidate) => candidate.status === 'ok');
  // Array.prototype.sort is stable: equal values keep the plan's order.
  ok.sort((a, b) => compareMetric(metric, a.metrics[metric.name] ?? null, b.metrics[metric.name] ?? null));
  const ranked = [...ok.map((candidate, i) => ({ rank: i + 1, ...candidate })), ...rows.filter((candidate) => candidate.status === 'failed').map((candidate) => ({ rank: null, ...candidate }))];
  return {
    version: SWEEP_RESULTS_VERSION,
    runFile: plan.runFile,
    code: plan.code,
    metric: { name: metric.name, better: metric.better },
    params: plan.params.map((param) => ({ name: param.name, values: param.values })),
    feeds: plan.feeds,
    seeds: plan.seeds,
    runs: ranked,
  };
}

/** A CSV cell: quoted when it holds a comma, a quote or a line break (RFC 4180). */
function cell(value: string | number | null): string {
  const text = value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** results.csv: a header row, then one row per run in rank order. */
export function resultsCsv(results: SweepResults): string {
  const header = ['rank', ...results.params.map((param) => param.name), 'feed', 'seed', 'hash', 'status', 'stop', 'error_code', 'error_message', ...SWEEP_METRICS.map((metric) => metric.name)];
  const lines = results.runs.map((run) =>
    [run.rank, ...results.params.map((param) => run.params[param.name] ?? null), run.feed, run.seed, run.hash, run.status, run.stop, run.error?.code ?? null, run.error?.message ?? null, ...SWEEP_METRICS.map((metric) => run.metrics[metric.name] ?? null)]
      .map(cell)
      .join(','),
  );
  return `${[header.map(cell).join(','), ...lines].join('\n')}\n`;
}

/** Writes results.csv and results.json into `out`. */
export function writeSweepResults(out: string, results: SweepResults): void {
  writeFileSync(join(out, 'results.csv'), resultsCsv(results));
  writeFileSync(join(out, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
}
