/**
 * Market streams: the cost to parse and apply one depth snapshot (100, 1000 and 5000 levels a side,
 * Binance-shaped 8-decimal strings) next to a bare `JSON.parse` of the same body, and the rate of
 * trades de-duplicated from overlapping polls. Bodies come from a seeded source: same run, same work.
 */
import { concatMap, from } from 'rxjs';
import { seededRandom } from '../src/core/random.ts';
import { BarBuilder } from '../src/market/bar-builder.ts';
import { dedupeTrades } from '../src/market/operators/dedupe-trades.ts';
import { OrderBook } from '../src/market/order-book-model.ts';
import { parseDepthBody } from '../src/market/parse-depth-body.ts';
import type { UnitTrade } from '../src/market/unit-trade.ts';
import type { Depth } from '../src/protocol/market-data.ts';
import type { Benchmark } from './harness.ts';

const market = { pricePrecision: 100n, sizePrecision: 10n ** 8n };

/** A depth body like Binance's BTCUSDT: prices one cent apart or more, sizes with 8 decimals. */
function depthBody(levels: number, seed: number): string {
  const random = seededRandom(seed);
  const cents = (n: number) => `${Math.floor(n / 100)}.${String(n % 100).padStart(2, '0')}000000`;
  const size = () => `${Math.floor(random.next() * 5)}.${String(Math.floor(random.next() * 1e8)).padStart(8, '0')}`;
  const bids: [string, string][] = [];
  const asks: [string, string][] = [];
  let bid = 6_183_763;
  let ask = 6_183_764;
  for (let i = 0; i < levels; i++) {
    bids.push([cents(bid), size()]);
    asks.push([cents(ask), size()]);
    bid -= 1 + Math.floor(random.next() * 20);
    ask += 1 + Math.floor(random.next() * 20);
  }
  return JSON.stringify({ lastUpdateId: 50_093_239_218, bids, asks });
}

function depthBenchmarks(levels: number, repeat: number): Benchmark[] {
  const body = depthBody(levels, levels);
  const label = `market: depth ${levels} levels a side (${Math.round(body.length / 1024)} KiB)`;
  return [
    {
      name: `${label}, JSON.parse only`,
      unit: 'snapshots',
      run() {
        let sink = 0;
        for (let i = 0; i < repeat; i++) sink += (JSON.parse(body) as Depth).bids.length;
        return sink > 0 ? repeat : 0;
      },
    },
    {
      name: `${label}, parseDepthBody (parse + apply)`,
      unit: 'snapshots',
      run() {
        let sink = 0;
        for (let i = 0; i < repeat; i++) sink += parseDepthBody(body, market).levelCount('bid');
        return sink > 0 ? repeat : 0;
      },
    },
    {
      name: `${label}, JSON.parse + OrderBook.fromDepth`,
      unit: 'snapshots',
      run() {
        let sink = 0;
        for (let i = 0; i < repeat; i++) sink += OrderBook.fromDepth(JSON.parse(body) as Depth, market).levelCount('bid');
        return sink > 0 ? repeat : 0;
      },
    },
  ];
}

/** Polls of the 500 latest trades, 250 new ones each time: every trade arrives twice. */
const TRADES = 200_000;
const trades: UnitTrade[] = Array.from({ length: TRADES }, (_, i) => ({
  id: 1_000_000 + i,
  time: 1_723_161_255_000 + i * 7,
  price: 6_183_763n + BigInt(i % 50),
  qty: 100_000n + BigInt(i % 1000),
  isBuyerMaker: i % 2 === 0,
}));
const polls: UnitTrade[][] = [];
for (let end = 500; end <= TRADES; end += 250) polls.push(trades.slice(end - 500, end));

export const benchmarks: readonly Benchmark[] = [
  ...depthBenchmarks(100, 2_000),
  ...depthBenchmarks(1_000, 200),
  ...depthBenchmarks(5_000, 40),
  {
    name: 'market: trades de-duplicated from overlapping polls (500, 50 % overlap)',
    unit: 'trades',
    run() {
      let count = 0;
      from(polls)
        .pipe(
          dedupeTrades<UnitTrade>(),
          concatMap((batch) => batch.trades),
        )
        .subscribe(() => count++);
      return count;
    },
  },
  {
    name: 'market: bar builder, trades -> 1 s candles',
    unit: 'trades',
    run() {
      const bars = new BarBuilder({ intervalMs: 1_000 });
      let candles = 0;
      for (const trade of trades) candles += bars.push(trade).length;
      return candles > 0 ? trades.length : 0;
    },
  },
];
