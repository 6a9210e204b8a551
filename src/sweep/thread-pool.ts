/**
 * The local executor of a sweep: `workers` worker threads (src/sweep/job-threads.ts) that take the
 * sweep's jobs in the order of the plan, one at a time each; and how many threads, by default or as asked.
 */
import { availableParallelism } from 'node:os';
import { BaseError } from '../core/base-error.ts';
import type { Env } from '../config/env-interpolation.ts';
import { jobThreads } from './job-threads.ts';
import type { SweepExecutor } from './sweep-executor.ts';

/** One thread per core by default. */
export const defaultWorkerCount = () => Math.max(1, availableParallelism());

/** `--workers`, `--concurrency`: a number of threads. */
export function threadCountOption(text: string, option: string, command: string): number {
  if (!/^[1-9][0-9]{0,2}$/.test(text)) throw new BaseError('CLI_USAGE', `${command}: ${option} must be a whole number in 1..999`, { details: { command } });
  return Number(text);
}

/**
 * @example await threadPool({ workers: 2, cwd: process.cwd(), env: process.env }).run(jobs, { started() {}, requeued() {}, finished(job, outcome) {} });
 */
export function threadPool(params: { readonly workers: number; readonly cwd: string; readonly env: Env }): SweepExecutor {
  return {
    describe: (jobs) => `on ${Math.min(params.workers, jobs)} workers`,
    async run(jobs, events) {
      const threads = jobThreads({ size: params.workers, cwd: params.cwd, env: params.env });
      try {
        await Promise.all(jobs.map(async (job) => events.finished(job, await threads.run(job, () => events.started(job)))));
      } finally {
        await threads.close();
      }
    },
  };
}
