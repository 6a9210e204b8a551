import { describe, expect, it } from 'vitest';
import { isBaseError } from '../../src/core/base-error.ts';
import { OrderBook, type BookOrder } from '../../src/venue/order-book.ts';

let nextId = 1n;
function bookOrder(isBuy: boolean, price: bigint, remaining: bigint): BookOrder {
  return { id: nextId++, isBuy, price, priceKey: Number(price), remaining, prev: null, next: null, level: null };
}

function ids(book: OrderBook, isBid: boolean): bigint[] {
  return [...book.orders(isBid)].map((o) => o.id);
}

describe('order book', () => {
  it('keeps best bid and ask and aggregates depth best first', () => {
    const book = new OrderBook();
    for (const [isBuy, price, size] of [
      [true, 100n, 5n],
      [true, 102n, 1n],
      [true, 100n, 7n],
      [true, 99n, 2n],
      [false, 105n, 3n],
      [false, 103n, 4n],
      [false, 103n, 6n],
      [false, 110n, 1n],
    ] as const) {
      book.add(bookOrder(isBuy, price, size));
    }
    expect(book.bestBid()).toBe(102n);
    expect(book.bestAsk()).toBe(103n);
    expect(book.isCrossed()).toBe(false);
    expect(book.size).toBe(8);
    expect(book.depth(2)).toEqual({
      bids: [
        [102n, 1n],
        [100n, 12n],
      ],
      asks: [
        [103n, 10n],
        [105n, 3n],
      ],
    });
    expect(book.depth(10).bids).toEqual([
      [102n, 1n],
      [100n, 12n],
      [99n, 2n],
    ]);
  });

  it('iterates in price-time priority', () => {
    const book = new OrderBook();
    const a = bookOrder(false, 103n, 1n);
    const b = bookOrder(false, 101n, 1n);
    const c = bookOrder(false, 103n, 1n);
    const d = bookOrder(false, 101n, 1n);
    for (const o of [a, b, c, d]) book.add(o);
    expect(ids(book, false)).toEqual([b.id, d.id, a.id, c.id]);
  });

  it('cancels by id from the head, middle and tail of a level, dropping empty levels', () => {
    const book = new OrderBook();
    const orders = [bookOrder(true, 100n, 1n), bookOrder(true, 100n, 2n), bookOrder(true, 100n, 3n), bookOrder(true, 90n, 4n)];
    for (const o of orders) book.add(o);
    book.remove(book.get(orders[1]!.id)!);
    expect(ids(book, true)).toEqual([orders[0]!.id, orders[2]!.id, orders[3]!.id]);
    expect(book.depth(1).bids).toEqual([[100n, 4n]]);
    book.remove(book.get(orders[0]!.id)!);
    book.remove(book.get(orders[2]!.id)!);
    expect(book.bestBid()).toBe(90n);
    expect(book.get(orders[0]!.id)).toBeUndefined();
    book.remove(orders[3]!);
    expect(book.bestBid()).toBeNull();
    expect(book.size).toBe(0);
  });

  it('removes a level in the middle of the side', () => {
    const book = new OrderBook();
    const low = bookOrder(false, 120n, 1n);
    const mid = bookOrder(false, 110n, 1n);
    const best = bookOrder(false, 100n, 1n);
    for (const o of [low, mid, best]) book.add(o);
    book.remove(mid);
    expect(book.depth(5).asks).toEqual([
      [100n, 1n],
      [120n, 1n],
    ]);
  });

  it('restores removed orders exactly, in reverse order', () => {
    const book = new OrderBook();
    const orders = [bookOrder(true, 100n, 1n), bookOrder(true, 100n, 2n), bookOrder(true, 100n, 3n), bookOrder(true, 95n, 4n)];
    for (const o of orders) book.add(o);
    const before = { ids: ids(book, true), depth: book.depth(10) };
    const removed = [orders[1]!, orders[0]!, orders[2]!, orders[3]!].map((o) => ({ o, level: o.level!, prev: book.remove(o) }));
    expect(book.size).toBe(0);
    for (const { o, level, prev } of removed.reverse()) book.restore(o, level, prev);
    expect({ ids: ids(book, true), depth: book.depth(10) }).toEqual(before);
  });

  it('reduces and resizes with the level total in step', () => {
    const book = new OrderBook();
    const o = bookOrder(false, 100n, 10n);
    book.add(o);
    book.reduce(o, 4n);
    expect(o.remaining).toBe(6n);
    expect(book.depth(1).asks).toEqual([[100n, 6n]]);
    book.setRemaining(o, 10n);
    expect(book.depth(1).asks).toEqual([[100n, 10n]]);
  });

  it('throws on broken invariants', () => {
    const book = new OrderBook();
    const o = bookOrder(true, 100n, 1n);
    book.add(o);
    expect(() => book.add(o)).toThrow(/added twice/);
    expect(() => book.reduce(o, 2n)).toThrow(/bad reduction/);
    book.remove(o);
    try {
      book.remove(o);
      expect.unreachable();
    } catch (error) {
      expect(isBaseError(error)).toBe(true);
    }
  });

  it('detects a crossed book', () => {
    const book = new OrderBook();
    book.add(bookOrder(true, 100n, 1n));
    book.add(bookOrder(false, 100n, 1n));
    expect(book.isCrossed()).toBe(true);
  });

  it('keeps hundreds of levels sorted under random inserts and removals', () => {
    const book = new OrderBook();
    const live: BookOrder[] = [];
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let i = 0; i < 5000; i++) {
      if (live.length > 0 && rand(3) === 0) {
        const o = live.splice(rand(live.length), 1)[0]!;
        book.remove(o);
      } else {
        const o = bookOrder(true, BigInt(1000 + rand(400)), 1n);
        book.add(o);
        live.push(o);
      }
    }
    const prices = book.depth(10_000).bids.map(([p]) => p);
    expect(prices).toEqual([...prices].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
    expect(new Set(prices).size).toBe(prices.length);
    expect(book.size).toBe(live.length);
    const expectedBest = live.reduce((best, o) => (o.price > best ? o.price : best), 0n);
    expect(book.bestBid()).toBe(expectedBest);
  });
});
