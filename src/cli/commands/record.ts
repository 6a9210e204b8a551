/**
 * `clobbot record [<run file>] --symbol <S> --out <dir> [--network <n>] [--duration <d>] [--virtual] [--seed <n>]`:
 * records one market's data as a live run's feed receives it (src/cli/record/record-market.ts).
 */
import { BaseError } from '../../core/base-error.ts';
import type { Command } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';
import { recordMarket } from '../record/record-market.ts';
import { canonicalMarketSymbol } from '../../config/fields.ts';
import { parseDurationOption, parseSeedOption } from './run.ts';

const usage = [
  'clobbot record [<run file>] --symbol <S> --out <dir> [--network <n>] [--duration <d>] [--virtual] [--seed <n>]',
  '',
  '  <run file>        where to record: its network, venue and sim config (optional on sim)',
  '  --symbol <S>      the market, e.g. MON_USDC',
  '  --out <dir>       the recording goes to <dir>/<SYMBOL>-<start ms>.raw (never overwritten)',
  '  --network <n>     sim (default), testnet or mainnet (these need a run file giving the market whole)',
  '  --duration <d>    record this long: seconds, or 90s, 5m, 2h (default until SIGINT)',
  '  --virtual         record the in-process venue on virtual time (needs --duration): an hour in seconds',
  '  --seed <n>        seed of the in-process venue\'s flow (default 1)',
  '',
  'Every depth poll (with its consensus state), trade poll and ticker is appended as received, with',
  'its local receive time; a recording killed at any moment reads up to its last complete record.',
  '`clobbot feed info` describes it, `clobbot feed normalize` converts it for replay (docs/feeds.md).',
].join('\n');

export const recordCommand: Command = {
  name: 'record',
  summary: 'record a market\'s depth, trades and ticker as received, for backtests',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      command: 'record',
      options: {
        symbol: { type: 'string' },
        out: { type: 'string' },
        network: { type: 'string' },
        duration: { type: 'string' },
        virtual: { type: 'boolean' },
        seed: { type: 'string' },
      },
      positionals: ['file?'],
    });
    if (values.symbol === undefined || values.out === undefined) throw new BaseError('CLI_USAGE', 'record: --symbol and --out are required', { details: { command: 'record' } });
    return recordMarket(io, {
      ...(positionals[0] === undefined ? {} : { file: positionals[0] }),
      // Matched case-insensitively (`mon_usdc`), printed canonically.
      symbol: canonicalMarketSymbol(values.symbol),
      out: values.out,
      ...(values.network === undefined ? {} : { network: values.network }),
      ...(values.duration === undefined ? {} : { durationMs: parseDurationOption(values.duration) }),
      virtual: values.virtual === true,
      ...(values.seed === undefined ? {} : { seed: parseSeedOption(values.seed, 'record') }),
    });
  },
};
