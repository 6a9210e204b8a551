/**
 * Local sweeps (issue 18's figures): the speed-up from one worker thread to two, and a sweep's
 * overhead per job over a bare backtest. The jobs: the reference market maker (config/market-maker.yaml)
 * on ten minutes of the local venue recorded on virtual time (made once, before the timed runs),
 * SWEEP_BENCH_JOBS combinations of spreadBps (default 8).
 * - bare: each combination's run file backtested in this process by `executeBacktest`, the function
 *   under a job, one after the other;
 * - sweep, 1 and 2 workers: `clobbot sweep` of the same combinations into a fresh output directory
 *   (so nothing is reused): the plan and its checks, the worker threads' start (from the sources here,
 *   through tsx), the jobs, their run directories and the results.
 * The report gives the speed-up (median wall time, 1 worker / 2 workers) and the overhead per job
 * ((sweep with 1 worker − bare) / jobs).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { main } from '../src/cli/main.ts';
import { executeBacktest } from '../src/cli/backtest/run-backtest.ts';
import { planSweep } from '../src/sweep/plan-sweep.ts';
import { runSweep } from '../src/sweep/run-sweep.ts';
import { sweepMetric } from '../src/sweep/sweep-metrics.ts';
import { parseSweepParam } from '../src/sweep/sweep-param.ts';
import type { Benchmark } from './harness.ts';

const JOBS = Number(process.env['SWEEP_BENCH_JOBS'] ?? 8);
const dir = mkdtempSync(join(tmpdir(), 'clobbot-bench-sweep-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const quiet = { stdout: { write: () => true }, stderr: { write: (text: string) => process.stderr.write(text) }, env: {}, isTty: false };

const recorded = await main(['record', '--symbol', 'MON_USDC', '--out', join(dir, 'rec'), '--virtual', '--duration', '10m'], quiet);
if (recorded !== 0) throw new Error('sweep bench: the recording failed');
const feed = join(dir, 'rec', readdirSync(join(dir, 'rec'))[0]!);
const file = 'config/market-maker.yaml';
const params = [parseSweepParam(`spreadBps=4..${4 + JOBS - 1}:1`)];

const times: Record<'bare' | 'one' | 'two', number[]> = { bare: [], one: [], two: [] };
let outs = 0;

async function timedSweep(workers: number, into: number[]): Promise<number> {
  const started = performance.now();
  const report = await runSweep(quiet, { file, feeds: [feed], params, seeds: [1], metric: sweepMetric('netPnl'), workers, out: join(dir, `out-${(outs += 1)}`) });
  into.push(performance.now() - started);
  if (report.executed !== JOBS || report.failed !== 0) throw new Error(`sweep bench: ${report.executed} run, ${report.failed} failed`);
  return JOBS;
}

export const benchmarks: readonly Benchmark[] = [
  {
    name: `bare backtests, ${JOBS} jobs one after the other`,
    unit: 'jobs',
    runs: 3,
    async run() {
      const plan = await planSweep({ file, feeds: [feed], params, seeds: [1], cwd: process.cwd(), env: {} });
      const started = performance.now();
      for (const { job } of plan.runs) {
        await executeBacktest({ file: job.runFile.path, runFileText: job.runFile.text, feed: job.feed.path, feedSha256: job.feed.sha256, seed: job.seed, cwd: process.cwd(), env: {}, log: quiet.stdout });
      }
      times.bare.push(performance.now() - started);
      return JOBS;
    },
  },
  { name: `sweep of ${JOBS} jobs, 1 worker thread`, unit: 'jobs', runs: 3, run: () => timedSweep(1, times.one) },
  { name: `sweep of ${JOBS} jobs, 2 worker threads`, unit: 'jobs', runs: 3, run: () => timedSweep(2, times.two) },
];

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export function report(): string {
  // The first of each list is the warm-up run.
  const [bare, one, two] = [times.bare.slice(1), times.one.slice(1), times.two.slice(1)].map(median) as [number, number, number];
  return [
    `  speed-up from 1 to 2 worker threads: ${(one / two).toFixed(2)}x (${(one / 1000).toFixed(2)} s → ${(two / 1000).toFixed(2)} s for ${JOBS} jobs)`,
    `  overhead per job over a bare backtest: ${((one - bare) / JOBS).toFixed(0)} ms (bare ${(bare / JOBS).toFixed(0)} ms a job, sweep with 1 worker ${(one / JOBS).toFixed(0)} ms a job)`,
  ].join('\n');
}
