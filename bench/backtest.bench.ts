/**
 * The backtester's replay throughput (issue 13's figures), an event being one row of the normalized
 * feed (a level change, a checkpoint or a trade). Synthetic feeds are a random walk of MON_USDC: every
 * step 8 level changes and a checkpoint, a trade 60 % of the time.
 * - sparse: BACKTEST_BENCH_ROWS events (default 1,000,000) with a step every 100 ms (96 events a
 *   second of market, like the local venue's recorded hour), a strategy that does nothing
 *   (bench/strategies/idle.ts);
 * - dense: the same number of events with a step every 12 ms (800 a second, like Binance's BTCUSDT
 *   capture), the idle strategy and the reference market maker (config/market-maker.yaml);
 * - the reference market maker on a recording of one simulated hour of itself (made once, before the
 *   timed runs).
 * Each run is a whole `clobbot backtest` in this process: venue, engine, strategy, outputs. The report
 * adds the peak resident memory of the process.
 *
 * Candle backtests (issue 18's figure): the reference crossover (config/ma-crossover.yaml: 10/30) on
 * CANDLE_BENCH_ROWS synthetic one-minute MON_USDC candles (default 500,000, a year less three weeks;
 * a mean-reverting random walk, written before the timed runs): the feed read and the strategy run
 * (`createCandleBacktest`, what `clobbot backtest` does before it writes its outputs), and the whole
 * `clobbot backtest`, outputs included.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../src/cli/main.ts';
import { createLogger } from '../src/core/logger.ts';
import { VirtualClock } from '../src/core/virtual-clock.ts';
import { loadConfig, loadConfigOrThrow } from '../src/config/load-config.ts';
import { runConfigSchema } from '../src/config/run-config.ts';
import { simConfigSchema } from '../src/config/sim-config.ts';
import { createCandleFeedWriter, openCandleFeed } from '../src/feeds/candle-feed.ts';
import { createEventFeedWriter } from '../src/feeds/event-feed-writer.ts';
import { FeedEventKind, Side } from '../src/feeds/feed-event.ts';
import { loadRunStrategies } from '../src/strategy/load-strategy.ts';
import { backtestMarket } from '../src/backtest/backtest-market.ts';
import { createCandleBacktest } from '../src/backtest/candle-backtest.ts';
import type { Benchmark } from './harness.ts';

const ROWS = Number(process.env['BACKTEST_BENCH_ROWS'] ?? 1_000_000);
const CANDLE_ROWS = Number(process.env['CANDLE_BENCH_ROWS'] ?? 500_000);
const dir = mkdtempSync(join(tmpdir(), 'clobbot-bench-backtest-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const quiet = { stdout: { write: () => true }, stderr: { write: (text: string) => process.stderr.write(text) }, env: {}, isTty: false };

/** A synthetic feed with a step every `stepMs`: rows in time order, local time 5 ms after the exchange's. */
function writeSynthetic(path: string, stepMs: number): number {
  const writer = createEventFeedWriter(path, {
    format: 'clobbot-feed',
    version: 1,
    kind: 'events',
    market: { symbol: 'MON_USDC', tickSize: '0.000001', lotSize: '0.01' },
    source: { kind: 'recording', files: [] },
  });
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const ns = (ms: number) => BigInt(ms) * 1_000_000n;
  let ms = Date.UTC(2026, 0, 1);
  let mid = 35_000;
  let update = 1n;
  let trade = 1n;
  writer.append(FeedEventKind.BOOK_CLEAR, Side.NONE, ns(ms), ns(ms), 0n, 0n, update);
  for (let level = 1; level <= 50; level += 1) {
    writer.append(FeedEventKind.LEVEL, Side.BUY, ns(ms), ns(ms), BigInt(mid - level), 100_000n, update);
    writer.append(FeedEventKind.LEVEL, Side.SELL, ns(ms), ns(ms), BigInt(mid + level), 100_000n, update);
  }
  writer.append(FeedEventKind.CHECKPOINT, Side.NONE, ns(ms), ns(ms), 0n, 0n, update);
  while (writer.rows < ROWS) {
    ms += stepMs;
    update += 1n;
    if (next() < 0.3) mid += next() < 0.5 ? -1 : 1;
    for (let change = 0; change < 8; change += 1) {
      const side = next() < 0.5 ? Side.BUY : Side.SELL;
      const price = side === Side.BUY ? mid - 1 - Math.floor(next() * 50) : mid + 1 + Math.floor(next() * 50);
      writer.append(FeedEventKind.LEVEL, side, ns(ms), ns(ms + 5), BigInt(price), next() < 0.15 ? 0n : BigInt(Math.floor(next() * 200_000)), update);
    }
    writer.append(FeedEventKind.CHECKPOINT, Side.NONE, ns(ms), ns(ms + 5), 0n, 0n, update);
    if (next() < 0.6) {
      const side = next() < 0.5 ? Side.BUY : Side.SELL;
      writer.append(FeedEventKind.TRADE, side, ns(ms), ns(ms + 5), BigInt(side === Side.BUY ? mid + 1 : mid - 1), BigInt(1 + Math.floor(next() * 5_000)), (trade += 1n));
    }
  }
  writer.finish();
  return writer.rows;
}

/** One-minute MON_USDC candles from 2026-01-01: four steps of a random walk pulled back toward 0.035 each, in ticks of 0.000001. */
function writeCandles(path: string, count: number): void {
  const writer = createCandleFeedWriter(path, {
    format: 'clobbot-feed',
    version: 1,
    kind: 'candles',
    market: { symbol: 'MON_USDC', tickSize: '0.000001', lotSize: '0.01' },
    source: { kind: 'binance-klines', files: [], interval: '1m' },
  });
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const minuteNs = 60_000_000_000n;
  let openNs = BigInt(Date.UTC(2026, 0, 1)) * 1_000_000n;
  let price = 35_000;
  for (let i = 0; i < count; i += 1) {
    const open = price;
    let high = open;
    let low = open;
    for (let step = 0; step < 4; step += 1) {
      price += Math.round((next() - 0.5) * 40 + (35_000 - price) / 500);
      high = Math.max(high, price);
      low = Math.min(low, price);
    }
    const volume = BigInt(1 + Math.floor(next() * 1_000_000));
    writer.append(openNs, openNs + minuteNs - 1_000_000n, BigInt(open), BigInt(high), BigInt(low), BigInt(price), volume, volume * BigInt(price), BigInt(1 + Math.floor(next() * 500)));
    openNs += minuteNs;
  }
  writer.finish();
}

const candles = join(dir, 'mon-usdc-1m.arrow');
writeCandles(candles, CANDLE_ROWS);
const crossoverFile = await loadConfig('config/ma-crossover.yaml', runConfigSchema, { env: {} });
if (!crossoverFile.ok) throw new Error('config/ma-crossover.yaml is not valid');
const crossover = crossoverFile.value;
const crossoverSim = await loadConfigOrThrow('config/sim.yaml', simConfigSchema, { env: {} });
const crossoverStrategies = await loadRunStrategies(crossoverFile.source, crossover, { cwd: process.cwd() });

/** The candle feed read and the crossover run on it, as `clobbot backtest` does before its outputs; returns the candles. */
async function candleBacktest(): Promise<number> {
  const feed = await openCandleFeed(candles);
  try {
    const market = backtestMarket({ config: crossover, sim: crossoverSim, header: feed.header, feedPath: candles, runFile: 'config/ma-crossover.yaml' });
    const backtest = createCandleBacktest({
      feed,
      spec: market.spec,
      unitsPerTick: market.unitsPerTick,
      unitsPerLot: market.unitsPerLot,
      strategies: crossoverStrategies,
      // config/sim.yaml's funding: 300,000 MON and 20,000 USDC.
      funding: { base: 300_000n * 10n ** 18n, quote: 20_000n * 10n ** 6n },
      seed: 1,
      clock: new VirtualClock(0),
      logger: createLogger({ level: 'silent' }),
    });
    return (await backtest.run()).stats.candles;
  } finally {
    await feed.close();
  }
}

const synthetic = join(dir, 'synthetic.arrow');
const syntheticRows = writeSynthetic(synthetic, 100);
const dense = join(dir, 'dense.arrow');
writeSynthetic(dense, 12);
const idleRunFile = join(dir, 'idle.yaml');
writeFileSync(
  idleRunFile,
  [
    'network: sim',
    'simConfig: config/sim.yaml',
    'wallet: { ephemeral: true }',
    'markets: [MON_USDC]',
    'strategies:',
    '  - { name: idle, module: bench/strategies/idle.ts, markets: [MON_USDC], idleTimeout: off, params: {} }',
    'risk: { maxPosition: "1000", maxOrderSize: "1000", maxNotional: "1000", priceBandBps: 500, maxOrdersPerSecond: 50, maxOpenOrders: 20 }',
    'logging: { level: warn }',
  ].join('\n'),
);

const recordingDir = join(dir, 'recording');
if ((await main(['run', 'config/market-maker.yaml', '--virtual', '--duration', '1h', '--record', recordingDir, '--journal-dir', join(dir, 'journal')], quiet)) !== 0) throw new Error('the recording failed');
const recording = join(recordingDir, readdirSync(recordingDir)[0]!);
// Normalized once here: the timed runs find it in the cache.
await main(['feed', 'info', recording], quiet);

let runs = 0;
let recordedEvents = 0;
/** Runs one backtest; returns the events it replayed (read back from its summary). */
async function backtest(runFile: string, feed: string): Promise<number> {
  const out = join(dir, `out-${(runs += 1)}`);
  let stdout = '';
  const io = { ...quiet, stdout: { write: (text: string) => ((stdout += text), true) } };
  if ((await main(['backtest', runFile, '--feed', feed, '--out', out], io)) !== 0) throw new Error(`the backtest failed: ${stdout}`);
  const events = Number(/\n {2}replay\.events +([0-9]+)\n/.exec(stdout)?.[1]);
  rmSync(out, { recursive: true, force: true });
  return events;
}

export const benchmarks: readonly Benchmark[] = [
  {
    name: `backtest: crossover on ${(CANDLE_ROWS / 1e3).toFixed(0)}k 1m candles, read + run`,
    unit: 'candles',
    runs: 5,
    run: candleBacktest,
  },
  {
    name: `backtest: crossover on ${(CANDLE_ROWS / 1e3).toFixed(0)}k 1m candles, clobbot backtest`,
    unit: 'candles',
    runs: 3,
    run: async () => {
      const out = join(dir, `out-${(runs += 1)}`);
      if ((await main(['backtest', 'config/ma-crossover.yaml', '--feed', candles, '--out', out], quiet)) !== 0) throw new Error('the candle backtest failed');
      rmSync(out, { recursive: true, force: true });
      return CANDLE_ROWS;
    },
  },
  {
    name: `backtest: ${(syntheticRows / 1e6).toFixed(1)}M sparse synthetic events, idle strategy`,
    unit: 'events',
    runs: 3,
    run: () => backtest(idleRunFile, synthetic),
  },
  {
    name: `backtest: ${(syntheticRows / 1e6).toFixed(1)}M dense synthetic events, idle strategy`,
    unit: 'events',
    runs: 3,
    run: () => backtest(idleRunFile, dense),
  },
  {
    name: `backtest: ${(syntheticRows / 1e6).toFixed(1)}M dense synthetic events, market maker`,
    unit: 'events',
    runs: 3,
    run: () => backtest('config/market-maker.yaml', dense),
  },
  {
    name: 'backtest: market maker on its recorded hour',
    unit: 'events',
    runs: 3,
    run: async () => (recordedEvents = await backtest('config/market-maker.yaml', recording)),
  },
];

export function report(): string {
  return [
    `  synthetic feed: ${syntheticRows.toLocaleString('en-US')} events; recorded hour: ${recordedEvents.toLocaleString('en-US')} events`,
    `  peak resident memory of the process: ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`,
  ].join('\n');
}
