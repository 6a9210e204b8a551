/**
 * `clobbot worker --queue <redis url> [--concurrency <n>] [--lock-duration <d>] [--stalled-interval <d>]`:
 * runs the jobs of sweeps enqueued with `clobbot sweep … --queue <redis url>`, on this machine, until
 * SIGINT or SIGTERM (src/sweep/queue-worker.ts, docs/sweeps.md "Running on several machines").
 */
import { BaseError } from '../../core/base-error.ts';
import { durationMs } from '../../config/fields.ts';
import { parseQueueUrl } from '../../sweep/queue-url.ts';
import { DEFAULT_LOCK_DURATION_MS, DEFAULT_STALLED_INTERVAL_MS, runQueueWorker } from '../../sweep/queue-worker.ts';
import { defaultWorkerCount, threadCountOption } from '../../sweep/thread-pool.ts';
import { ExitCode, type Command } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';
import { processStopSignal } from '../process-stop-signal.ts';

const usage = [
  'clobbot worker --queue <redis url> [--concurrency <n>] [--lock-duration <d>] [--stalled-interval <d>]',
  '',
  '  --queue <url>            the Redis of the sweeps: redis://[[user]:password@]host[:port][/db], rediss:// for TLS',
  '  --concurrency <n>        jobs run at once, each on a worker thread (default: one per core)',
  `  --lock-duration <d>      how long a job stays locked without news from this worker (default ${DEFAULT_LOCK_DURATION_MS / 1000}s):`,
  '                           a worker that dies has its jobs run elsewhere after about this long',
  `  --stalled-interval <d>   how often this worker looks for jobs whose worker died (default ${DEFAULT_STALLED_INTERVAL_MS / 1000}s)`,
  '',
  'Feeds and run files are read from this machine: paths resolve against the working directory, and a feed',
  'whose SHA-256 differs from the sweep\'s fails its run (SWEEP_FEED_CHANGED). A job of a sweep made with other',
  'clobbot code is put back and the worker stops (SWEEP_CODE_MISMATCH). SIGINT or SIGTERM: the running jobs',
  'finish, then the worker exits 0; a second SIGINT stops at once (the jobs are retried elsewhere).',
].join('\n');

const usageError = (message: string) => new BaseError('CLI_USAGE', `worker: ${message}`, { details: { command: 'worker' } });

function durationOption(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const parsed = durationMs.safeParse(text);
  if (!parsed.success || parsed.data < 100) throw usageError(`--${name} must be a duration of at least 100ms, such as 500ms, 30s, 2m`);
  return parsed.data;
}

export const workerCommand: Command = {
  name: 'worker',
  summary: 'run the backtests of sweeps enqueued on Redis (clobbot sweep --queue), on this machine, until stopped',
  usage,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      command: 'worker',
      options: {
        queue: { type: 'string' },
        concurrency: { type: 'string' },
        'lock-duration': { type: 'string' },
        'stalled-interval': { type: 'string' },
      },
      positionals: [],
    });
    if (values.queue === undefined) throw usageError('--queue <redis url> is required');
    const location = parseQueueUrl(values.queue, 'worker');
    const concurrency = values.concurrency === undefined ? defaultWorkerCount() : threadCountOption(values.concurrency, '--concurrency', 'worker');
    const lockDurationMs = durationOption('lock-duration', values['lock-duration'], DEFAULT_LOCK_DURATION_MS);
    const stalledIntervalMs = durationOption('stalled-interval', values['stalled-interval'], DEFAULT_STALLED_INTERVAL_MS);
    const stop = processStopSignal();
    try {
      await runQueueWorker({
        location,
        concurrency,
        lockDurationMs,
        stalledIntervalMs,
        cwd: process.cwd(),
        env: io.env,
        log: io.stdout,
        signal: stop.signal,
      });
    } finally {
      stop.dispose();
    }
    return ExitCode.ok;
  },
};
