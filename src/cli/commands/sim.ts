/**
 * `clobbot sim [--port <n>] [--config <file>] [--seed <n>] [--block-ms <n>]`: serves the local
 * simulated venue (every host of the spec, the relay WebSocket and JSON-RPC) on 127.0.0.1 until
 * SIGINT or SIGTERM, then stops cleanly with exit 0. When ready it prints exactly one line to stdout,
 * `clobbot sim listening on http://127.0.0.1:<port>`; logs are pino JSON lines on stderr.
 */
import { BaseError } from '../../core/base-error.ts';
import { liveClock } from '../../core/clock.ts';
import { createLogger, LOG_LEVELS, type LogLevel } from '../../core/logger.ts';
import { seededRandom } from '../../core/random.ts';
import { loadConfigOrThrow } from '../../config/load-config.ts';
import { DEFAULT_SIM_PORT } from '../../config/network-config.ts';
import { simConfigSchema } from '../../config/sim-config.ts';
import { createSimServer } from '../../sim/sim-server.ts';
import { cryptoRandom } from '../../sim/sim-service.ts';
import type { CliIo } from '../cli-io.ts';
import { ExitCode, type Command } from '../command.ts';
import { processStopSignal } from '../process-stop-signal.ts';
import { parseCommandArgs } from '../parse-args.ts';

export const DEFAULT_SIM_CONFIG = 'config/sim.yaml';
const HOST = '127.0.0.1';

function integerOption(name: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^(?:0|[1-9][0-9]*)$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new BaseError('CLI_USAGE', `sim: --${name} must be an integer in ${min}..${max}`, { details: { command: 'sim', option: name } });
  }
  return Number(text);
}

export interface RunSimOptions {
  /** Stops the server when aborted. Default: the first SIGINT or SIGTERM of the process. */
  readonly stop?: AbortSignal;
}

/**
 * Runs `clobbot sim` until `options.stop` aborts; returns the exit code.
 *
 * @example await runSim(['--port', '0'], processIo(), { stop: controller.signal })
 */
export async function runSim(args: readonly string[], io: CliIo, options: RunSimOptions = {}): Promise<number> {
  const { values } = parseCommandArgs(args, {
    command: 'sim',
    options: { port: { type: 'string' }, config: { type: 'string' }, seed: { type: 'string' }, 'block-ms': { type: 'string' } },
    positionals: [],
  });
  const port = integerOption('port', values.port, 0, 65_535) ?? DEFAULT_SIM_PORT;
  const seed = integerOption('seed', values.seed, 0, 2 ** 32 - 1);
  const blockMs = integerOption('block-ms', values['block-ms'], 10, 60_000);
  const loaded = await loadConfigOrThrow(values.config ?? DEFAULT_SIM_CONFIG, simConfigSchema, { env: io.env });
  const config = blockMs === undefined ? loaded : { ...loaded, blockMs };

  const levelText = io.env['CLOBBOT_LOG_LEVEL'] ?? 'info';
  const level: LogLevel = (LOG_LEVELS as readonly string[]).includes(levelText) ? (levelText as LogLevel) : 'info';
  const logger = createLogger({ level, name: 'clobbot-sim' });
  const server = createSimServer({
    config,
    clock: liveClock,
    random: seed === undefined ? cryptoRandom() : seededRandom(seed),
    secrets: cryptoRandom(),
    logger,
    ...(seed === undefined ? {} : { seed }),
  });

  const signals = options.stop === undefined ? processStopSignal() : undefined;
  const stop = options.stop ?? signals!.signal;
  try {
    const address = await server.start({ port, host: HOST });
    logger.info({ url: address.url, chainId: config.chainId, blockMs: config.blockMs, seed: seed ?? null }, 'sim venue listening');
    io.stdout.write(`clobbot sim listening on http://${HOST}:${address.port}\n`);
    if (!stop.aborted) await new Promise<void>((resolve) => stop.addEventListener('abort', () => resolve(), { once: true }));
    logger.info('sim venue stopping');
  } finally {
    await server.stop();
    signals?.dispose();
  }
  return ExitCode.ok;
}

export const simCommand: Command = {
  name: 'sim',
  summary: 'serve the local simulated venue on 127.0.0.1 (market data, user data, quotes, relay, JSON-RPC)',
  usage: [
    'clobbot sim [--port <n>] [--config <file>] [--seed <n>] [--block-ms <n>]',
    '',
    `  --port <n>       port on 127.0.0.1; 0 picks a free port (default ${DEFAULT_SIM_PORT})`,
    `  --config <file>  the sim config (default ${DEFAULT_SIM_CONFIG})`,
    '  --seed <n>       seed of the simulation (background flow, faults); default: the config\'s flow seeds, unseeded faults',
    '  --block-ms <n>   a block every n ms, 10..60000 (default: the config\'s blockMs)',
    '',
    'Prints `clobbot sim listening on http://127.0.0.1:<port>` when ready; logs JSON lines to stderr',
    '(level from CLOBBOT_LOG_LEVEL, default info). SIGINT or SIGTERM stops it with exit 0.',
  ].join('\n'),
  run: (args, io) => runSim(args, io),
};
