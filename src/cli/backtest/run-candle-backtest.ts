/**
 * `clobbot backtest` on a candle feed: the run file's bar strategies through the candle backtest
 * (src/backtest/candle-backtest.ts, which says why it does not go through the execution engine),
 * with the same options, market, funding, summary and output files as the event backtest
 * (run-backtest.ts), so that a sweep treats both alike. docs/backtesting.md, "Candle backtests".
 */
import { resolve } from 'node:path';
import { Subscription } from 'rxjs';
import { BaseError } from '../../core/base-error.ts';
import { liveClock } from '../../core/clock.ts';
import { Decimal } from '../../core/decimal.ts';
import { createLogger } from '../../core/logger.ts';
import { toUnits } from '../../core/units.ts';
import { VirtualClock } from '../../core/virtual-clock.ts';
import { configError, loadConfigOrThrow } from '../../config/load-config.ts';
import { simConfigSchema } from '../../config/sim-config.ts';
import { loadRunStrategies } from '../../strategy/load-strategy.ts';
import type { OwnFill } from '../../strategy/strategy-context.ts';
import type { MarketSpec } from '../../protocol/market-spec.ts';
import { openCandleFeed } from '../../feeds/candle-feed.ts';
import { fileSha256 } from '../../feeds/file-sha256.ts';
import { followOwnOrders } from '../../feeds/own-order-recorder.ts';
import { RunTracker } from '../../runtime/run-tracker.ts';
import { backtestMarket } from '../../backtest/backtest-market.ts';
import { createCandleBacktest, type CandleRun } from '../../backtest/candle-backtest.ts';
import type { CliIo } from '../cli-io.ts';
import { ExitCode } from '../command.ts';
import { DEFAULT_SIM_CONFIG } from '../run/default-sim-config.ts';
import { codeVersion } from './code-version.ts';
import { summaryRows, writeBacktestOutputs, type CandleBacktestRecord, type OrderRow } from './backtest-outputs.ts';
import { backtestCommandInputs, DEFAULT_BACKTEST_SEED, loadRunFile, runFileEntry, type BacktestInputs, type BacktestOptions } from './run-backtest.ts';

const usageError = (message: string) => new BaseError('CLI_USAGE', `backtest: ${message}`, { details: { command: 'backtest' } });

/** A finished candle backtest, before any output is written. */
export interface CandleBacktestRun {
  readonly manifest: Record<string, unknown> & { readonly range: { readonly from: string; readonly to: string }; readonly seed: number; readonly interval: string | null };
  readonly spec: MarketSpec;
  readonly record: CandleBacktestRecord;
  /** The report's title: the strategies and the market. */
  readonly title: string;
  /** Wall time of the run (for the command's speed line only: never in an output). */
  readonly wallMs: number;
}

/**
 * One candle backtest, printing and writing nothing: the command writes its outputs, a sweep keeps
 * its summary (the inputs of the event backtest's `executeBacktest`; a queue model is refused).
 *
 * @example const run = await executeCandleBacktest({ file: 'config/ma-crossover.yaml', feed: 'btcusdt-1m.arrow', cwd: process.cwd(), env: process.env, log: process.stderr });
 */
export async function executeCandleBacktest(inputs: BacktestInputs): Promise<CandleBacktestRun> {
  const { cwd } = inputs;
  if (inputs.queue !== undefined) throw usageError('--queue is the queue model of an event feed\'s book; a candle feed has no book (docs/backtesting.md, "Candle backtests")');
  const seed = inputs.seed ?? DEFAULT_BACKTEST_SEED;

  // 1. Every file first: the run file, its strategies, its sim config (market by symbol, funding), the feed.
  const loaded = await loadRunFile(inputs);
  if (!loaded.ok) throw configError(inputs.file, loaded.issues);
  const { value: fileConfig, source } = loaded;
  const strategies = await loadRunStrategies(source, fileConfig, { cwd });
  const sim = await loadConfigOrThrow(resolve(cwd, fileConfig.simConfig ?? DEFAULT_SIM_CONFIG), simConfigSchema, { env: inputs.env });
  const feedFile = resolve(cwd, inputs.feed);
  const wallStart = liveClock.now();
  const feed = await openCandleFeed(feedFile);
  let run: CandleRun;
  const fills: OwnFill[] = [];
  const orders: OrderRow[] = [];
  let tracker: RunTracker;
  let spec: MarketSpec;
  try {
    const market = backtestMarket({ config: fileConfig, sim, header: feed.header, feedPath: inputs.feed, runFile: inputs.file });
    spec = market.spec;
    const funding = market.simConfig.funding.default;
    const raw = (token: typeof spec.baseToken) => toUnits(funding[token.symbol]!, 10n ** BigInt(token.decimals));
    const idleTimeoutMs = new Map(fileConfig.strategies.flatMap((entry) => (entry.idleTimeout === 'off' ? [] : [[entry.name, entry.idleTimeout] as const])));
    const clock = new VirtualClock(0);
    const logger = createLogger({ level: fileConfig.logging.level === 'debug' ? 'debug' : 'warn', destination: { write: (line: string) => void inputs.log.write(line) }, clock });
    const backtest = createCandleBacktest({
      feed,
      spec,
      unitsPerTick: market.unitsPerTick,
      unitsPerLot: market.unitsPerLot,
      strategies,
      idleTimeoutMs,
      funding: { base: raw(spec.baseToken), quote: raw(spec.quoteToken) },
      ...(inputs.fromMs === undefined ? {} : { fromMs: inputs.fromMs }),
      ...(inputs.toMs === undefined ? {} : { toMs: inputs.toMs }),
      seed,
      clock,
      logger,
    });

    // What a run's summary and orders.csv read, from the same streams an engine gives.
    tracker = new RunTracker([spec]);
    const streams = new Subscription();
    streams.add(backtest.reports$.subscribe((report) => tracker.onReport(report)));
    streams.add(backtest.fills$.subscribe((fill) => tracker.onFill(fill)));
    streams.add(backtest.state$.subscribe((state) => tracker.onState(state)));
    const byKey = new Map<string, OrderRow>();
    streams.add(
      followOwnOrders(
        backtest,
        {
          placed: (atMs, order) => {
            const row: OrderRow = { placedMs: atMs, order, orderId: order.key.slice('id:'.length) };
            orders.push(row);
            byKey.set(order.key, row);
          },
          named: () => undefined,
          ended: (atMs, order, remaining) => Object.assign(byKey.get(order.key) ?? {}, { endedMs: atMs, remaining }),
          filled: (_atMs, fill) => fills.push(fill),
        },
        clock,
      ),
    );
    run = await backtest.run();
    streams.unsubscribe();
  } finally {
    await feed.close();
  }
  const wallMs = Math.max(1, liveClock.now() - wallStart);
  const { firstMs, lastMs } = run.stats;
  if (firstMs === undefined || lastMs === undefined) throw usageError(`the time range is empty: no candle of ${inputs.feed} opens in it`);
  const lastMid = run.samples.prices.at(-1)?.mid;
  if (lastMid !== undefined) tracker.onMid(spec.address, new Decimal(lastMid.toString()));

  // 2. What the outputs hold.
  const manifest = {
    clobbot: codeVersion(),
    runFile: runFileEntry(inputs),
    feed: { path: inputs.feed, sha256: inputs.feedSha256 ?? fileSha256(feedFile), normalized: null },
    seed,
    market: spec.symbol,
    range: { fromMs: firstMs, toMs: lastMs, from: new Date(firstMs).toISOString(), to: new Date(lastMs).toISOString() },
    fillModel: 'bars: market orders at the next open, limit orders when a later bar reaches them',
    interval: feed.header.source.interval ?? null,
    source: feed.header.source.kind,
  };
  const record: CandleBacktestRecord = {
    reason: run.reason,
    markets: tracker.summary(),
    hosts: run.hosts.map((host) => ({ name: host.name, tally: host.tally, completed: host.completed(), failed: host.failure()?.code, figures: host.figures() })),
    fills,
    orders,
    samples: run.samples,
    metrics: run.metrics,
    endMs: run.endMs,
    candles: run.stats,
    interval: feed.header.source.interval,
    returnIntervalMs: run.returnIntervalMs,
    openAfterStop: 0,
  };
  return { manifest, spec, record, title: `${strategies.map((s) => s.name).join(', ')} on ${spec.symbol}`, wallMs };
}

/**
 * @example process.exitCode = await runCandleBacktest(processIo(), { file: 'config/ma-crossover-btcusdt.yaml', feed: 'btcusdt-1m.arrow', out: 'backtests/crossover' });
 */
export async function runCandleBacktest(io: CliIo, options: BacktestOptions): Promise<number> {
  const { out, inputs } = backtestCommandInputs(io, options);
  const run = await executeCandleBacktest(inputs);
  const { manifest, record, wallMs } = run;
  const { candles } = record.candles;
  const { summary } = writeBacktestOutputs({ out, force: options.force === true, manifest, spec: run.spec, record, title: run.title });
  io.stdout.write(`backtest ${options.file} on ${options.feed} (${manifest.range.from} .. ${manifest.range.to}, seed ${manifest.seed}, candles ${manifest.interval ?? ''})\n`);
  const rows = summaryRows(summary);
  const width = Math.max(...rows.map(([key]) => key.length));
  for (const [key, value] of rows) io.stdout.write(`  ${key.padEnd(width)}  ${value}\n`);
  io.stdout.write(`outputs in ${out}: summary.json, fills.csv, orders.csv, equity.csv, manifest.json, report.html\n`);
  io.stdout.write(`  ${candles.toLocaleString('en-US')} candles in ${(wallMs / 1000).toFixed(1)} s of wall time (${Math.round((candles / wallMs) * 1000).toLocaleString('en-US')} candles/s)\n`);
  return ExitCode.ok;
}
