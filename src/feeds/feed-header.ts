/**
 * What a normalized feed says about itself (docs/feeds.md): the format and its version, what its rows
 * are, the market's parameters (so ticks and lots turn back into prices and sizes), where the data
 * came from, and any correction made to its clock. Stored as JSON under the Arrow schema metadata key
 * `clobbot.feed`, where pyarrow (`schema.metadata`) and polars read it too.
 */
import { z } from 'zod';
import { BaseError } from '../core/base-error.ts';
import { ORDERBOOK_STATES } from '../protocol/constants.ts';
import { openArrowFile, type ArrowColumn, type ArrowFileReader } from './arrow-file.ts';

export const FEED_FORMAT = 'clobbot-feed';
/** The version this code writes; it reads this one and every earlier one. */
export const FEED_VERSION = 1;
export const FEED_METADATA_KEY = 'clobbot.feed';

const decimal = z.string().regex(/^(0|[1-9][0-9]*)(\.[0-9]+)?$/, 'must be a plain decimal number');
const integer = z.string().regex(/^-?(0|[1-9][0-9]*)$/, 'must be an integer');

/** The market's parameters. `tickSize` and `lotSize` turn ticks and lots back into prices and sizes. */
export const feedMarketSchema = z.strictObject({
  symbol: z.string().min(1),
  baseAsset: z.string().optional(),
  quoteAsset: z.string().optional(),
  /** The price of one tick, in quote per base (`0.01`). */
  tickSize: decimal,
  /** The size of one lot, in base (`0.00001`). */
  lotSize: decimal,
  /** True when tickSize and lotSize were inferred from the data (the largest step every value is a multiple of). */
  inferred: z.boolean().optional(),
  /** Fees as fractions of the quote amount (`0.0002`), when the source knows them. */
  makerFee: decimal.optional(),
  takerFee: decimal.optional(),
  /** The venue's own market parameters (recordings of a clobbot venue): the MarketSpec, integers as strings. */
  venue: z
    .strictObject({
      address: z.string(),
      pricePrecision: integer,
      sizePrecision: integer,
      tickSize: integer,
      minSize: integer,
      maxSize: integer,
      makerFeePps: integer,
      takerFeePps: integer,
      baseToken: z.strictObject({ address: z.string(), symbol: z.string(), decimals: z.int() }),
      quoteToken: z.strictObject({ address: z.string(), symbol: z.string(), decimals: z.int() }),
    })
    .optional(),
});

export const FEED_SOURCE_KINDS = ['recording', 'binance-capture', 'binance-trades', 'binance-klines', 'tardis', 'scenario'] as const;

export const feedSourceSchema = z.strictObject({
  kind: z.enum(FEED_SOURCE_KINDS),
  /** The input files by base name and SHA-256 of their content. */
  files: z.array(z.strictObject({ name: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/) })),
  /** Recordings: the network recorded, and the depth query's consensus state and levels. */
  network: z.string().optional(),
  depthState: z.enum(ORDERBOOK_STATES).optional(),
  depthLimit: z.int().positive().optional(),
  /** Recordings: the venue's exchangeInfo answer at the start. */
  exchangeInfo: z.unknown().optional(),
  /** Candle feeds: the interval of each candle. */
  interval: z.string().regex(/^[1-9][0-9]*[smhdwM]$/, 'must be an interval such as 1m, 1h, 1d').optional(),
  /** What the importer did that a user should know (rows skipped, units detected, …). */
  notes: z.array(z.string()).optional(),
});

/** hftbacktest's correction of a local clock that runs behind the exchange's: every local time moved by `addedNs`. */
export const clockCorrectionSchema = z.strictObject({
  method: z.literal('min-latency'),
  /** The smallest local − exchange time seen before the correction, ns (negative: the local clock was behind). */
  minLatencyNs: integer,
  /** The latency the earliest-looking message is given after the correction, ns. */
  baseLatencyNs: integer,
  /** Added to every local time, ns. */
  addedNs: integer,
});

export const feedHeaderSchema = z.strictObject({
  format: z.literal(FEED_FORMAT),
  version: z.int().positive(),
  /** `events`: the event table of feed-event.ts; `candles`: the candle table of candle-feed.ts. */
  kind: z.enum(['events', 'candles']),
  market: feedMarketSchema,
  source: feedSourceSchema,
  clockCorrection: clockCorrectionSchema.optional(),
});

/**
 * A feed's header: its format and version, what its rows are, its market, its source, any clock correction.
 *
 * @useDeclaredType
 */
export type FeedHeader = z.infer<typeof feedHeaderSchema>;
/**
 * The market's parameters in a feed header.
 *
 * @useDeclaredType
 */
export type FeedMarket = z.infer<typeof feedMarketSchema>;
/**
 * Where a feed's data came from.
 *
 * @useDeclaredType
 */
export type FeedSource = z.infer<typeof feedSourceSchema>;
/**
 * The correction made to a feed's local clock, if any.
 *
 * @useDeclaredType
 */
export type ClockCorrection = z.infer<typeof clockCorrectionSchema>;

/** The Arrow schema metadata of a header. */
export function headerMetadata(header: FeedHeader): Map<string, string> {
  const checked = feedHeaderSchema.parse(header);
  return new Map([[FEED_METADATA_KEY, JSON.stringify(checked)]]);
}

/**
 * Opens a feed file of `kind` with `columns`: its header checked, FEED_FOREIGN for another kind of
 * feed or other columns (the file closed again).
 */
export async function openFeedFile(path: string, kind: FeedHeader['kind'], columns: readonly ArrowColumn[]): Promise<{ readonly file: ArrowFileReader; readonly header: FeedHeader }> {
  const file = await openArrowFile(path);
  try {
    const header = readHeader(path, file.metadata);
    const expected = columns.map((column) => column.name).join(',');
    if (header.kind !== kind || file.columnNames.join(',') !== expected) {
      throw new BaseError('FEED_FOREIGN', `${path}: a clobbot ${header.kind} feed, not ${kind === 'events' ? 'an event' : 'a candle'} feed (columns ${file.columnNames.join(', ')})`, { details: { path, kind: header.kind } });
    }
    // The types too: read with another type (a damaged schema: Int64 as Int8, signed as unsigned) a column would give other numbers.
    const other = columns.findIndex((column, index) => String(file.columnTypes[index]) !== String(column.type));
    if (other >= 0) {
      throw new BaseError('FEED_FOREIGN', `${path}: column ${columns[other]!.name} is ${String(file.columnTypes[other])}, not ${String(columns[other]!.type)}`, { details: { path, kind: header.kind, column: columns[other]!.name } });
    }
    return { file, header };
  } catch (error) {
    await file.close();
    throw error;
  }
}

/**
 * The header of a feed file from its Arrow metadata: FEED_FOREIGN when there is none or it is not a
 * clobbot feed header, FEED_VERSION_UNSUPPORTED when a newer clobbot wrote it.
 */
export function readHeader(path: string, metadata: ReadonlyMap<string, string>): FeedHeader {
  const text = metadata.get(FEED_METADATA_KEY);
  if (text === undefined) throw new BaseError('FEED_FOREIGN', `${path}: an Arrow file, but not a clobbot feed (no ${FEED_METADATA_KEY} metadata)`, { details: { path } });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BaseError('FEED_FOREIGN', `${path}: its ${FEED_METADATA_KEY} metadata is not JSON`, { details: { path } });
  }
  const version = (json as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > FEED_VERSION) {
    throw new BaseError('FEED_VERSION_UNSUPPORTED', `${path}: feed format version ${version}; this clobbot reads up to ${FEED_VERSION}: upgrade clobbot`, { details: { path, version } });
  }
  const parsed = feedHeaderSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new BaseError('FEED_FOREIGN', `${path}: not a clobbot feed header: ${issue.path.join('.') || '(header)'}: ${issue.message}`, { details: { path } });
  }
  return parsed.data;
}
