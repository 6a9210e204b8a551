/**
 * The `clobbot` command line: dispatches to a subcommand and turns every error into a message and
 * an exit code. Users never see a stack trace for their own mistakes; set CLOBBOT_DEBUG=1 to see
 * one for an unexpected failure.
 */
import { isBaseError } from '../core/base-error.ts';
import { scrubSecretText } from '../core/secrets.ts';
import { processIo, type CliIo } from './cli-io.ts';
import { ExitCode, type Command } from './command.ts';
import { accountCommand } from './commands/account.ts';
import { chaosCommand } from './commands/chaos.ts';
import { formatUsage, helpCommand } from './commands/help.ts';
import { marketCommand } from './commands/market.ts';
import { backtestCommand } from './commands/backtest.ts';
import { feedCommand } from './commands/feed.ts';
import { importCommand } from './commands/import.ts';
import { recordCommand } from './commands/record.ts';
import { runCommand } from './commands/run.ts';
import { simCommand } from './commands/sim.ts';
import { startCommand } from './commands/start.ts';
import { validateCommand } from './commands/validate.ts';

/** Every subcommand, in the order `clobbot help` lists them. */
export const commands: readonly Command[] = [startCommand, runCommand, recordCommand, backtestCommand, feedCommand, importCommand, simCommand, chaosCommand, marketCommand, accountCommand, validateCommand, helpCommand(() => commands)];

/** BaseError codes that mean the user's input was wrong (exit 2) rather than that clobbot failed (exit 1). */
function isInputMistake(code: string): boolean {
  // A strategy module named in a run file that is missing or exports no strategy is a mistake in the run file;
  // so is a feed or import file that is missing, foreign, corrupted or breaks its format.
  return code === 'CLI_USAGE' || code.startsWith('CONFIG_') || code.startsWith('NETWORK_') || code.startsWith('STRATEGY_MODULE_') || code.startsWith('FEED_');
}

/**
 * Runs `clobbot <argv…>` and returns the exit code.
 *
 * @example process.exitCode = await main(process.argv.slice(2));
 */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    (name === undefined ? io.stderr : io.stdout).write(`${formatUsage(commands)}\n`);
    return name === undefined ? ExitCode.usage : ExitCode.ok;
  }
  const command = commands.find((candidate) => candidate.name === name);
  if (!command) {
    io.stderr.write(`error CLI_USAGE: unknown command ${JSON.stringify(scrubSecretText(name.slice(0, 40)))}\n\n${formatUsage(commands)}\n`);
    return ExitCode.usage;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(`usage: ${command.usage}\n`);
    return ExitCode.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (isBaseError(error)) {
      io.stderr.write(`error ${error.code}: ${scrubSecretText(error.message)}\n`);
      if (error.code === 'CLI_USAGE') io.stderr.write(`usage: ${command.usage.split('\n')[0]}\n`);
      return isInputMistake(error.code) ? ExitCode.usage : ExitCode.failure;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`error: unexpected failure in ${command.name}: ${scrubSecretText(message.split('\n')[0] ?? '')}\n`);
    if (io.env['CLOBBOT_DEBUG'] && error instanceof Error && error.stack) io.stderr.write(`${scrubSecretText(error.stack)}\n`);
    return ExitCode.failure;
  }
}
