import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Float64, Int64, TimestampNanosecond } from 'apache-arrow';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { isBaseError } from '../../src/core/base-error.ts';
import { createArrowFileWriter } from '../../src/feeds/arrow-file.ts';
import { createEventFeedWriter } from '../../src/feeds/event-feed-writer.ts';
import { FeedEventKind, feedEventKindName, msToNs, Side, type FeedEvent } from '../../src/feeds/feed-event.ts';
import { FEED_FORMAT, FEED_VERSION, headerMetadata, type FeedHeader } from '../../src/feeds/feed-header.ts';
import { exportFeed } from '../../src/feeds/export-feed.ts';

const header: FeedHeader = {
  format: FEED_FORMAT,
  version: FEED_VERSION,
  kind: 'events',
  market: { symbol: 'BTCUSDT', baseAsset: 'BTC', quoteAsset: 'USDT', tickSize: '0.01', lotSize: '0.00001' },
  source: { kind: 'binance-capture', files: [{ name: 'btcusdt_20240808_2min.txt.gz', sha256: 'b'.repeat(64) }], notes: ['test feed'] },
  clockCorrection: { method: 'min-latency', minLatencyNs: '-1271000000', baseLatencyNs: '0', addedNs: '1271000000' },
};

/** `61837.63000000` in units of 10^-decimals, for a string with 8 decimals. */
const scaled = (text: string, decimals: number): bigint => BigInt(text.replace('.', '')) / 10n ** BigInt(8 - decimals);

interface CaptureLine {
  readonly stream: string;
  readonly data: { E?: number; T?: number; t?: number; p?: string; q?: string; m?: boolean; u?: number; U?: number; b?: [string, string][] | string; a?: [string, string][] | string; B?: string; A?: string };
}

/** Rows of the Binance capture fixture (real BTCUSDT values), with a gap of each kind in the middle. */
function fixtureEvents(limit: number): FeedEvent[] {
  const text = gunzipSync(readFileSync(join(import.meta.dirname, '../fixtures/binance-capture/btcusdt_20240808_2min.txt.gz'))).toString('utf8');
  const events: FeedEvent[] = [];
  const push = (kind: FeedEventKind, side: number, exchTs: bigint, localTs: bigint, price: bigint, qty: bigint, id: bigint) =>
    events.push({ kind, side, exchTs, localTs, price, qty, id });
  let lines = 0;
  let lastExchTs = 0n;
  let bookGap = false;
  let tradeGap = false;
  for (const line of text.split('\n')) {
    if (events.length >= limit) break;
    if (line === '') continue;
    const space = line.indexOf(' ');
    const localTs = BigInt(line.slice(0, space));
    const { stream, data } = JSON.parse(line.slice(space + 1)) as CaptureLine;
    lines += 1;
    if (stream.endsWith('@trade')) {
      push(FeedEventKind.TRADE, data.m === true ? Side.SELL : Side.BUY, msToNs(data.T!), localTs, scaled(data.p!, 2), scaled(data.q!, 5), BigInt(data.t!));
      if (!tradeGap && lines >= 250) {
        tradeGap = true;
        push(FeedEventKind.TRADE_GAP, Side.NONE, msToNs(data.T!), localTs, 0n, 3n, BigInt(data.t!) + 1n);
      }
      continue;
    }
    if (stream.endsWith('@bookTicker')) {
      // bookTicker carries no event time: the last depth update's stands in.
      push(FeedEventKind.BBO, Side.BUY, lastExchTs, localTs, scaled(data.b as string, 2), scaled(data.B!, 5), BigInt(data.u!));
      push(FeedEventKind.BBO, Side.SELL, lastExchTs, localTs, scaled(data.a as string, 2), scaled(data.A!, 5), BigInt(data.u!));
      continue;
    }
    const exchTs = msToNs(data.E!);
    lastExchTs = exchTs;
    if (events.length === 0) push(FeedEventKind.BOOK_CLEAR, Side.NONE, exchTs, localTs, 0n, 0n, BigInt(data.U!));
    for (const [price, qty] of data.b as [string, string][]) push(FeedEventKind.LEVEL, Side.BUY, exchTs, localTs, scaled(price, 2), scaled(qty, 5), 0n);
    for (const [price, qty] of data.a as [string, string][]) push(FeedEventKind.LEVEL, Side.SELL, exchTs, localTs, scaled(price, 2), scaled(qty, 5), 0n);
    push(FeedEventKind.CHECKPOINT, Side.NONE, exchTs, localTs, 0n, 0n, BigInt(data.u!));
    if (!bookGap && lines >= 150) {
      bookGap = true;
      push(FeedEventKind.BOOK_GAP, Side.NONE, exchTs, localTs, 0n, 0n, BigInt(data.u!) + 1n);
    }
  }
  return events;
}

const events = fixtureEvents(6_000);

let dir: string;
let feed: string;
let db: DuckDBInstance;
let sql: DuckDBConnection;

beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:');
  sql = await db.connect();
});
afterAll(() => {
  sql.closeSync();
  db.closeSync();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'clobbot-export-'));
  feed = join(dir, 'btcusdt.feed.arrow');
  const writer = createEventFeedWriter(feed, header, { batchRows: 1_000 });
  for (const event of events) writer.appendEvent(event);
  writer.finish();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function query(text: string): Promise<unknown[][]> {
  return (await sql.runAndReadAll(text)).getRows() as unknown[][];
}

/** One row of an export as a FeedEvent (timestamps already cast to ns integers by the query). */
function asEvent(row: readonly unknown[]): FeedEvent {
  const [kind, side, exchTs, localTs, price, qty, id] = row;
  return { kind: Number(kind) as FeedEventKind, side: Number(side), exchTs: BigInt(exchTs as bigint), localTs: BigInt(localTs as bigint), price: BigInt(price as bigint), qty: BigInt(qty as bigint), id: BigInt(id as bigint) };
}

function expectedCounts(rows: readonly FeedEvent[]): [string, bigint][] {
  const counts = new Map<string, bigint>();
  for (const row of rows) counts.set(feedEventKindName(row.kind)!, (counts.get(feedEventKindName(row.kind)!) ?? 0n) + 1n);
  return [...counts].sort(([a], [b]) => a.localeCompare(b));
}

async function refusal(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (error) {
    if (isBaseError(error)) return error.code;
    throw error;
  }
  throw new Error('export succeeded');
}

const parquetRows = (path: string) => `read_parquet('${path}', file_row_number = true)`;
const eventColumns = 'kind, side, epoch_ns(exch_ts), epoch_ns(local_ts), price, qty, id';

describe('exportFeed to Parquet', () => {
  it('writes every row, typed, with the feed header as key-value metadata (read back by DuckDB)', async () => {
    const out = join(dir, 'btcusdt.parquet');
    const result = await exportFeed({ path: feed, out, format: 'parquet' });
    expect(result.rows).toBe(events.length);
    expect(result.bytes).toBe(readFileSync(out).length);
    expect(result.columns).toEqual(['kind', 'kind_name', 'side', 'exch_ts', 'local_ts', 'price', 'qty', 'id']);
    expect(readdirSync(dir).sort()).toEqual(['btcusdt.feed.arrow', 'btcusdt.parquet']);

    const types = await query(`select column_name, column_type from (describe select * from read_parquet('${out}'))`);
    expect(types).toEqual([
      ['kind', 'UTINYINT'],
      ['kind_name', 'VARCHAR'],
      ['side', 'TINYINT'],
      ['exch_ts', 'TIMESTAMP_NS'],
      ['local_ts', 'TIMESTAMP_NS'],
      ['price', 'BIGINT'],
      ['qty', 'BIGINT'],
      ['id', 'BIGINT'],
    ]);
    expect(await query(`select count(*) from read_parquet('${out}')`)).toEqual([[BigInt(events.length)]]);
    expect(await query(`select kind_name, count(*) from read_parquet('${out}') group by kind_name order by kind_name`)).toEqual(expectedCounts(events));
    expect(await query(`select count(*) from read_parquet('${out}') where kind = ${FeedEventKind.TRADE} and kind_name <> 'TRADE'`)).toEqual([[0n]]);

    const picks = [0, Math.floor(events.length / 2), 1_000, 2_999, events.length - 1];
    const rows = await query(`select file_row_number, ${eventColumns} from ${parquetRows(out)} where file_row_number in (${picks.join(',')}) order by file_row_number`);
    expect(rows.map((row) => Number(row[0]))).toEqual([...picks].sort((a, b) => a - b));
    for (const row of rows) expect(asEvent(row.slice(1))).toEqual(events[Number(row[0])]);

    const localTimes = events.map((e) => e.localTs);
    const min = localTimes.reduce((a, b) => (b < a ? b : a));
    const max = localTimes.reduce((a, b) => (b > a ? b : a));
    expect(await query(`select min(epoch_ns(local_ts)), max(epoch_ns(local_ts)) from read_parquet('${out}')`)).toEqual([[min, max]]);
    // Every value, not only a few rows: a sum over each column matches.
    const sums = await query(`select sum(price)::varchar, sum(qty)::varchar, sum(id)::varchar, sum(epoch_ns(exch_ts)::hugeint)::varchar from read_parquet('${out}')`);
    const sum = (f: (e: FeedEvent) => bigint) => events.reduce((acc, e) => acc + f(e), 0n).toString();
    expect(sums).toEqual([[sum((e) => e.price), sum((e) => e.qty), sum((e) => e.id), sum((e) => e.exchTs)]]);

    const kv = await query(`select decode(key), decode(value) from parquet_kv_metadata('${out}')`);
    const stored = kv.find(([key]) => key === 'clobbot.feed');
    expect(stored).toBeDefined();
    expect(JSON.parse(stored![1] as string)).toEqual(header);
    // One row group per feed batch.
    expect(await query(`select count(distinct row_group_id) from parquet_metadata('${out}')`)).toEqual([[BigInt(Math.ceil(events.length / 1_000))]]);
  });

  it('keeps only the rows with from <= local_ts < to', async () => {
    const from = events[1_234]!.localTs;
    const to = events[4_321]!.localTs;
    const expected = events.filter((e) => e.localTs >= from && e.localTs < to);
    const out = join(dir, 'range.parquet');
    const result = await exportFeed({ path: feed, out, format: 'parquet', from, to });
    expect(result.rows).toBe(expected.length);
    expect(await query(`select count(*), min(epoch_ns(local_ts)), max(epoch_ns(local_ts)) from read_parquet('${out}')`)).toEqual([[BigInt(expected.length), expected[0]!.localTs, expected.at(-1)!.localTs]]);
    const first = await query(`select ${eventColumns} from ${parquetRows(out)} where file_row_number = 0`);
    expect(asEvent(first[0]!)).toEqual(expected[0]);

    const onlyFrom = await exportFeed({ path: feed, out: join(dir, 'from.parquet'), format: 'parquet', from });
    expect(onlyFrom.rows).toBe(events.filter((e) => e.localTs >= from).length);
    const nothing = await exportFeed({ path: feed, out: join(dir, 'empty.parquet'), format: 'parquet', from: to, to: from });
    expect(nothing.rows).toBe(0);
    expect(await query(`select count(*) from read_parquet('${join(dir, 'empty.parquet')}')`)).toEqual([[0n]]);
  });

  it('filters rows out of time order too (scattered rows, not one run)', async () => {
    const base = events[0]!.localTs;
    const scattered = Array.from({ length: 3_000 }, (_, i): FeedEvent => ({ ...events[i]!, localTs: base + BigInt((i * 7_919) % 3_000), id: BigInt(i) }));
    const path = join(dir, 'scattered.arrow');
    const writer = createEventFeedWriter(path, header, { batchRows: 700 });
    for (const event of scattered) writer.appendEvent(event);
    writer.finish();
    const expected = scattered.filter((e) => e.localTs >= base + 1_000n && e.localTs < base + 2_000n);
    const out = join(dir, 'scattered.parquet');
    expect((await exportFeed({ path, out, format: 'parquet', from: base + 1_000n, to: base + 2_000n })).rows).toBe(expected.length);
    const rows = await query(`select ${eventColumns} from read_parquet('${out}')`);
    expect(rows.map(asEvent)).toEqual(expected);
  });

  it('writes uncompressed Parquet on request', async () => {
    const snappy = await exportFeed({ path: feed, out: join(dir, 's.parquet'), format: 'parquet' });
    const plain = await exportFeed({ path: feed, out: join(dir, 'u.parquet'), format: 'parquet', codec: 'UNCOMPRESSED' });
    expect(plain.bytes).toBeGreaterThan(snappy.bytes);
    expect(await query(`select distinct compression from parquet_metadata('${join(dir, 'u.parquet')}')`)).toEqual([['UNCOMPRESSED']]);
    expect(await query(`select count(*) from read_parquet('${join(dir, 'u.parquet')}')`)).toEqual([[BigInt(events.length)]]);
  });
});

describe('exportFeed to CSV', () => {
  it('writes a header row, one line per row with kind names and ns integers, and the feed header beside it', async () => {
    const out = join(dir, 'btcusdt.csv');
    const from = events[500]!.localTs;
    const result = await exportFeed({ path: feed, out, format: 'csv', from });
    const expected = events.filter((e) => e.localTs >= from);
    expect(result.rows).toBe(expected.length);
    expect(result.sidecar).toBe(`${out}.json`);
    const text = readFileSync(out, 'utf8');
    expect(result.bytes).toBe(Buffer.byteLength(text));
    const lines = text.split('\n');
    expect(lines[0]).toBe('kind,kind_name,side,exch_ts,local_ts,price,qty,id');
    const e = expected[0]!;
    expect(lines[1]).toBe(`${e.kind},${feedEventKindName(e.kind)},${e.side},${e.exchTs},${e.localTs},${e.price},${e.qty},${e.id}`);
    expect(JSON.parse(readFileSync(`${out}.json`, 'utf8'))).toEqual(header);

    const csv = `read_csv('${out}', header = true)`;
    expect(await query(`select count(*) from ${csv}`)).toEqual([[BigInt(expected.length)]]);
    expect(await query(`select kind_name, count(*) from ${csv} group by kind_name order by kind_name`)).toEqual(expectedCounts(expected));
    for (const index of [0, 777, expected.length - 1]) {
      const rows = await query(`select kind, side, exch_ts, local_ts, price, qty, id from ${csv} limit 1 offset ${index}`);
      expect(asEvent(rows[0]!)).toEqual(expected[index]);
    }
  });
});

describe('exportFeed output handling', () => {
  it('refuses an existing output with FEED_OUTPUT_EXISTS and leaves it as it was; force replaces it', async () => {
    const out = join(dir, 'btcusdt.parquet');
    writeFileSync(out, 'keep me');
    expect(await refusal(exportFeed({ path: feed, out, format: 'parquet' }))).toBe('FEED_OUTPUT_EXISTS');
    expect(readFileSync(out, 'utf8')).toBe('keep me');
    expect(existsSync(`${out}.partial`)).toBe(false);

    const result = await exportFeed({ path: feed, out, format: 'parquet', force: true });
    expect(result.rows).toBe(events.length);
    expect(await query(`select count(*) from read_parquet('${out}')`)).toEqual([[BigInt(events.length)]]);

    // A CSV's sidecar counts as its output too.
    const csv = join(dir, 'btcusdt.csv');
    writeFileSync(`${csv}.json`, '{}');
    expect(await refusal(exportFeed({ path: feed, out: csv, format: 'csv' }))).toBe('FEED_OUTPUT_EXISTS');
    expect(existsSync(csv)).toBe(false);
    expect(readFileSync(`${csv}.json`, 'utf8')).toBe('{}');
    await exportFeed({ path: feed, out: csv, format: 'csv', force: true });
    expect(JSON.parse(readFileSync(`${csv}.json`, 'utf8'))).toEqual(header);
  });

  it('leaves nothing at out when it fails midway, and an existing out untouched', async () => {
    for (const format of ['parquet', 'csv'] as const) {
      const out = join(dir, `failed.${format}`);
      const stop = exportFeed({
        path: feed,
        out,
        format,
        onProgress: ({ rowsRead }) => {
          if (rowsRead >= 3_000) throw new Error('disk full');
        },
      });
      await expect(stop).rejects.toThrow('disk full');
      expect(readdirSync(dir).sort()).toEqual(['btcusdt.feed.arrow']);

      writeFileSync(out, 'previous export');
      await expect(exportFeed({ path: feed, out, format, force: true, onProgress: () => { throw new Error('disk full'); } })).rejects.toThrow('disk full');
      expect(readFileSync(out, 'utf8')).toBe('previous export');
      rmSync(out);
    }
  });

  it('refuses a corrupted feed with FEED_UNREADABLE and writes nothing', async () => {
    const bytes = readFileSync(feed);
    // Scramble the middle of the file (batch bodies) but keep the footer.
    for (let i = Math.floor(bytes.length * 0.3); i < Math.floor(bytes.length * 0.7); i += 1) bytes[i] = (bytes[i]! * 31 + 7) & 0xff;
    const corrupted = join(dir, 'corrupted.arrow');
    writeFileSync(corrupted, bytes);
    const out = join(dir, 'corrupted.parquet');
    expect(await refusal(exportFeed({ path: corrupted, out, format: 'parquet' }))).toBe('FEED_UNREADABLE');
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.partial`)).toBe(false);

    const truncated = join(dir, 'truncated.arrow');
    writeFileSync(truncated, readFileSync(feed).subarray(0, 5_000));
    expect(await refusal(exportFeed({ path: truncated, out, format: 'csv' }))).toBe('FEED_UNREADABLE');
    expect(existsSync(out)).toBe(false);
    expect(await refusal(exportFeed({ path: join(dir, 'missing.arrow'), out, format: 'csv' }))).toBe('FEED_NOT_FOUND');
  });
});

describe('exportFeed of a candle feed', () => {
  it('exports the columns the feed has, filtering on open_time', async () => {
    // Written with the generic Arrow writer: the export must not depend on the candle feed module.
    const candleHeader: FeedHeader = { ...header, kind: 'candles', source: { kind: 'binance-klines', files: [], interval: '1m' }, clockCorrection: undefined };
    delete (candleHeader as { clockCorrection?: unknown }).clockCorrection;
    const ns = new TimestampNanosecond('UTC');
    const columns = [
      { name: 'open_time', type: ns },
      { name: 'close_time', type: ns },
      ...['open', 'high', 'low', 'close', 'volume', 'quote_volume'].map((name) => ({ name, type: new Float64() })),
      { name: 'trades', type: new Int64() },
    ];
    const count = 300;
    const start = 1_723_161_240_000_000_000n;
    const minute = 60_000_000_000n;
    const open = BigInt64Array.from({ length: count }, (_, i) => start + BigInt(i) * minute);
    const close = BigInt64Array.from(open, (t) => t + minute - 1_000_000n);
    const price = Float64Array.from({ length: count }, (_, i) => 61_837.63 + i * 0.01);
    const volume = Float64Array.from({ length: count }, (_, i) => 1.5 + i / 8);
    const trades = BigInt64Array.from({ length: count }, (_, i) => BigInt(1_000 + i));
    const path = join(dir, 'candles.arrow');
    const writer = createArrowFileWriter(path, columns, headerMetadata(candleHeader));
    const arrays = [open, close, price, price, price, price, volume, volume, trades];
    writer.writeBatch(arrays.map((a) => a.subarray(0, 200)), 200);
    writer.writeBatch(arrays.map((a) => a.subarray(200)), 100);
    writer.finish();

    const out = join(dir, 'candles.parquet');
    const result = await exportFeed({ path, out, format: 'parquet', from: open[150]!, to: open[250]! });
    expect(result.rows).toBe(100);
    expect(result.columns).toEqual(['open_time', 'close_time', 'open', 'high', 'low', 'close', 'volume', 'quote_volume', 'trades']);
    expect(await query(`select column_type from (describe select * from read_parquet('${out}'))`)).toEqual([['TIMESTAMP_NS'], ['TIMESTAMP_NS'], ['DOUBLE'], ['DOUBLE'], ['DOUBLE'], ['DOUBLE'], ['DOUBLE'], ['DOUBLE'], ['BIGINT']]);
    expect(await query(`select epoch_ns(open_time), epoch_ns(close_time), open, volume, trades from read_parquet('${out}') limit 1 offset 60`)).toEqual([[open[210], close[210], price[210], volume[210], trades[210]]]);
    const kv = await query(`select decode(value) from parquet_kv_metadata('${out}') where decode(key) = 'clobbot.feed'`);
    expect(JSON.parse(kv[0]![0] as string)).toEqual(candleHeader);

    const csv = join(dir, 'candles.csv');
    expect((await exportFeed({ path, out: csv, format: 'csv' })).rows).toBe(count);
    expect(readFileSync(csv, 'utf8').split('\n')[0]).toBe('open_time,close_time,open,high,low,close,volume,quote_volume,trades');
    expect(await query(`select count(*), sum(trades)::varchar, max(open) from read_csv('${csv}', header = true)`)).toEqual([[BigInt(count), trades.reduce((a, b) => a + b, 0n).toString(), price[count - 1]]]);
  });
});
