import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Float64, Int64, TimestampNanosecond } from 'apache-arrow';
import { isBaseError } from '../../src/core/base-error.ts';
import { createArrowFileWriter } from '../../src/feeds/arrow-file.ts';
import { createEventFeedWriter } from '../../src/feeds/event-feed-writer.ts';
import { FeedEventKind, Side, type FeedEvent } from '../../src/feeds/feed-event.ts';
import { FEED_FORMAT, FEED_VERSION, headerMetadata, type FeedHeader } from '../../src/feeds/feed-header.ts';
import { describeFeed, feedDescriptionJson, formatFeedDescription, LISTED_GAPS, nsToIso } from '../../src/feeds/describe-feed.ts';

const header: FeedHeader = {
  format: FEED_FORMAT,
  version: FEED_VERSION,
  kind: 'events',
  market: { symbol: 'BTCUSDT', baseAsset: 'BTC', quoteAsset: 'USDT', tickSize: '0.01', lotSize: '0.00001', inferred: true },
  source: {
    kind: 'binance-capture',
    files: [{ name: 'btcusdt_20240808_2min.txt.gz', sha256: '3f9a'.repeat(16) }],
    notes: ['207 bookTicker lines written as BBO rows'],
  },
  clockCorrection: { method: 'min-latency', minLatencyNs: '-1271000000', baseLatencyNs: '0', addedNs: '1271000000' },
};

const START = 1_723_161_253_937_085_768n;

/** Synthetic BTCUSDT rows: book updates with checkpoints, trades, a gap of each kind now and then. */
function synthetic(count: number): FeedEvent[] {
  const rows: FeedEvent[] = [];
  let price = 6_183_763n;
  for (let i = 0; rows.length < count; i += 1) {
    const localTs = START + BigInt(i) * 2_000_017n;
    // Exchange times jitter, so the earliest is not the first row's.
    const exchTs = localTs - 1_271_000_000n + BigInt((i * 7_919_111 + 20_000_000) % 50_000_000) - 25_000_000n;
    if (i === 0) rows.push({ kind: FeedEventKind.BOOK_CLEAR, side: Side.NONE, exchTs, localTs, price: 0n, qty: 0n, id: 50_093_239_189n });
    if (i % 5 === 0) {
      price += BigInt((i % 11) - 5);
      rows.push({ kind: FeedEventKind.TRADE, side: i % 2 === 0 ? Side.BUY : Side.SELL, exchTs, localTs, price, qty: BigInt(1 + ((i * 31) % 40_000)), id: 3_735_683_259n + BigInt(i) });
    } else {
      rows.push({ kind: FeedEventKind.LEVEL, side: i % 2 === 0 ? Side.BUY : Side.SELL, exchTs, localTs, price: price + BigInt((i % 40) - 20), qty: BigInt((i * 7_919) % 100_000), id: 0n });
      if (i % 4 === 0) rows.push({ kind: FeedEventKind.CHECKPOINT, side: Side.NONE, exchTs, localTs, price: 0n, qty: 0n, id: 50_093_239_189n + BigInt(i) });
    }
    if (i % 997 === 500) rows.push({ kind: FeedEventKind.BOOK_GAP, side: Side.NONE, exchTs, localTs, price: 0n, qty: 0n, id: 50_093_239_190n + BigInt(i) });
    if (i % 1_499 === 700) rows.push({ kind: FeedEventKind.TRADE_GAP, side: Side.NONE, exchTs, localTs, price: 0n, qty: BigInt(2 + (i % 3)), id: 3_735_683_260n + BigInt(i) });
  }
  return rows;
}

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'clobbot-describe-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writeFeed(path: string, rows: readonly FeedEvent[], feedHeader: FeedHeader = header): void {
  const writer = createEventFeedWriter(path, feedHeader, { batchRows: 4_096 });
  for (const row of rows) writer.appendEvent(row);
  writer.finish();
}

async function refusal(run: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await run;
  } catch (error) {
    if (isBaseError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('describeFeed succeeded');
}

const min = (values: bigint[]) => values.reduce((a, b) => (b < a ? b : a));
const max = (values: bigint[]) => values.reduce((a, b) => (b > a ? b : a));

describe('nsToIso', () => {
  it('keeps all nine fraction digits', () => {
    expect(nsToIso(START)).toBe('2024-08-08T23:54:13.937085768Z');
    expect(nsToIso(0n)).toBe('1970-01-01T00:00:00.000000000Z');
    expect(nsToIso(-1n)).toBe('1969-12-31T23:59:59.999999999Z');
  });
});

describe('describeFeed of an event feed', () => {
  it('counts rows by kind, gives the time ranges, lists the gaps and carries the header', async () => {
    const rows = synthetic(20_000);
    const path = join(dir, 'btcusdt.feed.arrow');
    writeFeed(path, rows);
    const d = await describeFeed(path);

    expect(d).toMatchObject({ path, rows: rows.length, batches: Math.ceil(rows.length / 4_096), bytes: statSync(path).size, format: FEED_FORMAT, version: FEED_VERSION, kind: 'events' });
    expect(d.columns).toEqual(['kind', 'side', 'exch_ts', 'local_ts', 'price', 'qty', 'id']);
    expect(d.source).toEqual({ kind: 'binance-capture', files: header.source.files, notes: header.source.notes });
    expect(d.market).toEqual(header.market);
    expect(d.clockCorrection).toEqual(header.clockCorrection);
    expect(d.candles).toBeUndefined();

    const e = d.events!;
    const count = (kind: number) => rows.filter((row) => row.kind === kind).length;
    expect(e.counts).toEqual({
      BOOK_CLEAR: 1,
      LEVEL: count(FeedEventKind.LEVEL),
      CHECKPOINT: count(FeedEventKind.CHECKPOINT),
      TRADE: count(FeedEventKind.TRADE),
      BOOK_GAP: count(FeedEventKind.BOOK_GAP),
      TRADE_GAP: count(FeedEventKind.TRADE_GAP),
    });
    expect(Object.keys(e.counts)).toEqual(['BOOK_CLEAR', 'LEVEL', 'CHECKPOINT', 'TRADE', 'BOOK_GAP', 'TRADE_GAP']);
    const exch = rows.map((row) => row.exchTs);
    const local = rows.map((row) => row.localTs);
    expect(min(exch)).not.toBe(exch[0]);
    expect(e.exchTs).toEqual({ earliest: { ns: min(exch), iso: nsToIso(min(exch)) }, latest: { ns: max(exch), iso: nsToIso(max(exch)) } });
    expect(e.localTs).toEqual({ earliest: { ns: local[0], iso: nsToIso(local[0]!) }, latest: { ns: local.at(-1), iso: nsToIso(local.at(-1)!) } });
    expect(e.localTs!.earliest.iso).toBe('2024-08-08T23:54:13.937085768Z');

    const gapRows = rows.flatMap((row, index) => (row.kind === FeedEventKind.BOOK_GAP || row.kind === FeedEventKind.TRADE_GAP ? [{ row, index }] : []));
    expect(gapRows.length).toBeGreaterThan(LISTED_GAPS);
    expect(e.gaps.count).toBe(gapRows.length);
    expect(e.gaps.book).toBe(count(FeedEventKind.BOOK_GAP));
    expect(e.gaps.trades).toBe(count(FeedEventKind.TRADE_GAP));
    expect(e.gaps.first).toEqual(
      gapRows.slice(0, LISTED_GAPS).map(({ row, index }) => ({
        kind: row.kind === FeedEventKind.BOOK_GAP ? 'BOOK_GAP' : 'TRADE_GAP',
        row: index,
        localTs: { ns: row.localTs, iso: nsToIso(row.localTs) },
        id: row.id,
        ...(row.kind === FeedEventKind.TRADE_GAP ? { missing: row.qty } : {}),
      })),
    );
  });

  it('formats readable lines and JSON with bigints as strings', async () => {
    const rows = synthetic(3_000);
    const path = join(dir, 'btcusdt.feed.arrow');
    writeFeed(path, rows);
    const d = await describeFeed(path);
    const text = formatFeedDescription(d);
    expect(text.endsWith('\n')).toBe(true);
    expect(text).toContain(`${path}: clobbot-feed v1, events feed`);
    expect(text).toContain(`rows         ${rows.length.toLocaleString('en-US')} in 1 batch`);
    expect(text).toContain('binance-capture: btcusdt_20240808_2min.txt.gz (sha256 3f9a3f9a3f9a…)');
    expect(text).toContain('note: 207 bookTicker lines written as BBO rows');
    expect(text).toContain('BTCUSDT (BTC/USDT), tick 0.01, lot 0.00001 (inferred from the data)');
    expect(text).toContain('local time   2024-08-08T23:54:13.937085768Z .. ');
    expect(text).toMatch(/rows by kind BOOK_CLEAR 1, LEVEL [\d,]+, CHECKPOINT [\d,]+, TRADE [\d,]+, BOOK_GAP \d+, TRADE_GAP \d+/);
    expect(text).toMatch(/gaps +\d+ \(\d+ book, \d+ trades\)/);
    expect(text).toMatch(/BOOK_GAP at row [\d,]+, 2024-08-08T\d\d:\d\d:\d\d\.\d{9}Z: updates from \d+/);
    expect(text).toContain('min-latency correction: local times moved by +1.271000000 s (min latency seen -1.271000000 s, base latency +0.000000000 s)');

    const json = JSON.parse(feedDescriptionJson(d)) as { events: { localTs: { earliest: { ns: string; iso: string } }; gaps: { first: { id: string }[] } }; rows: number };
    expect(json.rows).toBe(rows.length);
    expect(json.events.localTs.earliest).toEqual({ ns: START.toString(), iso: '2024-08-08T23:54:13.937085768Z' });
    expect(typeof json.events.gaps.first[0]!.id).toBe('string');
  });

  it('describes an empty feed', async () => {
    const path = join(dir, 'empty.feed.arrow');
    writeFeed(path, []);
    const d = await describeFeed(path);
    expect(d.rows).toBe(0);
    expect(d.events).toEqual({ exchTs: null, localTs: null, counts: {}, gaps: { count: 0, book: 0, trades: 0, first: [] } });
    expect(formatFeedDescription(d)).toContain('local time   (no rows)');
  });

  it('refuses a truncated feed with FEED_UNREADABLE, a missing one with FEED_NOT_FOUND', async () => {
    const path = join(dir, 'btcusdt.feed.arrow');
    writeFeed(path, synthetic(10_000));
    const bytes = readFileSync(path);
    const truncated = join(dir, 'truncated.feed.arrow');
    writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
    expect((await refusal(describeFeed(truncated))).code).toBe('FEED_UNREADABLE');
    expect((await refusal(describeFeed(join(dir, 'nope.arrow')))).code).toBe('FEED_NOT_FOUND');
  });
});

describe('describeFeed of a candle feed', () => {
  it('gives the count, the open and close time ranges, the interval and missing candles', async () => {
    const candleHeader: FeedHeader = {
      format: FEED_FORMAT,
      version: FEED_VERSION,
      kind: 'candles',
      market: { symbol: 'BTCUSDT', tickSize: '0.01', lotSize: '0.00001' },
      source: { kind: 'binance-klines', files: [{ name: 'BTCUSDT-1m-2024-08-08.zip', sha256: 'c'.repeat(64) }], interval: '1m' },
    };
    const ns = new TimestampNanosecond('UTC');
    const columns = [
      { name: 'open_time', type: ns },
      { name: 'close_time', type: ns },
      ...['open', 'high', 'low', 'close', 'volume', 'quote_volume'].map((name) => ({ name, type: new Float64() })),
      { name: 'trades', type: new Int64() },
    ];
    const minute = 60_000_000_000n;
    const start = 1_723_075_200_000_000_000n;
    // 1,440 minutes with 3 missing.
    const opens = Array.from({ length: 1_440 }, (_, i) => start + BigInt(i) * minute).filter((_, i) => i !== 100 && i !== 101 && i !== 900);
    const open = BigInt64Array.from(opens);
    const close = BigInt64Array.from(opens, (t) => t + minute - 1_000_000n);
    const value = Float64Array.from(opens, (_, i) => 61_000 + i);
    const trades = BigInt64Array.from(opens, (_, i) => BigInt(i));
    const path = join(dir, 'candles.arrow');
    const writer = createArrowFileWriter(path, columns, headerMetadata(candleHeader));
    writer.writeBatch([open, close, value, value, value, value, value, value, trades], open.length);
    writer.finish();

    const d = await describeFeed(path);
    expect(d.kind).toBe('candles');
    expect(d.events).toBeUndefined();
    expect(d.source.interval).toBe('1m');
    expect(d.candles).toEqual({
      interval: '1m',
      count: 1_437,
      openTime: { earliest: { ns: start, iso: '2024-08-08T00:00:00.000000000Z' }, latest: { ns: start + 1_439n * minute, iso: '2024-08-08T23:59:00.000000000Z' } },
      closeTime: { earliest: { ns: start + minute - 1_000_000n, iso: '2024-08-08T00:00:59.999000000Z' }, latest: { ns: start + 1_440n * minute - 1_000_000n, iso: '2024-08-08T23:59:59.999000000Z' } },
      missing: 3,
    });
    const text = formatFeedDescription(d);
    expect(text).toContain('candles      1,437 of 1m, 3 missing');
    expect(text).toContain('open time    2024-08-08T00:00:00.000000000Z .. 2024-08-08T23:59:00.000000000Z (23h 59m 0.000s)');
  });
});
