/**
 * Fuzzing the feed readers with damaged files: LZ4 frames (bit flips, cuts, wrong magic, a content
 * size that lies), normalized event feeds (Arrow + LZ4: a flipped bit or a cut anywhere, the Arrow
 * metadata included) and raw
 * recordings (a flipped bit, spliced bytes, a cut; records whose checksum holds but whose metadata
 * is not JSON). A reader returns exactly what was written, or refuses with a typed error that says
 * where (the batch, the line), quickly.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BaseError } from '../../src/core/base-error.ts';
import { openEventFeed } from '../../src/feeds/event-feed-reader.ts';
import { createEventFeedWriter } from '../../src/feeds/event-feed-writer.ts';
import { eventAt, FeedEventKind, Side, type FeedEvent } from '../../src/feeds/feed-event.ts';
import { FEED_FORMAT, FEED_VERSION, type FeedHeader } from '../../src/feeds/feed-header.ts';
import { decodeLz4Frame, encodeLz4Frame, Lz4FrameError } from '../../src/feeds/lz4-frame.ts';
import { encodeRawRecord } from '../../src/feeds/raw-feed-format.ts';
import { openRawFeed } from '../../src/feeds/raw-feed-reader.ts';
import { createRawFeedWriter } from '../../src/feeds/raw-feed-writer.ts';
import { xxh32 } from '../../src/feeds/xxh32.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';
import { PARSE_BUDGET_MS } from './support/hostile.ts';

const dir = mkdtempSync(join(tmpdir(), 'clobbot-feed-fuzz-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let file = 0;
const scratch = (bytes: Uint8Array, name: string) => {
  const path = join(dir, `${(file += 1)}-${name}`);
  writeFileSync(path, bytes);
  return path;
};

/** `bytes` with one bit flipped at `at` (modulo the length). */
const flipped = (bytes: Uint8Array, at: number, bit: number) => {
  const copy = Uint8Array.from(bytes);
  copy[at % copy.length] = copy[at % copy.length]! ^ (1 << bit);
  return copy;
};

/** A frame whose header says `contentSize`, its header checksum made right again. */
function withContentSize(frame: Uint8Array, contentSize: bigint): Uint8Array {
  const copy = Uint8Array.from(frame);
  const view = new DataView(copy.buffer);
  view.setBigUint64(6, contentSize, true);
  copy[14] = (xxh32(copy, 4, 10) >>> 8) & 0xff;
  return copy;
}

describe('LZ4 frames', () => {
  const data = new Uint8Array(5_000).map((_, i) => ((i * 31) % 97 < 50 ? i % 7 : (i * 7919) & 0xff));
  const frame = encodeLz4Frame(data);

  it('a frame whose content size lies (its header checksum right) is refused before anything is allocated', () => {
    for (const size of [2n ** 31n, 2n ** 40n, 2n ** 53n + 1n, 2n ** 64n - 1n, BigInt(data.length) * 1000n]) {
      const started = performance.now();
      expect(() => decodeLz4Frame(withContentSize(frame, size))).toThrow(Lz4FrameError);
      expect(performance.now() - started).toBeLessThan(PARSE_BUDGET_MS);
    }
    expect(decodeLz4Frame(withContentSize(frame, BigInt(data.length)))).toEqual(data);
  });

  it('any damage is an Lz4FrameError or the original content', () => {
    const hostile = fc.oneof(
      fc.tuple(fc.nat(), fc.integer({ min: 0, max: 7 })).map(([at, bit]) => flipped(frame, at, bit)),
      fc.nat({ max: frame.length - 1 }).map((at) => frame.subarray(0, at)),
      fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((size) => withContentSize(frame, size)),
      fc.uint8Array({ maxLength: 64 }).map((bytes) => Uint8Array.from([0x04, 0x22, 0x4d, 0x18, ...bytes])),
      fc.uint8Array({ maxLength: 64 }),
    );
    fc.assert(
      fc.property(hostile, (bytes) => {
        let decoded: Uint8Array;
        try {
          decoded = decodeLz4Frame(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(Lz4FrameError);
          return;
        }
        expect(Buffer.from(decoded).equals(Buffer.from(data))).toBe(true);
      }),
      fuzzSettings({ numRuns: 300 }),
    );
  });
});

const header: FeedHeader = {
  format: FEED_FORMAT,
  version: FEED_VERSION,
  kind: 'events',
  market: { symbol: 'BTCUSDT', baseAsset: 'BTC', quoteAsset: 'USDT', tickSize: '0.01', lotSize: '0.00001' },
  source: { kind: 'binance-capture', files: [{ name: 'spot_btcusdt_20240808.gz', sha256: 'a'.repeat(64) }] },
  clockCorrection: { method: 'min-latency', minLatencyNs: '-1271000000', baseLatencyNs: '0', addedNs: '1271000000' },
};

async function readFeed(path: string): Promise<FeedEvent[]> {
  const feed = await openEventFeed(path);
  try {
    const events: FeedEvent[] = [];
    for await (const columns of feed.batches()) for (let i = 0; i < columns.length; i += 1) events.push(eventAt(columns, i));
    return events;
  } finally {
    await feed.close();
  }
}

describe('event feeds', () => {
  let bytes: Buffer;
  let events: FeedEvent[];

  beforeAll(() => {
    events = Array.from({ length: 300 }, (_, i) => ({
      kind: (i % 3 === 0 ? FeedEventKind.TRADE : FeedEventKind.LEVEL) as FeedEventKind,
      side: i % 2 === 0 ? Side.BUY : Side.SELL,
      exchTs: 1_723_161_255_208_000_000n + BigInt(i) * 1_000n,
      localTs: 1_723_161_253_937_085_768n + BigInt(i) * 1_000n,
      price: 6_183_763n + BigInt(i % 17),
      qty: BigInt((i * 7919) % 100_000),
      id: 50_093_239_189n + BigInt(i),
    }));
    const path = join(dir, 'source.arrow');
    const writer = createEventFeedWriter(path, header, { batchRows: 100 });
    for (const event of events) writer.appendEvent(event);
    writer.finish();
    bytes = readFileSync(path);
  });

  /** Reads `damaged` as a feed: the events as written, or a typed refusal naming the file, within the budget. */
  async function readOrRefuse(damaged: Uint8Array): Promise<'read' | BaseError> {
    const path = scratch(damaged, 'feed.arrow');
    const started = performance.now();
    try {
      const read = await readFeed(path);
      // Read without complaint: then it is exactly what was written.
      expect(read).toEqual(events);
      return 'read';
    } catch (error) {
      expect(error).toBeInstanceOf(BaseError);
      expect(['FEED_UNREADABLE', 'FEED_FOREIGN', 'FEED_VERSION_UNSUPPORTED']).toContain((error as BaseError).code);
      expect((error as BaseError).message).toContain(path);
      return error as BaseError;
    } finally {
      expect(performance.now() - started).toBeLessThan(PARSE_BUDGET_MS);
    }
  }

  /** Where the footer lies: it ends with its int32 length and the magic. */
  const footerStart = (file: Uint8Array) => file.length - 10 - new DataView(file.buffer, file.byteOffset).getInt32(file.length - 10, true);

  it('a flipped bit anywhere (Arrow metadata, footer, LZ4 bodies) or a cut anywhere: the rows as written, or a typed refusal', async () => {
    // apache-arrow trusts the flatbuffer metadata; arrow-layout.ts checks it first, so no flip
    // allocates gigabytes or loops (the heap is watched: a case that got past would show here).
    let refused = 0;
    const heapBefore = process.memoryUsage().heapUsed;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { arbitrary: fc.tuple(fc.nat(), fc.integer({ min: 0, max: 7 })).map(([at, bit]) => flipped(bytes, at, bit)), weight: 3 },
          { arbitrary: fc.tuple(fc.nat(), fc.integer({ min: 0, max: 7 })).map(([at, bit]) => flipped(bytes, footerStart(bytes) + (at % (bytes.length - footerStart(bytes))), bit)), weight: 1 },
          fc.nat().map((at) => bytes.subarray(0, at % bytes.length)),
        ),
        async (damaged) => {
          if ((await readOrRefuse(damaged)) !== 'read') refused += 1;
          expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(256 * 2 ** 20);
        },
      ),
      fuzzSettings({ numRuns: 300 }),
    );
    expect(refused).toBeGreaterThan(0);
  });

  it('the reported flips (record batch 1 header: byte 111 bits 1 and 2; the footer) are FEED_UNREADABLE at their byte', async () => {
    expect(bytes.length).toBe(9_306);
    for (const bit of [1, 2]) {
      const error = await readOrRefuse(flipped(bytes, 111, bit));
      expect(error).toMatchObject({ code: 'FEED_UNREADABLE', details: { where: 'record batch 1 of 3', position: 108 } });
    }
    // The footer: its length, the number of record batches, the first block's offset and body length.
    const footer = footerStart(bytes);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let block = footer;
    while (!(view.getBigInt64(block, true) === 8n && view.getInt32(block + 8, true) === 448)) block += 4;
    expect(view.getInt32(block - 4, true)).toBe(3);
    for (const [at, bit] of [[bytes.length - 8, 6], [block - 4, 0], [block - 4, 5], [block + 5, 3], [block + 8, 7], [block + 18, 0]] as const) {
      const error = await readOrRefuse(flipped(bytes, at, bit));
      expect(error).toMatchObject({ code: 'FEED_UNREADABLE', details: { where: 'footer', position: expect.any(Number) } });
    }
  });

  it('every byte of the metadata (record batch 1 header, the footer) flipped: the rows as written or a typed refusal', async () => {
    const footer = footerStart(bytes);
    const positions = [...Array.from({ length: 456 }, (_, i) => i), ...Array.from({ length: bytes.length - footer }, (_, i) => footer + i)];
    let refused = 0;
    for (const at of positions) if ((await readOrRefuse(flipped(bytes, at, at % 8))) !== 'read') refused += 1;
    expect(refused).toBeGreaterThan(positions.length / 4);
  });
});

describe('raw recordings', () => {
  const T = 1_767_225_600_000;
  const plan = { depth: { everyMs: 400, limit: 100, state: 'committed' }, trades: { everyMs: 1_000, limit: 100 }, ticker: { everyMs: 10_000 } };
  let bytes: Buffer;
  let records: string[];

  beforeAll(() => {
    const path = join(dir, 'source.raw');
    const writer = createRawFeedWriter(path, { network: 'sim', symbol: 'MON_USDC', plan, own: false }, T, '{"symbols":[]}');
    for (let i = 1; i <= 8; i += 1) writer.append('depth', T + i, '{"state":"committed","limit":100}', `{"lastUpdateId":${i},"bids":[["0.0351","12.5"]],"asks":[]}`);
    writer.close(T + 9, 'duration');
    bytes = readFileSync(path);
    records = [...openRawFeed(path).records()].map((record) => record.body);
  });

  function readRaw(path: string) {
    const raw = openRawFeed(path);
    const read = [...raw.records()];
    return { read, end: raw.end() };
  }

  it('a flipped bit, spliced bytes or a cut: the records as written up to a cut, or FEED_UNREADABLE/FEED_FOREIGN at a line', () => {
    let refused = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          { arbitrary: fc.tuple(fc.nat(), fc.integer({ min: 0, max: 7 })).map(([at, bit]) => flipped(bytes, at, bit)), weight: 3 },
          fc.tuple(fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 6 })).map(([at, extra]) => Buffer.concat([bytes.subarray(0, at % bytes.length), extra, bytes.subarray(at % bytes.length)])),
          fc.nat().map((at) => bytes.subarray(0, at % bytes.length)),
        ),
        (damaged) => {
          const path = scratch(damaged, 'feed.raw');
          let result: ReturnType<typeof readRaw>;
          try {
            result = readRaw(path);
          } catch (error) {
            refused += 1;
            expect(error).toBeInstanceOf(BaseError);
            const code = (error as BaseError).code;
            expect(['FEED_UNREADABLE', 'FEED_FOREIGN', 'FEED_VERSION_UNSUPPORTED']).toContain(code);
            if (code === 'FEED_UNREADABLE') expect((error as BaseError).details['line']).toBeGreaterThanOrEqual(1);
            return;
          }
          // What reads is a prefix of what was written, record for record; a cut is reported in tailBytes.
          expect(records.slice(0, result.read.length)).toEqual(result.read.map((record) => record.body));
          // Fewer records than written only when cut: then the end record is missing too.
          if (result.read.length < records.length) expect(result.end.closed).toBeUndefined();
        },
      ),
      fuzzSettings({ numRuns: 200 }),
    );
    expect(refused).toBeGreaterThan(0);
  });

  it('a record whose checksum holds but whose metadata is not JSON is FEED_UNREADABLE at its line', () => {
    const lines = bytes.toString('utf8').split('\n');
    const badHeader = [encodeRawRecord('header', T, '{"format":"clobbot-raw-feed","version":1,x}', '{}'), ...lines.slice(1)].join('\n');
    expect(() => readRaw(scratch(Buffer.from(badHeader), 'bad-header.raw'))).toThrow(expect.objectContaining({ code: 'FEED_UNREADABLE', details: expect.objectContaining({ line: 1 }) }));
    const bareHeader = [encodeRawRecord('header', T, '{"format":"clobbot-raw-feed"}', '{}'), ...lines.slice(1)].join('\n');
    expect(() => readRaw(scratch(Buffer.from(bareHeader), 'bare-header.raw'))).toThrow(expect.objectContaining({ code: 'FEED_UNREADABLE', details: expect.objectContaining({ line: 1 }) }));
    const endAt = lines.length - 2;
    const badEnd = [...lines.slice(0, endAt), encodeRawRecord('end', T + 9, '{"reason":1,}', ''), ''].join('\n');
    expect(() => readRaw(scratch(Buffer.from(badEnd), 'bad-end.raw'))).toThrow(expect.objectContaining({ code: 'FEED_UNREADABLE', details: expect.objectContaining({ line: endAt + 1 }) }));
  });
});
