/**
 * The recorded market as of the replay's time: the book the recording showed, net of what was the
 * recorded bot's own (its resting orders are taken out of the displayed depth) and of what the
 * replayed bot has taken from it (until the recording updates that level again), and the tape of
 * trades in which the recorded bot was not the taker. Prices and sizes in the venue's units.
 */
import type { OrderSide } from '../protocol/constants.ts';

export type BookSideName = 'bids' | 'asks';

/** A level's size, as displayed to the replayed bot, before and after a change. */
export interface LevelChange {
  readonly side: BookSideName;
  readonly price: bigint;
  readonly before: bigint;
  readonly after: bigint;
}

/** Own recorded fills, waiting for the tape's trade they were part of. */
interface OwnRecordedFill {
  readonly price: bigint;
  size: bigint;
  readonly atMs: number;
}

/** How far apart (exchange time) a recorded own taker fill and its trade on the tape may be. */
const OWN_FILL_MATCH_MS = 5_000;

/**
 * Levels are keyed by price as a number: prices are uint32 price units (exact as doubles), and a Map
 * finds a small-integer key far faster than a bigint one. Sizes stay bigints.
 */
export class ReplayBook {
  private readonly recorded = { bids: new Map<number, bigint>(), asks: new Map<number, bigint>() };
  /** The recorded bot's own resting size per price. */
  private readonly own = { bids: new Map<number, bigint>(), asks: new Map<number, bigint>() };
  /** What the replayed bot's takers took per price, until the recording updates the level. */
  private readonly consumed = { bids: new Map<number, bigint>(), asks: new Map<number, bigint>() };
  private readonly ownOrders = new Map<bigint, { side: BookSideName; price: bigint; remaining: bigint }>();
  private readonly ownTakerFills: OwnRecordedFill[] = [];
  private readonly ownMakerFills: OwnRecordedFill[] = [];
  /**
   * Recorded prices of each side, best first (kept sorted as levels come and go), as numbers: prices
   * are uint32 price units, and an array of numbers shifts and compares far faster than one of bigints.
   */
  private readonly prices = { bids: [] as number[], asks: [] as number[] };
  /** The update id and exchange time (ms) of the last checkpoint applied; -1 before the first. */
  updateId = -1n;
  updateMs = 0;
  /** Changes with every change of what is displayed (answers built from the book can be reused until then). */
  version = 0;
  /** Trades the recorded bot took as the taker, left off the tape (size units). */
  ownTakerSizeRemoved = 0n;

  /** Displayed size at `price` on `side`: recorded, less the recorded bot's own, less what the replayed bot took. */
  displayed(side: BookSideName, price: bigint): bigint {
    return this.displayedAt(side, Number(price));
  }

  private displayedAt(side: BookSideName, at: number): bigint {
    const size = (this.recorded[side].get(at) ?? 0n) - (this.own[side].get(at) ?? 0n) - (this.consumed[side].get(at) ?? 0n);
    return size > 0n ? size : 0n;
  }

  /** Replaces the whole book (a snapshot follows). */
  clear(): void {
    this.version += 1;
    this.recorded.bids.clear();
    this.recorded.asks.clear();
    this.consumed.bids.clear();
    this.consumed.asks.clear();
    this.prices.bids.length = 0;
    this.prices.asks.length = 0;
  }

  /**
   * The recorded size at a level (`at`: its price units as a number, exact for uint32 prices);
   * returns the displayed change, if any, when `report` (the level of one of the replayed bot's
   * orders: the only ones whose queue a change moves).
   */
  setLevel(side: BookSideName, at: number, size: bigint, report = false): LevelChange | undefined {
    this.version += 1;
    const before = report ? this.displayedAt(side, at) : 0n;
    const recorded = this.recorded[side];
    if (size === 0n) {
      if (recorded.delete(at)) this.prices[side].splice(this.indexOf(side, at), 1);
    } else {
      if (!recorded.has(at)) this.prices[side].splice(this.indexOf(side, at), 0, at);
      recorded.set(at, size);
    }
    if (this.consumed[side].size > 0) this.consumed[side].delete(at);
    if (!report) return undefined;
    const after = this.displayedAt(side, at);
    return before === after ? undefined : { side, price: BigInt(at), before, after };
  }

  checkpoint(updateId: bigint, exchMs: number): void {
    this.updateId = updateId;
    this.updateMs = exchMs;
  }

  /** The replayed bot's taker took `size` at `price` of `side`'s displayed depth. */
  consume(side: BookSideName, price: bigint, size: bigint): void {
    this.version += 1;
    const at = Number(price);
    this.consumed[side].set(at, (this.consumed[side].get(at) ?? 0n) + size);
  }

  ownOrder(orderId: bigint, side: BookSideName, price: bigint, size: bigint): void {
    this.ownOrders.set(orderId, { side, price, remaining: size });
    this.adjustOwn(side, price, size);
  }

  /** The recorded bot's order left the book or filled `size` (undefined: all that was left). */
  ownReduced(orderId: bigint, size?: bigint): void {
    const order = this.ownOrders.get(orderId);
    if (order === undefined) return;
    const by = size === undefined || size > order.remaining ? order.remaining : size;
    order.remaining -= by;
    this.adjustOwn(order.side, order.price, -by);
    if (order.remaining === 0n) this.ownOrders.delete(orderId);
  }

  ownTakerFill(price: bigint, size: bigint, atMs: number): void {
    this.ownTakerFills.push({ price, size, atMs });
  }

  /** A fill of the recorded bot's resting order: the trade on the tape that it was part of follows. */
  ownMakerFill(price: bigint, size: bigint, atMs: number): void {
    this.ownMakerFills.push({ price, size, atMs });
  }

  /** The part of a tape trade that filled the recorded bot's resting order (matched once). */
  ownMakerPart(price: bigint, size: bigint, atMs: number): bigint {
    return takeMatching(this.ownMakerFills, price, size, atMs);
  }

  /**
   * The part of a recorded trade that was not the recorded bot's own taking: the trade's size less
   * the recorded bot's taker fills at its price within OWN_FILL_MATCH_MS of it.
   */
  tapeSize(price: bigint, size: bigint, atMs: number): bigint {
    const own = takeMatching(this.ownTakerFills, price, size, atMs);
    this.ownTakerSizeRemoved += own;
    return size - own;
  }

  private adjustOwn(side: BookSideName, price: bigint, by: bigint): void {
    this.version += 1;
    const at = Number(price);
    const next = (this.own[side].get(at) ?? 0n) + by;
    if (next <= 0n) this.own[side].delete(at);
    else this.own[side].set(at, next);
  }

  /** Where `price` is, or would go, in `side`'s sorted prices (binary search). */
  private indexOf(side: BookSideName, price: number): number {
    const prices = this.prices[side];
    let lo = 0;
    let hi = prices.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const at = prices[mid]!;
      if (side === 'bids' ? at > price : at < price) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Displayed levels, best first: [price, size] with size > 0; at most `limit`. */
  levels(side: BookSideName, limit = Number.POSITIVE_INFINITY): (readonly [bigint, bigint])[] {
    const out: (readonly [bigint, bigint])[] = [];
    for (const at of this.prices[side]) {
      if (out.length >= limit) break;
      const size = this.displayedAt(side, at);
      if (size > 0n) out.push([BigInt(at), size]);
    }
    return out;
  }

  best(side: BookSideName): readonly [bigint, bigint] | undefined {
    for (const at of this.prices[side]) {
      const size = this.displayedAt(side, at);
      if (size > 0n) return [BigInt(at), size];
    }
    return undefined;
  }

  /**
   * The displayed levels an order of `takerSide` with limit `limitPrice` could meet, best first
   * (what the outside liquidity of the venue places for a relayed transaction).
   */
  reachable(takerSide: OrderSide, limitPrice: bigint): (readonly [bigint, bigint])[] {
    const side: BookSideName = takerSide === 'BUY' ? 'asks' : 'bids';
    const out: (readonly [bigint, bigint])[] = [];
    const limit = Number(limitPrice);
    for (const at of this.prices[side]) {
      if (takerSide === 'BUY' ? at > limit : at < limit) break;
      const size = this.displayedAt(side, at);
      if (size > 0n) out.push([BigInt(at), size]);
    }
    return out;
  }
}

/** Takes up to `size` out of the recorded fills at `price` within OWN_FILL_MATCH_MS of `atMs`; returns how much. */
function takeMatching(fills: OwnRecordedFill[], price: bigint, size: bigint, atMs: number): bigint {
  while (fills.length > 0 && fills[0]!.atMs < atMs - OWN_FILL_MATCH_MS) fills.shift();
  let taken = 0n;
  for (const fill of fills) {
    if (taken === size) break;
    if (fill.price !== price || fill.size === 0n || Math.abs(fill.atMs - atMs) > OWN_FILL_MATCH_MS) continue;
    const take = fill.size < size - taken ? fill.size : size - taken;
    fill.size -= take;
    taken += take;
  }
  return taken;
}
