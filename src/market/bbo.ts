/**
 * Best bid and offer: the top of a book, what `bbo$` emits.
 */
import type { BookLevel, OrderBookView } from './order-book-model.ts';

export interface Bbo {
  /** `lastUpdateId` of the book it was read from. */
  readonly lastUpdateId: number;
  readonly bid: BookLevel | undefined;
  readonly ask: BookLevel | undefined;
}

/** The top of a book. */
export function bboOf(book: OrderBookView): Bbo {
  return { lastUpdateId: book.lastUpdateId, bid: book.bestBid(), ask: book.bestAsk() };
}

const sameLevel = (a: BookLevel | undefined, b: BookLevel | undefined) => a === b || (a !== undefined && b !== undefined && a.price === b.price && a.size === b.size);

/** Same prices and sizes on both sides (the update id aside). */
export function sameBbo(a: Bbo, b: Bbo): boolean {
  return sameLevel(a.bid, b.bid) && sameLevel(a.ask, b.ask);
}
