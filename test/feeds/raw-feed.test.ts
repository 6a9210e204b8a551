/** The raw recording's file: appended line by line, readable up to its last complete record, damage refused with its line. */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isBaseError } from '../../src/core/base-error.ts';
import { encodeRawRecord } from '../../src/feeds/raw-feed-format.ts';
import { openRawFeed } from '../../src/feeds/raw-feed-reader.ts';
import { createRawFeedWriter } from '../../src/feeds/raw-feed-writer.ts';

const plan = { depth: { everyMs: 400, limit: 100, state: 'committed' }, trades: { everyMs: 1_000, limit: 100 }, ticker: { everyMs: 10_000 } };
const header = { network: 'sim', symbol: 'MON_USDC', plan, own: false };
const depth = (id: number) => `{"lastUpdateId":${id},"E":${1767225600000 + id},"T":1767225600,"bids":[["0.0351","12.5"]],"asks":[["0.0352","3"]]}`;

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'clobbot-raw-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function recording(records: number, close = true): string {
  const path = join(dir, 'MON_USDC.raw');
  const writer = createRawFeedWriter(path, header, 1767225600000, '{"symbols":[]}');
  for (let i = 1; i <= records; i += 1) writer.append('depth', 1767225600000 + i, '{"state":"committed","limit":100}', depth(i));
  if (close) writer.close(1767225600000 + records, 'duration');
  return path;
}

function read(path: string) {
  const raw = openRawFeed(path);
  const records = [...raw.records()];
  return { raw, records, end: raw.end() };
}

function refusal(path: string): { code: string; message: string } {
  try {
    read(path);
  } catch (error) {
    if (isBaseError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('read succeeded');
}

describe('raw recordings', () => {
  it('read back every record verbatim, with line numbers, and say they were closed', () => {
    const { raw, records, end } = read(recording(3));
    expect(raw.header).toMatchObject({ format: 'clobbot-raw-feed', version: 1, symbol: 'MON_USDC' });
    expect(raw.exchangeInfo).toBe('{"symbols":[]}');
    expect(records.map((record) => [record.line, record.kind, record.body])).toEqual([
      [2, 'depth', depth(1)],
      [3, 'depth', depth(2)],
      [4, 'depth', depth(3)],
    ]);
    expect(end).toMatchObject({ records: 5, tailBytes: 0, closed: 'duration' });
  });

  it('keep a body on one line: line breaks between JSON tokens become spaces', () => {
    const path = recording(0, false);
    appendFileSync(path, encodeRawRecord('ticker', 1, '{}', '{\n  "symbol": "MON_USDC"\r\n}'));
    expect(JSON.parse(read(path).records[0]!.body)).toEqual({ symbol: 'MON_USDC' });
  });

  it('killed mid-write, read up to the last complete record and say how many bytes were cut', () => {
    const path = recording(4, false);
    const line = encodeRawRecord('depth', 1767225600005, '{"state":"committed","limit":100}', depth(5));
    appendFileSync(path, line.slice(0, 40));
    const { records, end } = read(path);
    expect(records).toHaveLength(4);
    expect(end).toMatchObject({ records: 5, tailBytes: 40, closed: undefined, lastAtMs: 1767225600004 });
  });

  it('refuse a changed or damaged complete line with its line number, a foreign file, and a newer version', () => {
    const path = recording(3);
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.replace('"0.0351","12.5"', '"0.0351","99.5"'));
    expect(refusal(path)).toMatchObject({ code: 'FEED_UNREADABLE', message: expect.stringMatching(/MON_USDC\.raw:2: .*checksum/) });

    writeFileSync(path, text.replace(/\n(.{8}) depth/, '\n$1 dpth'));
    expect(refusal(path).code).toBe('FEED_UNREADABLE');

    const csv = join(dir, 'trades.csv');
    writeFileSync(csv, '3735683259,61837.63,0.02,1236.75,1723161255342,True,True\n');
    expect(refusal(csv).code).toBe('FEED_FOREIGN');
    expect(refusal(join(dir, 'missing.raw')).code).toBe('FEED_NOT_FOUND');

    const newer = join(dir, 'newer.raw');
    writeFileSync(newer, encodeRawRecord('header', 1, JSON.stringify({ format: 'clobbot-raw-feed', version: 2, ...header }), 'null'));
    expect(refusal(newer).code).toBe('FEED_VERSION_UNSUPPORTED');
  });

  it('are never overwritten', () => {
    const path = recording(1);
    const before = readFileSync(path);
    expect(() => createRawFeedWriter(path, header, 1, 'null')).toThrow(expect.objectContaining({ code: 'FEED_OUTPUT_EXISTS' }));
    expect(readFileSync(path)).toEqual(before);
  });
});
