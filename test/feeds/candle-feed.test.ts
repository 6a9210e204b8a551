import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isBaseError } from '../../src/core/base-error.ts';
import { candleAt, createCandleFeedWriter, openCandleFeed, CANDLE_COLUMNS, type Candle } from '../../src/feeds/candle-feed.ts';
import { createEventFeedWriter } from '../../src/feeds/event-feed-writer.ts';
import { openEventFeed } from '../../src/feeds/event-feed-reader.ts';
import { FEED_FORMAT, FEED_VERSION, type FeedHeader } from '../../src/feeds/feed-header.ts';

const header: FeedHeader = {
  format: FEED_FORMAT,
  version: FEED_VERSION,
  kind: 'candles',
  market: { symbol: 'BTCUSDT', tickSize: '0.01', lotSize: '0.00001', inferred: true },
  source: { kind: 'binance-klines', files: [{ name: 'BTCUSDT-1m-2024-08-08.zip', sha256: 'b'.repeat(64) }], interval: '1m', notes: ['timestamps in milliseconds'] },
};

function candles(count: number): Candle[] {
  return Array.from({ length: count }, (_, i) => {
    const openTime = 1_723_161_240_000_000_000n + BigInt(i) * 60_000_000_000n;
    const open = 6_183_763n + BigInt(i % 13);
    return {
      openTime,
      closeTime: openTime + 59_999_000_000n,
      open,
      high: open + 40n,
      low: open - 25n,
      close: open + 7n,
      volume: BigInt(i * 1_009 + 1),
      quoteVolume: (open + 3n) * BigInt(i * 1_009 + 1),
      trades: BigInt(i % 400),
    };
  });
}

async function readAll(path: string): Promise<{ header: FeedHeader; rows: Candle[]; batches: number }> {
  const feed = await openCandleFeed(path);
  const rows: Candle[] = [];
  for await (const columns of feed.batches()) for (let i = 0; i < columns.length; i += 1) rows.push(candleAt(columns, i));
  await feed.close();
  return { header: feed.header, rows, batches: feed.batchCount };
}

async function codeOf(action: () => Promise<unknown>): Promise<string> {
  try {
    await action();
  } catch (error) {
    if (isBaseError(error)) return error.code;
    throw error;
  }
  return 'none';
}

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'clobbot-candles-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('candle feed files', () => {
  it('have the documented columns', () => {
    expect(CANDLE_COLUMNS.map((column) => column.name)).toEqual(['open_time', 'close_time', 'open', 'high', 'low', 'close', 'volume', 'quote_volume', 'trades']);
  });

  it('read back every candle and the header, across batch boundaries', async () => {
    const path = join(dir, 'c.arrow');
    const written = candles(2_500);
    const writer = createCandleFeedWriter(path, header, { batchRows: 1_000 });
    for (const candle of written) writer.appendCandle(candle);
    expect(writer.rows).toBe(2_500);
    writer.finish();
    const read = await readAll(path);
    expect(read.batches).toBe(3);
    expect(read.header).toEqual(header);
    expect(read.rows).toEqual(written);
  });

  it('leave nothing behind when aborted', () => {
    const path = join(dir, 'c.arrow');
    const writer = createCandleFeedWriter(path, header, { batchRows: 10 });
    for (const candle of candles(25)) writer.appendCandle(candle);
    expect(existsSync(path)).toBe(false);
    writer.abort();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('are told apart from event feeds both ways, and need a candles header with an interval', async () => {
    const eventPath = join(dir, 'e.arrow');
    const events = createEventFeedWriter(eventPath, { ...header, kind: 'events', source: { kind: 'binance-trades', files: [] } });
    events.append(4, 1, 1n, 1n, 1n, 1n, 1n);
    events.finish();
    expect(await codeOf(() => openCandleFeed(eventPath))).toBe('FEED_FOREIGN');

    const candlePath = join(dir, 'c.arrow');
    const writer = createCandleFeedWriter(candlePath, header);
    writer.appendCandle(candles(1)[0]!);
    writer.finish();
    expect(await codeOf(() => openEventFeed(candlePath))).toBe('FEED_FOREIGN');

    expect(await codeOf(async () => createCandleFeedWriter(join(dir, 'x.arrow'), { ...header, source: { kind: 'binance-klines', files: [] } }))).toBe('FEED_FOREIGN');
    expect(await codeOf(() => openCandleFeed(join(dir, 'missing.arrow')))).toBe('FEED_NOT_FOUND');
  });
});
