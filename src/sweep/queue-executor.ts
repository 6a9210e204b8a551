/**
 * The executor of a sweep on several machines: the sweep's jobs go into the sweep queue on Redis
 * (src/sweep/queue-job.ts), `clobbot worker`s anywhere run them (src/sweep/queue-worker.ts), and the
 * sweep follows each job's start, retry and end through the queue's events and takes its outcome.
 *
 * A job already in the queue (its id is its run's hash) is not added twice: one still running or
 * waiting is followed, one finished earlier gives its result at once (what the workers did while an
 * interrupted sweep was away), one that failed earlier is replaced to be tried afresh, as a local
 * sweep tries its failed runs again. The queue is checked again every half minute, so a missed event
 * or a job removed from Redis cannot leave the sweep waiting for ever.
 */
import { Queue, QueueEvents } from 'bullmq';
import { exhaustMap, from, interval, type Subscription } from 'rxjs';
import { liveClock } from '../core/clock.ts';
import type { TextSink } from '../cli/cli-io.ts';
import { codeVersion } from '../cli/backtest/code-version.ts';
import type { BacktestJob, BacktestJobOutcome } from './backtest-job.ts';
import { SWEEP_JOB_ATTEMPTS, SWEEP_JOB_KEEP_SECONDS, SWEEP_JOB_NAME, SWEEP_QUEUE, type QueuedJobData } from './queue-job.ts';
import { connectQueueRedis, queueProblemReporter } from './queue-redis.ts';
import type { QueueLocation } from './queue-url.ts';
import type { SweepExecutor } from './sweep-executor.ts';

/** How often the sweep checks the state of its unfinished jobs in the queue. */
const RECHECK_MS = 30_000;
/** Jobs added, or checked, per round trip. */
const BATCH = 500;

const failed = (message: string): BacktestJobOutcome => ({ status: 'failed', error: { code: null, message } });

/** A job's result as read from Redis: an outcome, or a failure saying it is none. */
function outcomeOf(value: unknown): BacktestJobOutcome {
  const outcome = value as Partial<BacktestJobOutcome> | null;
  if (outcome?.status === 'ok' && typeof outcome.result?.summary === 'object' && typeof outcome.result.manifest === 'object') return outcome as BacktestJobOutcome;
  if (outcome?.status === 'failed' && typeof outcome.error?.message === 'string') return outcome as BacktestJobOutcome;
  return failed('the worker gave back something other than a run\'s outcome');
}

function batches<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += BATCH) out.push(items.slice(i, i + BATCH));
  return out;
}

/**
 * @example await runSweep(io, { ...options, executor: queueExecutor({ location: parseQueueUrl('redis://10.0.0.5:6379/0', 'sweep'), log: io.stderr }) });
 */
export function queueExecutor(params: { readonly location: QueueLocation; readonly log: TextSink }): SweepExecutor {
  const { location } = params;
  return {
    describe: () => `through the queue at ${location.shown} (on each machine: clobbot worker --queue <url>)`,
    async run(jobs, events) {
      if (jobs.length === 0) return;
      const code = codeVersion();
      const redis = await connectQueueRedis(location);
      const report = queueProblemReporter(params.log, location, 'sweep');
      const options = { connection: { url: location.url }, prefix: SWEEP_QUEUE.prefix };
      const queue = new Queue<QueuedJobData, BacktestJobOutcome>(SWEEP_QUEUE.name, options);
      queue.on('error', report);
      let queueEvents: QueueEvents | undefined;
      let recheck: Subscription | undefined;
      try {
        // Events from here on: whatever happens while the jobs are added and checked is heard.
        const [last] = await redis.xrevrange(queue.keys.events!, '+', '-', 'COUNT', 1);
        queueEvents = new QueueEvents(SWEEP_QUEUE.name, { ...options, lastEventId: last?.[0] ?? '0-0' });
        queueEvents.on('error', report);

        const pending = new Map(jobs.map((job) => [job.hash, job]));
        const running = new Set<string>();
        let allDone!: () => void;
        const done = new Promise<void>((resolve) => (allDone = resolve));
        const start = (id: string) => {
          const job = pending.get(id);
          if (job === undefined || running.has(id)) return;
          running.add(id);
          events.started(job);
        };
        const settle = (id: string, outcome: BacktestJobOutcome) => {
          const job = pending.get(id);
          if (job === undefined) return;
          start(id); // a job finished before the sweep saw it start was started all the same
          pending.delete(id);
          running.delete(id);
          events.finished(job, outcome);
          if (pending.size === 0) allDone();
        };
        queueEvents.on('active', ({ jobId }) => start(jobId));
        // BullMQ says the same (`prev` active) after a failed attempt, a dead worker's lock running out, and a job given back.
        queueEvents.on('waiting', ({ jobId }) => {
          if (running.delete(jobId)) events.requeued(pending.get(jobId)!, 'back in the queue (an attempt failed, or its worker stopped)');
        });
        queueEvents.on('completed', ({ jobId, returnvalue }) => settle(jobId, outcomeOf(returnvalue)));
        queueEvents.on('failed', ({ jobId, failedReason }) => settle(jobId, failed(failedReason)));
        await queueEvents.waitUntilReady();

        const add = (some: readonly BacktestJob[]) =>
          queue.addBulk(
            some.map((job) => ({
              name: SWEEP_JOB_NAME,
              data: { job, code },
              opts: { jobId: job.hash, attempts: SWEEP_JOB_ATTEMPTS, removeOnComplete: { age: SWEEP_JOB_KEEP_SECONDS }, removeOnFail: { age: SWEEP_JOB_KEEP_SECONDS } },
            })),
          );
        const check = async (first: boolean) => {
          for (const some of batches([...pending.values()])) {
            await Promise.all(
              some.map(async (job) => {
                const found = await queue.getJob(job.hash);
                if (found === undefined) return void (await add([job])); // gone from Redis: its time there ran out, or the queue was emptied
                const state = await found.getState();
                if (state === 'completed') settle(job.hash, outcomeOf(found.returnvalue));
                else if (state === 'active') start(job.hash);
                else if (state === 'failed' && !first) settle(job.hash, failed(found.failedReason));
                else if (state === 'failed') {
                  // Failed in an earlier sweep: tried afresh, with this sweep's data.
                  await found.remove();
                  await add([job]);
                }
              }),
            );
          }
        };
        for (const some of batches(jobs)) await add(some);
        await check(true);
        recheck = interval(RECHECK_MS, liveClock.scheduler)
          .pipe(exhaustMap(() => from(check(false).catch(report))))
          .subscribe();
        await done;
      } finally {
        recheck?.unsubscribe();
        await queueEvents?.close();
        await queue.close();
        redis.disconnect();
      }
    },
  };
}
