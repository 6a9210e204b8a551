/**
 * `clobbot start` (what `npm start` runs): the framework's main job on a fresh machine with nothing
 * set up. It runs `config/market-maker.yaml` with `clobbot run`: the local venue starts in-process
 * with its background order flow, an ephemeral wallet is funded and set up, the reference market
 * maker quotes over the relay's WebSocket for the file's duration (60 s), gets filled, cancels its
 * orders on the way out and prints the summary.
 */
import type { Command } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';
import { runCommandMain } from './run.ts';

const DEFAULT_RUN_FILE = 'config/market-maker.yaml';

export const startCommand: Command = {
  name: 'start',
  summary: 'what npm start runs: the reference market maker on the in-process local venue for 60 s, then a summary',
  usage: [
    'clobbot start [--config <run file>] [--duration <s>]',
    '',
    `  --config <file>   the run file (default ${DEFAULT_RUN_FILE}: network sim, in-process venue, ephemeral wallet)`,
    '  --duration <s>    replaces the file\'s duration (60 s)',
    '',
    'The same as clobbot run <file>; Ctrl-C stops early (open orders are cancelled first).',
  ].join('\n'),

  async run(args, io) {
    const { values } = parseCommandArgs(args, { command: 'start', options: { config: { type: 'string' }, duration: { type: 'string' } }, positionals: [] });
    const file = values.config ?? DEFAULT_RUN_FILE;
    io.stdout.write(`clobbot start: the reference market maker against the local venue (clobbot run ${file})\n`);
    return runCommandMain([file, ...(values.duration === undefined ? [] : ['--duration', values.duration])], io);
  },
};
