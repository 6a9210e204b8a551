/**
 * The rows of a normalized feed (docs/feeds.md): one table of events in the order the bot saw them
 * (ascending local receive time), each row a level change, a trade or a marker, in integer ticks and
 * lots. The columns are typed arrays so that a replay reads them without allocating per row.
 */

/** What a row is. The values are part of the file format: never renumber them. */
export const FeedEventKind = {
  /** The book is replaced: the LEVEL rows up to the next CHECKPOINT are a whole snapshot. `id`: its update id. */
  BOOK_CLEAR: 1,
  /** The size now resting at `price` on `side` (absolute, in lots); 0 removes the level. */
  LEVEL: 2,
  /** The book after the rows before it is the venue's book at update `id`, exchange time `exch_ts`. */
  CHECKPOINT: 3,
  /** A public trade: `id` the trade id, `side` the taker's side, `price` and `qty` what traded. */
  TRADE: 4,
  /** The book's updates skipped from update `id` (the first missing one): the book is unknown until the next BOOK_CLEAR. */
  BOOK_GAP: 5,
  /** Trades `id` .. `id + qty - 1` were never seen. */
  TRADE_GAP: 6,
  /** The best price and size of one side at update `id` as the exchange published it (Binance bookTicker). */
  BBO: 7,
  /** The bot's own order `id` reached the book: `side`, `price`, `qty` its size. */
  OWN_ORDER: 8,
  /** The bot's own order `id` left the book unfilled: `qty` the size it still had. */
  OWN_CANCEL: 9,
  /** The bot's own resting order `id` filled `qty` at `price` (`side` the order's side): it was the maker. */
  OWN_FILL: 10,
  /** The bot's own order `id` took `qty` at `price` (`side` the order's side): it was the taker; the trade is also on the tape. */
  OWN_TAKER_FILL: 11,
} as const;

export type FeedEventKind = (typeof FeedEventKind)[keyof typeof FeedEventKind];

const KIND_NAMES = new Map<number, string>(Object.entries(FeedEventKind).map(([name, value]) => [value, name]));

/** `LEVEL` for 2; undefined for a value that is no kind. */
export function feedEventKindName(kind: number): string | undefined {
  return KIND_NAMES.get(kind);
}

/** Sides: bids and buys are +1, asks and sells -1, a row of both sides or none 0. */
export const Side = { BUY: 1, SELL: -1, NONE: 0 } as const;

/** One row, for code that is not on a hot path (tests, importers that build rows one at a time). */
export interface FeedEvent {
  readonly kind: FeedEventKind;
  readonly side: number;
  /** Exchange time, ns since the Unix epoch. */
  readonly exchTs: bigint;
  /** Local receive time, ns since the Unix epoch. */
  readonly localTs: bigint;
  /** Ticks (price / tick size). */
  readonly price: bigint;
  /** Lots (size / lot size). */
  readonly qty: bigint;
  readonly id: bigint;
}

/** A run of rows as columns: `length` rows in each array. */
export interface FeedColumns {
  readonly length: number;
  readonly kind: Uint8Array;
  readonly side: Int8Array;
  readonly exchTs: BigInt64Array;
  readonly localTs: BigInt64Array;
  readonly price: BigInt64Array;
  readonly qty: BigInt64Array;
  readonly id: BigInt64Array;
}

/** Row `index` of `columns` as an object (not for hot paths). */
export function eventAt(columns: FeedColumns, index: number): FeedEvent {
  return {
    kind: columns.kind[index] as FeedEventKind,
    side: columns.side[index]!,
    exchTs: columns.exchTs[index]!,
    localTs: columns.localTs[index]!,
    price: columns.price[index]!,
    qty: columns.qty[index]!,
    id: columns.id[index]!,
  };
}

/** Nanoseconds of a millisecond timestamp. */
export const msToNs = (ms: number): bigint => BigInt(ms) * 1_000_000n;
