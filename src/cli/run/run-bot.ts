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
 * 3. and 4. The composition root (src/runtime/trading-runtime.ts) builds the feeds, the relay session
 *    and transports, the user-data and receipt readers, the execution engine and one strategy host
 *    per strategy from the venue connection and the clock.
 * 5. Stop (duration, SIGINT/SIGTERM, every strategy completed, or a strategy failure): strategies
 *    are unsubscribed, `engine.stop({ cancelAll: true })` cancels the open orders and waits for their
 *    outcomes, the venue is asked whether any order is still open, feeds and transports stop, the
 *    in-process venue stops, and the summary is printed.
 *
 * With `--virtual` the same run goes against the in-process venue (no network) on a VirtualClock
 * driven from event to event (src/runtime/virtual-driver.ts): same code, same summary, no waiting.
 * Everything that reads a file or the network outside the venue happens before the clock starts.
 *
 * The journal's lock is taken before the venue is touched: a second bot on the wallet is refused
 * (JOURNAL_LOCKED) before it signs in or opens a relay connection.
 *
 * Exit: 0 a clean run; 1 a strategy failed, orders were left open (RUN_ORDERS_LEFT_OPEN) or could not
 * be checked after the stop (RUN_OPEN_ORDERS_UNKNOWN), completed strategies' intents were dropped
 * (RUN_INTENTS_DROPPED), or the venue failed; 2 (thrown BaseErrors) a mistake in the input.
 *
 * Why one file of this size: the steps above are one sequence whose order is the point (nothing on
 * the network before the checks, the lock before the venue, the summary after the stop); each step's
 * work is in its own module, and this file only orders them and maps their failures to exit codes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { interval, Subscription, timer } from 'rxjs';
import { BaseError } from '../../core/base-error.ts';
import { liveClock, type Clock } from '../../core/clock.ts';
import { createIdSource } from '../../core/ids.ts';
import { createLogger, type Logger } from '../../core/logger.ts';
import { seededRandom } from '../../core/random.ts';
import { scrubSecretText } from '../../core/secrets.ts';
import { VirtualClock } from '../../core/virtual-clock.ts';
import { configError, loadConfig, loadConfigOrThrow } from '../../config/load-config.ts';
import { isNetworkName, type NetworkName } from '../../config/network-config.ts';
import { runConfigSchema, type RunConfig } from '../../config/run-config.ts';
import { simConfigSchema, type SimConfig } from '../../config/sim-config.ts';
import type { YamlSource } from '../../config/yaml-source.ts';
import { createFetchTransport } from '../../clients/http-transport.ts';
import type { ClientContext } from '../../clients/send-request.ts';
import { loadRunStrategies, type LoadedStrategy } from '../../strategy/load-strategy.ts';
import { installKillSwitchSignals } from '../../execution/kill-switch.ts';
import { loadSigner, type WalletSigner } from '../../execution/signer-source.ts';
import { createTradingRuntime, type StopReason } from '../../runtime/trading-runtime.ts';
import type { VenueConnection } from '../../runtime/venue-connection.ts';
import { createPendingWork, type PendingWork } from '../../runtime/pending-work.ts';
import { runOnVirtualClock } from '../../runtime/virtual-driver.ts';
import type { CliIo, TextSink } from '../cli-io.ts';
import { ExitCode } from '../command.ts';
import { connectNetworkVenue } from './connect-network-venue.ts';
import { connectSimVenue } from './connect-sim-venue.ts';
import { DEFAULT_SIM_CONFIG } from './default-sim-config.ts';
import { leftoverKillFile, runFileIssues } from './run-file-issues.ts';
import { createRunMetrics } from './run-metrics.ts';
import { startMetricsServer } from './metrics-server.ts';
import { describeStop, formatSeconds } from '../../runtime/stop-reason.ts';
import { describeMayBeOpen, formatRunSummary, formatStatusLine } from './run-report.ts';
import { runSummaryJson } from './run-summary-json.ts';
import { refuseEarlierJournal, virtualJournalFs, virtualRunProblem } from './virtual-run-rules.ts';
import { nodeJournalFs } from '../../execution/journal.ts';
import { lockRunJournal } from '../../runtime/run-journal-lock.ts';

export const DEFAULT_JOURNAL_DIR = '.clobbot/journal';
/** Status lines a minute: one every 20 s. */
export const DEFAULT_STATUS_EVERY_MS = 20_000;
/** A strategy silent this long (or half the run, if shorter) gets a warning. */
export const DEFAULT_IDLE_WARN_MS = 30_000;
/** Kill-switch triggers that are the user's own stop (the file, SIGUSR2 through engine.kill): exit 0. */
const USER_TRIGGERS = new Set(['file', 'command', 'signal']);
/** The seed of a virtual run without `--seed`: fixed, so a virtual run repeats by default. */
export const DEFAULT_VIRTUAL_SEED = 1;

export interface RunBotOptions {
  readonly file: string;
  /** `--duration`, ms: replaces the file's duration. */
  readonly durationMs?: number;
  /** `--network`: replaces the file's network. */
  readonly network?: string;
  /** `--allow-mainnet`. */
  readonly allowMainnet?: boolean;
  /** Where the journal lives (default `.clobbot/journal`; an ephemeral wallet's, or a virtual run's, goes to a temp dir removed afterwards). */
  readonly journalDir?: string;
  /** Seed of the strategies' random sources and the in-process venue's faults. Default: from the clock. */
  readonly seed?: number;
  /** Stops the run when aborted. Default: SIGINT or SIGTERM. */
  readonly stop?: AbortSignal;
  readonly statusEveryMs?: number;
  /** Working directory for strategy modules and key files. Default `process.cwd()`. */
  readonly cwd?: string;
  /** The clock of a live run. Default the wall clock. */
  readonly clock?: Clock;
  /** `--virtual`: against the in-process venue on virtual time. */
  readonly virtual?: boolean;
  /** `--summary`: also write the summary as JSON to this file. */
  readonly summaryFile?: string;
  /** `--record`: raw recordings of every market (and the bot's own orders) go to this directory. */
  readonly recordDir?: string;
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

/** Everything a run has read from files before its clock starts. */
interface PreparedRun {
  readonly config: RunConfig;
  readonly source: YamlSource;
  readonly strategies: LoadedStrategy[];
  readonly network: NetworkName;
  readonly durationMs: number | undefined;
  readonly wallet: WalletSigner;
  readonly seed: number;
  readonly logger: Logger;
  /** The in-process venue's config of a virtual run, and the count of its work under way. */
  readonly virtual: { readonly sim: SimConfig; readonly pending: PendingWork } | undefined;
}

/**
 * Runs `clobbot run`; returns the exit code (input mistakes are thrown as BaseErrors).
 *
 * @example process.exitCode = await runBot(processIo(), { file: 'config/market-maker.yaml' });
 */
export async function runBot(io: CliIo, options: RunBotOptions): Promise<number> {
  const cwd = options.cwd ?? process.cwd();
  const virtual = options.virtual === true;

  // 1. The run file, the network, the strategies, the key: every file is read before the clock starts.
  const { config, source, strategies, network } = await loadRunFile(options.file, io.env, cwd, {
    ...(options.network === undefined ? {} : { network: options.network }),
    ...(options.allowMainnet === undefined ? {} : { allowMainnet: options.allowMainnet }),
  });
  // A kill-switch file left by an earlier stop: refused at once (exit 1), never a silent run that places nothing.
  const killFile = leftoverKillFile(source, config, cwd);
  if (killFile !== undefined) {
    io.stderr.write(`error ${killFile.code}: ${scrubSecretText(killFile.message)}\n`);
    return ExitCode.failure;
  }
  const durationMs = options.durationMs ?? config.duration;
  const clock = virtual ? new VirtualClock(config.virtual.start) : (options.clock ?? liveClock);
  if (virtual) {
    const problem = virtualRunProblem(config, network, durationMs);
    if (problem !== undefined) throw new BaseError('CLI_USAGE', `run: ${problem}`, { details: { command: 'run' } });
  }
  const seed = options.seed ?? (virtual ? DEFAULT_VIRTUAL_SEED : clock.now() % 2 ** 31);
  const logger = createLogger({ level: config.logging.level, pretty: config.logging.pretty ?? io.isTty, destination: sinkDestination(io.stderr), clock });
  const wallet = await loadSigner({ source: config.wallet, network, env: io.env, cwd, ...(virtual ? { random: seededRandom(seed ^ 0x4e7) } : {}) });
  if (virtual && options.journalDir !== undefined) refuseEarlierJournal(resolve(cwd, options.journalDir), wallet.address);
  const sim = virtual ? await loadConfigOrThrow(config.simConfig ?? DEFAULT_SIM_CONFIG, simConfigSchema, { env: io.env }) : undefined;
  const pending = createPendingWork();
  const prepared: PreparedRun = { config, source, strategies, network, durationMs, wallet, seed, logger, virtual: sim === undefined ? undefined : { sim, pending } };

  if (!(clock instanceof VirtualClock)) return runSession(io, options, prepared, clock);
  const wallStart = liveClock.now();
  const exitCode = await runOnVirtualClock(clock, () => runSession(io, options, prepared, clock), { busy: pending.busy });
  const wallMs = Math.max(1, liveClock.now() - wallStart);
  const simulatedMs = clock.now() - config.virtual.start;
  io.stdout.write(
    `virtual run: ${formatSeconds(simulatedMs)} of venue time in ${formatSeconds(wallMs)} of wall time ` +
      `(${Math.round(simulatedMs / wallMs).toLocaleString('en-US')}x real time), seed ${seed}, start ${new Date(config.virtual.start).toISOString()}\n`,
  );
  return exitCode;
}

/** The run itself, on `clock`: venue, runtime, stop triggers, stop, summary. */
async function runSession(io: CliIo, options: RunBotOptions, prepared: PreparedRun, clock: Clock): Promise<number> {
  const { config, source, strategies, network: networkName, durationMs, wallet, seed, logger } = prepared;
  const virtual = prepared.virtual !== undefined;
  const cwd = options.cwd ?? process.cwd();
  const out = (line = '') => io.stdout.write(`${line}\n`);
  const context: ClientContext = { transport: createFetchTransport(), clock, random: seededRandom(seed ^ 0x5eed) };
  const ids = createIdSource(virtual ? { clock, random: seededRandom(seed ^ 0x1d5) } : { clock });

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
    // The journal's lock, before anything touches the venue: a second bot on this wallet is refused
    // before it funds, signs in or opens a relay connection (which would replace the running bot's).
    let journalDir = resolve(cwd, options.journalDir ?? DEFAULT_JOURNAL_DIR);
    if ((wallet.kind === 'ephemeral' || virtual) && options.journalDir === undefined) {
      // A fresh key is never used again, and a virtual run never restores a journal: nothing to keep.
      const temp = mkdtempSync(join(tmpdir(), 'clobbot-journal-'));
      journalDir = temp;
      cleanups.push(() => rmSync(temp, { recursive: true, force: true }));
    }
    const journalLock = lockRunJournal({ fs: virtual ? virtualJournalFs : nodeJournalFs, now: () => clock.now() }, { dir: journalDir, network: networkName, wallet: wallet.address });
    cleanups.push(() => journalLock.release());

    // 2. The venue and the account.
    const venue: VenueConnection =
      networkName === 'sim'
        ? await connectSimVenue({
            config,
            source,
            wallet,
            env: io.env,
            context,
            ids,
            logger,
            random: seededRandom(seed),
            ...(prepared.virtual === undefined
              ? {}
              : {
                  simConfig: prepared.virtual.sim,
                  inProcess: { latency: config.virtual.latency, secrets: seededRandom(seed ^ 0x5ec), latencyRandom: seededRandom(seed ^ 0x1a7), pending: prepared.virtual.pending, seed, faults: config.virtual.faults },
                }),
          })
        : await connectNetworkVenue({ config, source, network: networkName, wallet, context, ids, logger });
    cleanups.push(() => venue.stop());
    const { network, specs } = venue;

    out(
      `clobbot run ${options.file}: network ${network.name} (${venue.where}, chain ${network.chainId}), ` +
        `markets ${specs.map((spec) => spec.symbol).join(', ')}, ${durationMs === undefined ? 'until SIGINT' : `for ${formatSeconds(durationMs)}`}${virtual ? ' of virtual time' : ''}`,
    );
    out(`  wallet      ${wallet.address} from ${wallet.origin}; account ${venue.accountId}${venue.owner === wallet.address ? '' : ` of ${venue.owner}`}`);
    out(`  account     ${venue.setup}`);
    for (const strategy of strategies) out(`  strategy    ${strategy.name}: ${strategy.definition.name} (${strategy.module}) on ${strategy.markets.join(', ')}`);

    // 3. and 4. Feeds, relay, engine, strategies.
    const idleWarnMs = Math.min(DEFAULT_IDLE_WARN_MS, durationMs === undefined ? DEFAULT_IDLE_WARN_MS : Math.max(1_000, Math.floor(durationMs / 2)));
    // Metrics (live only: a virtual run's figures change faster than anything could scrape them).
    // Made before the runtime, whose polls and intents feed its histograms.
    const metricsPort = virtual ? undefined : config.metrics?.port;
    const runMetrics = metricsPort === undefined ? undefined : createRunMetrics();
    const runtime = createTradingRuntime({
      venue,
      clock,
      config,
      strategies,
      wallet,
      seed,
      ids,
      logger,
      journalDir,
      ...(virtual ? { journalFs: virtualJournalFs } : {}),
      idleWarnMs,
      ...(options.recordDir === undefined ? {} : { recordDir: resolve(cwd, options.recordDir) }),
      ...(runMetrics === undefined ? {} : { onPollTimed: runMetrics.observePoll, onIntentSettled: runMetrics.observeIntent }),
    });
    let stopped: Awaited<ReturnType<typeof runtime.stop>> | undefined;
    cleanups.push(async () => {
      stopped ??= await runtime.stop();
    });
    const streams = new Subscription();
    cleanups.push(() => streams.unsubscribe());

    if (metricsPort !== undefined && runMetrics !== undefined) {
      runMetrics.follow(() => ({ markets: runtime.tracker.summary(), stats: runtime.engine.stats(), timings: runtime.marketData.timings, strategies: runtime.hosts }));
      const metrics = await startMetricsServer({ port: metricsPort, logger, registry: runMetrics.registry });
      cleanups.push(() => metrics.close());
      out(`  metrics     ${metrics.url}`);
    }

    // Stop triggers.
    if (options.stop === undefined) {
      signals = processStopSignal((count) =>
        logger.warn(count >= 3 ? 'quitting at once: open orders may be left' : 'already stopping: cancelling orders and waiting for their outcomes (a third signal quits at once)'),
      );
      // SIGUSR2 trips the kill switch: every order is cancelled and nothing more placed; the run then stops.
      cleanups.push(installKillSwitchSignals({ trip: (reason) => (runtime.engine.kill(reason), true) }));
    }
    const stopSignal = options.stop ?? signals!.signal;
    const onAbort = () => runtime.requestStop({ kind: 'signal', signal: signals?.name() });
    if (stopSignal.aborted) onAbort();
    else stopSignal.addEventListener('abort', onAbort, { once: true });
    cleanups.push(() => stopSignal.removeEventListener('abort', onAbort));

    await runtime.start();
    const startedAt = clock.now();
    if (durationMs !== undefined) streams.add(timer(durationMs, clock.scheduler).subscribe(() => runtime.requestStop({ kind: 'duration', ms: durationMs })));
    // Status a few times a minute on a live run: plain text on a terminal, a JSON log record otherwise.
    if (!virtual) {
      const statusEveryMs = options.statusEveryMs ?? DEFAULT_STATUS_EVERY_MS;
      streams.add(
        interval(statusEveryMs, clock.scheduler).subscribe(() => {
          const markets = runtime.tracker.summary();
          if (io.isTty) out(formatStatusLine(clock.now(), clock.now() - startedAt, markets, runtime.engine.stats()));
          else logger.info({ elapsedMs: clock.now() - startedAt, markets, engine: runtime.engine.stats() }, 'status');
        }),
      );
    }
    for (const writer of runtime.recording?.writers.values() ?? []) out(`  recording   ${writer.path}`);
    out(`  running     ${virtual ? 'on virtual time' : options.stop === undefined ? 'Ctrl-C stops: open orders are cancelled first' : 'until stopped'}`);

    const reason: StopReason = await runtime.stopRequested;
    const elapsedMs = clock.now() - startedAt;
    let failure = runtime.failure();
    // A strategy that had the whole run and emitted nothing is as broken as one that timed out idle.
    if (reason.kind === 'duration' && failure === undefined) {
      const idleTimeouts = new Map(config.strategies.map((entry) => [entry.name, entry.idleTimeout]));
      for (const host of runtime.hosts) if (idleTimeouts.get(host.name) !== 'off') failure ??= host.idleError(elapsedMs);
    }
    logger.info({ reason: describeStop(reason) }, 'stopping: cancelling open orders');

    // 5. Stop.
    stopped = await runtime.stop();
    const { stats, leftOpen, openCheck, drain, dropped } = stopped;
    const report = {
      elapsedMs,
      reason,
      markets: runtime.tracker.summary(),
      leftOpen,
      openCheck,
      stats,
      strategies: runtime.hosts.map((host) => ({ name: host.name, tally: host.tally, completed: host.completed(), failed: host.failure()?.code, figures: host.figures() })),
      marketData: runtime.marketData.timings,
    };
    await runCleanups();
    out();
    out(formatRunSummary(report).trimEnd());
    for (const writer of runtime.recording?.writers.values() ?? []) out(`recorded ${writer.path}: ${writer.records.toLocaleString('en-US')} records, ${writer.bytes.toLocaleString('en-US')} bytes`);
    if (options.summaryFile !== undefined) writeFileSync(resolve(cwd, options.summaryFile), `${JSON.stringify(runSummaryJson(report), null, 2)}\n`);
    const left = leftOpen === undefined ? 0 : [...leftOpen.values()].reduce((sum, count) => sum + count, 0);
    if (openCheck.status === 'failed') {
      // A run that cannot prove its orders are closed did not end cleanly.
      const error = new BaseError(
        'RUN_OPEN_ORDERS_UNKNOWN',
        `the venue could not be asked whether orders are still open after the stop (${openCheck.reason}); ${describeMayBeOpen(openCheck.mayBeOpen)}: check with clobbot account status --config ${options.file}`,
      );
      io.stderr.write(`error ${error.code}: ${scrubSecretText(error.message)}\n`);
    }
    if (failure !== undefined) {
      io.stderr.write(`error ${failure.code}: ${scrubSecretText(failure.message)}\n`);
      return ExitCode.failure;
    }
    if (reason.kind === 'killed' && !USER_TRIGGERS.has(reason.trigger)) {
      io.stderr.write(`error RISK_KILL_SWITCH: ${scrubSecretText(reason.message)}\n`);
      return ExitCode.failure;
    }
    if (openCheck.status === 'failed') return ExitCode.failure;
    if (drain !== undefined && dropped > 0) {
      // Every strategy completed, but not everything it asked for went out.
      const error = new BaseError(
        'RUN_INTENTS_DROPPED',
        `every strategy completed, but ${dropped} ${dropped === 1 ? 'intent was' : 'intents were'} still queued or unsettled after ${formatSeconds(drain.waitedMs)} of draining and ${dropped === 1 ? 'was' : 'were'} dropped (ENGINE_STOPPED): the summary's strategy lines say which strategies they came from`,
      );
      io.stderr.write(`error ${error.code}: ${error.message}\n`);
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
