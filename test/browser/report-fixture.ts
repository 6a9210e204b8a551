/**
 * A made-up but plausible backtest for the report tests: a random-walk mid sampled every `stepMs`,
 * the strategy quoting around it (with pauses: NaN quotes are gaps), a fill every few samples, and
 * the equity and inventory that follow. Deterministic (a small LCG), so tests can compare counts.
 */
import type { BacktestReportInput, ReportFill, ReportSeriesPoint } from '../../src/backtest/report-html.ts';

export interface SampleOptions {
  readonly points: number;
  readonly stepMs?: number;
  readonly startMs?: number;
  readonly fillEvery?: number;
  readonly title?: string;
}

export function sampleReportInput(options: SampleOptions): BacktestReportInput {
  const { points, stepMs = 250, startMs = Date.UTC(2024, 7, 8, 23, 54), fillEvery = 37 } = options;
  let seed = 42;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const mid: ReportSeriesPoint[] = [];
  const bestBid: ReportSeriesPoint[] = [];
  const bestAsk: ReportSeriesPoint[] = [];
  const fills: ReportFill[] = [];
  const equity: ReportSeriesPoint[] = [];
  const inventory: ReportSeriesPoint[] = [];
  let price = 61_000;
  let position = 0;
  let cash = 0;
  for (let i = 0; i < points; i += 1) {
    const atMs = startMs + i * stepMs;
    price += (random() - 0.5) * 8;
    if (i === Math.floor(points / 2)) price += 150; // a spike that downsampling must keep
    if (i === Math.floor(points / 2) + 1) price -= 150;
    mid.push({ atMs, value: price });
    const paused = Math.floor(i / 400) % 10 === 9; // the strategy pulls its quotes now and then
    const skew = position * 100; // 1 USD per 0.01 BTC held
    const bid = Math.round((price - 3 - skew) * 10) / 10;
    const ask = Math.round((price + 3 - skew) * 10) / 10;
    bestBid.push({ atMs, value: paused ? Number.NaN : bid });
    bestAsk.push({ atMs, value: paused ? Number.NaN : ask });
    if (!paused && i % fillEvery === 0 && i > 0) {
      const side = random() < 0.5 + position * 10 ? 'SELL' : 'BUY'; // leans against the inventory
      const fillPrice = side === 'BUY' ? bid : ask;
      const size = 0.001 * (1 + Math.floor(random() * 5));
      position += side === 'BUY' ? size : -size;
      cash += side === 'BUY' ? -fillPrice * size : fillPrice * size;
      fills.push({ atMs, side, price: fillPrice, size: size.toFixed(3), liquidity: random() < 0.8 ? 'maker' : 'taker' });
    }
    equity.push({ atMs, value: cash + position * price });
    inventory.push({ atMs, value: position });
  }
  return {
    title: options.title ?? 'mm on BTCUSDT, 2024-08-08 23:54 .. 00:05',
    summary: [
      ['fills', String(fills.length)],
      ['final inventory', position.toFixed(3)],
      ['final equity', (equity.at(-1)?.value ?? 0).toFixed(2)],
    ],
    manifest: {
      strategy: 'mm',
      market: 'BTCUSDT',
      params: { spread: '3', size: '0.001..0.005', limits: { maxInventory: '0.05' } },
      feeds: ['book', 'trades'],
      seed: 42,
    },
    mid,
    bestBid,
    bestAsk,
    fills,
    equity,
    inventory,
  };
}
