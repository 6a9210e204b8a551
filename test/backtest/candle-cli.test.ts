/**
 * `clobbot backtest` on a candle feed, end to end on real data: one-second klines of the two minutes
 * of Binance BTCUSDT trades in test/fixtures/binance-capture (bucketed as Binance does, written as a
 * klines dump), imported by `clobbot import binance-klines`, backtested with the reference crossover.
 * The fills are checked against the feed itself: each at the open of the bar after the one whose
 * close made its signal, with the market's taker fee; and the outputs are those of an event backtest.
 */
import { btcUsdtRunFile } from './candle-fixtures.ts';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.ts';
import { candleAt, openCandleFeed, type Candle } from '../../src/feeds/candle-feed.ts';
import { CrossingAverages } from '../../strategies/ma-crossover.ts';
import { captureTrades, klinesCsv, klinesFromTrades } from '../feeds/csv-fixtures.ts';
import { runCli, tempDir } from '../support/cli-harness.ts';

const tmp = tempDir();
const feed = join(tmp.dir, 'btcusdt-1s.arrow');
let candles: Candle[] = [];

beforeAll(async () => {
  const dump = tmp.write('BTCUSDT-1s-2024-08-08.csv', klinesCsv(klinesFromTrades(captureTrades, 1_000), { header: false, unit: 'ms' }));
  const imported = await runCli(['import', 'binance-klines', dump, '--out', feed]);
  expect(imported.code, imported.stderr).toBe(0);
  const reader = await openCandleFeed(feed);
  for await (const columns of reader.batches()) for (let i = 0; i < columns.length; i += 1) candles.push(candleAt(columns, i));
  await reader.close();
});
afterAll(() => tmp.remove());

describe('clobbot backtest on candles', () => {
  it('trades the crossover on imported real klines: fills at the next bar\'s open, the taker fee, the outputs of an event backtest', async () => {
    const run = tmp.write('crossover-btcusdt.yaml', btcUsdtRunFile('strategies/ma-crossover.ts'));
    const out = join(tmp.dir, 'out');
    const result = await runCli(['backtest', run, '--feed', feed, '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    for (const name of ['summary.json', 'fills.csv', 'orders.csv', 'equity.csv', 'manifest.json', 'report.html']) expect(existsSync(join(out, name)), name).toBe(true);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Record<string, any>;
    expect(summary.candles).toMatchObject({ bars: candles.length, interval: '1s' });
    expect(summary.relay).toBeUndefined();

    // The signals, worked out again from the feed (ticks are cents, the run file's price units).
    const averages = new CrossingAverages(3, 8);
    const signals = candles.flatMap((candle, k) => {
      const crossing = averages.push(candle.close);
      return crossing === undefined ? [] : [{ k, crossing }];
    });
    expect(signals.length).toBeGreaterThanOrEqual(2);
    const fills = readFileSync(join(out, 'fills.csv'), 'utf8').trim().split('\n').slice(1).map((line) => line.split(','));
    expect(fills.length).toBe(summary.fills);
    expect(fills.length).toBeGreaterThanOrEqual(2);
    const ms = (candle: Candle) => Number(candle.openTime / 1_000_000n);
    for (const [time, , side, price, size, fee, liquidity] of fills) {
      const k = candles.findIndex((candle) => ms(candle) === Date.parse(time!));
      expect(k, `a fill at ${time} is at a bar's open`).toBeGreaterThan(0);
      // At that bar's open, after a crossing that set the side.
      expect(price).toBe(new Decimal(candles[k]!.open.toString()).div(100).toFixed());
      const previous = signals.filter((signal) => signal.k < k).at(-1);
      expect(previous, `a fill at ${time} follows a crossing`).toBeDefined();
      expect(side).toBe(previous!.crossing === 'up' ? 'BUY' : 'SELL');
      expect([size, liquidity]).toEqual(['0.01', 'taker']);
      // 1 bp of the quote amount (0.01 BTC at the open: open cents × 100 raw USDT), floored, in USDT.
      const quoteRaw = candles[k]!.open * 100n;
      expect(fee).toBe(new Decimal(((quoteRaw * 1_000n) / 10_000_000n).toString()).div(1_000_000).toFixed());
    }
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as Record<string, any>;
    expect(manifest).toMatchObject({ market: 'BTC_USDT', seed: 1, interval: '1s', source: 'binance-klines' });
    expect(result.stdout).toMatch(/\n {2}[0-9,]+ candles in [0-9.]+ s of wall time/);

    // The same inputs give the same bytes.
    const again = join(tmp.dir, 'again');
    expect((await runCli(['backtest', run, '--feed', feed, '--out', again])).code).toBe(0);
    for (const name of ['summary.json', 'fills.csv', 'orders.csv', 'equity.csv', 'manifest.json']) expect(readFileSync(join(again, name), 'utf8'), name).toBe(readFileSync(join(out, name), 'utf8'));
  });

  it('refuses a candle feed of another market than the run file\'s, a queue model, and a strategy that reads no bars', async () => {
    const other = await runCli(['backtest', 'config/ma-crossover.yaml', '--feed', feed, '--out', join(tmp.dir, 'other')]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('error FEED_FOREIGN: ');
    expect(other.stderr).toContain('a feed of BTCUSDT, but config/ma-crossover.yaml trades MON_USDC');

    const run = tmp.write('queue.yaml', btcUsdtRunFile('strategies/ma-crossover.ts'));
    const queue = await runCli(['backtest', run, '--feed', feed, '--queue', 'risk-averse', '--out', join(tmp.dir, 'queue')]);
    expect(queue.code).toBe(2);
    expect(queue.stderr).toContain('error CLI_USAGE: backtest: --queue is the queue model of an event feed\'s book; a candle feed has no book');

    const twap = tmp.write('twap.yaml', btcUsdtRunFile('strategies/twap.ts').replace(/params: .*/, 'params: { side: BUY, quantity: "0.01", duration: 60s, slices: 2 }'));
    const deaf = await runCli(['backtest', twap, '--feed', feed, '--out', join(tmp.dir, 'deaf')]);
    expect(deaf.code).toBe(2);
    expect(deaf.stderr).toContain('error BACKTEST_NO_BARS: strategy crossover (strategies/twap.ts) reads no bars');
    expect(existsSync(join(tmp.dir, 'deaf'))).toBe(false);
  });
});
