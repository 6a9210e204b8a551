/**
 * Reads a raw recording (raw-feed-format.ts) line by line in bounded memory. A cut last line (a
 * recording killed mid-write) ends the feed where the last complete record ends; a damaged complete
 * line anywhere is FEED_UNREADABLE naming its line.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { BaseError } from '../core/base-error.ts';
import { decodeRawRecord, RAW_FEED_FORMAT, RAW_FEED_VERSION, rawHeaderSchema, type RawHeader, type RawRecord } from './raw-feed-format.ts';

/** The first bytes of every raw recording: a checksum, then the header record. */
const HEADER_PREFIX = / header \d+ \{"format":"clobbot-raw-feed"/;

export interface RawFeedEnd {
  /** Complete records read, the header included. */
  readonly records: number;
  /** Bytes of complete records. */
  readonly bytes: number;
  /** Bytes after the last complete record (a cut line), 0 when the file ends on a record. */
  readonly tailBytes: number;
  /** The `end` record's reason when the recorder closed the file; undefined when it was cut short. */
  readonly closed: string | undefined;
  /** Local time of the last complete record, ms. */
  readonly lastAtMs: number | undefined;
}

export interface RawRecordAt extends RawRecord {
  /** 1-based line number. */
  readonly line: number;
}

const CHUNK = 1 << 20;

/** A record's meta as JSON, undefined when it is not: its checksum holds, but it may have been written so. */
function metaJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** True when the file starts like a raw recording. */
export function looksLikeRawFeed(firstBytes: string): boolean {
  return HEADER_PREFIX.test(firstBytes.slice(0, 80));
}

/**
 * The records of `path` after its header, then how the file ends (`end()`, once iteration is done).
 *
 * @example
 * const raw = openRawFeed('out/MON_USDC.raw');
 * for (const record of raw.records()) if (record.kind === 'depth') polls += 1;
 * raw.end().tailBytes // 0 unless the recording was killed mid-write
 */
export function openRawFeed(path: string): { readonly header: RawHeader; readonly exchangeInfo: string; records(): Generator<RawRecordAt>; end(): RawFeedEnd } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (cause) {
    throw new BaseError('FEED_NOT_FOUND', `${path}: cannot open: ${(cause as NodeJS.ErrnoException).code ?? String(cause)}`, { details: { path }, cause });
  }
  const buffer = Buffer.alloc(CHUNK);
  let pending = '';
  let position = 0;
  let eof = false;
  let line = 0;
  let bytes = 0;

  /** The next complete line, or undefined at the end (a cut last line stays in `pending`). */
  const nextLine = (): string | undefined => {
    for (;;) {
      const newline = pending.indexOf('\n');
      if (newline >= 0) {
        const text = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        line += 1;
        bytes += Buffer.byteLength(text) + 1;
        return text;
      }
      if (eof) return undefined;
      const read = readSync(fd, buffer, 0, CHUNK, position);
      position += read;
      if (read === 0) eof = true;
      else pending += buffer.toString('utf8', 0, read);
    }
  };

  const damaged = (why: string) => {
    closeSync(fd);
    return new BaseError('FEED_UNREADABLE', `${path}:${line}: ${why}`, { details: { path, line } });
  };

  const first = nextLine();
  if (first === undefined || !looksLikeRawFeed(first)) {
    closeSync(fd);
    throw new BaseError('FEED_FOREIGN', `${path}: not a clobbot raw recording (its first line is no ${RAW_FEED_FORMAT} header)`, { details: { path } });
  }
  const headerRecord = decodeRawRecord(first);
  if (typeof headerRecord === 'string') throw damaged(`the header record fails its ${headerRecord}`);
  const json = metaJson(headerRecord.meta) as { version?: unknown } | undefined;
  if (typeof json !== 'object' || json === null) throw damaged('the header record’s metadata is not a JSON object');
  if (typeof json.version === 'number' && json.version > RAW_FEED_VERSION) {
    closeSync(fd);
    throw new BaseError('FEED_VERSION_UNSUPPORTED', `${path}: raw recording version ${json.version}; this clobbot reads up to ${RAW_FEED_VERSION}`, { details: { path } });
  }
  const parsed = rawHeaderSchema.safeParse(json);
  if (!parsed.success) throw damaged(`bad header: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`);

  let records = 1;
  let closed: string | undefined;
  let lastAtMs: number | undefined = headerRecord.atMs;
  let done = false;
  return {
    header: parsed.data,
    exchangeInfo: headerRecord.body,
    *records() {
      try {
        for (let text = nextLine(); text !== undefined; text = nextLine()) {
          const record = decodeRawRecord(text);
          if (typeof record === 'string') throw damaged(record === 'checksum' ? 'the record fails its checksum (the file was changed or damaged)' : 'not a record');
          records += 1;
          lastAtMs = record.atMs;
          if (record.kind === 'end') {
            const meta = metaJson(record.meta) as { reason?: unknown } | undefined;
            if (typeof meta !== 'object' || meta === null) throw damaged('the end record’s metadata is not a JSON object');
            closed = typeof meta.reason === 'string' ? meta.reason : 'closed';
          } else yield { ...record, line };
        }
        done = true;
      } finally {
        try {
          closeSync(fd);
        } catch {
          // Already closed by a damaged-line error.
        }
      }
    },
    end() {
      if (!done) throw new Error('openRawFeed: end() before all records were read');
      return { records, bytes, tailBytes: Buffer.byteLength(pending), closed, lastAtMs };
    },
  };
}
