/**
 * The `clobbot` command line: dispatches to a subcommand and turns every error into a message and
 * an exit code. Users never see a stack trace for their own mistakes; set CLOBBOT_DEBUG=1 to see
 * one for an unexpected failure.
 */
import { isBaseError } from '../core/base-error.ts';
import { scrubSecretText } from '../core/secrets.ts';
import { processIo, type CliIo } from './cli-io.ts';
import { ExitCode, type Command, type CommandEntry } from './command.ts';
import { formatUsage, HELP_SUMMARY, helpCommand } from './commands/help.ts';
import { packageVersion } from './package-version.ts';

/**
 * Every subcommand, in the order `clobbot help` lists them: its name and summary here, its module
 * imported only when it runs or its usage is shown, so `clobbot help`, `--version` and a command pay
 * for no other command's dependencies (test/package/cli-commands.test.ts keeps the summaries in step).
 */
export const commands: readonly CommandEntry[] = [
  { name: 'start', summary: 'what npm start runs: the reference market maker on the in-process local venue for 60 s, then a summary', load: async () => (await import('./commands/start.ts')).startCommand },
  { name: 'run', summary: 'trade a run file: strategies, market feeds and the execution engine, until its duration or SIGINT', load: async () => (await import('./commands/run.ts')).runCommand },
  { name: 'record', summary: 'record a market\'s depth, trades and ticker as received, for backtests', load: async () => (await import('./commands/record.ts')).recordCommand },
  { name: 'backtest', summary: 'trade a run file against a recorded market, with queue position, latency and fees', load: async () => (await import('./commands/backtest.ts')).backtestCommand },
  { name: 'sweep', summary: "backtest every combination of a run file's params on feeds, in parallel, ranked by a metric", load: async () => (await import('./commands/sweep.ts')).sweepCommand },
  { name: 'worker', summary: 'run the backtests of sweeps enqueued on Redis (clobbot sweep --queue), on this machine, until stopped', load: async () => (await import('./commands/worker.ts')).workerCommand },
  { name: 'feed', summary: 'describe, normalize or export a recorded or imported feed', load: async () => (await import('./commands/feed.ts')).feedCommand },
  { name: 'import', summary: 'convert public market data (Binance captures and dumps, Tardis) to a normalized feed', load: async () => (await import('./commands/import.ts')).importCommand },
  { name: 'sim', summary: 'serve the local simulated venue on 127.0.0.1 (market data, user data, quotes, relay, JSON-RPC)', load: async () => (await import('./commands/sim.ts')).simCommand },
  { name: 'chaos', summary: 'the reference market maker against the local venue under injected faults, with the figures', load: async () => (await import('./commands/chaos.ts')).chaosCommand },
  { name: 'market', summary: 'print one market-data request (depth, trades, ticker, klines, info) as a table or JSON', load: async () => (await import('./commands/market.ts')).marketCommand },
  { name: 'token', summary: "print one token's metadata (name, symbol, decimals, flags) as a table or JSON", load: async () => (await import('./commands/token.ts')).tokenCommand },
  { name: 'quote', summary: 'print the best-path swap quote for an amount, with its route, as a table or JSON', load: async () => (await import('./commands/quote.ts')).quoteCommand },
  { name: 'orders', summary: "print a wallet's order events (created, canceled, trades) since a time, as a table or JSON", load: async () => (await import('./commands/orders.ts')).ordersCommand },
  { name: 'account', summary: 'set up the trading wallet for its account (EIP-7702 delegation, TRADE grant), show its status or its balances', load: async () => (await import('./commands/account.ts')).accountCommand },
  { name: 'validate', summary: 'check a run file or sim config and print its problems with file:line:column', load: async () => (await import('./commands/validate.ts')).validateCommand },
  { name: 'help', summary: HELP_SUMMARY, load: async () => helpCommand(() => commands) },
];

/** BaseError codes that mean the user's input was wrong (exit 2) rather than that clobbot failed (exit 1). */
function isInputMistake(code: string): boolean {
  // A strategy module named in a run file that is missing or exports no strategy is a mistake in the run file;
  // so is a feed or import file that is missing, foreign, corrupted or breaks its format, a swept param the run file refuses,
  // and a candle feed for a strategy that reads no bars.
  return code === 'CLI_USAGE' || code === 'SWEEP_PARAM_INVALID' || code === 'BACKTEST_NO_BARS' || code.startsWith('CONFIG_') || code.startsWith('NETWORK_') || code.startsWith('STRATEGY_MODULE_') || code.startsWith('FEED_');
}

/**
 * Runs `clobbot <argv…>` and returns the exit code.
 *
 * @example process.exitCode = await main(process.argv.slice(2));
 */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V') {
    io.stdout.write(`${packageVersion()}\n`);
    return ExitCode.ok;
  }
  if (name === undefined || name === '--help' || name === '-h') {
    (name === undefined ? io.stderr : io.stdout).write(`${formatUsage(commands)}\n`);
    return name === undefined ? ExitCode.usage : ExitCode.ok;
  }
  const entry = commands.find((candidate) => candidate.name === name);
  if (!entry) {
    io.stderr.write(`error CLI_USAGE: unknown command ${JSON.stringify(scrubSecretText(name.slice(0, 40)))}\n\n${formatUsage(commands)}\n`);
    return ExitCode.usage;
  }
  const command: Command = await entry.load();
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
