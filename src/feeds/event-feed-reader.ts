/**
 * Reads a normalized event feed a record batch at a time: its header at once, then column arrays
 * that a replay walks without allocating per row.
 */
import type { ArrowBatch } from './arrow-file.ts';
import type { FeedColumns } from './feed-event.ts';
import { openFeedFile, type FeedHeader } from './feed-header.ts';
import { EVENT_COLUMNS } from './event-feed-writer.ts';

export interface EventFeedReader {
  readonly path: string;
  readonly header: FeedHeader;
  readonly batchCount: number;
  /** The rows, one batch of columns at a time, in file order. */
  batches(): AsyncIterableIterator<FeedColumns>;
  /** One batch by its index (0 .. batchCount - 1). */
  batch(index: number): Promise<FeedColumns>;
  close(): Promise<void>;
}

function eventColumns(batch: ArrowBatch): FeedColumns {
  const [kind, side, exchTs, localTs, price, qty, id] = batch.columns;
  return {
    length: batch.length,
    kind: kind as Uint8Array,
    side: side as Int8Array,
    exchTs: exchTs as BigInt64Array,
    localTs: localTs as BigInt64Array,
    price: price as BigInt64Array,
    qty: qty as BigInt64Array,
    id: id as BigInt64Array,
  };
}

/**
 * Opens an event feed. FEED_NOT_FOUND, FEED_FOREIGN (not an event feed), FEED_VERSION_UNSUPPORTED
 * and FEED_UNREADABLE (truncated or corrupted, with the batch) are the typed refusals.
 *
 * @example
 * const feed = await openEventFeed('btcusdt.feed.arrow');
 * for await (const rows of feed.batches()) for (let i = 0; i < rows.length; i++) if (rows.kind[i] === FeedEventKind.TRADE) volume += rows.qty[i]!;
 * await feed.close();
 */
export async function openEventFeed(path: string): Promise<EventFeedReader> {
  const { file, header } = await openFeedFile(path, 'events', EVENT_COLUMNS);
  return {
    path,
    header,
    batchCount: file.batchCount,
    async *batches() {
      for await (const batch of file.batches()) yield eventColumns(batch);
    },
    batch: async (index) => eventColumns(await file.batch(index)),
    close: () => file.close(),
  };
}
