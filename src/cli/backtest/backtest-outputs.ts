/**
 * The files a backtest writes (docs/backtesting.md, "Outputs"): summary.json, fills.csv, orders.csv,
 * equity.csv, manifest.json and report.html. Nothing in them depends on the wall clock or the machine,
 * so the same feed, run file, code and seed give the same bytes. They are written into
 * `<out>.partial` and renamed to `<out>` when all are complete.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Decimal } from '../../core/decimal.ts';
import { fromUnits } from '../../core/units.ts';
import type { MarketSpec } from '../../protocol/market-spec.ts';
import type { OwnFill } from '../../strategy/strategy-context.ts';
import type { EngineStats } from '../../execution/execution-engine.ts';
import type { StopReason, RuntimeStopped } from '../../runtime/trading-runtime.ts';
import type { MarketSummary } from '../../runtime/run-tracker.ts';
import type { OwnOrderSeen } from '../../feeds/own-order-recorder.ts';
import type { BacktestMetrics } from '../../backtest/backtest-metrics.ts';
import type { BacktestSamples } from '../../backtest/backtest-sampler.ts';
import type { ReplayStats } from '../../backtest/replay-venue.ts';
import type { CandleStats } from '../../backtest/candle-backtest.ts';
import { renderBacktestReport } from '../../backtest/report-html.ts';
import { describeStop } from '../../runtime/stop-reason.ts';
import type { SummaryStrategy } from '../run/run-report.ts';
import { strategyFiguresJson } from '../run/run-summary-json.ts';

/** An own order's life, for orders.csv. */
export interface OrderRow {
  readonly placedMs: number;
  readonly order: OwnOrderSeen;
  /** The venue's order id, once the engine knew it ('' for an order it never named). */
  orderId: string;
  endedMs?: number;
  /** What was open when it ended (0: filled). */
  remaining?: bigint;
}

/** What every backtest produced, on events or on candles, for its outputs. */
interface BacktestRunRecord {
  readonly reason: StopReason;
  readonly markets: readonly MarketSummary[];
  readonly hosts: readonly SummaryStrategy[];
  readonly fills: readonly OwnFill[];
  readonly orders: readonly OrderRow[];
  readonly samples: BacktestSamples;
  readonly metrics: BacktestMetrics;
  readonly endMs: number;
}

/** Everything an event backtest (the engine on a replayed feed) produced. */
export interface BacktestRecord extends BacktestRunRecord {
  readonly stopped: RuntimeStopped;
  readonly replay: ReplayStats;
}

/** Everything a candle backtest produced: no engine, no relay, no replay; its bars instead. */
export interface CandleBacktestRecord extends BacktestRunRecord {
  readonly candles: CandleStats;
  /** The feed's interval as its header names it (`1m`). */
  readonly interval: string | undefined;
  /** The return interval of the Sharpe and Sortino ratios, ms. */
  readonly returnIntervalMs: number;
  /** Orders still open after the run cancelled its orders (always 0: nothing can refuse a cancel). */
  readonly openAfterStop: number;
}

/** The return interval of an event backtest's Sharpe and Sortino ratios. */
const EVENT_RETURN_INTERVAL_MS = 60_000;

export const BACKTEST_SUMMARY_VERSION = 1;

const iso = (ms: number) => new Date(ms).toISOString();
const csv = (header: readonly string[], rows: readonly (readonly (string | number)[])[]) => `${[header, ...rows].map((row) => row.join(',')).join('\n')}\n`;
/** A decimal string of size units in base tokens. */
const unitsToHuman = (units: string, precision: bigint) => new Decimal(units).div(precision.toString()).toFixed();
const ratio = (part: number, whole: number) => (whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000);

/** summary.json's content: the same figures for both kinds, then what is the engine's and the replay's, or the candles'. */
export function backtestSummary(record: BacktestRecord | CandleBacktestRecord, spec: MarketSpec): Record<string, unknown> {
  const market = record.markets[0]!;
  const size = (units: bigint) => fromUnits(units, spec.sizePrecision);
  // What only an event backtest has (the engine's stop and relay, the replay), or a candle backtest (its bars).
  const own =
    'replay' in record
      ? { openAfterStop: record.stopped.leftOpen?.get(market.symbol) ?? null, returnIntervalMs: EVENT_RETURN_INTERVAL_MS, relay: { relay: relayFigures(record.stopped.stats) }, source: { replay: replayFigures(record.replay, size) } }
      : { openAfterStop: record.openAfterStop, returnIntervalMs: record.returnIntervalMs, relay: {}, source: { candles: candleFigures(record) } };
  const makerFills = record.fills.filter((fill) => fill.liquidity === 'maker').length;
  const { drawdown, returns, inventory, quoteUptime } = record.metrics;
  const quote = (raw: bigint) => fromUnits(raw, 10n ** BigInt(spec.quoteToken.decimals));
  return {
    version: BACKTEST_SUMMARY_VERSION,
    market: spec.symbol,
    stop: { ...record.reason, description: describeStop(record.reason) },
    pnl: { realized: market.realizedPnl, unrealized: market.unrealizedPnl, fees: market.fees, net: market.netPnl, mid: market.mid ?? null },
    volume: { base: market.volume, quote: market.notional },
    fills: record.fills.length,
    makerShare: ratio(makerFills, record.fills.length),
    orders: { placed: market.placed, cancelled: market.cancelled, filled: market.filled, fillRatio: ratio(market.filled, market.placed), openAfterStop: own.openAfterStop },
    inventory: {
      unit: spec.baseToken.symbol,
      final: market.position,
      min: inventory.min === null ? null : size(inventory.min),
      max: inventory.max === null ? null : size(inventory.max),
      mean: inventory.mean === null ? null : unitsToHuman(inventory.mean, spec.sizePrecision),
      timeWeightedMean: inventory.timeWeightedMean === null ? null : unitsToHuman(inventory.timeWeightedMean, spec.sizePrecision),
    },
    drawdown: { max: quote(drawdown.maxDrawdown), maxFraction: drawdown.maxDrawdownFraction, peakAt: drawdown.peakAtMs === null ? null : iso(drawdown.peakAtMs), troughAt: drawdown.troughAtMs === null ? null : iso(drawdown.troughAtMs) },
    returns: { interval: `${own.returnIntervalMs / 1000}s`, intervals: returns.intervals, sharpe: returns.sharpe, sortino: returns.sortino, annualisedWith: '365-day year' },
    quoteUptime,
    ...own.relay,
    strategies: record.hosts.map((host) => ({
      name: host.name,
      emitted: host.tally.emitted,
      submitted: host.tally.submitted,
      // A Map would be written as {}: its entries, sorted, so the bytes do not depend on their order.
      fates: Object.fromEntries([...host.tally.fates].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      failed: host.failed ?? null,
      ...strategyFiguresJson(host.figures),
    })),
    ...own.source,
  };
}

function relayFigures(stats: EngineStats): Record<string, number> {
  return { signed: stats.signed, confirmed: stats.confirmed, reverted: stats.reverted, rejected: stats.rejected, refused: stats.refused };
}

function replayFigures(replay: ReplayStats, size: (units: bigint) => string): Record<string, unknown> {
  return { events: replay.rows, trades: replay.trades, fillDecisions: replay.fills, decidedVolume: size(replay.filledSize), bookGaps: replay.bookGaps, from: replay.firstMs === undefined ? null : iso(replay.firstMs), to: replay.lastMs === undefined ? null : iso(replay.lastMs) };
}

function candleFigures(record: CandleBacktestRecord): Record<string, unknown> {
  const { candles, firstMs, lastMs } = record.candles;
  return { bars: candles, interval: record.interval ?? null, from: firstMs === undefined ? null : iso(firstMs), to: lastMs === undefined ? null : iso(lastMs) };
}

/**
 * The summary as the rows of a table (terminal and report). A list of named entries (the strategies)
 * is walked by name, so each strategy's figures get a row of their own: `strategies.twap.figures.avgPrice`.
 */
export function summaryRows(summary: Record<string, unknown>): [string, string][] {
  const rows: [string, string][] = [];
  const walk = (prefix: string, value: unknown) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [key, inner] of Object.entries(value)) walk(prefix === '' ? key : `${prefix}.${key}`, inner);
    } else if (Array.isArray(value) && value.length > 0 && value.every(isNamed)) {
      for (const { name, ...rest } of value) walk(`${prefix}.${name}`, rest);
    } else {
      rows.push([prefix, Array.isArray(value) ? JSON.stringify(value) : String(value)]);
    }
  };
  walk('', summary);
  return rows;
}

function isNamed(value: unknown): value is { readonly name: string } {
  return value !== null && typeof value === 'object' && typeof (value as { name?: unknown }).name === 'string';
}

/**
 * @example writeBacktestOutputs({ out: 'backtests/mm', force: false, manifest, spec, record, title: 'mm on MON_USDC' });
 */
export function writeBacktestOutputs(params: {
  readonly out: string;
  readonly force: boolean;
  readonly manifest: Record<string, unknown>;
  readonly spec: MarketSpec;
  readonly record: BacktestRecord | CandleBacktestRecord;
  readonly title: string;
}): { readonly summary: Record<string, unknown> } {
  const { out, spec, record } = params;
  const partial = `${out}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const price = (units: bigint | undefined) => (units === undefined ? '' : fromUnits(units, spec.pricePrecision));
  const size = (units: bigint) => fromUnits(units, spec.sizePrecision);
  const quote = (raw: bigint) => fromUnits(raw, 10n ** BigInt(spec.quoteToken.decimals));
  try {
    const summary = backtestSummary(record, spec);
    writeFileSync(join(partial, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
    writeFileSync(join(partial, 'manifest.json'), `${JSON.stringify(params.manifest, null, 2)}\n`);
    writeFileSync(
      join(partial, 'fills.csv'),
      csv(
        ['time', 'order_id', 'side', 'price', 'size', 'fee', 'liquidity', 'transaction_hash'],
        record.fills.map((fill) => [iso(fill.timeMs), String(fill.orderId), fill.side, price(fill.price), size(fill.size), quote(fill.fee), fill.liquidity, fill.transactionHash]),
      ),
    );
    writeFileSync(
      join(partial, 'orders.csv'),
      csv(
        ['placed', 'order_id', 'side', 'price', 'size', 'ended', 'open_at_end'],
        record.orders.map((row) => [iso(row.placedMs), row.orderId, row.order.side, price(row.order.price), size(row.order.size), row.endedMs === undefined ? '' : iso(row.endedMs), row.remaining === undefined ? '' : size(row.remaining)]),
      ),
    );
    const positions = new Map(record.samples.inventory.map((sample) => [sample.atMs, sample.position]));
    const prices = new Map(record.samples.prices.map((sample) => [sample.atMs, sample]));
    writeFileSync(
      join(partial, 'equity.csv'),
      csv(
        ['time', 'equity', 'position', 'mid', 'best_bid', 'best_ask'],
        record.samples.equity.map((sample) => {
          const at = prices.get(sample.atMs);
          return [iso(sample.atMs), quote(sample.equity), size(positions.get(sample.atMs) ?? 0n), price(at?.mid), price(at?.bestBid), price(at?.bestAsk)];
        }),
      ),
    );
    const toNumber = (text: string) => Number(text);
    const series = (points: readonly { atMs: number; value: bigint | undefined }[], format: (units: bigint) => string) =>
      points.flatMap((point) => (point.value === undefined ? [] : [{ atMs: point.atMs, value: toNumber(format(point.value)) }]));
    writeFileSync(
      join(partial, 'report.html'),
      renderBacktestReport({
        title: params.title,
        summary: summaryRows(summary),
        manifest: params.manifest,
        mid: series(record.samples.prices.map((sample) => ({ atMs: sample.atMs, value: sample.mid })), price),
        bestBid: series(record.samples.prices.map((sample) => ({ atMs: sample.atMs, value: sample.bestBid })), price),
        bestAsk: series(record.samples.prices.map((sample) => ({ atMs: sample.atMs, value: sample.bestAsk })), price),
        fills: record.fills.map((fill) => ({ atMs: fill.timeMs, side: fill.side, price: toNumber(price(fill.price)), size: size(fill.size), liquidity: fill.liquidity })),
        equity: series(record.samples.equity.map((sample) => ({ atMs: sample.atMs, value: sample.equity })), quote),
        inventory: series(record.samples.inventory.map((sample) => ({ atMs: sample.atMs, value: sample.position })), size),
      }),
    );
    rmSync(out, { recursive: true, force: true });
    renameSync(partial, out);
    return { summary };
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    throw error;
  }
}
