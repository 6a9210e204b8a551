/**
 * `clobbot run <file> [--duration <s>] [--network <n>] [--allow-mainnet] [--journal-dir <dir>] [--seed <n>] [--virtual] [--summary <file.json>] [--record <dir>]`:
 * trades a run file until its duration ends or SIGINT/SIGTERM, then cancels its orders, waits for
 * their outcomes and prints a summary (src/cli/run/run-bot.ts). `--virtual`: the same run against
 * the in-process venue on virtual time.
 */
import { BaseError } from '../../core/base-error.ts';
import { durationMs } from '../../config/fields.ts';
import type { CliIo } from '../cli-io.ts';
import type { Command } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';
import { DEFAULT_JOURNAL_DIR, runBot, type RunBotOptions } from '../run/run-bot.ts';

const usage = [
  'clobbot run <file> [--duration <s>] [--network <n>] [--allow-mainnet] [--journal-dir <dir>] [--seed <n>] [--virtual] [--summary <file.json>] [--record <dir>]',
  '',
  '  <file>             the run file (docs/configuration.md), e.g. config/market-maker.yaml',
  '  --duration <s>     run this long: seconds, or 90s, 5m, 2h, 1d (default: the file\'s duration, else until SIGINT)',
  '  --network <n>      sim, testnet or mainnet (default: the file\'s network, itself default sim)',
  '  --allow-mainnet    required for mainnet, with allowMainnet: true in the file',
  `  --journal-dir <d>  where the execution journal lives (default ${DEFAULT_JOURNAL_DIR}; an ephemeral wallet's is temporary)`,
  '  --seed <n>         seed of every random source of the run (default: from the clock; 1 with --virtual)',
  '  --virtual          on virtual time against the in-process venue (network sim, no venueUrl): no network, no',
  '                     waiting; the same run file, seed and code give the same summary and journal, byte for byte',
  '  --summary <file>   also write the summary as JSON (every figure, no wall-clock ones)',
  '  --record <dir>     record every market\'s data as received, and the bot\'s own orders, cancels and fills,',
  '                     into raw recordings <dir>/<SYMBOL>-<start ms>.raw (docs/feeds.md)',
  '',
  'On network sim without venueUrl the local venue runs in-process; the account is funded and set up.',
  'SIGINT or SIGTERM stops the run: open orders are cancelled and their outcomes awaited, then a summary.',
  'Exit 0 a clean run; 1 a strategy failed, orders were left open or could not be checked after the stop, intents of',
  'completed strategies were dropped, or another bot holds the wallet\'s journal; 2 a mistake in the input.',
].join('\n');

const usageError = (message: string) => new BaseError('CLI_USAGE', `run: ${message}`, { details: { command: 'run' } });

/** `--duration`: plain seconds, or a duration with a unit. */
export function parseDurationOption(text: string): number {
  // A bare number on the command line is seconds, as the usage says (a run file's durations carry their unit).
  const value = /^[0-9]+(?:\.[0-9]+)?$/.test(text.trim()) ? `${text.trim()}s` : text;
  const parsed = durationMs.safeParse(value);
  if (!parsed.success) throw usageError('--duration must be a positive number of seconds, or a duration such as 90s, 5m, 1h');
  return parsed.data;
}

/** `--seed`: an integer in 0..2^31-1. */
export function parseSeedOption(text: string, command: string): number {
  if (!/^(?:0|[1-9][0-9]{0,9})$/.test(text) || Number(text) > 2 ** 31 - 1) {
    throw new BaseError('CLI_USAGE', `${command}: --seed must be an integer in 0..2147483647`, { details: { command } });
  }
  return Number(text);
}

/** Parses the arguments of `clobbot run` and runs it. */
export async function runCommandMain(args: readonly string[], io: CliIo, extra: Pick<RunBotOptions, 'stop' | 'statusEveryMs' | 'cwd'> = {}): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    command: 'run',
    options: {
      duration: { type: 'string' },
      network: { type: 'string' },
      'allow-mainnet': { type: 'boolean' },
      'journal-dir': { type: 'string' },
      seed: { type: 'string' },
      virtual: { type: 'boolean' },
      summary: { type: 'string' },
      record: { type: 'string' },
    },
    positionals: ['file'],
  });
  const seed = values.seed === undefined ? undefined : parseSeedOption(values.seed, 'run');
  return runBot(io, {
    file: positionals[0]!,
    ...(values.duration === undefined ? {} : { durationMs: parseDurationOption(values.duration) }),
    ...(values.network === undefined ? {} : { network: values.network }),
    allowMainnet: values['allow-mainnet'] === true,
    ...(values['journal-dir'] === undefined ? {} : { journalDir: values['journal-dir'] }),
    ...(seed === undefined ? {} : { seed }),
    virtual: values.virtual === true,
    ...(values.summary === undefined ? {} : { summaryFile: values.summary }),
    ...(values.record === undefined ? {} : { recordDir: values.record }),
    ...extra,
  });
}

export const runCommand: Command = {
  name: 'run',
  summary: 'trade a run file: strategies, market feeds and the execution engine, until its duration or SIGINT',
  usage,
  run: (args, io) => runCommandMain(args, io),
};
