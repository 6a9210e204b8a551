/**
 * A strategy's own figures (`ctx.reportFigures`) in a backtest's summary: the reference TWAP buys
 * through a hand-made book, and summary.json holds its average fill price, executed size, arrival mid
 * and slippage, consistent with the fills of fills.csv; the terminal table shows them by name.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.ts';
import { decimalScale, parseStep } from '../../src/feeds/decimal-scale.ts';
import { createEventFeedWriter } from '../../src/feeds/event-feed-writer.ts';
import { FeedEventKind, Side } from '../../src/feeds/feed-event.ts';
import { FEED_FORMAT, FEED_VERSION } from '../../src/feeds/feed-header.ts';
import { runCli, type CliRun } from '../support/cli-harness.ts';

/** The feed's first row (the clock starts 30 s before it, the TWAP too: its slices before the first book place nothing). */
const T0 = Date.UTC(2026, 0, 1, 0, 1, 0);
const ns = (ms: number) => BigInt(ms) * 1_000_000n;
/** MON_USDC of config/sim.yaml: ticks of 0.000001 USDC, lots of 0.01 MON. */
const ticks = (price: string) => decimalScale(parseStep('0.000001')).units(price)!;
const lots = (size: string) => decimalScale(parseStep('0.01')).units(size)!;

let dir: string;
let result: CliRun;
let fills: { side: string; price: string; size: string }[];
let twap: { name: string; figures: Record<string, string | null> | null; figuresError: unknown };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clobbot-figures-'));
  const feed = join(dir, 'book.arrow');
  const writer = createEventFeedWriter(feed, {
    format: FEED_FORMAT,
    version: FEED_VERSION,
    kind: 'events',
    market: { symbol: 'MON_USDC', tickSize: '0.000001', lotSize: '0.01' },
    source: { kind: 'recording', files: [] },
  });
  const row = (at: number, kind: number, side: number, price: bigint, qty: bigint, id: bigint) => writer.append(kind, side, ns(at), ns(at), price, qty, id);
  // One book, three ask levels: the TWAP's slices walk them.
  row(T0, FeedEventKind.BOOK_CLEAR, Side.NONE, 0n, 0n, 1n);
  row(T0, FeedEventKind.LEVEL, Side.BUY, ticks('0.035000'), lots('500'), 1n);
  row(T0, FeedEventKind.LEVEL, Side.SELL, ticks('0.035010'), lots('40'), 1n);
  row(T0, FeedEventKind.LEVEL, Side.SELL, ticks('0.035020'), lots('30'), 1n);
  row(T0, FeedEventKind.LEVEL, Side.SELL, ticks('0.035040'), lots('500'), 1n);
  row(T0, FeedEventKind.CHECKPOINT, Side.NONE, 0n, 0n, 1n);
  row(T0 + 40_000, FeedEventKind.CHECKPOINT, Side.NONE, 0n, 0n, 2n);
  writer.finish();

  const runFile = join(dir, 'twap.yaml');
  writeFileSync(
    runFile,
    [
      'network: sim',
      'simConfig: config/sim.yaml',
      'wallet: { ephemeral: true }',
      'markets: [MON_USDC]',
      'strategies:',
      '  - { name: twap, module: strategies/twap.ts, markets: [MON_USDC], params: { side: BUY, quantity: "120", duration: 60s, slices: 6, mode: ioc, slippageBps: 20 } }',
      'risk: { maxPosition: "1000", maxOrderSize: "1000", maxNotional: "1000", priceBandBps: 500, maxOrdersPerSecond: 50, maxOpenOrders: 20 }',
      'logging: { level: warn }',
    ].join('\n'),
  );
  const out = join(dir, 'out');
  result = await runCli(['backtest', runFile, '--feed', feed, '--out', out]);
  expect(result.code, result.stderr.slice(-3000)).toBe(0);
  fills = readFileSync(join(out, 'fills.csv'), 'utf8').trim().split('\n').slice(1).map((line) => {
    const [, , side, price, size] = line.split(',');
    return { side: side!, price: price!, size: size! };
  });
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { strategies: (typeof twap)[] };
  twap = summary.strategies[0]!;
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a backtest of the TWAP', () => {
  it("writes the TWAP's figures to summary.json: its average price is the volume-weighted price of fills.csv", () => {
    expect(twap.name).toBe('twap');
    expect(twap.figuresError).toBeNull();
    // More than one fill, at more than one price: the average is a real average.
    expect(fills.length).toBeGreaterThanOrEqual(2);
    expect(new Set(fills.map((fill) => fill.price)).size).toBeGreaterThanOrEqual(2);
    expect(fills.every((fill) => fill.side === 'BUY')).toBe(true);
    const size = fills.reduce((sum, fill) => sum.plus(fill.size), new Decimal(0));
    const notional = fills.reduce((sum, fill) => sum.plus(new Decimal(fill.price).times(fill.size)), new Decimal(0));
    const figures = twap.figures!;
    expect(figures).toMatchObject({ side: 'BUY', quantity: '120', executed: size.toFixed(), finished: 'quantity reached' });
    expect(size.toFixed()).toBe('120');
    // Price units of 1e-7: the average to 11 places.
    expect(figures['avgPrice']).toBe(notional.div(size).toDecimalPlaces(11).toFixed());
    // The arrival mid: the first book's, (0.035000 + 0.035010) / 2.
    expect(figures['arrivalMid']).toBe('0.035005');
    expect(figures['slippageBps']).toBe(new Decimal(figures['avgPrice']!).minus('0.035005').div('0.035005').times(10_000).toFixed(2));
  });

  it('shows them in its summary table by strategy name', () => {
    const figures = twap.figures!;
    for (const name of ['avgPrice', 'arrivalMid', 'slippageBps', 'executed']) {
      expect(result.stdout).toMatch(new RegExp(`\\n {2}strategies\\.twap\\.figures\\.${name} +${figures[name]!.replace('.', '\\.')}\\n`));
    }
    expect(result.stdout).toMatch(/\n {2}strategies\.twap\.fates\.CONFIRMED +\d+\n/);
  });
});
