/**
 * Appends records to a raw recording (raw-feed-format.ts), each line in one write so that the file
 * always ends with whole records, or with one cut line that readers drop.
 */
import { closeSync, fstatSync, openSync, writeSync } from 'node:fs';
import { BaseError } from '../core/base-error.ts';
import { encodeRawRecord, RAW_FEED_FORMAT, RAW_FEED_VERSION, type RawHeader, type RawRecordKind } from './raw-feed-format.ts';

export interface RawFeedWriter {
  readonly path: string;
  /** Appends one record; `meta` is a JSON object's text, `body` the answer verbatim (`null` when none). */
  append(kind: RawRecordKind, atMs: number, meta: string, body: string): void;
  /** Records appended (the header included) and bytes written. */
  readonly records: number;
  readonly bytes: number;
  /** Gaps seen while recording (failed polls, trades that skipped ids), for the progress line. */
  readonly gaps: number;
  noteGap(): void;
  /** Appends the `end` record and closes the file. Idempotent. */
  close(atMs: number, reason: string): void;
}

/**
 * Creates `path` (refusing one that exists: a recording is never overwritten) and writes its header.
 *
 * @example
 * const raw = createRawFeedWriter('out/MON_USDC.raw', { network: 'sim', symbol: 'MON_USDC', plan, own: false }, clock.now(), exchangeInfoText);
 * raw.append('depth', clock.now(), '{"state":"committed","limit":100}', body);
 */
export function createRawFeedWriter(path: string, header: Omit<RawHeader, 'format' | 'version'>, atMs: number, exchangeInfoBody: string): RawFeedWriter {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'wx');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new BaseError('FEED_OUTPUT_EXISTS', `${path} already exists: a recording is never overwritten`, { details: { path } });
    throw new BaseError('FEED_NOT_FOUND', `${path}: cannot create: ${code ?? String(cause)}`, { details: { path }, cause });
  }
  let records = 0;
  let bytes = 0;
  let gaps = 0;
  const writer: RawFeedWriter = {
    path,
    append(kind, at, meta, body) {
      if (fd === undefined) return;
      const line = Buffer.from(encodeRawRecord(kind, at, meta, body));
      let offset = 0;
      while (offset < line.length) offset += writeSync(fd, line, offset);
      records += 1;
      bytes += line.length;
    },
    get records() {
      return records;
    },
    get bytes() {
      return bytes;
    },
    get gaps() {
      return gaps;
    },
    noteGap() {
      gaps += 1;
    },
    close(at, reason) {
      if (fd === undefined) return;
      writer.append('end', at, JSON.stringify({ reason, records: records + 1 }), 'null');
      bytes = fstatSync(fd).size;
      closeSync(fd);
      fd = undefined;
    },
  };
  writer.append('header', atMs, JSON.stringify({ format: RAW_FEED_FORMAT, version: RAW_FEED_VERSION, ...header }), exchangeInfoBody);
  return writer;
}
