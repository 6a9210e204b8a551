import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Int64, RecordBatchFileWriter, tableFromArrays } from 'apache-arrow';
import { isBaseError } from '../../src/core/base-error.ts';
import { eventAt, FeedEventKind, Side, type FeedEvent } from '../../src/feeds/feed-event.ts';
import { FEED_FORMAT, FEED_METADATA_KEY, FEED_VERSION, type FeedHeader } from '../../src/feeds/feed-header.ts';
import { createEventFeedWriter } from '../../src/feeds/event-feed-writer.ts';
import { openEventFeed } from '../../src/feeds/event-feed-reader.ts';
import { createArrowFileWriter } from '../../src/feeds/arrow-file.ts';

const header: FeedHeader = {
  format: FEED_FORMAT,
  version: FEED_VERSION,
  kind: 'events',
  market: { symbol: 'BTCUSDT', baseAsset: 'BTC', quoteAsset: 'USDT', tickSize: '0.01', lotSize: '0.00001' },
  source: { kind: 'binance-capture', files: [{ name: 'spot_btcusdt_20240808.gz', sha256: 'a'.repeat(64) }] },
  clockCorrection: { method: 'min-latency', minLatencyNs: '-1271000000', baseLatencyNs: '0', addedNs: '1271000000' },
};

function rows(count: number): FeedEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    kind: (i % 3 === 0 ? FeedEventKind.TRADE : FeedEventKind.LEVEL) as FeedEventKind,
    side: i % 2 === 0 ? Side.BUY : Side.SELL,
    exchTs: 1_723_161_255_208_000_000n + BigInt(i) * 1_000n,
    localTs: 1_723_161_253_937_085_768n + BigInt(i) * 1_000n,
    price: 6_183_763n + BigInt(i % 17) - 8n,
    qty: BigInt((i * 7919) % 100_000),
    id: 50_093_239_189n + BigInt(i),
  }));
}

async function readAll(path: string): Promise<{ header: FeedHeader; events: FeedEvent[]; batches: number }> {
  const feed = await openEventFeed(path);
  const events: FeedEvent[] = [];
  for await (const columns of feed.batches()) for (let i = 0; i < columns.length; i += 1) events.push(eventAt(columns, i));
  await feed.close();
  return { header: feed.header, events, batches: feed.batchCount };
}

async function refusal(path: string): Promise<{ code: string; message: string }> {
  try {
    await readAll(path);
  } catch (error) {
    if (isBaseError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('read succeeded');
}

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'clobbot-feed-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('event feed files', () => {
  it('read back every row and the header, across batch boundaries', async () => {
    const path = join(dir, 'f.arrow');
    const written = rows(2_500);
    const writer = createEventFeedWriter(path, header, { batchRows: 1_000 });
    for (const event of written) writer.appendEvent(event);
    expect(writer.rows).toBe(2_500);
    writer.finish();
    const { header: read, events, batches } = await readAll(path);
    expect(batches).toBe(3);
    expect(read).toEqual(header);
    expect(events).toEqual(written);
  });

  it('are LZ4-compressed Arrow files: smaller than the raw columns', async () => {
    const path = join(dir, 'f.arrow');
    const writer = createEventFeedWriter(path, header);
    for (const event of rows(50_000)) writer.appendEvent(event);
    writer.finish();
    const bytes = readFileSync(path);
    expect(bytes.subarray(0, 6).toString('latin1')).toBe('ARROW1');
    expect(bytes.length).toBeLessThan((50_000 * 42) / 2);
  });

  it('leave nothing behind when aborted, and nothing under the final name until finished', () => {
    const path = join(dir, 'f.arrow');
    const writer = createEventFeedWriter(path, header, { batchRows: 10 });
    for (const event of rows(25)) writer.appendEvent(event);
    expect(existsSync(path)).toBe(false);
    writer.abort();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuse a missing, truncated, corrupted, foreign or newer file with a typed error naming it', async () => {
    const path = join(dir, 'f.arrow');
    const writer = createEventFeedWriter(path, header, { batchRows: 1_000 });
    for (const event of rows(3_000)) writer.appendEvent(event);
    writer.finish();
    const bytes = readFileSync(path);

    expect((await refusal(join(dir, 'missing.arrow'))).code).toBe('FEED_NOT_FOUND');

    const truncated = join(dir, 'truncated.arrow');
    writeFileSync(truncated, bytes);
    truncateSync(truncated, Math.floor(bytes.length * 0.6));
    expect(await refusal(truncated)).toMatchObject({ code: 'FEED_UNREADABLE', message: expect.stringContaining('truncated') });

    // A flipped run of bytes inside the second batch's compressed body.
    const corrupted = join(dir, 'corrupted.arrow');
    const damaged = Buffer.from(bytes);
    for (let i = Math.floor(bytes.length / 2); i < Math.floor(bytes.length / 2) + 64; i += 1) damaged[i] = damaged[i]! ^ 0xff;
    writeFileSync(corrupted, damaged);
    expect(await refusal(corrupted)).toMatchObject({ code: 'FEED_UNREADABLE', message: expect.stringContaining('record batch') });

    const text = join(dir, 'trades.csv');
    writeFileSync(text, '1,2,3\n');
    expect((await refusal(text)).code).toBe('FEED_FOREIGN');

    const plainArrow = join(dir, 'plain.arrow');
    writeFileSync(plainArrow, RecordBatchFileWriter.writeAll(tableFromArrays({ x: new Float64Array([1, 2]) })).toUint8Array(true));
    expect(await refusal(plainArrow)).toMatchObject({ code: 'FEED_FOREIGN', message: expect.stringContaining('not a clobbot feed') });

    const newer = join(dir, 'newer.arrow');
    const future = createArrowFileWriter(newer, [{ name: 'id', type: new Int64() }], new Map([[FEED_METADATA_KEY, JSON.stringify({ ...header, version: FEED_VERSION + 1 })]]));
    future.writeBatch([new BigInt64Array([1n])], 1);
    future.finish();
    expect((await refusal(newer)).code).toBe('FEED_VERSION_UNSUPPORTED');
  });
});
