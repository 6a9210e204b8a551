/**
 * `clobbot backtest` as a user runs it: the reference market maker recorded for a simulated hour on the
 * in-process venue (`run --virtual --record`), then backtested on its own recording (the fidelity figure), twice (the
 * same bytes), on an imported Binance capture with a testnet run file as it is, and refused with
 * exit 2 and nothing left behind for bad input.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-harness.ts';
import { captureDiffs, captureSnapshot, captureTrades, tardisBookCsv, tardisTradesCsv } from '../feeds/csv-fixtures.ts';
import { hasStackTrace, workspace, type Workspace } from './run-harness.ts';

let ws: Workspace;
let recording: string;
let live: { fills: number; volume: number; netPnl: number };

const OUTPUTS = ['equity.csv', 'fills.csv', 'manifest.json', 'orders.csv', 'report.html', 'summary.json'];

beforeAll(async () => {
  ws = workspace();
  const summary = join(ws.dir, 'live.json');
  const run = await runCli(['run', 'config/market-maker.yaml', '--virtual', '--duration', '1h', '--record', join(ws.dir, 'rec'), '--summary', summary, '--journal-dir', join(ws.dir, 'journal')]);
  expect(run.code, run.stderr.slice(-2000)).toBe(0);
  recording = join(ws.dir, 'rec', readdirSync(join(ws.dir, 'rec'))[0]!);
  const market = (JSON.parse(readFileSync(summary, 'utf8')) as { markets: { fills: number; volume: string; netPnl: string }[] }).markets[0]!;
  live = { fills: market.fills, volume: Number(market.volume), netPnl: Number(market.netPnl) };
}, 120_000);
afterAll(() => ws.remove());

async function backtest(args: readonly string[]) {
  return runCli(['backtest', ...args]);
}

describe('clobbot backtest', () => {
  it('backtests the market maker on its own recording: every output, and figures near the live run', async () => {
    const out = join(ws.dir, 'bt');
    const result = await backtest(['config/market-maker.yaml', '--feed', recording, '--out', out]);
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(readdirSync(out).sort()).toEqual(OUTPUTS);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { fills: number; volume: { base: string }; pnl: { net: string }; stop: { kind: string } };
    expect(summary.stop.kind).toBe('duration');
    const fills = summary.fills;
    const volume = Number(summary.volume.base);
    const pnl = Number(summary.pnl.net);
    // The fidelity figure (docs/backtesting.md): over the simulated hour, fills and volume within 5 %
    // of the live run's and PnL within 10 % (measured: -3.7 %, -1.2 %, -3.6 %).
    expect(Math.abs(fills - live.fills) / live.fills).toBeLessThan(0.05);
    expect(Math.abs(volume - live.volume) / live.volume).toBeLessThan(0.05);
    expect(Math.abs(pnl - live.netPnl) / Math.abs(live.netPnl)).toBeLessThan(0.1);
    expect(fills).toBeGreaterThan(0);
    const csvFills = readFileSync(join(out, 'fills.csv'), 'utf8').trim().split('\n').length - 1;
    expect(csvFills).toBe(fills);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { feed: { sha256: string }; seed: number; queueModel: { name: string } };
    expect(manifest).toMatchObject({ seed: 1, queueModel: { name: 'probabilistic', power: 3 } });
    expect(manifest.feed.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(result.stdout).toMatch(/\n  fills +[0-9]+\n/);
  }, 60_000);

  it('gives the same bytes of every output for the same feed, run file and seed', async () => {
    const a = join(ws.dir, 'same-a');
    const b = join(ws.dir, 'same-b');
    expect((await backtest(['config/market-maker.yaml', '--feed', recording, '--out', a, '--to', '2026-01-01T00:03:00Z'])).code).toBe(0);
    expect((await backtest(['config/market-maker.yaml', '--feed', recording, '--out', b, '--to', '2026-01-01T00:03:00Z'])).code).toBe(0);
    for (const name of OUTPUTS) expect(readFileSync(join(b, name)).equals(readFileSync(join(a, name))), name).toBe(true);
    const c = join(ws.dir, 'same-c');
    expect((await backtest(['config/market-maker.yaml', '--feed', recording, '--out', c, '--to', '2026-01-01T00:03:00Z', '--seed', '2'])).code).toBe(0);
    expect(readFileSync(join(c, 'manifest.json'), 'utf8')).not.toBe(readFileSync(join(a, 'manifest.json'), 'utf8'));
  }, 60_000);

  it('backtests a testnet run file as it is on an imported Binance capture: nothing touches a network', async () => {
    const feed = join(ws.dir, 'btcusdt.arrow');
    const imported = await runCli(['import', 'binance-capture', 'test/fixtures/binance-capture/spot_btcusdt_20240808.gz', 'test/fixtures/binance-capture/spot_btcusdt_20240809.gz', '--out', feed]);
    expect(imported.code, imported.stderr).toBe(0);
    const out = join(ws.dir, 'bt-btc');
    const result = await backtest(['config/backtest-btcusdt.yaml', '--feed', feed, '--out', out, '--to', '2024-08-08T23:58:00Z']);
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { market: string; replay: { events: number; trades: number }; relay: { signed: number } };
    expect(summary.market).toBe('BTC_USDT');
    expect(summary.replay.trades).toBeGreaterThan(1_000);
    expect(summary.relay.signed).toBeGreaterThan(0);
  }, 60_000);

  it('backtests the same market on a Tardis-format import (incremental_book_L2 and trades)', async () => {
    const book = join(ws.dir, 'binance_book.csv');
    const trades = join(ws.dir, 'binance_trades.csv');
    writeFileSync(book, tardisBookCsv(captureSnapshot, captureDiffs));
    writeFileSync(trades, tardisTradesCsv(captureTrades));
    const feed = join(ws.dir, 'tardis.arrow');
    const imported = await runCli(['import', 'tardis', book, trades, '--out', feed, '--symbol', 'BTCUSDT']);
    expect(imported.code, imported.stderr).toBe(0);
    const out = join(ws.dir, 'bt-tardis');
    const result = await backtest(['config/backtest-btcusdt.yaml', '--feed', feed, '--out', out]);
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { market: string; replay: { trades: number }; relay: { signed: number } };
    expect(summary).toMatchObject({ market: 'BTC_USDT' });
    expect(summary.replay.trades).toBe(captureTrades.length);
    expect(summary.relay.signed).toBeGreaterThan(0);
  }, 60_000);

  it('refuses bad input with exit 2, the file named, and no output left', async () => {
    const out = join(ws.dir, 'refused');
    const expectRefused = async (args: readonly string[], pattern: RegExp) => {
      const result = await backtest([...args, '--out', out]);
      expect(result.code, result.stdout).toBe(2);
      expect(result.stderr).toMatch(pattern);
      expect(hasStackTrace(result.stderr)).toBe(false);
      expect(existsSync(out)).toBe(false);
      expect(existsSync(`${out}.partial`)).toBe(false);
    };
    const normalized = join(ws.dir, 'normalized.arrow');
    expect((await runCli(['feed', 'normalize', recording, '--out', normalized])).code).toBe(0);
    const bytes = readFileSync(normalized);
    const truncated = join(ws.dir, 'truncated.arrow');
    writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expectRefused(['config/market-maker.yaml', '--feed', truncated], /^error FEED_UNREADABLE: .*truncated\.arrow: truncated/);
    const corrupted = join(ws.dir, 'corrupted.arrow');
    const damaged = Buffer.from(bytes);
    for (let i = 2_000; i < 2_200; i += 1) damaged[i] = damaged[i]! ^ 0x5a;
    writeFileSync(corrupted, damaged);
    await expectRefused(['config/market-maker.yaml', '--feed', corrupted], /^error FEED_(UNREADABLE|FOREIGN): .*corrupted\.arrow/);
    const foreign = join(ws.dir, 'foreign.csv');
    writeFileSync(foreign, 'time,price\n1,2\n');
    await expectRefused(['config/market-maker.yaml', '--feed', foreign], /^error FEED_FOREIGN: .*foreign\.csv/);
    await expectRefused(['config/backtest-btcusdt.yaml', '--feed', normalized], /^error FEED_FOREIGN: .*a feed of MON_USDC, but config\/backtest-btcusdt\.yaml trades BTC_USDT/);
    await expectRefused(['config/market-maker.yaml', '--feed', normalized, '--from', '2027-01-01T00:00:00Z'], /^error CLI_USAGE: backtest: the time range is empty: the feed covers 2026-01-01T00:00/);
    await expectRefused(['config/market-maker.yaml', '--feed', join(ws.dir, 'missing.arrow')], /^error FEED_NOT_FOUND: /);
  }, 60_000);
});
