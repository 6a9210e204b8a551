/**
 * `clobbot record`: records one market's data through the same market feed a live run uses (the
 * same polls, periods and weight budget), exactly as received, into a raw recording
 * (docs/feeds.md). The venue:
 * - `--virtual`: the in-process venue on the virtual clock (a simulated hour in seconds);
 * - a run file on sim without venueUrl: the local venue, started in this process on loopback;
 * - sim with venueUrl, or `--network sim` alone: a running `clobbot sim`;
 * - testnet or mainnet: the network's exchange host; the run file gives the market whole.
 * Nothing is signed and no wallet is needed.
 */
import { resolve } from 'node:path';
import { Subscription, interval, timer } from 'rxjs';
import { BaseError } from '../../core/base-error.ts';
import { liveClock, type Clock } from '../../core/clock.ts';
import { createLogger, type Logger } from '../../core/logger.ts';
import { seededRandom } from '../../core/random.ts';
import { VirtualClock } from '../../core/virtual-clock.ts';
import { configError, loadConfig, loadConfigOrThrow } from '../../config/load-config.ts';
import { DEFAULT_SIM_URL, isNetworkName, resolveNetwork, type NetworkName } from '../../config/network-config.ts';
import { runConfigSchema, runMarketSymbol, type RunConfig } from '../../config/run-config.ts';
import { simConfigSchema, type SimConfig } from '../../config/sim-config.ts';
import { DEFAULT_VIRTUAL_LATENCY, DEFAULT_VIRTUAL_START_MS } from '../../config/virtual-config.ts';
import { createFetchTransport, type HttpTransport } from '../../clients/http-transport.ts';
import { createMarketDataClient } from '../../clients/market-data-client.ts';
import { createMarketSpec, type MarketSpec } from '../../protocol/market-spec.ts';
import { createMarketFeed } from '../../market/create-market-feed.ts';
import { tapMarketData } from '../../feeds/market-data-tap.ts';
import { createSimServer } from '../../sim/sim-server.ts';
import { cryptoRandom } from '../../sim/sim-service.ts';
import { createInProcessVenue } from '../../runtime/in-process-venue.ts';
import { feedTiming, marketFeedPlanOf } from '../../runtime/market-feed-timing.ts';
import { createMarketRecording } from '../../runtime/market-recording.ts';
import { createPendingWork, type PendingWork } from '../../runtime/pending-work.ts';
import { getSimInfo, marketSpecsOf } from '../../runtime/sim-account.ts';
import { runOnVirtualClock } from '../../runtime/virtual-driver.ts';
import type { CliIo } from '../cli-io.ts';
import { ExitCode } from '../command.ts';
import { processStopSignal } from '../process-stop-signal.ts';
import { DEFAULT_SIM_CONFIG } from '../run/default-sim-config.ts';
import { formatSeconds } from '../../runtime/stop-reason.ts';

export interface RecordOptions {
  /** A run file: its network, venue, sim config and (testnet, mainnet) its markets given whole. */
  readonly file?: string;
  readonly network?: string;
  readonly symbol: string;
  readonly durationMs?: number;
  readonly out: string;
  readonly virtual?: boolean;
  readonly seed?: number;
  readonly cwd?: string;
  /** Stops the recording when aborted. Default: SIGINT or SIGTERM. */
  readonly stop?: AbortSignal;
  /** Progress line period on a terminal, ms (default 1 s). */
  readonly progressEveryMs?: number;
}

const usageError = (message: string) => new BaseError('CLI_USAGE', `record: ${message}`, { details: { command: 'record' } });

/** The venue to record from: its exchange host, the market and what to stop afterwards. */
interface RecordSource {
  readonly network: string;
  readonly exchangeUrl: string;
  readonly transport: HttpTransport;
  readonly spec: MarketSpec;
  readonly blockMs: number | undefined;
  readonly where: string;
  stop(): Promise<void>;
}

async function openSource(options: RecordOptions, context: SessionContext): Promise<RecordSource> {
  const { config, network, clock, logger, pending, sim, simFile } = context;
  const seed = options.seed ?? 1;
  if (network !== 'sim') {
    const resolved = resolveNetwork(network);
    const market = config?.markets.find((entry) => runMarketSymbol(entry) === options.symbol);
    if (market === undefined || typeof market === 'string') throw usageError(`on ${network}, --symbol ${options.symbol} must be a market given whole in the run file`);
    return { network, exchangeUrl: resolved.hosts.exchangeUrl!, transport: createFetchTransport(), spec: createMarketSpec(market), blockMs: undefined, where: resolved.hosts.exchangeUrl!, stop: async () => undefined };
  }
  const ownVenue = sim !== undefined;
  let venueUrl = config?.venueUrl ?? DEFAULT_SIM_URL;
  let transport: HttpTransport = createFetchTransport();
  let stop = async () => undefined as void;
  let where = `venue ${venueUrl}`;
  if (ownVenue) {
    const venueLogger = logger.child({ component: 'sim' }, { level: 'warn' });
    if (options.virtual === true) {
      const venue = createInProcessVenue({
        config: sim,
        clock,
        random: seededRandom(seed),
        secrets: seededRandom(seed ^ 0x5ec),
        latencyRandom: seededRandom(seed ^ 0x1a7),
        latency: config?.virtual.latency ?? DEFAULT_VIRTUAL_LATENCY,
        logger: venueLogger,
        pending,
        seed,
      });
      venue.start();
      venueUrl = venue.url;
      transport = venue.transport;
      stop = async () => venue.stop();
      where = `in-process venue of ${simFile}, no network`;
    } else {
      const server = createSimServer({ config: sim, clock, random: seededRandom(seed), secrets: cryptoRandom(), logger: venueLogger, backgroundFlow: true });
      venueUrl = (await server.start({ port: 0 })).url.replace(/\/+$/, '');
      stop = () => server.stop();
      where = `local venue of ${simFile} at ${venueUrl}`;
    }
  }
  try {
    const info = await getSimInfo({ transport, clock, random: seededRandom(seed ^ 0x5eed) }, venueUrl);
    const { specs } = marketSpecsOf(info, [options.symbol]);
    if (specs.length === 0) throw usageError(`${options.symbol} is not a market of the venue (it lists ${info.markets.map((market) => market.symbol).join(', ') || 'none'})`);
    return { network: 'sim', exchangeUrl: venueUrl, transport, spec: specs[0]!, blockMs: info.blockMs, where, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * @example process.exitCode = await recordMarket(processIo(), { symbol: 'MON_USDC', out: 'recordings', virtual: true, durationMs: 3_600_000 });
 */
export async function recordMarket(io: CliIo, options: RecordOptions): Promise<number> {
  const cwd = options.cwd ?? process.cwd();
  let config: RunConfig | undefined;
  if (options.file !== undefined) {
    const loaded = await loadConfig(resolve(cwd, options.file), runConfigSchema, { env: io.env });
    if (!loaded.ok) throw configError(options.file, loaded.issues);
    config = loaded.value;
  }
  const network = options.network ?? config?.network ?? 'sim';
  if (!isNetworkName(network)) throw new BaseError('NETWORK_UNKNOWN', `unknown network ${JSON.stringify(network.slice(0, 40))}: expected one of mainnet, testnet, sim`, { details: {} });
  if (options.virtual === true) {
    if (network !== 'sim') throw usageError('--virtual records the in-process venue: network sim only');
    if (options.durationMs === undefined) throw usageError('--virtual needs --duration (virtual time never reaches a signal)');
  }
  if (network !== 'sim' && config === undefined) throw usageError(`recording ${network} needs a run file that gives the market whole`);
  const clock = options.virtual === true ? new VirtualClock(config?.virtual.start ?? DEFAULT_VIRTUAL_START_MS) : liveClock;
  const logger = createLogger({ level: config?.logging.level ?? 'warn', destination: { write: (line: string) => void io.stderr.write(line) }, clock });
  const pending = createPendingWork();
  const out = resolve(cwd, options.out);
  // Every file is read before the clock starts (a virtual clock cannot wait for the disk).
  const simFile = config?.simConfig ?? DEFAULT_SIM_CONFIG;
  const ownVenue = network === 'sim' && (options.virtual === true || (config !== undefined && config.venueUrl === undefined));
  const sim = ownVenue ? await loadConfigOrThrow(resolve(cwd, simFile), simConfigSchema, { env: io.env }) : undefined;
  const session = () => recordSession(io, options, { config, network, clock, logger, pending, out, sim, simFile });
  if (!(clock instanceof VirtualClock)) return session();
  const wallStart = liveClock.now();
  const code = await runOnVirtualClock(clock, session, { busy: pending.busy });
  const simulatedMs = clock.now() - (config?.virtual.start ?? DEFAULT_VIRTUAL_START_MS);
  io.stdout.write(`virtual recording: ${formatSeconds(simulatedMs)} of venue time in ${formatSeconds(Math.max(1, liveClock.now() - wallStart))} of wall time\n`);
  return code;
}

interface SessionContext {
  readonly config: RunConfig | undefined;
  readonly network: NetworkName;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly pending: PendingWork;
  readonly out: string;
  /** The sim config of a venue this command runs itself (undefined: it records a running venue). */
  readonly sim: SimConfig | undefined;
  readonly simFile: string;
}

async function recordSession(io: CliIo, options: RecordOptions, context: SessionContext): Promise<number> {
  const { clock, logger, out } = context;
  const source = await openSource(options, context);
  const streams = new Subscription();
  try {
    const timing = feedTiming(source.blockMs, 1);
    const recording = createMarketRecording({ dir: out, network: source.network, exchangeUrl: source.exchangeUrl, specs: [source.spec], timing, own: false, transport: source.transport, clock });
    await recording.open();
    const writer = recording.writers.get(source.spec.symbol)!;
    const transport = tapMarketData(source.transport, recording.recorderOf, clock);
    const client = createMarketDataClient({ transport, clock, random: seededRandom((options.seed ?? 1) ^ 0x5eed) }, { baseUrl: source.exchangeUrl });
    const feed = createMarketFeed(client, marketFeedPlanOf(source.spec, timing), clock, { logger, weightBudgetPerMinute: timing.budget });
    io.stdout.write(
      `clobbot record: ${source.spec.symbol} on ${source.network} (${source.where}), ${options.durationMs === undefined ? 'until SIGINT' : `for ${formatSeconds(options.durationMs)}`}\n` +
        `  depth every ${timing.depthMs} ms, trades every ${timing.tradesMs} ms, ticker every ${timing.tickerMs} ms\n  recording   ${writer.path}\n`,
    );
    const startedAt = clock.now();
    let reason = 'signal';
    const stopped = new Promise<void>((done) => {
      const finish = (why: string) => {
        reason = why;
        done();
      };
      if (options.durationMs !== undefined) streams.add(timer(options.durationMs, clock.scheduler).subscribe(() => finish('duration')));
      let signal = options.stop;
      if (signal === undefined) {
        const stop = processStopSignal();
        streams.add(() => stop.dispose());
        signal = stop.signal;
      }
      if (signal.aborted) finish('signal');
      else signal.addEventListener('abort', () => finish('signal'), { once: true });
    });
    streams.add(feed.book$.subscribe());
    streams.add(feed.trades$.subscribe());
    streams.add(feed.ticker$.subscribe());
    const progress = () => `elapsed ${formatSeconds(clock.now() - startedAt)}  records ${writer.records.toLocaleString('en-US')}  size ${formatBytes(writer.bytes)}  gaps ${writer.gaps}`;
    if (io.isTty && !(clock instanceof VirtualClock)) streams.add(interval(options.progressEveryMs ?? 1_000, clock.scheduler).subscribe(() => io.stdout.write(`\r  ${progress()}   `)));
    await stopped;
    streams.unsubscribe();
    recording.close(reason);
    io.stdout.write(`${io.isTty && !(clock instanceof VirtualClock) ? '\n' : ''}recorded ${writer.path}: ${progress()} (${reason})\n`);
    return ExitCode.ok;
  } finally {
    streams.unsubscribe();
    await source.stop();
  }
}

function formatBytes(bytes: number): string {
  if (bytes < 1_000_000) return `${(bytes / 1_000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
