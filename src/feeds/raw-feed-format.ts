/**
 * The raw recording (docs/feeds.md, "Raw recordings"): what a bot's market feeds received, exactly
 * as received, one record per line, appended as it arrives so that a recording killed at any moment
 * is readable up to its last complete line.
 *
 * A line is `<crc32> <kind> <local_ms> <meta> <body>\n`: the CRC-32 (8 lowercase hex digits) of
 * everything after its space, the record kind, the local receive time in ms, a JSON object of what
 * was asked (no spaces: JSON.stringify's form), and the answer's body verbatim (`null` when there is
 * none). A body's line breaks (whitespace between JSON tokens, never inside a string) become spaces.
 */
import { crc32 } from 'node:zlib';
import { z } from 'zod';
import { feedMarketSchema } from './feed-header.ts';

export const RAW_FEED_FORMAT = 'clobbot-raw-feed';
export const RAW_FEED_VERSION = 1;

/** The kinds of record, in the order they are documented. */
export const RAW_RECORD_KINDS = ['header', 'depth', 'trades', 'ticker', 'fail', 'own-order', 'own-order-id', 'own-cancel', 'own-fill', 'end'] as const;
export type RawRecordKind = (typeof RAW_RECORD_KINDS)[number];

/** The first record's meta: what is recorded and the market's parameters. Its body is the exchangeInfo answer. */
export const rawHeaderSchema = z.strictObject({
  format: z.literal(RAW_FEED_FORMAT),
  version: z.int().positive(),
  network: z.string(),
  symbol: z.string().min(1),
  /** The market's parameters when known (a clobbot venue's market, or an exchangeInfo with filters); else the normalizer infers tick and lot. */
  market: feedMarketSchema.optional(),
  /** The polls: period and query of each source. */
  plan: z.strictObject({
    depth: z.strictObject({ everyMs: z.int().positive(), limit: z.int().positive(), state: z.string() }),
    trades: z.strictObject({ everyMs: z.int().positive(), limit: z.int().positive().optional() }),
    ticker: z.strictObject({ everyMs: z.int().positive() }),
  }),
  /** True when the bot's own orders, cancels and fills are recorded too (`clobbot run --record`). */
  own: z.boolean(),
});
export type RawHeader = z.infer<typeof rawHeaderSchema>;

/** Own-order records' meta (ids, prices in price units and sizes in size units as decimal strings). */
/** Own orders are keyed `id:<venue order id>`, or `pending:<n>` until the engine knows the id. */
const ownKey = z.string().regex(/^(id|pending):[0-9]+$/);
export const ownOrderMetaSchema = z.strictObject({ key: ownKey, side: z.enum(['BUY', 'SELL']), price: z.string(), size: z.string() });
/** A pending order's venue id, once known. */
export const ownOrderIdMetaSchema = z.strictObject({ key: ownKey, orderId: z.string() });
export const ownCancelMetaSchema = z.strictObject({ key: ownKey, side: z.enum(['BUY', 'SELL']), price: z.string(), remaining: z.string() });
export const ownFillMetaSchema = z.strictObject({
  orderId: z.string(),
  side: z.enum(['BUY', 'SELL']),
  price: z.string(),
  size: z.string(),
  fee: z.string(),
  liquidity: z.enum(['maker', 'taker']),
  timeMs: z.int(),
  transactionHash: z.string(),
});

export interface RawRecord {
  readonly kind: RawRecordKind;
  /** Local receive time, ms. */
  readonly atMs: number;
  /** The meta JSON text. */
  readonly meta: string;
  /** The body text (`null` when none). */
  readonly body: string;
}

const KINDS = new Set<string>(RAW_RECORD_KINDS);
const LINE_BREAKS = /[\r\n]/g;

/** The line of one record, with its checksum and final newline. */
export function encodeRawRecord(kind: RawRecordKind, atMs: number, meta: string, body: string): string {
  const rest = `${kind} ${atMs} ${meta} ${body.replace(LINE_BREAKS, ' ')}`;
  return `${(crc32(rest) >>> 0).toString(16).padStart(8, '0')} ${rest}\n`;
}

/** Why a line is not a record (undefined: it is one). */
export type RawLineProblem = 'checksum' | 'shape';

/** The record of one line (without its newline), or what is wrong with it. */
export function decodeRawRecord(line: string): RawRecord | RawLineProblem {
  if (line.length < 10 || line.charCodeAt(8) !== 32) return 'shape';
  const rest = line.slice(9);
  const crc = Number.parseInt(line.slice(0, 8), 16);
  if (!/^[0-9a-f]{8}$/.test(line.slice(0, 8))) return 'shape';
  if ((crc32(rest) >>> 0) !== crc) return 'checksum';
  const kindEnd = rest.indexOf(' ');
  const atEnd = rest.indexOf(' ', kindEnd + 1);
  const kind = rest.slice(0, kindEnd);
  const atMs = Number(rest.slice(kindEnd + 1, atEnd));
  if (kindEnd < 0 || atEnd < 0 || !KINDS.has(kind) || !Number.isSafeInteger(atMs)) return 'shape';
  // The meta is JSON without spaces outside strings, so it ends at the first space after a closing brace.
  const metaEnd = rest.indexOf('} ', atEnd + 1);
  if (rest.charCodeAt(atEnd + 1) !== 123 || metaEnd < 0) return 'shape';
  return { kind: kind as RawRecordKind, atMs, meta: rest.slice(atEnd + 1, metaEnd + 1), body: rest.slice(metaEnd + 2) };
}
