/**
 * `clobbot backtest`: the run file's strategy and the execution engine, unchanged, on the virtual
 * clock, through the in-process venue connection, against a venue that replays a recorded feed
 * (src/backtest/replay-venue.ts). docs/backtesting.md describes the models and the outputs.
 *
 * Everything read from files happens before the clock starts; the outputs are written into
 * `<out>.partial` and renamed to `<out>` once complete, so a failed backtest leaves nothing that looks
 * finished. `executeBacktest` is the run itself, printing and writing nothing: the command and a
 * sweep's jobs (src/sweep/backtest-job.ts) both call it.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { filter, interval, Subscription, timer } from 'rxjs';
import { BaseError } from '../../core/base-error.ts';
import { liveClock } from '../../core/clock.ts';
import { createIdSource } from '../../core/ids.ts';
import { createLogger } from '../../core/logger.ts';
import { seededRandom } from '../../core/random.ts';
import { VirtualClock } from '../../core/virtual-clock.ts';
import { configError, loadConfig, loadConfigOrThrow, validateYamlSource, type ConfigResult } from '../../config/load-config.ts';
import { parseYamlSource } from '../../config/yaml-source.ts';
import type { Env } from '../../config/env-interpolation.ts';
import type { MarketSpec } from '../../protocol/market-spec.ts';
import { runConfigSchema, type RunConfig } from '../../config/run-config.ts';
import { simConfigSchema } from '../../config/sim-config.ts';
import { loadRunStrategies } from '../../strategy/load-strategy.ts';
import { loadSigner } from '../../execution/signer-source.ts';
import { openEventFeed, type EventFeedReader } from '../../feeds/event-feed-reader.ts';
import { normalizedFeedFor } from '../../feeds/feed-cache.ts';
import { fileSha256 } from '../../feeds/file-sha256.ts';
import { backtestMarket } from '../../backtest/backtest-market.ts';
import { backtestMetrics } from '../../backtest/backtest-metrics.ts';
import { startBacktestSampler } from '../../backtest/backtest-sampler.ts';
import { createQueueModel, type QueueModelConfigInput } from '../../backtest/queue-model.ts';
import { createReplayVenue } from '../../backtest/replay-venue.ts';
import { createPendingWork } from '../../runtime/pending-work.ts';
import { createTradingRuntime } from '../../runtime/trading-runtime.ts';
import { runOnVirtualClock } from '../../runtime/virtual-driver.ts';
import type { CliIo, TextSink } from '../cli-io.ts';
import { ExitCode } from '../command.ts';
import { connectSimVenue } from '../run/connect-sim-venue.ts';
import { DEFAULT_SIM_CONFIG } from '../run/default-sim-config.ts';
import { virtualJournalFs } from '../run/virtual-run-rules.ts';
import { codeVersion } from './code-version.ts';
import { summaryRows, writeBacktestOutputs, type BacktestRecord, type OrderRow } from './backtest-outputs.ts';
import { followOwnOrders } from '../../feeds/own-order-recorder.ts';
import type { OwnFill } from '../../strategy/strategy-context.ts';

export interface BacktestOptions {
  readonly file: string;
  readonly feed: string;
  readonly fromMs?: number;
  readonly toMs?: number;
  readonly seed?: number;
  readonly out: string;
  readonly force?: boolean;
  readonly queue?: QueueModelConfigInput;
  readonly cwd?: string;
}

/** How long before the feed's first row the clock starts: the account is funded and set up meanwhile. */
const SETUP_LEAD_MS = 30_000;
/** After the feed's last row, how long the run goes on (the market still) so the engine reads its last fills. */
const SETTLE_MS = 10_000;
/** How often equity, inventory and quotes are sampled (virtual time): every second, or less often so that a long backtest keeps at most MAX_SAMPLES. */
const SAMPLE_EVERY_MS = 1_000;
const MAX_SAMPLES = 200_000;
export const DEFAULT_BACKTEST_SEED = 1;

const textSha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The manifest's `runFile`: its name, and the SHA-256 of the text the backtest ran. */
export function runFileEntry(inputs: Pick<BacktestInputs, 'file' | 'runFileText' | 'cwd'>): { readonly path: string; readonly sha256: string } {
  return { path: inputs.file, sha256: inputs.runFileText === undefined ? fileSha256(resolve(inputs.cwd, inputs.file)) : textSha256(inputs.runFileText) };
}

const usageError = (message: string) => new BaseError('CLI_USAGE', `backtest: ${message}`, { details: { command: 'backtest' } });

/** Exchange times (ms) of the feed's first and last rows. */
async function feedSpan(feed: EventFeedReader): Promise<{ firstMs: number; lastMs: number } | undefined> {
  if (feed.batchCount === 0) return undefined;
  const first = await feed.batch(0);
  const last = feed.batchCount === 1 ? first : await feed.batch(feed.batchCount - 1);
  if (first.length === 0 || last.length === 0) return undefined;
  return { firstMs: Number(first.exchTs[0]! / 1_000_000n), lastMs: Number(last.exchTs[last.length - 1]! / 1_000_000n) };
}

/** The run file for the backtest venue: network sim, the traded market only, nothing of the live account. */
function backtestRunConfig(config: RunConfig, entry: RunConfig['markets'][number]): RunConfig {
  const { venueUrl: _venueUrl, simConfig: _simConfig, hosts: _hosts, ...rest } = config;
  const { owner: _owner, id: _id, ...account } = config.account;
  return { ...rest, network: 'sim', markets: [entry], account: { ...account }, wallet: { kind: 'ephemeral' } } as RunConfig;
}

/** What a backtest runs on: the run file, the feed, the part of it, the seed and the queue model. */
export interface BacktestInputs {
  /** The run file as named: in messages and in the manifest. */
  readonly file: string;
  /** The run file's content, when it is not to be read from `file` (a sweep's combination of params). */
  readonly runFileText?: string;
  readonly feed: string;
  /** The feed's SHA-256, when the caller has it already (a sweep checks it once per feed). */
  readonly feedSha256?: string;
  readonly fromMs?: number;
  readonly toMs?: number;
  readonly seed?: number;
  readonly queue?: QueueModelConfigInput;
  readonly cwd: string;
  readonly env: Env;
  /** Where the run's warnings go. */
  readonly log: TextSink;
  /** Called once the replay starts; the function it returns, when the run ends (the command's progress line). */
  readonly watch?: (progress: BacktestProgress) => () => void;
}

/** How far a running backtest is, for a progress line. */
export interface BacktestProgress {
  /** 0..1 of the time range. */
  fraction(): number;
  /** The virtual clock (ms since the epoch), not before the range's start. */
  atMs(): number;
  /** Feed rows replayed so far. */
  events(): number;
}

/** A finished backtest, before any output is written. */
export interface BacktestRun {
  readonly manifest: Record<string, unknown> & { readonly range: { readonly from: string; readonly to: string }; readonly seed: number };
  readonly spec: MarketSpec;
  readonly record: BacktestRecord;
  /** The report's title: the strategies and the market. */
  readonly title: string;
  readonly queueModel: string;
  /** Wall time of the session on the virtual clock (for the command's speed line only: never in an output). */
  readonly wallMs: number;
}

/** The run file of a backtest: its text when given (a sweep's combination), else the file. */
export async function loadRunFile(inputs: Pick<BacktestInputs, 'file' | 'runFileText' | 'cwd' | 'env'>): Promise<ConfigResult<RunConfig>> {
  if (inputs.runFileText === undefined) return loadConfig(resolve(inputs.cwd, inputs.file), runConfigSchema, { env: inputs.env });
  const parsed = parseYamlSource(inputs.runFileText, { file: inputs.file, env: inputs.env });
  return parsed.ok ? validateYamlSource(parsed.source, runConfigSchema) : parsed;
}

/**
 * One backtest, printing and writing nothing: the command writes its outputs, a sweep keeps its summary.
 *
 * @example const run = await executeBacktest({ file: 'config/market-maker.yaml', feed: 'rec.raw', cwd: process.cwd(), env: process.env, log: process.stderr });
 */
export async function executeBacktest(inputs: BacktestInputs): Promise<BacktestRun> {
  const { cwd } = inputs;
  const seed = inputs.seed ?? DEFAULT_BACKTEST_SEED;

  // 1. Every file before the clock starts: the run file, its strategies, its sim config, the feed.
  const loaded = await loadRunFile(inputs);
  if (!loaded.ok) throw configError(inputs.file, loaded.issues);
  const { value: fileConfig, source } = loaded;
  const strategies = await loadRunStrategies(source, fileConfig, { cwd });
  const simFile = fileConfig.simConfig ?? DEFAULT_SIM_CONFIG;
  const sim = await loadConfigOrThrow(resolve(cwd, simFile), simConfigSchema, { env: inputs.env });
  const feedFile = resolve(cwd, inputs.feed);
  const { path: feedPath } = await normalizedFeedFor(feedFile, { cacheDir: resolve(cwd, '.clobbot/feeds') });
  const feed = await openEventFeed(feedPath);
  const span = await feedSpan(feed);
  const market = backtestMarket({ config: fileConfig, sim, header: feed.header, feedPath: inputs.feed, runFile: inputs.file });
  const fromMs = Math.max(span?.firstMs ?? 0, inputs.fromMs ?? Number.NEGATIVE_INFINITY);
  const toMs = Math.min((span?.lastMs ?? 0) + 1, inputs.toMs ?? Number.POSITIVE_INFINITY);
  if (span === undefined || fromMs >= toMs) {
    await feed.close();
    const range = span === undefined ? 'the feed has no rows' : `the feed covers ${new Date(span.firstMs).toISOString()} .. ${new Date(span.lastMs).toISOString()}`;
    throw usageError(`the time range is empty: ${range}`);
  }
  const queueModel = createQueueModel(inputs.queue ?? { model: 'probabilistic' });
  const config = backtestRunConfig(fileConfig, market.entry);
  const wallet = await loadSigner({ source: { kind: 'ephemeral' }, network: 'sim', env: inputs.env, cwd, random: seededRandom(seed ^ 0x4e7) });
  const manifest = {
    clobbot: codeVersion(),
    runFile: runFileEntry(inputs),
    feed: { path: inputs.feed, sha256: inputs.feedSha256 ?? fileSha256(feedFile), normalized: feedPath === feedFile ? null : feedPath.split('/').pop() },
    seed,
    market: market.spec.symbol,
    range: { fromMs, toMs, from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString() },
    queueModel: { name: queueModel.name, ...queueModel.params },
    latency: fileConfig.virtual.latency,
    source: feed.header.source.kind,
  };

  // 2. The session on the virtual clock.
  const clock = new VirtualClock(fromMs - SETUP_LEAD_MS);
  const pending = createPendingWork();
  const logger = createLogger({ level: fileConfig.logging.level === 'debug' ? 'debug' : 'warn', destination: { write: (line: string) => void inputs.log.write(line) }, clock });
  const committedLagMs = market.simConfig.stateLagBlocks.committed * market.simConfig.blockMs;
  const replay = createReplayVenue({ feed, spec: market.spec, clock, queueModel, unitsPerTick: market.unitsPerTick, unitsPerLot: market.unitsPerLot, fromMs, toMs, committedLagMs });
  const wallStart = liveClock.now();
  const unwatch = inputs.watch?.({
    fraction: () => Math.min(1, Math.max(0, (clock.now() - fromMs) / (toMs - fromMs))),
    atMs: () => Math.max(clock.now(), fromMs),
    events: () => replay.stats.rows,
  });
  const journalDir = mkdtempSync(join(tmpdir(), 'clobbot-backtest-journal-'));
  let record: BacktestRecord;
  try {
    record = await runOnVirtualClock(
      clock,
      async () => {
        const ids = createIdSource({ clock, random: seededRandom(seed ^ 0x1d5) });
        const venue = await connectSimVenue({
          config,
          source,
          wallet,
          env: inputs.env,
          context: { transport: async () => Promise.reject(new Error('a backtest uses no network')), clock, random: seededRandom(seed ^ 0x5eed) },
          ids,
          logger,
          random: seededRandom(seed),
          simConfig: market.simConfig,
          inProcess: { latency: fileConfig.virtual.latency, secrets: seededRandom(seed ^ 0x5ec), latencyRandom: seededRandom(seed ^ 0x1a7), pending, seed, faults: [], backgroundFlow: false, replay: replay.simReplay },
        });
        const runtime = createTradingRuntime({ venue, clock, config, strategies, wallet, seed, ids, logger, journalDir, journalFs: virtualJournalFs, idleWarnMs: 60_000 });
        const streams = new Subscription();
        const fills: OwnFill[] = [];
        const orders: OrderRow[] = [];
        const byKey = new Map<string, OrderRow>();
        const market$ = runtime.engine.fills$.pipe(filter((fill) => fill.market === market.spec.address));
        streams.add(
          followOwnOrders(
            { state$: runtime.engine.state$(market.spec.address), fills$: market$ },
            {
              placed: (atMs, order) => {
                const row: OrderRow = { placedMs: atMs, order, orderId: order.key.startsWith('id:') ? order.key.slice(3) : '' };
                orders.push(row);
                byKey.set(order.key, row);
              },
              named: (_atMs, pendingKey, orderId) => {
                const row = byKey.get(pendingKey);
                if (row !== undefined) {
                  row.orderId = String(orderId);
                  byKey.set(`id:${orderId}`, row);
                }
              },
              ended: (atMs, order, remaining) => Object.assign(byKey.get(order.key) ?? {}, { endedMs: atMs, remaining }),
              filled: (_atMs, fill) => fills.push(fill),
            },
            clock,
          ),
        );
        replay.setBotAccount(venue.accountId);
        await runtime.start();
        const sampler = startBacktestSampler({ clock, venue: replay.model(), spec: market.spec, accountId: venue.accountId, mid: () => replay.mid(), everyMs: Math.max(SAMPLE_EVERY_MS, Math.ceil((toMs - fromMs) / MAX_SAMPLES / 1_000) * 1_000) });
        streams.add(sampler.subscription);
        // The feed's end (or --to) ends the run as a duration would, once the engine has had the time
        // to read the order events of its last fills.
        const ended = replay.run().then(() => {
          const endMs = clock.now();
          streams.add(timer(SETTLE_MS, clock.scheduler).subscribe(() => runtime.requestStop({ kind: 'duration', ms: endMs - fromMs })));
        });
        const reason = await runtime.stopRequested;
        sampler.sample();
        const stopped = await runtime.stop();
        await ended.catch(() => undefined);
        streams.unsubscribe();
        sampler.sample();
        await venue.stop();
        const endMs = clock.now();
        return {
          reason,
          stopped,
          markets: runtime.tracker.summary(),
          hosts: runtime.hosts.map((host) => ({ name: host.name, tally: host.tally, completed: host.completed(), failed: host.failure()?.code, figures: host.figures() })),
          fills,
          orders,
          samples: sampler.samples,
          replay: replay.stats,
          endMs,
          metrics: backtestMetrics({ ...sampler.samples, intervalMs: 60_000, capital: sampler.samples.equity[0]?.equity ?? 1n, endMs }),
        };
      },
      { busy: pending.busy },
    );
  } finally {
    unwatch?.();
    rmSync(journalDir, { recursive: true, force: true });
    await feed.close();
  }
  const title = `${strategies.map((s) => s.name).join(', ')} on ${market.spec.symbol}`;
  return { manifest, spec: market.spec, record, title, queueModel: queueModel.name, wallMs: Math.max(1, liveClock.now() - wallStart) };
}

/** A progress line on a terminal, on wall time (the CLI's, not the run's clock). */
function progressLine(io: CliIo): (progress: BacktestProgress) => () => void {
  return (progress) => {
    const line = interval(250, liveClock.scheduler).subscribe(() => {
      io.stdout.write(`\r  replaying ${(progress.fraction() * 100).toFixed(0).padStart(3)}%  ${new Date(progress.atMs()).toISOString()}  ${progress.events().toLocaleString('en-US')} events`);
    });
    return () => {
      line.unsubscribe();
      io.stdout.write('\r\u001b[K');
    };
  };
}

/**
 * What a backtest command (on events or on candles) runs on, and where its outputs go: refused with
 * FEED_OUTPUT_EXISTS before anything runs when that exists (without --force).
 */
export function backtestCommandInputs(io: CliIo, options: BacktestOptions): { readonly out: string; readonly inputs: BacktestInputs } {
  const cwd = options.cwd ?? process.cwd();
  const out = resolve(cwd, options.out);
  if (existsSync(out) && options.force !== true) throw new BaseError('FEED_OUTPUT_EXISTS', `${out} already exists (pass --force to replace it)`, { details: { path: out } });
  const { fromMs, toMs, seed, queue } = options;
  const inputs: BacktestInputs = {
    file: options.file,
    feed: options.feed,
    ...(fromMs === undefined ? {} : { fromMs }),
    ...(toMs === undefined ? {} : { toMs }),
    ...(seed === undefined ? {} : { seed }),
    ...(queue === undefined ? {} : { queue }),
    cwd,
    env: io.env,
    log: io.stderr,
  };
  return { out, inputs };
}

/**
 * @example process.exitCode = await runBacktest(processIo(), { file: 'config/market-maker.yaml', feed: 'recordings/MON_USDC-….raw', out: 'backtests/mm' });
 */
export async function runBacktest(io: CliIo, options: BacktestOptions): Promise<number> {
  const { out, inputs } = backtestCommandInputs(io, options);
  const run = await executeBacktest({ ...inputs, ...(io.isTty ? { watch: progressLine(io) } : {}) });
  const { manifest, record } = run;

  // 3. The outputs.
  const { summary } = writeBacktestOutputs({ out, force: options.force === true, manifest, spec: run.spec, record, title: run.title });
  io.stdout.write(`backtest ${options.file} on ${options.feed} (${manifest.range.from} .. ${manifest.range.to}, seed ${manifest.seed}, queue ${run.queueModel})\n`);
  const rows = summaryRows(summary);
  const width = Math.max(...rows.map(([key]) => key.length));
  for (const [key, value] of rows) io.stdout.write(`  ${key.padEnd(width)}  ${value}\n`);
  io.stdout.write(`outputs in ${out}: summary.json, fills.csv, orders.csv, equity.csv, manifest.json, report.html\n`);
  io.stdout.write(`  ${record.replay.rows.toLocaleString('en-US')} events in ${(run.wallMs / 1000).toFixed(1)} s of wall time (${Math.round((record.replay.rows / run.wallMs) * 1000).toLocaleString('en-US')} events/s)\n`);
  return ExitCode.ok;
}
