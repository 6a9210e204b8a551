/**
 * Writes a normalized event feed (feed-event.ts) row by row into column buffers, flushing one
 * compressed record batch whenever they fill: bounded memory, no object per row.
 */
import { Int8, Int64, TimestampNanosecond, Uint8 } from 'apache-arrow';
import { createArrowFileWriter, createBatchBuffer, DEFAULT_BATCH_ROWS, type ArrowColumn } from './arrow-file.ts';
import type { FeedEvent } from './feed-event.ts';
import { headerMetadata, type FeedHeader } from './feed-header.ts';

/** The columns of an event feed, in file order (docs/feeds.md). */
export const EVENT_COLUMNS: readonly ArrowColumn[] = [
  { name: 'kind', type: new Uint8() },
  { name: 'side', type: new Int8() },
  { name: 'exch_ts', type: new TimestampNanosecond('UTC') },
  { name: 'local_ts', type: new TimestampNanosecond('UTC') },
  { name: 'price', type: new Int64() },
  { name: 'qty', type: new Int64() },
  { name: 'id', type: new Int64() },
];

export interface EventFeedWriter {
  /** Appends one row. Times in ns since the epoch, price in ticks, qty in lots. */
  append(kind: number, side: number, exchTs: bigint, localTs: bigint, price: bigint, qty: bigint, id: bigint): void;
  /** Appends one row given as an object. */
  appendEvent(event: FeedEvent): void;
  /** Rows appended so far. */
  readonly rows: number;
  /** Flushes the last batch, writes the footer and moves the file to its name. */
  finish(): void;
  /** Leaves nothing behind. */
  abort(): void;
}

/**
 * @example
 * const writer = createEventFeedWriter('btcusdt.feed.arrow', header);
 * writer.append(FeedEventKind.TRADE, Side.BUY, exchTs, localTs, 6_183_763n, 2_000n, 3_735_683_259n);
 * writer.finish();
 */
export function createEventFeedWriter(path: string, header: FeedHeader, options: { readonly batchRows?: number } = {}): EventFeedWriter {
  const capacity = options.batchRows ?? DEFAULT_BATCH_ROWS;
  const kinds = new Uint8Array(capacity);
  const sides = new Int8Array(capacity);
  const exchTimes = new BigInt64Array(capacity);
  const localTimes = new BigInt64Array(capacity);
  const prices = new BigInt64Array(capacity);
  const qtys = new BigInt64Array(capacity);
  const ids = new BigInt64Array(capacity);
  const buffer = createBatchBuffer(createArrowFileWriter(path, EVENT_COLUMNS, headerMetadata(header)), [kinds, sides, exchTimes, localTimes, prices, qtys, ids], capacity);
  const writer: EventFeedWriter = {
    append(kind, side, exchTs, localTs, price, qty, id) {
      const at = buffer.at;
      kinds[at] = kind;
      sides[at] = side;
      exchTimes[at] = exchTs;
      localTimes[at] = localTs;
      prices[at] = price;
      qtys[at] = qty;
      ids[at] = id;
      buffer.next();
    },
    appendEvent(event) {
      writer.append(event.kind, event.side, event.exchTs, event.localTs, event.price, event.qty, event.id);
    },
    get rows() {
      return buffer.rows;
    },
    finish: () => buffer.finish(),
    abort: () => buffer.abort(),
  };
  return writer;
}
