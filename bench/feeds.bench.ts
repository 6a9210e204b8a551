/**
 * Feeds (issue 12's figures): how fast a normalized feed is read and written, how fast a raw
 * recording is normalized, and how fast a Binance capture is imported.
 *
 * - read: a synthetic feed of FEED_BENCH_ROWS events (default 4,000,000: level changes, checkpoints and
 *   trades of a random walk), every batch decoded and every row's kind, side, price, qty and time read,
 *   as a replay does. The unit is an event (one row); the backtester's goal of a million events per
 *   second end to end leaves the reader well under a microsecond per event.
 * - write: the same rows through the writer (column buffers, LZ4, Arrow IPC).
 * - normalize: a raw recording of one simulated hour of the in-process venue (`clobbot record
 *   --virtual --duration 1h`, made once before the timed runs), per raw record.
 * - import: the BTCUSDT capture in test/fixtures/binance-capture (about 11 minutes, two files), per row written.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../src/cli/main.ts';
import { createEventFeedWriter } from '../src/feeds/event-feed-writer.ts';
import { openEventFeed } from '../src/feeds/event-feed-reader.ts';
import { FeedEventKind, Side } from '../src/feeds/feed-event.ts';
import { FEED_FORMAT, FEED_VERSION, type FeedHeader } from '../src/feeds/feed-header.ts';
import { importBinanceCapture } from '../src/feeds/importers/binance-capture.ts';
import { normalizeRawFeed } from '../src/feeds/normalize-raw-feed.ts';
import type { Benchmark } from './harness.ts';

const ROWS = Number(process.env['FEED_BENCH_ROWS'] ?? 4_000_000);
const dir = mkdtempSync(join(tmpdir(), 'clobbot-bench-feeds-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

const header: FeedHeader = {
  format: FEED_FORMAT,
  version: FEED_VERSION,
  kind: 'events',
  market: { symbol: 'SYNTH', tickSize: '0.01', lotSize: '0.00001' },
  source: { kind: 'recording', files: [] },
};

/** Writes the synthetic feed: per update, a few level changes around a random-walk mid and a checkpoint; a trade now and then. */
function writeSynthetic(path: string): number {
  const writer = createEventFeedWriter(path, header);
  let seed = 12345;
  const next = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  let mid = 6_183_763n;
  let time = 1_723_161_255_208_000_000n;
  let update = 50_093_239_189n;
  let trade = 3_735_683_259n;
  while (writer.rows < ROWS) {
    time += 100_000_000n;
    update += 1n;
    mid += BigInt(Math.round((next() - 0.5) * 6));
    for (let level = 0; level < 6; level += 1) {
      const side = next() < 0.5 ? Side.BUY : Side.SELL;
      const price = side === Side.BUY ? mid - BigInt(1 + Math.floor(next() * 50)) : mid + BigInt(1 + Math.floor(next() * 50));
      writer.append(FeedEventKind.LEVEL, side, time, time + 1_270_000_000n, price, next() < 0.2 ? 0n : BigInt(Math.floor(next() * 400_000)), update);
    }
    writer.append(FeedEventKind.CHECKPOINT, Side.NONE, time, time + 1_270_000_000n, 0n, 0n, update);
    if (next() < 0.5) writer.append(FeedEventKind.TRADE, next() < 0.5 ? Side.BUY : Side.SELL, time, time + 1_270_000_000n, mid, BigInt(1 + Math.floor(next() * 2_000)), (trade += 1n));
  }
  const rows = writer.rows;
  writer.finish();
  return rows;
}

const feedPath = join(dir, 'synthetic.arrow');
const feedRows = writeSynthetic(feedPath);

// One simulated hour of the in-process venue, recorded once.
const recordingDir = join(dir, 'recording');
const quiet = { stdout: { write: () => true }, stderr: { write: (text: string) => process.stderr.write(text) }, env: {}, isTty: false };
if ((await main(['record', '--symbol', 'MON_USDC', '--out', recordingDir, '--virtual', '--duration', '1h'], quiet)) !== 0) throw new Error('the recording failed');
const rawPath = join(recordingDir, readdirSync(recordingDir)[0]!);
let rawRecords = 0;
let normalizedRows = 0;
let importRows = 0;

const CAPTURE = ['test/fixtures/binance-capture/spot_btcusdt_20240808.gz', 'test/fixtures/binance-capture/spot_btcusdt_20240809.gz'];
let runs = 0;

export const benchmarks: readonly Benchmark[] = [
  {
    name: `feed read: ${(feedRows / 1e6).toFixed(1)}M events, every row touched`,
    unit: 'events',
    runs: 5,
    async run() {
      const feed = await openEventFeed(feedPath);
      let rows = 0;
      let volume = 0n;
      let checkpoints = 0;
      let last = 0n;
      for await (const batch of feed.batches()) {
        const { kind, side, price, qty, localTs } = batch;
        for (let i = 0; i < batch.length; i += 1) {
          const k = kind[i]!;
          if (k === FeedEventKind.TRADE) volume += side[i]! > 0 ? qty[i]! : -qty[i]!;
          else if (k === FeedEventKind.CHECKPOINT) checkpoints += 1;
          else if (price[i]! < 0n) throw new Error('negative price');
        }
        last = localTs[batch.length - 1]!;
        rows += batch.length;
      }
      await feed.close();
      if (rows !== feedRows || checkpoints === 0 || last === 0n || volume === 0n) throw new Error('the read missed rows');
      return rows;
    },
  },
  {
    name: `feed write: ${(feedRows / 1e6).toFixed(1)}M events (LZ4)`,
    unit: 'events',
    runs: 3,
    run: () => writeSynthetic(join(dir, `write-${(runs += 1)}.arrow`)),
  },
  {
    name: 'normalize: raw recording of a simulated hour',
    unit: 'records',
    runs: 3,
    async run() {
      const out = join(dir, `normalized-${(runs += 1)}.arrow`);
      const result = await normalizeRawFeed(rawPath, out);
      rawRecords = result.records;
      normalizedRows = result.rows;
      return result.records;
    },
  },
  {
    name: 'import binance-capture: BTCUSDT, 11 minutes',
    unit: 'rows',
    runs: 3,
    async run() {
      const result = await importBinanceCapture({ inputs: CAPTURE, out: join(dir, `capture-${(runs += 1)}.arrow`) });
      importRows = result.rows;
      return result.rows;
    },
  },
];

export function report(): string {
  return [
    `  synthetic feed: ${feedRows.toLocaleString('en-US')} events in ${statSync(feedPath).size.toLocaleString('en-US')} bytes (${(statSync(feedPath).size / feedRows).toFixed(2)} bytes/event)`,
    `  recording of a simulated hour: ${rawRecords.toLocaleString('en-US')} raw records, ${statSync(rawPath).size.toLocaleString('en-US')} bytes -> ${normalizedRows.toLocaleString('en-US')} normalized rows`,
    `  BTCUSDT capture: ${importRows.toLocaleString('en-US')} rows`,
  ].join('\n');
}
