/**
 * A sweep job as it travels through Redis: the one BullMQ queue every sweep and every `clobbot worker`
 * of a Redis database share, each job's id its run's hash (so a run enqueued twice, by a repeated or
 * a concurrent sweep, is one job), and its data: the `BacktestJob` and the code version of the sweep
 * that made its hash, which a worker of other code refuses (SWEEP_CODE_MISMATCH). A job's result is
 * its `BacktestJobOutcome`: a run that failed with a clobbot error is a finished job whose outcome
 * says so (not worth another try: the same inputs fail the same way); any other failure is retried.
 */
import { z } from 'zod';
import { BaseError } from '../core/base-error.ts';
import { queueModelConfigSchema } from '../backtest/queue-model.ts';
import type { BacktestJob } from './backtest-job.ts';

/** The queue's name, and the prefix of its Redis keys (`clobbot:sweep:*`). */
export const SWEEP_QUEUE = { name: 'sweep', prefix: 'clobbot' } as const;

/** BullMQ's name of every job of the queue. */
export const SWEEP_JOB_NAME = 'backtest';

/** How many times a job is tried: after an unexpected failure, or after its worker died (stalled). */
export const SWEEP_JOB_ATTEMPTS = 3;

/** How long Redis keeps a finished job and its result: an interrupted sweep run again within it collects what the workers did meanwhile. */
export const SWEEP_JOB_KEEP_SECONDS = 24 * 3600;

/** The code a run's hash was made with (src/cli/backtest/code-version.ts). */
export interface CodeVersion {
  readonly version: string | null;
  readonly commit: string | null;
}

/** A queued job's data. */
export interface QueuedJobData {
  readonly job: BacktestJob;
  readonly code: CodeVersion;
}

const codeSchema = z.strictObject({ version: z.string().nullable(), commit: z.string().nullable() });
const queuedJobSchema = z.strictObject({
  job: z.strictObject({
    hash: z.string().regex(/^[0-9a-f]{16}$/),
    runFile: z.strictObject({ path: z.string(), text: z.string() }),
    feed: z.strictObject({ path: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
    seed: z.number().int(),
    queue: queueModelConfigSchema.optional(),
    fromMs: z.number().optional(),
    toMs: z.number().optional(),
  }),
  code: codeSchema,
});

/** `0.1.0 (commit 4842d01)`. */
export const formatCodeVersion = (code: CodeVersion) => `${code.version ?? 'an unknown version'} (${code.commit === null ? 'no commit' : `commit ${code.commit.slice(0, 12)}`})`;

/** True when both are the very same code: a job's hash holds its sweep's code version, so its run must run on it. */
export const sameCode = (a: CodeVersion, b: CodeVersion) => a.version === b.version && a.commit === b.commit;

/**
 * A job's data as read from Redis, checked: a job some other program put in the queue is refused
 * (the problem is returned), never run.
 *
 * @example const data = queuedJobData(job.data); if (typeof data === 'string') throw new UnrecoverableError(data);
 */
export function queuedJobData(data: unknown): QueuedJobData | string {
  const parsed = queuedJobSchema.safeParse(data);
  if (parsed.success) return data as QueuedJobData;
  const issue = parsed.error.issues[0]!;
  return `not a clobbot sweep job: ${issue.path.join('.') || '(data)'}: ${issue.message}`;
}

/** The error of a worker whose code differs from the sweep's. */
export function codeMismatch(job: QueuedJobData, worker: CodeVersion): BaseError {
  return new BaseError(
    'SWEEP_CODE_MISMATCH',
    `job ${job.job.hash} comes from a sweep made with clobbot ${formatCodeVersion(job.code)}; this worker runs ${formatCodeVersion(worker)}, which could give another result under the run's hash. The job is back in the queue; run the sweep's code on every worker`,
    { details: { hash: job.job.hash, sweep: job.code, worker } },
  );
}
