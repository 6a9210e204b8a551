/**
 * `clobbot sweep <run file> --feed <file...> --param <name>=<values> [--param …] [--metric <name>]
 * [--workers <n> | --queue <redis url>] [--seed <values>] [--from <t>] [--to <t>] [--out <dir>]`: every
 * combination of the params on every feed, in parallel worker threads, or by `clobbot worker`s through
 * a BullMQ queue on Redis (src/sweep/run-sweep.ts, docs/sweeps.md).
 */
import { BaseError } from '../../core/base-error.ts';
import { parseParamValues } from '../../sweep/param-values.ts';
import { DEFAULT_SWEEP_METRIC, SWEEP_METRICS, sweepMetric } from '../../sweep/sweep-metrics.ts';
import { parseSweepParam } from '../../sweep/sweep-param.ts';
import { parseQueueUrl } from '../../sweep/queue-url.ts';
import { parseQueueModelOption, QUEUE_MODEL_CHOICES } from '../queue-model-option.ts';
import type { SweepExecutor } from '../../sweep/sweep-executor.ts';
import { defaultWorkerCount, threadCountOption } from '../../sweep/thread-pool.ts';
import { runSweep } from '../../sweep/run-sweep.ts';
import { ExitCode, type Command } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';
import { parseTimeBound } from './feed.ts';
import { parseSeedOption } from './run.ts';

const usage = [
  'clobbot sweep <run file> --feed <file...> [--param <name>=<values> ...] [--metric <name>] [--workers <n> | --queue <redis url>] [--queue-model <model>] [--seed <values>] [--from <t>] [--to <t>] [--out <dir>]',
  '',
  '  <run file>            the run file whose params are swept (backtested as `clobbot backtest` does)',
  '  --feed <file...>      the feeds: every combination runs on each (--feed a.arrow b.arrow, or --feed repeated)',
  '  --param <name>=<v>    a swept param: spreadBps (the only strategy\'s), mm.spreadBps (strategy mm\'s), risk.maxPosition (a run file field);',
  '                        values: a list 4,6,8, a range 1000..5000:1000 (from..to:step, exact decimals: 0.1..0.3:0.1), or both: 2,4..8:2',
  `  --metric <name>       what the results are ranked by (default ${DEFAULT_SWEEP_METRIC}): ${SWEEP_METRICS.map((metric) => metric.name).join(', ')}`,
  '  --workers <n>         worker threads (default: one per core)',
  '  --queue <redis url>   enqueue the runs on Redis (redis://[[user]:password@]host[:port][/db]) for `clobbot worker`s',
  '                        on any machines instead, wait for them and collect the same outputs',
  `  --queue-model <model> the event backtest's queue model, as clobbot backtest --queue takes it: ${QUEUE_MODEL_CHOICES}`,
  '  --seed <values>       the seeds, as a param\'s values (default 1): each combination runs with each',
  '  --from, --to          the part of each feed to trade: an ISO 8601 instant or ms since the epoch',
  '  --out <dir>           where the outputs go (default sweeps/<run file>-<params>); runs already there are reused',
  '',
  'Outputs: results.csv, results.json, sweep.html, runs/<hash>/summary.json and manifest.json (docs/sweeps.md).',
  'Exit 0 when every run succeeded, 1 when some failed (they are in the results), 2 for a mistake in the input.',
].join('\n');

const usageError = (message: string) => new BaseError('CLI_USAGE', `sweep: ${message}`, { details: { command: 'sweep' } });

const baseName = (path: string) => path.split('/').pop()!.replace(/\.[^.]+$/, '');

export const sweepCommand: Command = {
  name: 'sweep',
  summary: "backtest every combination of a run file's params on feeds, in parallel, ranked by a metric",
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      command: 'sweep',
      options: {
        feed: { type: 'string', multiple: true },
        param: { type: 'string', multiple: true },
        metric: { type: 'string' },
        workers: { type: 'string' },
        queue: { type: 'string' },
        'queue-model': { type: 'string' },
        seed: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        out: { type: 'string' },
      },
      // More than one positional: the feeds after the first --feed's (`--feed a.arrow b.arrow`).
      positionals: ['run file…'],
    });
    const [file, ...moreFeeds] = positionals as [string, ...string[]];
    if (values.feed === undefined) throw usageError('--feed <file...> is required');
    const params = (values.param ?? []).map(parseSweepParam);
    const metric = sweepMetric(values.metric ?? DEFAULT_SWEEP_METRIC);
    const seeds = values.seed === undefined ? [1] : parseParamValues('--seed', values.seed).map((seed) => parseSeedOption(seed, 'sweep'));
    let executor: SweepExecutor | undefined;
    if (values.queue !== undefined) {
      if (values.workers !== undefined) throw usageError('--workers and --queue: with --queue the runs go to `clobbot worker`s, each with its --concurrency');
      const location = parseQueueUrl(values.queue, 'sweep');
      // Loaded only for a queue (BullMQ and ioredis weigh on every start). Redis is tried before the
      // plan, which may normalize feeds for minutes: an unreachable one is said at once.
      (await (await import('../../sweep/queue-redis.ts')).connectQueueRedis(location)).disconnect();
      executor = (await import('../../sweep/queue-executor.ts')).queueExecutor({ location, log: io.stderr });
    }
    const report = await runSweep(io, {
      file,
      feeds: [...values.feed, ...moreFeeds],
      params,
      seeds,
      metric,
      workers: values.workers === undefined ? defaultWorkerCount() : threadCountOption(values.workers, '--workers', 'sweep'),
      ...(executor === undefined ? {} : { executor }),
      ...(values['queue-model'] === undefined ? {} : { queue: parseQueueModelOption(values['queue-model'], { command: 'sweep', flag: '--queue-model' }) }),
      ...(values.from === undefined ? {} : { fromMs: Number(parseTimeBound(values.from, '--from') / 1_000_000n) }),
      ...(values.to === undefined ? {} : { toMs: Number(parseTimeBound(values.to, '--to') / 1_000_000n) }),
      out: values.out ?? `sweeps/${[baseName(file), ...params.map((param) => param.name)].join('-')}`,
    });
    return report.failed > 0 ? ExitCode.failure : ExitCode.ok;
  },
};
