/**
 * The candle feed (header.kind `candles`, header.source.interval set): one row per candle in open
 * time order, prices in ticks and sizes in lots like the event feed, written and read a record batch
 * at a time on top of arrow-file.ts.
 */
import { Int64, TimestampNanosecond } from 'apache-arrow';
import { BaseError } from '../core/base-error.ts';
import { createArrowFileWriter, createBatchBuffer, DEFAULT_BATCH_ROWS, type ArrowColumn } from './arrow-file.ts';
import { headerMetadata, openFeedFile, type FeedHeader } from './feed-header.ts';

/** The columns of a candle feed, in file order. */
export const CANDLE_COLUMNS: readonly ArrowColumn[] = [
  { name: 'open_time', type: new TimestampNanosecond('UTC') },
  { name: 'close_time', type: new TimestampNanosecond('UTC') },
  { name: 'open', type: new Int64() },
  { name: 'high', type: new Int64() },
  { name: 'low', type: new Int64() },
  { name: 'close', type: new Int64() },
  { name: 'volume', type: new Int64() },
  // In units of tickSize × lotSize: the sum over the candle's trades of price_ticks × qty_lots, so
  // quote_volume / volume is the VWAP in ticks and the column stays an exact integer.
  { name: 'quote_volume', type: new Int64() },
  { name: 'trades', type: new Int64() },
];

/** One candle, for code that is not on a hot path. */
export interface Candle {
  /** ns since the epoch, UTC. */
  readonly openTime: bigint;
  /** ns since the epoch, UTC: the last instant inside the candle (Binance: open + interval − 1 ms). */
  readonly closeTime: bigint;
  /** Ticks. */
  readonly open: bigint;
  readonly high: bigint;
  readonly low: bigint;
  readonly close: bigint;
  /** Lots. */
  readonly volume: bigint;
  /** Ticks × lots. */
  readonly quoteVolume: bigint;
  /** Number of trades. */
  readonly trades: bigint;
}

/** A run of candles as columns: `length` rows in each array. */
export interface CandleColumns {
  readonly length: number;
  readonly openTime: BigInt64Array;
  readonly closeTime: BigInt64Array;
  readonly open: BigInt64Array;
  readonly high: BigInt64Array;
  readonly low: BigInt64Array;
  readonly close: BigInt64Array;
  readonly volume: BigInt64Array;
  readonly quoteVolume: BigInt64Array;
  readonly trades: BigInt64Array;
}

const FIELDS = ['openTime', 'closeTime', 'open', 'high', 'low', 'close', 'volume', 'quoteVolume', 'trades'] as const;

/** Row `index` of `columns` as an object (not for hot paths). */
export function candleAt(columns: CandleColumns, index: number): Candle {
  return {
    openTime: columns.openTime[index]!,
    closeTime: columns.closeTime[index]!,
    open: columns.open[index]!,
    high: columns.high[index]!,
    low: columns.low[index]!,
    close: columns.close[index]!,
    volume: columns.volume[index]!,
    quoteVolume: columns.quoteVolume[index]!,
    trades: columns.trades[index]!,
  };
}

export interface CandleFeedWriter {
  /** Appends one candle: times in ns since the epoch, prices in ticks, volume in lots, quote volume in ticks × lots. */
  append(openTime: bigint, closeTime: bigint, open: bigint, high: bigint, low: bigint, close: bigint, volume: bigint, quoteVolume: bigint, trades: bigint): void;
  /** Appends one candle given as an object. */
  appendCandle(candle: Candle): void;
  /** Candles appended so far. */
  readonly rows: number;
  /** Flushes the last batch, writes the footer and moves the file to its name. */
  finish(): void;
  /** Leaves nothing behind. */
  abort(): void;
}

/**
 * @example
 * const writer = createCandleFeedWriter('btcusdt-1m.arrow', header); // header.kind 'candles', header.source.interval '1m'
 * writer.append(openNs, openNs + 59_999_000_000n, 6_183_763n, 6_184_000n, 6_183_000n, 6_183_900n, 152_000n, 940_000_000_000n, 311n);
 * writer.finish();
 */
export function createCandleFeedWriter(path: string, header: FeedHeader, options: { readonly batchRows?: number } = {}): CandleFeedWriter {
  if (header.kind !== 'candles' || header.source.interval === undefined) {
    throw new BaseError('FEED_FOREIGN', `${path}: a candle feed needs a header of kind 'candles' with source.interval (got kind '${header.kind}', interval ${header.source.interval ?? 'none'})`, { details: { path } });
  }
  const capacity = options.batchRows ?? DEFAULT_BATCH_ROWS;
  const arrays = FIELDS.map(() => new BigInt64Array(capacity));
  const [openTimes, closeTimes, opens, highs, lows, closes, volumes, quoteVolumes, tradeCounts] = arrays as [BigInt64Array, BigInt64Array, BigInt64Array, BigInt64Array, BigInt64Array, BigInt64Array, BigInt64Array, BigInt64Array, BigInt64Array];
  const buffer = createBatchBuffer(createArrowFileWriter(path, CANDLE_COLUMNS, headerMetadata(header)), arrays, capacity);
  const writer: CandleFeedWriter = {
    append(openTime, closeTime, open, high, low, close, volume, quoteVolume, trades) {
      const at = buffer.at;
      openTimes[at] = openTime;
      closeTimes[at] = closeTime;
      opens[at] = open;
      highs[at] = high;
      lows[at] = low;
      closes[at] = close;
      volumes[at] = volume;
      quoteVolumes[at] = quoteVolume;
      tradeCounts[at] = trades;
      buffer.next();
    },
    appendCandle(c) {
      writer.append(c.openTime, c.closeTime, c.open, c.high, c.low, c.close, c.volume, c.quoteVolume, c.trades);
    },
    get rows() {
      return buffer.rows;
    },
    finish: () => buffer.finish(),
    abort: () => buffer.abort(),
  };
  return writer;
}

export interface CandleFeedReader {
  readonly path: string;
  readonly header: FeedHeader;
  readonly batchCount: number;
  /** The candles, one batch of columns at a time, in file order. */
  batches(): AsyncIterableIterator<CandleColumns>;
  close(): Promise<void>;
}

/**
 * Opens a candle feed. FEED_NOT_FOUND, FEED_FOREIGN (an event feed or another file), FEED_VERSION_UNSUPPORTED
 * and FEED_UNREADABLE (truncated or corrupted, with the batch) are the typed refusals.
 *
 * @example
 * const feed = await openCandleFeed('btcusdt-1m.arrow');
 * for await (const candles of feed.batches()) for (let i = 0; i < candles.length; i++) volume += candles.volume[i]!;
 * await feed.close();
 */
export async function openCandleFeed(path: string): Promise<CandleFeedReader> {
  const { file, header } = await openFeedFile(path, 'candles', CANDLE_COLUMNS);
  return {
    path,
    header,
    batchCount: file.batchCount,
    async *batches() {
      for await (const batch of file.batches()) {
        const [openTime, closeTime, open, high, low, close, volume, quoteVolume, trades] = batch.columns as BigInt64Array[];
        yield { length: batch.length, openTime: openTime!, closeTime: closeTime!, open: open!, high: high!, low: low!, close: close!, volume: volume!, quoteVolume: quoteVolume!, trades: trades! };
      }
    },
    close: () => file.close(),
  };
}
