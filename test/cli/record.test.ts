/**
 * `clobbot record`, `clobbot feed` and `clobbot run --record`, as a user runs them: a simulated
 * minute recorded on the virtual clock, described, normalized and exported; a recording killed with
 * SIGKILL mid-run stays readable; a bot's own orders recorded beside the market; bad files refused
 * with exit 2 and their name.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizedFeedFor } from '../../src/feeds/feed-cache.ts';
import { openEventFeed } from '../../src/feeds/event-feed-reader.ts';
import { FeedEventKind } from '../../src/feeds/feed-event.ts';
import { openRawFeed } from '../../src/feeds/raw-feed-reader.ts';
import { runCli } from '../support/cli-harness.ts';
import { hasStackTrace, runLines, summaryCounts, workspace, type Workspace } from './run-harness.ts';

let ws: Workspace;
beforeAll(() => (ws = workspace()));
afterAll(() => ws.remove());

const rawIn = (dir: string) => {
  const files = readdirSync(dir).filter((name) => name.endsWith('.raw'));
  expect(files).toHaveLength(1);
  return join(dir, files[0]!);
};

async function kindCounts(path: string): Promise<Map<number, number>> {
  const feed = await openEventFeed(path);
  const counts = new Map<number, number>();
  for await (const batch of feed.batches()) for (let i = 0; i < batch.length; i += 1) counts.set(batch.kind[i]!, (counts.get(batch.kind[i]!) ?? 0) + 1);
  await feed.close();
  return counts;
}

describe('clobbot record and clobbot feed', () => {
  it('record a simulated minute of the in-process venue; info, normalize and export it', async () => {
    const out = join(ws.dir, 'minute');
    const recorded = await runCli(['record', '--symbol', 'MON_USDC', '--out', out, '--virtual', '--duration', '1m']);
    expect(recorded.code, recorded.stderr).toBe(0);
    const raw = rawIn(out);
    expect(recorded.stdout).toContain(`recorded ${raw}: elapsed 60 s  records `);

    const info = await runCli(['feed', 'info', raw]);
    expect(info.code).toBe(0);
    expect(info.stdout).toMatch(/raw recording \(format 1\) of MON_USDC on sim/);
    expect(info.stdout).toMatch(/time {8}2026-01-01T00:00:00\.\d{3}Z \.\. 2026-01-01T00:01:00\.\d{3}Z/);
    expect(info.stdout).toContain('ends        closed by the recorder (duration)');
    const json = JSON.parse((await runCli(['feed', 'info', raw, '--json'])).stdout) as { counts: Record<string, number> };
    const records = [...openRawFeed(raw).records()];
    expect(json.counts.depth).toBe(records.filter((record) => record.kind === 'depth').length);
    expect(json.counts.depth).toBeGreaterThan(100);

    const normalized = await runCli(['feed', 'normalize', raw]);
    expect(normalized.code, normalized.stderr).toBe(0);
    const feed = raw.replace(/\.raw$/, '.arrow');
    const counts = await kindCounts(feed);
    expect(counts.get(FeedEventKind.BOOK_CLEAR)).toBe(1);
    expect(counts.get(FeedEventKind.TRADE)).toBeGreaterThan(10);
    const feedInfo = await runCli(['feed', 'info', feed]);
    expect(feedInfo.stdout).toContain(`TRADE ${counts.get(FeedEventKind.TRADE)!.toLocaleString('en-US')}`);
    expect(feedInfo.stdout).toMatch(/source +recording on sim/);
    expect((await runCli(['feed', 'normalize', raw])).code).toBe(2);

    const csv = join(ws.dir, 'minute.csv');
    const exported = await runCli(['feed', 'export', feed, '--format', 'csv', '--out', csv]);
    expect(exported.code, exported.stderr).toBe(0);
    const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
    expect(readFileSync(csv, 'utf8').trimEnd().split('\n')).toHaveLength(total + 1);
  });

  it('leave a recording killed with SIGKILL readable up to its last complete record', async () => {
    const out = join(ws.dir, 'killed');
    const child = spawn(process.execPath, ['bin/clobbot.js', 'record', '--symbol', 'MON_USDC', '--out', out, '--virtual', '--duration', '10h'], { stdio: 'ignore' });
    try {
      // Kill it once it has recorded for a while: well before its ten simulated hours end.
      for (let waited = 0; ; waited += 50) {
        const files = existsSync(out) ? readdirSync(out) : [];
        if (files.length === 1 && statSync(join(out, files[0]!)).size > 3_000_000) break;
        if (waited > 60_000) throw new Error('the recording did not grow');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      child.kill('SIGKILL');
    }
    await new Promise((resolve) => child.once('exit', resolve));
    const raw = rawIn(out);
    const reader = openRawFeed(raw);
    const records = [...reader.records()];
    const end = reader.end();
    expect(end.closed).toBeUndefined();
    expect(end.bytes + end.tailBytes).toBe(statSync(raw).size);
    expect(records.length).toBeGreaterThan(100);

    // Cut it once more mid-line, as a kill during a write would.
    truncateSync(raw, end.bytes - 25);
    const info = await runCli(['feed', 'info', raw]);
    expect(info.code).toBe(0);
    expect(info.stdout).toMatch(new RegExp(`ends {8}cut short: readable up to record ${(end.records - 1).toLocaleString('en-US')} \\(.*; a cut last line of \\d+ bytes is dropped`));
    const normalized = await runCli(['feed', 'normalize', raw]);
    expect(normalized.code, normalized.stderr).toBe(0);
    expect(normalized.stdout).toContain(`note: the recording was cut short after ${end.records - 1} complete records`);
  }, 90_000);

  it('record a bot\'s own orders, cancels and fills beside the market (run --virtual --record)', async () => {
    const sim = ws.simConfig({ blockMs: 400 });
    const file = ws.runFile('mm.yaml', [
      ...runLines({ simConfig: sim, duration: '2m' }),
      'strategies:',
      '  - name: mm',
      '    module: strategies/market-maker.ts',
      '    markets: [MON_USDC]',
      '    params: { levels: 2, spreadBps: 4, levelSpacingBps: 4, size: "500", maxInventory: "50000", requoteThresholdBps: 3 }',
    ]);
    const out = join(ws.dir, 'own');
    const run = await runCli(['run', file, '--virtual', '--record', out]);
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    const raw = rawIn(out);
    expect(run.stdout).toContain(`  recording   ${raw}`);
    const { path } = await normalizedFeedFor(raw, { cacheDir: join(ws.dir, 'cache') });
    const counts = await kindCounts(path);
    const summary = summaryCounts(run.stdout);
    expect((counts.get(FeedEventKind.OWN_FILL) ?? 0) + (counts.get(FeedEventKind.OWN_TAKER_FILL) ?? 0)).toBe(summary.fills);
    // Orders are recorded once the engine knows their venue id; one replaced before that is not.
    expect(counts.get(FeedEventKind.OWN_ORDER)).toBeGreaterThan(summary.placed / 3);
    expect(counts.get(FeedEventKind.OWN_ORDER)).toBeLessThanOrEqual(summary.placed);
    expect(counts.get(FeedEventKind.OWN_CANCEL)).toBeGreaterThan(0);
    expect(counts.get(FeedEventKind.OWN_CANCEL)).toBeLessThanOrEqual(counts.get(FeedEventKind.OWN_ORDER)!);
    expect(counts.get(FeedEventKind.TRADE)).toBeGreaterThan(0);
    // The cache normalizes once per recording content.
    const again = await normalizedFeedFor(raw, { cacheDir: join(ws.dir, 'cache') });
    expect(again).toEqual({ path, normalizedNow: false });
  });

  it('import a Binance capture into a new directory, then describe and export it', async () => {
    const out = join(ws.dir, 'imports', 'btcusdt-2min.arrow');
    const imported = await runCli(['import', 'binance-capture', 'test/fixtures/binance-capture/btcusdt_20240808_2min.txt.gz', '--out', out, '--tick-size', '0.01']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/^imported 1 file -> .*btcusdt-2min\.arrow: [0-9,]+ rows in [0-9.]+ s\n/);
    const info = await runCli(['feed', 'info', out]);
    expect(info.stdout).toMatch(/market +BTCUSDT, tick 0\.01, lot /);
    expect((await runCli(['import', 'binance-capture', 'test/fixtures/binance-capture/btcusdt_20240808_2min.txt.gz', '--out', out])).code).toBe(2);
    const parquet = await runCli(['feed', 'export', out, '--format', 'parquet', '--from', '2024-08-08T23:55:00Z']);
    expect(parquet.code, parquet.stderr).toBe(0);
    expect(existsSync(join(ws.dir, 'imports', 'btcusdt-2min.parquet'))).toBe(true);
  });

  it('refuse a truncated feed and a foreign import with exit 2, the file named, no output left', async () => {
    const feed = join(ws.dir, 'cut.arrow');
    const source = readdirSync(join(ws.dir, 'minute')).find((name) => name.endsWith('.arrow'))!;
    writeFileSync(feed, readFileSync(join(ws.dir, 'minute', source)).subarray(0, 5_000));
    const info = await runCli(['feed', 'info', feed]);
    expect(info.code).toBe(2);
    expect(info.stderr).toMatch(new RegExp(`^error FEED_UNREADABLE: ${feed.replace(/[.]/g, '\\.')}: truncated`));
    expect(hasStackTrace(info.stderr)).toBe(false);

    const foreign = join(ws.dir, 'trades.csv');
    writeFileSync(foreign, 'id,price\n1,2\n');
    const out = join(ws.dir, 'foreign.arrow');
    const imported = await runCli(['import', 'binance-capture', foreign, '--out', out]);
    expect(imported.code).toBe(2);
    expect(imported.stderr).toMatch(/^error FEED_(FOREIGN|UNREADABLE): .*trades\.csv/);
    expect(readdirSync(ws.dir).filter((name) => name.startsWith('foreign.arrow'))).toEqual([]);
  });
});
