/**
 * Worker threads (node:worker_threads) that run sweep jobs with `runBacktestJob`
 * (src/sweep/sweep-worker.ts), one job at a time each, up to `size` of them, started as jobs arrive
 * and kept for the next, so a thread pays for loading clobbot and the strategy once. A thread that
 * dies fails the job it had, with its error, and another takes its place. Used by the local sweep
 * (src/sweep/thread-pool.ts) and by `clobbot worker` (src/sweep/queue-worker.ts), whose main thread
 * stays free to renew its job locks while the backtests run.
 *
 * Run from clobbot's TypeScript sources (tests, `npm run bench`) a thread first registers tsx, as
 * bin/run-ts.js does for the main thread, and resolves `clobbot` to the sources too: on Node 20
 * module hooks are per thread, and a worker inherits none of its parent's.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Env } from '../config/env-interpolation.ts';
import type { BacktestJob, BacktestJobOutcome } from './backtest-job.ts';
import type { SweepWorkerAnswer, SweepWorkerData } from './sweep-worker.ts';

export interface JobThreads {
  /** Runs `job` on the next free thread; `onStart` is called when a thread takes it. Never rejects: a failure is an outcome. */
  run(job: BacktestJob, onStart?: () => void): Promise<BacktestJobOutcome>;
  /** Ends every thread; a job still waiting or running fails. */
  close(): Promise<void>;
}

const FROM_SOURCE = import.meta.url.endsWith('.ts');

function startWorker(data: SweepWorkerData, env: Env): Worker {
  const entry = new URL(`./sweep-worker.${FROM_SOURCE ? 'ts' : 'js'}`, import.meta.url);
  if (!FROM_SOURCE) return new Worker(entry, { workerData: data, env });
  const bootstrap = `const { register } = await import(${JSON.stringify(tsxEsmApi())}); register(); await import(${JSON.stringify(entry.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), { workerData: data, env, execArgv: ['--conditions=clobbot-source'] });
}

/** tsx's ESM API as a file URL: a data: module resolves no package, and require.resolve would give its CommonJS build. */
function tsxEsmApi(): string {
  const packageJson = createRequire(import.meta.url).resolve('tsx/package.json');
  const exports = (JSON.parse(readFileSync(packageJson, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports;
  return pathToFileURL(join(dirname(packageJson), exports['./esm/api']!.import.default)).href;
}

const failed = (message: string): BacktestJobOutcome => ({ status: 'failed', error: { code: null, message } });

interface Task {
  readonly job: BacktestJob;
  readonly onStart: (() => void) | undefined;
  readonly settle: (outcome: BacktestJobOutcome) => void;
}

/**
 * @example const threads = jobThreads({ size: 2, cwd: process.cwd(), env: process.env }); const outcome = await threads.run(job); await threads.close();
 */
export function jobThreads(params: { readonly size: number; readonly cwd: string; readonly env: Env }): JobThreads {
  const waiting: Task[] = [];
  const idle: Worker[] = [];
  /** Every live thread and the task it runs (undefined: idle). */
  const busy = new Map<Worker, Task | undefined>();
  let closed = false;

  const spawn = (): Worker => {
    const worker = startWorker({ cwd: params.cwd }, params.env);
    let error: Error | undefined;
    busy.set(worker, undefined);
    worker.on('message', (answer: SweepWorkerAnswer) => {
      const task = busy.get(worker)!;
      busy.set(worker, undefined);
      idle.push(worker);
      task.settle(answer.outcome);
      dispatch();
    });
    worker.on('error', (cause) => (error = cause));
    worker.on('exit', (code) => {
      const task = busy.get(worker);
      busy.delete(worker);
      const at = idle.indexOf(worker);
      if (at >= 0) idle.splice(at, 1);
      if (task !== undefined) {
        const why = closed ? 'was stopped' : error === undefined ? `exited with code ${code}` : `failed: ${error.message.split('\n')[0]}`;
        task.settle(failed(`the worker thread running this job ${why}`));
      }
      dispatch();
    });
    return worker;
  };

  const dispatch = () => {
    while (waiting.length > 0 && !closed) {
      const worker = idle.pop() ?? (busy.size < params.size ? spawn() : undefined);
      if (worker === undefined) return;
      const task = waiting.shift()!;
      busy.set(worker, task);
      task.onStart?.();
      worker.postMessage(task.job);
    }
  };

  return {
    run: (job, onStart) =>
      new Promise<BacktestJobOutcome>((settle) => {
        if (closed) return settle(failed('the worker threads were stopped'));
        waiting.push({ job, onStart, settle });
        dispatch();
      }),
    async close() {
      closed = true;
      for (const task of waiting.splice(0)) task.settle(failed('the worker threads were stopped'));
      await Promise.all([...busy.keys()].map((worker) => worker.terminate()));
    },
  };
}
