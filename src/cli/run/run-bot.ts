/**
 * `clobbot run`: loads a run file and trades it until its duration ends, a signal, or a failure.
 *
 * Wiring (README, "Running a strategy"):
 * 1. The run file is validated (located errors), the network resolved (`--network` overrides;
 *    mainnet needs `allowMainnet: true` and `--allow-mainnet`), each strategy module loaded and its
 *    params checked with its own schema (located), the wallet's key loaded (never printed).
 * 2. The venue: on `sim` without `venueUrl` the local venue starts in-process on a free port with
 *    its background flow; the account is funded and set up (connect-sim-venue.ts). On testnet and
 *    mainnet the markets come whole from the run file and the wallet must already be set up: the
 *    RPC's chain, the exchange host's market info and the relay are checked (connect-network-venue.ts).
 * 3. One market feed per market over the HTTP market-data client (timed for the metrics), the relay
 *    session, the WebSocket + REST failover transport, the user-data and receipt readers, the
 *    execution engine.
 * 4. Each strategy gets its StrategyContext (its markets' specs, feeds, the engine's own state and
 *    fills, params, the live clock, a seeded random source, a child logger); its intents are
 *    checked and go to `engine.submit` (strategy-host.ts).
 * 5. Stop (duration, SIGINT/SIGTERM, every strategy completed, or a strategy failure): strategies
 *    are unsubscribed, `engine.stop({ cancelAll: true })` cancels the open orders and waits for their
 *    outcomes, the venue is asked whether any order is still open, feeds and transports stop, the
 *    in-process venue stops, and the summary is printed.
 *
 * Exit: 0 a clean run; 1 a strategy failed, orders were left open, or the venue failed; 2 (thrown
 * BaseErrors) a mistake in the input.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { filter, interval, Subscription, timer, type Observable } from 'rxjs';
import { BaseError } from '../../core/base-error.ts';
import { liveClock, type Clock } from '../../core/clock.ts';
import type { Decimal } from '../../core/decimal.ts';
import { createIdSource } from '../../core/ids.ts';
import { createLogger, type Logger } from '../../core/logger.ts';
import { seededRandom } from '../../core/random.ts';
import { scrubSecretText } from '../../core/secrets.ts';
import { configError, loadConfig } from '../../config/load-config.ts';
import { isNetworkName, type NetworkName } from '../../config/network-config.ts';
import { runConfigSchema, type RunConfig } from '../../config/run-config.ts';
import type { YamlSource } from '../../config/yaml-source.ts';
import type { Address } from '../../protocol/encoding.ts';
import { MARKET_DATA_WEIGHT_PER_MINUTE } from '../../protocol/constants.ts';
import { createActiveOrdersClient } from '../../clients/active-orders-client.ts';
import { createFetchTransport } from '../../clients/http-transport.ts';
import { createMarketDataClient } from '../../clients/market-data-client.ts';
import { createRelayWsClient } from '../../clients/relay-ws-client.ts';
import type { ClientContext } from '../../clients/send-request.ts';
import { createMarketFeed, type MarketFeed } from '../../market/create-market-feed.ts';
import { loadRunStrategies, type LoadedStrategy } from '../../strategy/load-strategy.ts';
import type { OwnFill, StrategyMarket } from '../../strategy/strategy-context.ts';
import { createExecutionEngine } from '../../execution/create-execution-engine.ts';
import type { EngineStats, ExecutionEngine } from '../../execution/execution-engine.ts';
import { createRelaySession } from '../../execution/relay-session.ts';
import { createFailoverTransport, createRestRelayTransport, createWsRelayTransport } from '../../execution/relay-transport.ts';
import { installKillSwitchSignals } from '../../execution/kill-switch.ts';
import { loadSigner } from '../../execution/signer-source.ts';
import type { CliIo, TextSink } from '../cli-io.ts';
import { ExitCode } from '../command.ts';
import { connectNetworkVenue } from './connect-network-venue.ts';
import { connectSimVenue } from './connect-sim-venue.ts';
import { runFileIssues } from './run-file-issues.ts';
import type { VenueConnection } from './venue-connection.ts';
import { runMetricFamilies } from './run-metrics.ts';
import { startMetricsServer, type MetricsServer } from './metrics-server.ts';
import { describeStop, formatRunSummary, formatSeconds, formatStatusLine, type StopReason } from './run-report.ts';
import { RunTracker } from './run-tracker.ts';
import { createStrategyHost, type StrategyHost } from './strategy-host.ts';
import { timeSource, type TimedSource } from './timed-source.ts';
import { createReceiptReader, createUserDataReader } from './venue-readers.ts';

export const DEFAULT_JOURNAL_DIR = '.clobbot/journal';
/** Status lines a minute: one every 20 s. */
export const DEFAULT_STATUS_EVERY_MS = 20_000;
/** A strategy silent this long (or half the run, if shorter) gets a warning. */
export const DEFAULT_IDLE_WARN_MS = 30_000;
/** Kill-switch triggers that are the user's own stop (the file, SIGUSR2 through engine.kill): exit 0. */
const USER_TRIGGERS = new Set(['file', 'command', 'signal']);
/** How long the stop waits for the outcomes of the final cancels. */
const STOP_TIMEOUT_MS = 30_000;

export interface RunBotOptions {
  readonly file: string;
  /** `--duration`, ms: replaces the file's duration. */
  readonly durationMs?: number;
  /** `--network`: replaces the file's network. */
  readonly network?: string;
  /** `--allow-mainnet`. */
  readonly allowMainnet?: boolean;
  /** Where the journal lives (default `.clobbot/journal`; an ephemeral wallet's goes to a temp dir removed afterwards). */
  readonly journalDir?: string;
  /** Seed of the strategies' random sources and the in-process venue's faults. Default: from the clock. */
  readonly seed?: number;
  /** Stops the run when aborted. Default: SIGINT or SIGTERM. */
  readonly stop?: AbortSignal;
  readonly statusEveryMs?: number;
  /** Working directory for strategy modules and key files. Default `process.cwd()`. */
  readonly cwd?: string;
  readonly clock?: Clock;
}

/** Writes pino's lines to a CLI sink. */
function sinkDestination(sink: TextSink): { write(line: string): void } {
  return { write: (line: string) => void sink.write(line) };
}

/** SIGINT/SIGTERM -> abort; a second signal says the stop is under way; a third quits at once. */
function processStopSignal(onRepeat: (count: number) => void): { signal: AbortSignal; dispose(): void; name(): string } {
  const controller = new AbortController();
  let count = 0;
  let first = 'SIGINT';
  const onSignal = (name: string) => {
    count += 1;
    if (count === 1) {
      first = name;
      controller.abort();
    } else {
      onRepeat(count);
      if (count >= 3) process.exit(130);
    }
  };
  const onInt = () => onSignal('SIGINT');
  const onTerm = () => onSignal('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return {
    signal: controller.signal,
    name: () => first,
    dispose() {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}

export interface LoadRunFileOptions {
  /** `--network`: replaces the file's network; the file is then checked for that network too. */
  readonly network?: string;
  /** `--allow-mainnet`. */
  readonly allowMainnet?: boolean;
}

/**
 * Validates the run file for the network traded (schema, `runFileIssues`), checks the mainnet
 * opt-ins, and loads its strategies; every problem located, thrown as a BaseError.
 */
export async function loadRunFile(
  file: string,
  env: Record<string, string | undefined>,
  cwd: string,
  options: LoadRunFileOptions = {},
): Promise<{ config: RunConfig; source: YamlSource; strategies: LoadedStrategy[]; network: NetworkName }> {
  const loaded = await loadConfig(file, runConfigSchema, { env });
  if (!loaded.ok) throw configError(file, loaded.issues);
  const { value: config, source } = loaded;
  const network = options.network ?? config.network;
  if (!isNetworkName(network)) {
    throw new BaseError('NETWORK_UNKNOWN', `unknown network ${JSON.stringify(network.slice(0, 40))}: expected one of mainnet, testnet, sim`, { details: {} });
  }
  if (network === 'mainnet' && (!config.allowMainnet || options.allowMainnet !== true)) {
    const missing = [config.allowMainnet ? undefined : `allowMainnet: true in ${file}`, options.allowMainnet === true ? undefined : '--allow-mainnet on the command line'];
    throw new BaseError('CLI_USAGE', `run: mainnet moves real money: it needs ${missing.filter(Boolean).join(' and ')}`, { details: { command: 'run' } });
  }
  const issues = runFileIssues(source, config, network);
  if (issues.length > 0) throw configError(file, issues, network === config.network ? undefined : `on network ${network} (--network)`);
  const strategies = await loadRunStrategies(source, config, { cwd });
  return { config, source, strategies, network };
}

interface FeedPlanTiming {
  readonly depthMs: number;
  readonly tradesMs: number;
  readonly tickerMs: number;
}

/** Poll periods that fit every market's feed in its share of the market-data weight budget. */
function feedTiming(blockMs: number | undefined, markets: number): { timing: FeedPlanTiming; budget: number } {
  const budget = Math.floor((MARKET_DATA_WEIGHT_PER_MINUTE * 0.9) / Math.max(1, markets));
  const tradesMs = 1_000;
  const tickerMs = 10_000;
  const fixed = 60_000 / tradesMs + 60_000 / tickerMs;
  const fastest = Math.min(1_000, Math.max(200, blockMs ?? 500));
  const depthMs = Math.max(fastest, Math.ceil(60_000 / Math.max(1, budget - fixed)));
  return { timing: { depthMs, tradesMs, tickerMs }, budget };
}

/** The strategy host's idle timeout of a run file's `idleTimeout`. */
function idleTimeoutOf(idleTimeout: number | 'off'): { readonly idleTimeoutMs?: number } {
  return idleTimeout === 'off' ? {} : { idleTimeoutMs: idleTimeout };
}

/**
 * Runs `clobbot run`; returns the exit code (input mistakes are thrown as BaseErrors).
 *
 * @example process.exitCode = await runBot(processIo(), { file: 'config/market-maker.yaml' });
 */
export async function runBot(io: CliIo, options: RunBotOptions): Promise<number> {
  const clock = options.clock ?? liveClock;
  const cwd = options.cwd ?? process.cwd();
  const out = (line = '') => io.stdout.write(`${line}\n`);

  // 1. The run file, the network, the strategies, the key.
  const { config, source, strategies, network: networkName } = await loadRunFile(options.file, io.env, cwd, {
    ...(options.network === undefined ? {} : { network: options.network }),
    ...(options.allowMainnet === undefined ? {} : { allowMainnet: options.allowMainnet }),
  });
  const durationMs = options.durationMs ?? config.duration;
  const logger = createLogger({ level: config.logging.level, pretty: config.logging.pretty ?? io.isTty, destination: sinkDestination(io.stderr), clock });
  const wallet = await loadSigner({ source: config.wallet, network: networkName, env: io.env, cwd });
  const seed = options.seed ?? clock.now() % 2 ** 31;
  const context: ClientContext = { transport: createFetchTransport(), clock, random: seededRandom(seed ^ 0x5eed) };
  const ids = createIdSource({ clock });

  const cleanups: (() => Promise<void> | void)[] = [];
  const runCleanups = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (error) {
        logger.warn({ err: error }, 'a cleanup step failed');
      }
    }
  };

  let signals: ReturnType<typeof processStopSignal> | undefined;
  try {
    // 2. The venue and the account.
    const venue: VenueConnection =
      networkName === 'sim'
        ? await connectSimVenue({ config, source, wallet, env: io.env, context, ids, logger, random: seededRandom(seed) })
        : await connectNetworkVenue({ config, source, network: networkName, wallet, context, ids, logger });
    cleanups.push(() => venue.stop());
    const { network, specs } = venue;
    const bySymbol = new Map(specs.map((spec) => [spec.symbol, spec]));

    out(
      `clobbot run ${options.file}: network ${network.name} (${venue.where}, chain ${network.chainId}), ` +
        `markets ${specs.map((spec) => spec.symbol).join(', ')}, ${durationMs === undefined ? 'until SIGINT' : `for ${formatSeconds(durationMs)}`}`,
    );
    out(`  wallet      ${wallet.address} from ${wallet.origin}; account ${venue.accountId}${venue.owner === wallet.address ? '' : ` of ${venue.owner}`}`);
    out(`  account     ${venue.setup}`);
    for (const strategy of strategies) out(`  strategy    ${strategy.name}: ${strategy.definition.name} (${strategy.module}) on ${strategy.markets.join(', ')}`);

    // 3. Feeds, relay, engine.
    const { timing, budget } = feedTiming(venue.blockMs, specs.length);
    const marketData: TimedSource = timeSource(createMarketDataClient(context, { baseUrl: network.hosts.exchangeUrl! }), clock);
    const feeds = new Map<Address, MarketFeed>();
    for (const spec of specs) {
      feeds.set(
        spec.address,
        createMarketFeed(
          marketData.source,
          {
            symbol: spec.symbol,
            market: spec,
            depth: { everyMs: timing.depthMs, limit: 100 },
            trades: { everyMs: timing.tradesMs, limit: 100 },
            ticker: { everyMs: timing.tickerMs },
          },
          clock,
          { logger, weightBudgetPerMinute: budget, random: seededRandom(seed ^ 0xfeed), jitter: 0.2 },
        ),
      );
    }

    const session = createRelaySession({ ...context, logger }, { network: network.name, relayUrl: network.hosts.relayUrl!, signer: wallet.account, logger: logger.child({ component: 'relay-session' }) });
    cleanups.push(() => session.stop());
    const wsClient = createRelayWsClient({ clock, random: seededRandom(seed ^ 0x7e1a), logger: logger.child({ component: 'relay-ws' }) }, { url: network.hosts.relayWsUrl!, session });
    const ws = createWsRelayTransport(wsClient);
    const rest = createRestRelayTransport({ ...context, logger }, { network: network.name, relayUrl: network.hosts.relayUrl!, rpcUrl: network.hosts.rpcUrl!, session });
    const transport = createFailoverTransport({ ws, rest, clock, restAfterMs: 2_000, logger: logger.child({ component: 'relay-transport' }) });
    cleanups.push(() => transport.stop());
    await session.start();

    let journalDir = resolve(cwd, options.journalDir ?? DEFAULT_JOURNAL_DIR);
    if (wallet.kind === 'ephemeral' && options.journalDir === undefined) {
      // A fresh key is never used again: its journal has nothing to restore.
      const temp = mkdtempSync(join(tmpdir(), 'clobbot-journal-'));
      journalDir = temp;
      cleanups.push(() => rmSync(temp, { recursive: true, force: true }));
    }

    const mids = new Map<Address, bigint>();
    const tracker = new RunTracker(specs);
    const engine: ExecutionEngine = createExecutionEngine(
      { clock, random: seededRandom(seed ^ 0xe9e), ids, logger: logger.child({ component: 'engine' }) },
      {
        network,
        signer: wallet.account,
        accountId: venue.accountId,
        authNonce: venue.authNonce,
        markets: specs,
        transport,
        userData: createUserDataReader(context, { userUrl: network.hosts.userUrl!, owner: venue.owner }),
        receipts: createReceiptReader(context, { rpcUrl: network.hosts.rpcUrl! }),
        journalDir,
        engine: config.engine,
        risk: config.risk,
        mid: (market) => mids.get(market),
      },
    );
    let engineStopped: EngineStats | undefined;
    cleanups.push(async () => {
      if (engineStopped === undefined) engineStopped = await engine.stop({ cancelAll: true, timeoutMs: STOP_TIMEOUT_MS });
    });
    const streams = new Subscription();
    cleanups.push(() => streams.unsubscribe());
    streams.add(tracker.attach(engine));
    await engine.start();

    // Mids for the engine's price band and the PnL; they also keep every market's depth polled.
    for (const [address, feed] of feeds) {
      streams.add(
        feed.mid$.subscribe((mid: Decimal) => {
          mids.set(address, BigInt(mid.toDecimalPlaces(0).toFixed()));
          tracker.onMid(address, mid);
        }),
      );
    }

    // 4. Strategies.
    const startedAt = clock.now();
    let resolveStop: (reason: StopReason) => void = () => undefined;
    const stopped = new Promise<StopReason>((resolvePromise) => (resolveStop = resolvePromise));
    let failure: BaseError | undefined;
    const idleWarnMs = Math.min(DEFAULT_IDLE_WARN_MS, durationMs === undefined ? DEFAULT_IDLE_WARN_MS : Math.max(1_000, Math.floor(durationMs / 2)));
    const hosts: StrategyHost[] = [];
    const idleTimeouts = new Map(config.strategies.map((entry) => [entry.name, entry.idleTimeout]));
    const allCompleted = () => hosts.every((host) => host.completed());
    for (const [index, strategy] of strategies.entries()) {
      const markets = new Map<string, StrategyMarket>();
      for (const symbol of strategy.markets) {
        const spec = bySymbol.get(symbol)!;
        const feed = feeds.get(spec.address)!;
        const fills$: Observable<OwnFill> = engine.fills$.pipe(filter((fill) => fill.market === spec.address));
        markets.set(symbol, {
          spec,
          feed: { book$: feed.book$, bbo$: feed.bbo$, mid$: feed.mid$, trades$: feed.trades$, ticker$: feed.ticker$, klines$: feed.klines$, health$: feed.health$ },
          state$: engine.state$(spec.address),
          fills$,
        });
      }
      hosts.push(
        createStrategyHost({
          strategy,
          markets,
          clock,
          random: seededRandom((seed + 7919 * (index + 1)) | 0),
          logger,
          submit: (intent) => engine.submit(intent),
          idleWarnMs,
          ...idleTimeoutOf(idleTimeouts.get(strategy.name) ?? 'off'),
          onFailure: (error) => {
            failure ??= error;
            resolveStop({ kind: 'failed', strategy: strategy.name, code: error.code });
          },
          onComplete: () => {
            if (allCompleted()) resolveStop({ kind: 'completed' });
          },
        }),
      );
    }
    cleanups.push(() => hosts.forEach((host) => host.stop()));

    // The kill switch places nothing more once tripped: the run stops (its fate says why).
    streams.add(
      engine.reports$.pipe(filter((report) => report.fate.status === 'REFUSED' && report.fate.code === 'RISK_KILL_SWITCH')).subscribe((report) => {
        const message = 'message' in report.fate ? report.fate.message : 'kill switch tripped';
        resolveStop({ kind: 'killed', trigger: /kill switch tripped \(([\w-]+)\)/.exec(message)?.[1] ?? 'unknown', message });
      }),
    );

    // Metrics.
    let metrics: MetricsServer | undefined;
    if (config.metrics !== undefined) {
      metrics = await startMetricsServer({
        port: config.metrics.port,
        logger,
        collect: () => runMetricFamilies({ markets: tracker.summary(), stats: engine.stats(), timings: marketData.timings, strategies: hosts }),
      });
      const server = metrics;
      cleanups.push(() => server.close());
      out(`  metrics     ${metrics.url}`);
    }

    // Stop triggers.
    if (options.stop === undefined) {
      signals = processStopSignal((count) =>
        logger.warn(count >= 3 ? 'quitting at once: open orders may be left' : 'already stopping: cancelling orders and waiting for their outcomes (a third signal quits at once)'),
      );
      // SIGUSR2 trips the kill switch: every order is cancelled and nothing more placed; the run then stops.
      cleanups.push(installKillSwitchSignals({ trip: (reason) => (engine.kill(reason), true) }));
    }
    const stopSignal = options.stop ?? signals!.signal;
    const onAbort = () => resolveStop({ kind: 'signal', signal: signals?.name() });
    if (stopSignal.aborted) onAbort();
    else stopSignal.addEventListener('abort', onAbort, { once: true });
    cleanups.push(() => stopSignal.removeEventListener('abort', onAbort));
    if (durationMs !== undefined) streams.add(timer(durationMs, clock.scheduler).subscribe(() => resolveStop({ kind: 'duration', ms: durationMs })));

    // Status a few times a minute: plain text on a terminal, a JSON log record otherwise.
    const statusEveryMs = options.statusEveryMs ?? DEFAULT_STATUS_EVERY_MS;
    streams.add(
      interval(statusEveryMs, clock.scheduler).subscribe(() => {
        const markets = tracker.summary();
        if (io.isTty) out(formatStatusLine(clock.now(), clock.now() - startedAt, markets, engine.stats()));
        else logger.info({ elapsedMs: clock.now() - startedAt, markets, engine: engine.stats() }, 'status');
      }),
    );

    out(`  running     ${options.stop === undefined ? 'Ctrl-C stops: open orders are cancelled first' : 'until stopped'}`);
    for (const host of hosts) {
      host.start();
      if (failure !== undefined) break;
    }

    const reason = await stopped;
    const elapsedMs = clock.now() - startedAt;
    // A strategy that had the whole run and emitted nothing is as broken as one that timed out idle.
    if (reason.kind === 'duration' && failure === undefined) {
      for (const host of hosts) if (idleTimeouts.get(host.name) !== 'off') failure ??= host.idleError(elapsedMs);
    }
    logger.info({ reason: describeStop(reason) }, 'stopping: cancelling open orders');

    // 5. Stop.
    for (const host of hosts) host.stop();
    engineStopped = await engine.stop({ cancelAll: true, timeoutMs: STOP_TIMEOUT_MS });
    const leftOpen = await openOrdersAfterStop(context, venue, logger);
    streams.unsubscribe();
    const summary = formatRunSummary({
      elapsedMs,
      reason,
      markets: tracker.summary(),
      leftOpen,
      stats: engineStopped,
      strategies: hosts.map((host) => ({ name: host.name, tally: host.tally, completed: host.completed(), failed: host.failure()?.code })),
    });
    await runCleanups();
    out();
    out(summary.trimEnd());
    const left = leftOpen === undefined ? 0 : [...leftOpen.values()].reduce((sum, count) => sum + count, 0);
    if (failure !== undefined) {
      io.stderr.write(`error ${failure.code}: ${scrubSecretText(failure.message)}\n`);
      return ExitCode.failure;
    }
    if (reason.kind === 'killed' && !USER_TRIGGERS.has(reason.trigger)) {
      io.stderr.write(`error RISK_KILL_SWITCH: ${scrubSecretText(reason.message)}\n`);
      return ExitCode.failure;
    }
    if (left > 0) {
      const error = new BaseError('RUN_ORDERS_LEFT_OPEN', `${left} ${left === 1 ? 'order is' : 'orders are'} still open on the venue after the stop: check them with clobbot account status --config ${options.file}`);
      io.stderr.write(`error ${error.code}: ${error.message}\n`);
      return ExitCode.failure;
    }
    return ExitCode.ok;
  } catch (error) {
    await runCleanups();
    throw error;
  } finally {
    signals?.dispose();
  }
}

/** Open orders the venue still lists for the account, per market (undefined when it cannot tell). */
async function openOrdersAfterStop(context: ClientContext, venue: VenueConnection, logger: Logger): Promise<Map<string, number> | undefined> {
  const client = createActiveOrdersClient(context, { baseUrl: venue.network.hosts.userUrl! });
  const left = new Map<string, number>();
  try {
    for (const spec of venue.specs) {
      const { orders } = await client.activeOrders({ user: venue.owner, marketAddress: spec.address, limit: 100 });
      left.set(spec.symbol, orders.length);
    }
    return left;
  } catch (error) {
    logger.warn({ err: error }, 'could not ask the venue for open orders after the stop');
    return undefined;
  }
}
