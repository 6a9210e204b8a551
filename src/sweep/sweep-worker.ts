/**
 * The entry of a sweep's worker thread (src/sweep/thread-pool.ts): takes one job at a time from its
 * parent and answers with its outcome. Strategy modules load here as in the main thread: the module
 * hooks (src/strategy/strategy-module-hooks.ts) are installed by the first strategy this thread
 * loads, for this thread (on Node 20 hooks registered by the main thread do not reach its workers).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { settleBacktestJob, type BacktestJob } from './backtest-job.ts';

/** What the parent gives the thread when it starts it. */
export interface SweepWorkerData {
  readonly cwd: string;
}

/** A message of the worker to its parent. */
export interface SweepWorkerAnswer {
  readonly hash: string;
  readonly outcome: Awaited<ReturnType<typeof settleBacktestJob>>;
}

const port = parentPort!;
const { cwd } = workerData as SweepWorkerData;
port.on('message', (job: BacktestJob) => {
  void settleBacktestJob(job, { cwd }).then((outcome) => port.postMessage({ hash: job.hash, outcome } satisfies SweepWorkerAnswer));
});
