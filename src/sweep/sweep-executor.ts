/**
 * How a sweep gets its jobs run: local worker threads (src/sweep/thread-pool.ts), BullMQ workers on
 * other machines (src/sweep/queue-executor.ts), or any other executor that runs `runBacktestJob`
 * somewhere and reports each job's outcome. The sweep keeps the outputs (src/sweep/run-store.ts,
 * src/sweep/sweep-results.ts) whichever runs the jobs.
 */
import type { BacktestJob, BacktestJobOutcome } from './backtest-job.ts';

/** What an executor tells the sweep while it runs: a job started, went back to wait for another try, ended. */
export interface SweepExecutorEvents {
  started(job: BacktestJob): void;
  /** A started job will start again (its worker died, or an attempt failed); `why` says which. */
  requeued(job: BacktestJob, why: string): void;
  finished(job: BacktestJob, outcome: BacktestJobOutcome): void;
}

export interface SweepExecutor {
  /** Where `jobs` jobs run, for the sweep's first line: `on 2 workers`. */
  describe(jobs: number): string;
  /** Runs every job once and reports each; resolves when all are finished (failed ones included). */
  run(jobs: readonly BacktestJob[], events: SweepExecutorEvents): Promise<void>;
}
