/**
 * `clobbot worker`'s loop: takes jobs from the sweep queue on Redis (src/sweep/queue-job.ts), runs
 * each with `runBacktestJob` on a worker thread (src/sweep/job-threads.ts), `concurrency` at a time,
 * and gives back its outcome, until its signal stops it (the running jobs are finished first).
 *
 * The backtests run off the main thread, which renews the jobs' locks every `lockDurationMs / 2`: a
 * worker that dies (SIGKILL, a lost machine) stops renewing them, and within about
 * `lockDurationMs + stalledIntervalMs` another worker's stalled-job check puts its jobs back in the
 * queue. A job is tried at most SWEEP_JOB_ATTEMPTS times, after crashes as after unexpected failures;
 * a run that fails with a clobbot error (a feed that changed, a strategy that failed) is an outcome,
 * not tried again. A job made by other code than the worker's is put back untouched, and the worker
 * stops with SWEEP_CODE_MISMATCH.
 */
import { hostname } from 'node:os';
import { UnrecoverableError, WaitingError, Worker } from 'bullmq';
import type { BaseError } from '../core/base-error.ts';
import { liveClock } from '../core/clock.ts';
import type { Env } from '../config/env-interpolation.ts';
import type { TextSink } from '../cli/cli-io.ts';
import { codeVersion } from '../cli/backtest/code-version.ts';
import type { BacktestJobOutcome } from './backtest-job.ts';
import { jobThreads } from './job-threads.ts';
import { codeMismatch, formatCodeVersion, queuedJobData, sameCode, SWEEP_JOB_ATTEMPTS, SWEEP_QUEUE } from './queue-job.ts';
import { connectQueueRedis, queueProblemReporter } from './queue-redis.ts';
import type { QueueLocation } from './queue-url.ts';

export interface QueueWorkerOptions {
  readonly location: QueueLocation;
  /** Jobs run at once, each on its own thread. */
  readonly concurrency: number;
  /** How long a job's lock lasts without renewal: a dead worker's jobs are retried after about this long. */
  readonly lockDurationMs: number;
  /** How often the workers look for jobs whose lock ran out. */
  readonly stalledIntervalMs: number;
  /** Where feed paths and run files' relative paths resolve. */
  readonly cwd: string;
  readonly env: Env;
  /** A line per job started and ended. */
  readonly log: TextSink;
  /** Stops the worker: it takes no more jobs and finishes those it runs. */
  readonly signal: AbortSignal;
}

/** Defaults of `clobbot worker`: BullMQ's. */
export const DEFAULT_LOCK_DURATION_MS = 30_000;
export const DEFAULT_STALLED_INTERVAL_MS = 30_000;

/**
 * Resolves when the worker has stopped; rejects with SWEEP_QUEUE_UNREACHABLE when Redis cannot be
 * reached at the start, or SWEEP_CODE_MISMATCH when it refused a job of other code.
 *
 * @example await runQueueWorker({ location, concurrency: 2, lockDurationMs: 30_000, stalledIntervalMs: 30_000, cwd: process.cwd(), env: process.env, log: process.stdout, signal });
 */
export async function runQueueWorker(options: QueueWorkerOptions): Promise<void> {
  const { location, log } = options;
  (await connectQueueRedis(location)).disconnect();
  const code = codeVersion();
  const threads = jobThreads({ size: options.concurrency, cwd: options.cwd, env: options.env });
  let refused: BaseError | undefined;
  const say = (text: string) => log.write(`worker: ${text}\n`);

  const worker = new Worker<unknown, BacktestJobOutcome>(
    SWEEP_QUEUE.name,
    async (job, token) => {
      const data = queuedJobData(job.data);
      if (typeof data === 'string') throw new UnrecoverableError(data);
      if (!sameCode(data.code, code)) {
        refused ??= codeMismatch(data, code);
        await job.moveToWait(token);
        stop();
        throw new WaitingError();
      }
      const { hash, feed, seed, runFile } = data.job;
      const startMs = liveClock.now();
      say(`${hash} started: ${runFile.path} on ${feed.path}, seed ${seed} (try ${job.attemptsStarted} of ${SWEEP_JOB_ATTEMPTS})`);
      const outcome = await threads.run(data.job);
      const took = `in ${((liveClock.now() - startMs) / 1000).toFixed(1)} s`;
      if (outcome.status === 'ok') say(`${hash} ok ${took}`);
      else say(`${hash} failed ${took}: ${outcome.error.code ?? 'unexpectedly'}: ${outcome.error.message.split('\n')[0]}`);
      // Not a clobbot error: maybe this machine's trouble (a thread out of memory), worth another try.
      if (outcome.status === 'failed' && outcome.error.code === null) throw new Error(outcome.error.message);
      return outcome;
    },
    {
      connection: { url: location.url },
      prefix: SWEEP_QUEUE.prefix,
      concurrency: options.concurrency,
      lockDuration: options.lockDurationMs,
      stalledInterval: options.stalledIntervalMs,
      maxStalledCount: SWEEP_JOB_ATTEMPTS - 1,
      name: `${hostname()} pid ${process.pid}`,
    },
  );
  worker.on('error', queueProblemReporter(log, location, 'worker'));
  let stop!: () => void;
  const stopAsked = new Promise<void>((resolve) => (stop = resolve));
  options.signal.addEventListener('abort', stop, { once: true });
  if (options.signal.aborted) stop();
  try {
    await worker.waitUntilReady();
    say(`taking sweep jobs from ${location.shown}, ${options.concurrency} at a time; clobbot ${formatCodeVersion(code)}`);
    await stopAsked;
  } finally {
    options.signal.removeEventListener('abort', stop);
    // Waits for the running jobs; a second SIGINT (the default action) stops at once, and their locks run out.
    await worker.close();
    await threads.close();
  }
  if (refused !== undefined) throw refused;
}
