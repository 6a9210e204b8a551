/**
 * One run of a sweep as a job, and the one function that does it: `runBacktestJob(job)`, called by
 * the local worker threads (src/sweep/sweep-worker.ts) and by any other worker that takes jobs. A
 * job is plain JSON and names nothing of the machine that made it: the run file travels as its
 * content, the feed by its path (against the worker's working directory) and SHA-256, which the
 * worker checks before it runs.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { BaseError, isBaseError } from '../core/base-error.ts';
import type { Env } from '../config/env-interpolation.ts';
import type { QueueModelConfigInput } from '../backtest/queue-model.ts';
import { fileSha256 } from '../feeds/file-sha256.ts';
import type { TextSink } from '../cli/cli-io.ts';
import { backtestSummary } from '../cli/backtest/backtest-outputs.ts';
import { executeBacktest, type BacktestInputs } from '../cli/backtest/run-backtest.ts';
import { executeCandleBacktest } from '../cli/backtest/run-candle-backtest.ts';
import { isCandleFeed } from '../feeds/feed-kind.ts';

export interface BacktestJob {
  /** The run's address (src/sweep/run-hash.ts). */
  readonly hash: string;
  /** The combination's run file: the name it is known by (in messages and the manifest), and its content. */
  readonly runFile: { readonly path: string; readonly text: string };
  readonly feed: { readonly path: string; readonly sha256: string };
  readonly seed: number;
  readonly queue?: QueueModelConfigInput;
  readonly fromMs?: number;
  readonly toMs?: number;
}

/** What a job gives back: the run's summary.json and manifest.json, as data. */
export interface BacktestJobResult {
  readonly summary: Record<string, unknown>;
  readonly manifest: Record<string, unknown>;
}

/** A job's fate, as a value: its result, or the error that stopped it (`code` null for one that is not a BaseError). */
export type BacktestJobOutcome =
  | { readonly status: 'ok'; readonly result: BacktestJobResult }
  | { readonly status: 'failed'; readonly error: { readonly code: string | null; readonly message: string } };

/** Where a job runs: the working directory paths are resolved against, the environment, where warnings go. */
export interface BacktestJobContext {
  readonly cwd?: string;
  readonly env?: Env;
  readonly log?: TextSink;
}

/** Feeds this thread has checked, by path, size and modification time: a worker hashes a feed once, not once per job. */
const checkedFeeds = new Map<string, string>();

function checkFeed(path: string, sha256: string): void {
  const stat = (() => {
    try {
      return statSync(path);
    } catch {
      return undefined;
    }
  })();
  const key = stat === undefined ? undefined : `${path}\0${stat.size}\0${stat.mtimeMs}`;
  const actual = (key === undefined ? undefined : checkedFeeds.get(key)) ?? fileSha256(path);
  if (key !== undefined) checkedFeeds.set(key, actual);
  if (actual !== sha256) {
    throw new BaseError('SWEEP_FEED_CHANGED', `${path}: its SHA-256 is ${actual}, the job names ${sha256} (the feed changed since the sweep started, or is another file)`, {
      details: { path, expected: sha256, actual },
    });
  }
}

const discard: TextSink = { write: () => true };

/**
 * Runs one job: checks the feed, backtests the combination's run file on it, and returns its
 * summary and manifest. Throws what the backtest throws (BaseError for every expected failure).
 *
 * @example const { summary } = await runBacktestJob(job, { cwd: process.cwd() });
 */
export async function runBacktestJob(job: BacktestJob, context: BacktestJobContext = {}): Promise<BacktestJobResult> {
  const cwd = context.cwd ?? process.cwd();
  const feedPath = resolve(cwd, job.feed.path);
  checkFeed(feedPath, job.feed.sha256);
  const inputs: BacktestInputs = {
    file: job.runFile.path,
    runFileText: job.runFile.text,
    feed: job.feed.path,
    feedSha256: job.feed.sha256,
    seed: job.seed,
    ...(job.queue === undefined ? {} : { queue: job.queue }),
    ...(job.fromMs === undefined ? {} : { fromMs: job.fromMs }),
    ...(job.toMs === undefined ? {} : { toMs: job.toMs }),
    cwd,
    env: context.env ?? process.env,
    log: context.log ?? discard,
  };
  // A candle feed runs its bar strategies by the bar rules, anything else the engine on a replayed feed.
  const run = (await isCandleFeed(feedPath)) ? await executeCandleBacktest(inputs) : await executeBacktest(inputs);
  return { summary: backtestSummary(run.record, run.spec), manifest: run.manifest };
}

/** `runBacktestJob` with its failure as a value: a sweep records a failed run and goes on. */
export async function settleBacktestJob(job: BacktestJob, context: BacktestJobContext = {}): Promise<BacktestJobOutcome> {
  try {
    return { status: 'ok', result: await runBacktestJob(job, context) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { status: 'failed', error: { code: isBaseError(error) ? error.code : null, message } };
  }
}
