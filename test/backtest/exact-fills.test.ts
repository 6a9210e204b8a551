/**
 * A hand-made feed whose right fills are known exactly, backtested through the whole path (strategy,
 * engine, relay rules, venue model, replay): the queue ahead of an order, partial fills of two own
 * orders at one price, one print consumed once across them, a trade through the price filling both,
 * a taker walking two levels with its fee, a post-only order that would cross refused, and an intent
 * landing in the first block after its latency.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decimalScale, parseStep } from '../../src/feeds/decimal-scale.ts';
import { createEventFeedWriter } from '../../src/feeds/event-feed-writer.ts';
import { FeedEventKind, Side } from '../../src/feeds/feed-event.ts';
import { FEED_FORMAT, FEED_VERSION } from '../../src/feeds/feed-header.ts';
import { runCli } from '../support/cli-harness.ts';

/** The feed's first row; the clock starts 30 s before it, so blocks (400 ms) fall on T0 + k × 400 ms. */
const T0 = Date.UTC(2026, 0, 1, 0, 1, 0);
const ns = (ms: number) => BigInt(ms) * 1_000_000n;
/** MON_USDC of config/sim.yaml: ticks of 0.000001 USDC, lots of 0.01 MON. */
const tickScale = decimalScale(parseStep('0.000001'));
const lotScale = decimalScale(parseStep('0.01'));
const ticks = (price: string) => tickScale.units(price)!;
const lots = (size: string) => lotScale.units(size)!;

let dir: string;
let fills: string[][];
let summary: { relay: { reverted: number }; fills: number; pnl: { fees: string } };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clobbot-exact-'));
  const feed = join(dir, 'hand-made.arrow');
  const writer = createEventFeedWriter(feed, {
    format: FEED_FORMAT,
    version: FEED_VERSION,
    kind: 'events',
    market: { symbol: 'MON_USDC', tickSize: '0.000001', lotSize: '0.01' },
    source: { kind: 'recording', files: [] },
  });
  const row = (at: number, kind: number, side: number, price: bigint, qty: bigint, id: bigint) => writer.append(kind, side, ns(at), ns(at), price, qty, id);
  const book = (at: number, id: bigint, bids: [string, string][], asks: [string, string][]) => {
    row(at, FeedEventKind.BOOK_CLEAR, Side.NONE, 0n, 0n, id);
    for (const [price, size] of bids) row(at, FeedEventKind.LEVEL, Side.BUY, ticks(price), lots(size), id);
    for (const [price, size] of asks) row(at, FeedEventKind.LEVEL, Side.SELL, ticks(price), lots(size), id);
    row(at, FeedEventKind.CHECKPOINT, Side.NONE, 0n, 0n, id);
  };
  book(T0, 1n, [['0.035000', '50'], ['0.034990', '100']], [['0.035010', '40'], ['0.035020', '60']]);
  // 30 MON traded at 0.035000: the 50 ahead of our bids shrink to 20.
  row(T0 + 5_000, FeedEventKind.TRADE, Side.SELL, ticks('0.035000'), lots('30'), 101n);
  row(T0 + 5_000, FeedEventKind.LEVEL, Side.BUY, ticks('0.035000'), lots('20'), 2n);
  row(T0 + 5_000, FeedEventKind.CHECKPOINT, Side.NONE, 0n, 0n, 2n);
  // 35 more: 20 reach the front, 15 fill the first bid; the second gets nothing of this print.
  row(T0 + 6_000, FeedEventKind.TRADE, Side.SELL, ticks('0.035000'), lots('35'), 102n);
  row(T0 + 6_000, FeedEventKind.LEVEL, Side.BUY, ticks('0.035000'), lots('0'), 3n);
  row(T0 + 6_000, FeedEventKind.CHECKPOINT, Side.NONE, 0n, 0n, 3n);
  // A sell through to 0.034990: our bids at 0.035000 were better: 5 fill the first, 7 the second.
  row(T0 + 7_000, FeedEventKind.TRADE, Side.SELL, ticks('0.034990'), lots('12'), 103n);
  row(T0 + 7_000, FeedEventKind.LEVEL, Side.BUY, ticks('0.034990'), lots('88'), 4n);
  row(T0 + 7_000, FeedEventKind.CHECKPOINT, Side.NONE, 0n, 0n, 4n);
  // The feed runs on without events until T0 + 12 s.
  row(T0 + 12_000, FeedEventKind.CHECKPOINT, Side.NONE, 0n, 0n, 5n);
  writer.finish();

  const runFile = join(dir, 'timed.yaml');
  writeFileSync(
    runFile,
    [
      'network: sim',
      'simConfig: config/sim.yaml',
      'wallet: { ephemeral: true }',
      'markets: [MON_USDC]',
      'virtual: { latency: { relay: 150ms, marketData: 20ms, userData: 20ms } }',
      'strategies:',
      '  - name: timed',
      `    module: ${join(process.cwd(), 'test/fixtures/strategies/timed-orders.ts')}`,
      '    markets: [MON_USDC]',
      '    idleTimeout: off',
      '    params:',
      '      steps:',
      `        - atMs: ${T0 + 2_500}`,
      '          orders: [{ side: BUY, price: "0.035000", size: "20", postOnly: true }, { side: BUY, price: "0.035000", size: "10", postOnly: true }]',
      `        - atMs: ${T0 + 8_000}`,
      '          orders: [{ side: BUY, price: "0.035020", size: "70", tif: IOC }]',
      `        - atMs: ${T0 + 9_000}`,
      '          orders: [{ side: BUY, price: "0.035020", size: "5", postOnly: true }]',
      'risk: { maxPosition: "1000", maxOrderSize: "1000", maxNotional: "1000", priceBandBps: 500, maxOrdersPerSecond: 50, maxOpenOrders: 20 }',
      'logging: { level: warn }',
    ].join('\n'),
  );
  const out = join(dir, 'out');
  const result = await runCli(['backtest', runFile, '--feed', feed, '--out', out]);
  expect(result.code, result.stderr.slice(-3000)).toBe(0);
  fills = readFileSync(join(out, 'fills.csv'), 'utf8').trim().split('\n').slice(1).map((line) => line.split(','));
  summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as typeof summary;
}, 60_000);
afterAll(() => (process.env['KEEP'] ? undefined : rmSync(dir, { recursive: true, force: true })));

const at = (ms: number) => new Date(T0 + ms).toISOString();

describe('a hand-made feed', () => {
  it('fills exactly what its queue, prints and book allow, each print once, in placement order', () => {
    // time, side, price, size, fee, liquidity (order ids and hashes are the venue's)
    const rows = fills.map(([time, , side, price, size, fee, liquidity]) => [time, side, price, size, fee, liquidity]);
    expect(rows).toEqual([
      [at(6_000), 'BUY', '0.035', '15', '0', 'maker'],
      [at(7_200), 'BUY', '0.035', '5', '0', 'maker'],
      [at(7_200), 'BUY', '0.035', '7', '0', 'maker'],
      // The IOC sent at T0 + 8 s reaches the relay 150 ms later: the block of T0 + 8.4 s. It walks
      // 40 at 0.035010 and 30 at 0.035020; the taker fee is 2 bp of each fill's quote, floored.
      [at(8_400), 'BUY', '0.03501', '40', '0.00028', 'taker'],
      [at(8_400), 'BUY', '0.03502', '30', '0.00021', 'taker'],
    ]);
  });

  it('reverts the post-only order that would cross what the taker left of the recorded book, as the venue does', () => {
    expect(summary.relay.reverted).toBe(1);
    expect(summary.fills).toBe(5);
    expect(summary.pnl.fees).toBe('0.00049');
  });
});
