import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Int64, RecordBatchFileWriter, tableFromArrays } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArrowFile } from '../../src/feeds/arrow-file.ts';
import { checkArrowLayout, checkRecordBatchMessage } from '../../src/feeds/arrow-layout.ts';
import { createEventFeedWriter } from '../../src/feeds/event-feed-writer.ts';
import { FeedEventKind, Side } from '../../src/feeds/feed-event.ts';
import { FEED_FORMAT, FEED_VERSION, type FeedHeader } from '../../src/feeds/feed-header.ts';

const header: FeedHeader = {
  format: FEED_FORMAT,
  version: FEED_VERSION,
  kind: 'events',
  market: { symbol: 'BTCUSDT', baseAsset: 'BTC', quoteAsset: 'USDT', tickSize: '0.01', lotSize: '0.00001' },
  source: { kind: 'binance-capture', files: [{ name: 'spot_btcusdt_20240808.gz', sha256: 'a'.repeat(64) }] },
  clockCorrection: { method: 'min-latency', minLatencyNs: '-1271000000', baseLatencyNs: '0', addedNs: '1271000000' },
};

const dir = mkdtempSync(join(tmpdir(), 'clobbot-arrow-layout-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let count = 0;

function writeFeed(events: number, batchRows: number): string {
  const path = join(dir, `feed-${(count += 1)}.arrow`);
  const writer = createEventFeedWriter(path, header, { batchRows });
  for (let i = 0; i < events; i += 1) {
    writer.appendEvent({ kind: FeedEventKind.TRADE, side: i % 2 === 0 ? Side.BUY : Side.SELL, exchTs: 1_000n + BigInt(i), localTs: 2_000n + BigInt(i), price: 100n + BigInt(i), qty: 7n, id: BigInt(i) });
  }
  writer.finish();
  return path;
}

async function layoutOf(bytes: Uint8Array) {
  const path = join(dir, `case-${(count += 1)}.arrow`);
  writeFileSync(path, bytes);
  const handle = await open(path, 'r');
  try {
    const layout = await checkArrowLayout(handle, bytes.length, path);
    for (let index = 0; index < layout.recordBatches.length; index += 1) await checkRecordBatchMessage(handle, layout, index, path);
    return layout;
  } finally {
    await handle.close();
  }
}

/** The footer's start, and the first record batch block in it (offset int64, metaDataLength int32, pad, bodyLength int64). */
function footerOf(bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const start = bytes.length - 10 - view.getInt32(bytes.length - 10, true);
  let block = start;
  while (view.getBigInt64(block, true) !== 8n) block += 4;
  return { view, start, block };
}

describe('the Arrow layout check', () => {
  let bytes: Uint8Array;
  beforeAll(() => {
    bytes = readFileSync(writeFeed(250, 100));
  });

  it('lists the batches of a sound file, one after the other up to the footer', async () => {
    const layout = await layoutOf(bytes);
    expect(layout.recordBatches).toHaveLength(3);
    expect(layout.dictionaries).toEqual([]);
    expect(layout.fieldCount).toBe(7);
    expect(layout.recordBatches[0]!.offset).toBe(8);
    for (let index = 1; index < 3; index += 1) {
      const before = layout.recordBatches[index - 1]!;
      expect(layout.recordBatches[index]!.offset).toBe(before.offset + before.metaDataLength + before.bodyLength);
    }
  });

  it('a feed without events and an uncompressed apache-arrow file pass', async () => {
    expect((await layoutOf(readFileSync(writeFeed(0, 100)))).recordBatches).toEqual([]);
    const table = tableFromArrays({ price: BigInt64Array.from([1n, 2n, 3n]) });
    const plain = RecordBatchFileWriter.writeAll(table).toUint8Array(true);
    expect((await layoutOf(plain)).recordBatches).toHaveLength(1);
    expect(table.schema.fields[0]!.type).toBeInstanceOf(Int64);
  });

  it('a vector that claims a billion elements is refused at its byte, nothing allocated', async () => {
    const { view, block } = footerOf(bytes);
    const damaged = Uint8Array.from(bytes);
    new DataView(damaged.buffer).setInt32(block - 4, 1 << 30, true);
    expect(view.getInt32(block - 4, true)).toBe(3);
    await expect(layoutOf(damaged)).rejects.toMatchObject({ code: 'FEED_UNREADABLE', details: { where: 'footer', position: block - 4 } });
  });

  it('a footer that lost a block, a block outside the file, a footer length past the start: FEED_UNREADABLE in the footer', async () => {
    const { block, start } = footerOf(bytes);
    const fewer = Uint8Array.from(bytes);
    new DataView(fewer.buffer).setInt32(block - 4, 2, true);
    await expect(layoutOf(fewer)).rejects.toMatchObject({ code: 'FEED_UNREADABLE', message: expect.stringContaining('belong to no message') });
    const outside = Uint8Array.from(bytes);
    new DataView(outside.buffer).setBigInt64(block, BigInt(start), true);
    await expect(layoutOf(outside)).rejects.toMatchObject({ code: 'FEED_UNREADABLE', details: { where: 'footer' } });
    const long = Uint8Array.from(bytes);
    new DataView(long.buffer).setInt32(bytes.length - 10, bytes.length, true);
    await expect(layoutOf(long)).rejects.toMatchObject({ code: 'FEED_UNREADABLE', details: { where: 'footer', position: bytes.length - 10 } });
  });

  it('a record batch whose row count or buffers lie is refused before apache-arrow reads it', async () => {
    // The first message's RecordBatch.length (100 rows, an int64): find it after the message prefix.
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let at = 16;
    while (view.getBigInt64(at, true) !== 100n) at += 4;
    const rows = Uint8Array.from(bytes);
    new DataView(rows.buffer).setBigInt64(at, 1n << 40n, true);
    const path = join(dir, 'rows.arrow');
    writeFileSync(path, rows);
    const file = await openArrowFile(path);
    await expect(file.batch(0)).rejects.toMatchObject({ code: 'FEED_UNREADABLE', details: { where: 'record batch 1 of 3', position: at } });
    expect((await file.batch(1)).length).toBe(100);
    await file.close();
  });
});
