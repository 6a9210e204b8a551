/**
 * `clobbot help [command]` (also `clobbot --help`, `clobbot <command> --help`).
 */
import { BaseError } from '../../core/base-error.ts';
import type { CliIo } from '../cli-io.ts';
import { ExitCode, type Command, type CommandEntry } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';

/** The overview: usage and one line per command. */
export function formatUsage(commands: readonly Pick<Command, 'name' | 'summary'>[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    'clobbot: algorithmic trading on an on-chain order book',
    '',
    'usage: clobbot <command> [arguments]',
    '',
    'commands:',
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    'Run `clobbot help <command>` for the arguments of a command; `clobbot --version` prints the version.',
  ].join('\n');
}

export const HELP_SUMMARY = 'show this overview, or the usage of one command';

/** The help command over the given command list (itself included). */
export function helpCommand(commands: () => readonly CommandEntry[]): Command {
  return {
    name: 'help',
    summary: HELP_SUMMARY,
    usage: 'clobbot help [command]',
    async run(args: readonly string[], io: CliIo) {
      const { positionals } = parseCommandArgs(args, { command: 'help', options: {}, positionals: ['command?'] });
      const name = positionals[0];
      if (name === undefined) {
        io.stdout.write(`${formatUsage(commands())}\n`);
        return ExitCode.ok;
      }
      const entry = commands().find((candidate) => candidate.name === name);
      if (!entry) throw new BaseError('CLI_USAGE', `help: unknown command ${JSON.stringify(name.slice(0, 40))}`, { details: { command: 'help' } });
      io.stdout.write(`usage: ${(await entry.load()).usage}\n`);
      return ExitCode.ok;
    },
  };
}
