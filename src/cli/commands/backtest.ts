/**
 * `clobbot backtest <run file> --feed <file> [--from <t>] [--to <t>] [--seed <n>] [--out <dir>] [--queue <model>] [--force]`:
 * the run file's strategies and the execution engine on a recorded market (src/cli/backtest/run-backtest.ts),
 * or its bar strategies on a candle feed (src/cli/backtest/run-candle-backtest.ts): the feed's header says which.
 */
import { resolve } from 'node:path';
import { BaseError } from '../../core/base-error.ts';
import { isCandleFeed } from '../../feeds/feed-kind.ts';
import { runBacktest } from '../backtest/run-backtest.ts';
import { runCandleBacktest } from '../backtest/run-candle-backtest.ts';
import type { Command } from '../command.ts';
import { parseQueueModelOption } from '../queue-model-option.ts';
import { parseCommandArgs } from '../parse-args.ts';
import { parseTimeBound } from './feed.ts';
import { parseSeedOption } from './run.ts';

const usage = [
  'clobbot backtest <run file> --feed <file> [--from <t>] [--to <t>] [--seed <n>] [--out <dir>] [--queue <model>] [--force]',
  '',
  '  <run file>        the run file to test, as it is (sim, testnet or mainnet: nothing touches a network)',
  '  --feed <file>     a normalized feed (.arrow), a raw recording (.raw, normalized once and cached),',
  '                    or a candle feed (clobbot import binance-klines): its bar strategies filled by the bar rules',
  '  --from, --to      the part of the feed to trade: an ISO 8601 instant or ms since the epoch',
  '  --seed <n>        seed of the latencies and the strategies\' random sources (default 1)',
  '  --out <dir>       where the outputs go (default backtests/<run file>-<feed>)',
  '  --queue <model>   probabilistic (default, hftbacktest\'s power-3 model), probabilistic:<power>, or risk-averse (event feeds)',
  '  --force           replace an existing output directory',
  '',
  'Outputs: summary.json, fills.csv, orders.csv, equity.csv, manifest.json and report.html (docs/backtesting.md).',
].join('\n');

const usageError = (message: string) => new BaseError('CLI_USAGE', `backtest: ${message}`, { details: { command: 'backtest' } });

const baseName = (path: string) => path.split('/').pop()!.replace(/\.[^.]+$/, '');

export const backtestCommand: Command = {
  name: 'backtest',
  summary: 'trade a run file against a recorded market, with queue position, latency and fees',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      command: 'backtest',
      options: { feed: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' }, queue: { type: 'string' }, force: { type: 'boolean' } },
      positionals: ['run file'],
    });
    if (values.feed === undefined) throw usageError('--feed <file> is required');
    const file = positionals[0]!;
    const run = (await isCandleFeed(resolve(process.cwd(), values.feed))) ? runCandleBacktest : runBacktest;
    return run(io, {
      file,
      feed: values.feed,
      ...(values.from === undefined ? {} : { fromMs: Number(parseTimeBound(values.from, '--from') / 1_000_000n) }),
      ...(values.to === undefined ? {} : { toMs: Number(parseTimeBound(values.to, '--to') / 1_000_000n) }),
      ...(values.seed === undefined ? {} : { seed: parseSeedOption(values.seed, 'backtest') }),
      out: values.out ?? `backtests/${baseName(file)}-${baseName(values.feed)}`,
      force: values.force === true,
      ...(values.queue === undefined ? {} : { queue: parseQueueModelOption(values.queue, { command: 'backtest', flag: '--queue' }) }),
    });
  },
};
