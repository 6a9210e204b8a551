/**
 * `clobbot sweep`: plans the runs (every combination of the params on every feed and seed, each
 * checked before any starts), reuses those already done in the output directory, has the executor run
 * the others (local worker threads by default), keeps each result as it arrives (runs/<hash>/), and
 * writes the ranked results and sweep.html. docs/sweeps.md describes it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CliIo } from '../cli/cli-io.ts';
import type { BacktestJobOutcome } from './backtest-job.ts';
import { planSweep, type SweepInputs } from './plan-sweep.ts';
import { runStore } from './run-store.ts';
import type { SweepExecutor } from './sweep-executor.ts';
import { metricValues, type SweepMetric } from './sweep-metrics.ts';
import { sweepProgress } from './sweep-progress.ts';
import { renderSweepReport } from './sweep-report-html.ts';
import { rankSweepResults, runFailure, writeSweepResults } from './sweep-results.ts';
import { threadPool } from './thread-pool.ts';

export interface SweepOptions extends Omit<SweepInputs, 'cwd' | 'env'> {
  /** The output directory (against the working directory). */
  readonly out: string;
  readonly metric: SweepMetric;
  /** Worker threads of the default executor. */
  readonly workers: number;
  /** Who runs the jobs (default: `workers` local threads). */
  readonly executor?: SweepExecutor;
  readonly cwd?: string;
}

/** What a sweep did: runs planned, run now, reused from an earlier sweep, failed (of all). */
export interface SweepReport {
  readonly planned: number;
  readonly executed: number;
  readonly reused: number;
  readonly failed: number;
  readonly out: string;
}

/**
 * @example const report = await runSweep(processIo(), { file: 'config/market-maker.yaml', feeds: ['rec.raw'], params, seeds: [1], out: 'sweeps/mm', metric: sweepMetric('netPnl'), workers: 2 });
 */
export async function runSweep(io: CliIo, options: SweepOptions): Promise<SweepReport> {
  const cwd = options.cwd ?? process.cwd();
  const plan = await planSweep({ ...options, cwd, env: io.env });
  const out = resolve(cwd, options.out);
  mkdirSync(out, { recursive: true });
  const store = runStore(out);
  const outcomes: BacktestJobOutcome[] = [];
  const index = new Map<string, number>();
  const pending = plan.runs.flatMap((run, i) => {
    index.set(run.job.hash, i);
    const done = store.read(run.job.hash);
    if (done !== undefined) outcomes[i] = { status: 'ok', result: done };
    return done === undefined ? [run.job] : [];
  });
  const combinations = plan.runs.length / (plan.feeds.length * plan.seeds.length);
  const executor = options.executor ?? threadPool({ workers: options.workers, cwd, env: io.env });
  io.stdout.write(
    `sweep ${options.file}: ${plan.runs.length} runs (${combinations} combinations × ${plan.feeds.length} feeds × ${plan.seeds.length} seeds), ${plan.runs.length - pending.length} done before, ${pending.length} to run ${executor.describe(pending.length)}\n`,
  );

  const progress = sweepProgress(io, pending.length);
  const describe = (i: number) => `${[...plan.runs[i]!.params.map(([name, value]) => `${name}=${value}`), `feed ${plan.runs[i]!.job.feed.path}`, `seed ${plan.runs[i]!.job.seed}`].join(' ')} (${plan.runs[i]!.job.hash})`;
  try {
    await executor.run(pending, {
      started: () => progress.started(),
      requeued: (job, why) => progress.requeued(`${describe(index.get(job.hash)!)}: ${why}`),
      finished(job, outcome) {
        const i = index.get(job.hash)!;
        outcomes[i] = outcome;
        if (outcome.status === 'ok') store.write(job, outcome.result);
        const failure = runFailure(outcome);
        const said = failure === null ? `${options.metric.name} ${String(metricValues(outcome.status === 'ok' ? outcome.result.summary : undefined)[options.metric.name])}` : `failed${failure.code === null ? '' : ` ${failure.code}`}: ${failure.message.split('\n')[0]}`;
        progress.finished(failure === null, `${describe(i)}: ${said}`);
      },
    });
  } finally {
    progress.stop();
  }

  const results = rankSweepResults(plan, outcomes, options.metric);
  writeSweepResults(out, results);
  writeFileSync(join(out, 'sweep.html'), renderSweepReport(results));
  const failed = results.runs.filter((run) => run.status === 'failed').length;
  const best = results.runs[0];
  if (best !== undefined && best.rank !== null) {
    const i = index.get(best.hash)!;
    io.stdout.write(`best by ${options.metric.name} (${options.metric.better} is better): ${describe(i)}: ${String(best.metrics[options.metric.name])}\n`);
  }
  io.stdout.write(`sweep: ${plan.runs.length} runs, ${pending.length} run now, ${plan.runs.length - pending.length} reused, ${failed} failed\n`);
  io.stdout.write(`outputs in ${out}: results.csv, results.json, sweep.html, runs/<hash>/ (summary.json, manifest.json, run.yaml)\n`);
  return { planned: plan.runs.length, executed: pending.length, reused: plan.runs.length - pending.length, failed, out };
}
