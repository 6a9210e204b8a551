/**
 * A price-time priority order book of one market.
 *
 * Each side keeps its price levels in a sorted array, worst first and best last, so the best level
 * is read, removed and (mostly) added at the end; a level is found by binary search. Each level
 * holds its orders in an intrusive doubly-linked FIFO list, and the book indexes orders by id, so
 * adding, cancelling and filling an order allocate nothing but the level it may create.
 * Prices are uint32 on the wire; the book also keys them as JS numbers (exact below 2^53).
 */
import { invariantBroken } from './invariant.ts';

/** What the book needs of an order: the engine's order type extends it. */
export interface BookOrder {
  readonly id: bigint;
  readonly isBuy: boolean;
  readonly price: bigint;
  /** `Number(price)`, for fast comparisons. */
  readonly priceKey: number;
  /** Size units still open; the book keeps each level's total in step with it. */
  remaining: bigint;
  prev: BookOrder | null;
  next: BookOrder | null;
  /** The level the order rests in, or null when it does not rest. */
  level: PriceLevel | null;
}

/** One price of one side: its FIFO queue and aggregate open size. */
export class PriceLevel {
  readonly price: bigint;
  readonly priceKey: number;
  /** Ascending from the worst price to the best: the price for bids, minus the price for asks. */
  readonly rank: number;
  head: BookOrder | null = null;
  tail: BookOrder | null = null;
  /** Sum of `remaining` of the orders here. */
  total = 0n;
  count = 0;
  /** `[price, total]` as the last depth read showed it: reused while the total stays (depth runs every block). */
  depthEntry: readonly [bigint, bigint] | null = null;

  constructor(price: bigint, priceKey: number, isBid: boolean) {
    this.price = price;
    this.priceKey = priceKey;
    this.rank = isBid ? priceKey : -priceKey;
  }
}

/** One side of the book. `levels` is sorted worst first, best last. */
export class BookSide {
  readonly isBid: boolean;
  readonly levels: PriceLevel[] = [];
  /** The last depth read of this side and its limit; dropped by every change of the side's orders. */
  depthCache: readonly (readonly [bigint, bigint])[] | null = null;
  depthLimit = 0;

  constructor(isBid: boolean) {
    this.isBid = isBid;
  }

  /** The best level, or undefined when the side is empty. */
  best(): PriceLevel | undefined {
    return this.levels[this.levels.length - 1];
  }

  /** Index of the first level whose rank is >= `rank` (the length when none). */
  lowerBound(rank: number): number {
    const levels = this.levels;
    // Activity clusters at the top of the book: check the best level first.
    const n = levels.length;
    if (n === 0 || levels[n - 1]!.rank < rank) return n;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (levels[mid]!.rank < rank) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The level at `priceKey`, or undefined. */
  find(priceKey: number): PriceLevel | undefined {
    const rank = this.isBid ? priceKey : -priceKey;
    const level = this.levels[this.lowerBound(rank)];
    return level !== undefined && level.rank === rank ? level : undefined;
  }

  /** Inserts `level` at its sorted place (it must not be present). */
  insert(level: PriceLevel): void {
    const levels = this.levels;
    const at = this.lowerBound(level.rank);
    if (levels[at]?.rank === level.rank) invariantBroken('price level inserted twice', { price: level.price.toString() });
    // Shift in place rather than splice: splice allocates its result array.
    let i = levels.length;
    levels.push(level);
    while (i > at) {
      levels[i] = levels[i - 1]!;
      i--;
    }
    levels[at] = level;
  }

  /** Removes `level` (it must be present). */
  remove(level: PriceLevel): void {
    const levels = this.levels;
    const last = levels.length - 1;
    if (levels[last] === level) {
      levels.pop();
      return;
    }
    const at = this.lowerBound(level.rank);
    if (levels[at] !== level) invariantBroken('price level missing from its side', { price: level.price.toString() });
    for (let i = at; i < last; i++) levels[i] = levels[i + 1]!;
    levels.pop();
  }
}

/** Aggregated top of the book: `[price, size]` per level, best first, in price and size units. */
export interface DepthSnapshot {
  readonly bids: readonly (readonly [bigint, bigint])[];
  readonly asks: readonly (readonly [bigint, bigint])[];
}

/**
 * The book of one market.
 *
 * @example
 * const book = new OrderBook();
 * book.add(order);            // appends to the tail of its price level
 * book.bestBid();             // highest bid price or null
 * book.remove(book.get(id)!); // O(1) cancel by id
 */
export class OrderBook<O extends BookOrder = BookOrder> {
  readonly bids = new BookSide(true);
  readonly asks = new BookSide(false);
  private readonly byId = new Map<bigint, O>();

  /** Number of resting orders. */
  get size(): number {
    return this.byId.size;
  }

  get(id: bigint): O | undefined {
    return this.byId.get(id);
  }

  side(isBid: boolean): BookSide {
    return isBid ? this.bids : this.asks;
  }

  bestBid(): bigint | null {
    return this.bids.best()?.price ?? null;
  }

  bestAsk(): bigint | null {
    return this.asks.best()?.price ?? null;
  }

  /** True when the best bid is at or above the best ask (never after a completed operation). */
  isCrossed(): boolean {
    const bid = this.bids.best();
    const ask = this.asks.best();
    return bid !== undefined && ask !== undefined && bid.priceKey >= ask.priceKey;
  }

  /** Appends `order` to the tail of its price level, creating the level when needed. */
  add(order: O): void {
    if (order.level !== null || this.byId.has(order.id)) invariantBroken('order added twice', { orderId: order.id.toString() });
    const side = order.isBuy ? this.bids : this.asks;
    side.depthCache = null;
    let level = side.find(order.priceKey);
    if (level === undefined) {
      level = new PriceLevel(order.price, order.priceKey, order.isBuy);
      side.insert(level);
    }
    const tail = level.tail;
    order.prev = tail;
    order.next = null;
    if (tail === null) level.head = order;
    else tail.next = order;
    level.tail = order;
    level.total += order.remaining;
    level.count++;
    order.level = level;
    this.byId.set(order.id, order);
  }

  /**
   * Unlinks `order` from its level (dropping the level when it empties) and from the index.
   * Returns the order that preceded it, which `restore` needs to put it back in place.
   */
  remove(order: O): BookOrder | null {
    const level = order.level;
    if (level === null) invariantBroken('removing an order that does not rest', { orderId: order.id.toString() });
    const prev = order.prev;
    const next = order.next;
    if (prev === null) level.head = next;
    else prev.next = next;
    if (next === null) level.tail = prev;
    else next.prev = prev;
    level.total -= order.remaining;
    level.count--;
    const side = order.isBuy ? this.bids : this.asks;
    side.depthCache = null;
    if (level.count === 0) side.remove(level);
    order.prev = null;
    order.next = null;
    order.level = null;
    this.byId.delete(order.id);
    return prev;
  }

  /**
   * Undoes `remove`: puts `order` back into `level` right after `prev` (at the head when null),
   * re-inserting the level if it had emptied. Exact when removals are undone in reverse order.
   */
  restore(order: O, level: PriceLevel, prev: BookOrder | null): void {
    const side = order.isBuy ? this.bids : this.asks;
    side.depthCache = null;
    if (level.count === 0) side.insert(level);
    const next = prev === null ? level.head : prev.next;
    order.prev = prev;
    order.next = next;
    if (prev === null) level.head = order;
    else prev.next = order;
    if (next === null) level.tail = order;
    else next.prev = order;
    level.total += order.remaining;
    level.count++;
    order.level = level;
    this.byId.set(order.id, order);
  }

  /** Reduces a resting order's open size by `size` (a partial fill). */
  reduce(order: O, size: bigint): void {
    const level = order.level;
    if (level === null || size <= 0n || size > order.remaining) {
      invariantBroken('bad reduction of a resting order', { orderId: order.id.toString(), size: size.toString() });
    }
    order.remaining -= size;
    level.total -= size;
    (order.isBuy ? this.bids : this.asks).depthCache = null;
  }

  /** Sets a resting order's open size back to `remaining` (undo of `reduce`). */
  setRemaining(order: O, remaining: bigint): void {
    const level = order.level;
    if (level === null) invariantBroken('resizing an order that does not rest', { orderId: order.id.toString() });
    level.total += remaining - order.remaining;
    order.remaining = remaining;
    (order.isBuy ? this.bids : this.asks).depthCache = null;
  }

  /** The top `limit` levels of each side, aggregated, best first. */
  depth(limit: number): DepthSnapshot {
    return { bids: topLevels(this.bids, limit), asks: topLevels(this.asks, limit) };
  }

  /** Resting orders of one side in priority order: best price first, then oldest first. */
  *orders(isBid: boolean): IterableIterator<O> {
    const levels = (isBid ? this.bids : this.asks).levels;
    for (let i = levels.length - 1; i >= 0; i--) {
      for (let order = levels[i]!.head; order !== null; order = order.next) yield order as O;
    }
  }
}

/**
 * The side's top levels. The venue reads both sides after every block that touched the market, and
 * most blocks leave a side, or most of its levels, as they were: those are shared with the last read.
 */
function topLevels(side: BookSide, limit: number): readonly (readonly [bigint, bigint])[] {
  if (side.depthCache !== null && side.depthLimit === limit) return side.depthCache;
  const levels = side.levels;
  const out = new Array<readonly [bigint, bigint]>(limit > 0 ? Math.min(Math.ceil(limit), levels.length) : 0);
  for (let n = 0; n < out.length; n++) {
    const level = levels[levels.length - 1 - n]!;
    let entry = level.depthEntry;
    if (entry === null || entry[1] !== level.total) {
      entry = [level.price, level.total];
      level.depthEntry = entry;
    }
    out[n] = entry;
  }
  side.depthCache = out;
  side.depthLimit = limit;
  return out;
}
