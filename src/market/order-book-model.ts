/**
 * An order book of one market in integer units: prices in price-precision units, sizes in
 * size-precision units, both bigint. Built from a depth snapshot (`fromDepth`, or straight from the
 * response body with `parseDepthBody`), optionally kept up to date with Binance diffs
 * (`applyDiff`), and read through best bid/ask, depth at a price, volume to a price, imbalance,
 * microprice and spread. Human views (decimal strings) go through `fromUnits`.
 *
 * Each side keeps its levels in two parallel arrays ordered worst first and best last, so the best
 * level is read at the end and the levels that change most (near the top) move little on insert
 * and remove; a price is found by binary search. Levels with size 0 do not exist.
 */
import { BaseError } from '../core/base-error.ts';
import { Decimal } from '../core/decimal.ts';
import { fromUnits } from '../core/units.ts';
import type { Depth, DepthLevel } from '../protocol/market-data.ts';
import { DecimalScanner, ScanStatus, scanError } from './decimal-scanner.ts';
import type { DepthDiff, DiffResult } from './depth-diff.ts';
import { marketDecimals, type MarketPrecision } from './market-precision.ts';

export type BookSideName = 'bid' | 'ask';

/** One price level: a price in price units and the size resting there in size units. */
export interface BookLevel {
  readonly price: bigint;
  readonly size: bigint;
}

/** A human view of the book: decimal strings, best level first. */
export interface HumanBook {
  readonly lastUpdateId: number;
  readonly bids: readonly (readonly [price: string, size: string])[];
  readonly asks: readonly (readonly [price: string, size: string])[];
}

/** An exact ratio of two bigints, `numerator / denominator`, denominator positive. */
export interface Fraction {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

/** Levels of one side in the order of a depth response: best first. */
export interface WireOrderLevels {
  readonly prices: readonly bigint[];
  readonly sizes: readonly bigint[];
}

const APPLIED: DiffResult = { status: 'applied' };
const STALE: DiffResult = { status: 'stale' };

/** One side: parallel arrays, worst first, best last. */
class SideLevels {
  constructor(
    readonly isBid: boolean,
    readonly prices: bigint[],
    readonly sizes: bigint[],
  ) {}

  get length(): number {
    return this.prices.length;
  }

  /** The first storage index whose price is `price` or better (bids: >=, asks: <=). */
  lowerBound(price: bigint): number {
    const prices = this.prices;
    let lo = 0;
    let hi = prices.length;
    if (this.isBid) {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (prices[mid]! < price) lo = mid + 1;
        else hi = mid;
      }
    } else {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (prices[mid]! > price) lo = mid + 1;
        else hi = mid;
      }
    }
    return lo;
  }

  /** Sets the size at a price; 0 removes the level (absent levels are fine). */
  set(price: bigint, size: bigint): void {
    const index = this.lowerBound(price);
    const found = index < this.prices.length && this.prices[index] === price;
    if (found) {
      if (size === 0n) {
        this.prices.splice(index, 1);
        this.sizes.splice(index, 1);
      } else {
        this.sizes[index] = size;
      }
    } else if (size !== 0n) {
      this.prices.splice(index, 0, price);
      this.sizes.splice(index, 0, size);
    }
  }

  /** Storage index of the level `rank` places from the best (0 = best). */
  indexOfRank(rank: number): number {
    return this.prices.length - 1 - rank;
  }

  clone(): SideLevels {
    return new SideLevels(this.isBid, this.prices.slice(), this.sizes.slice());
  }
}

/**
 * Builds a side from levels in wire order (best first), checking the order is strict and dropping
 * zero sizes, into storage order (best last). `owned` arrays are reused (reversed in place).
 */
function sideFromWireOrder(isBid: boolean, levels: WireOrderLevels, owned: boolean): SideLevels {
  const { prices, sizes } = levels;
  const count = prices.length;
  if (sizes.length !== count) {
    throw new BaseError('PROTOCOL_SCHEMA_MISMATCH', 'a book side has as many prices as sizes', {
      details: { prices: count, sizes: sizes.length },
    });
  }
  let zeros = 0;
  for (let i = 0; i < count; i++) {
    const price = prices[i]!;
    if (i > 0) {
      const previous = prices[i - 1]!;
      if (isBid ? price >= previous : price <= previous) {
        const side = isBid ? 'bids' : 'asks';
        throw new BaseError(
          'PROTOCOL_SCHEMA_MISMATCH',
          `${side} are not in strictly ${isBid ? 'descending' : 'ascending'} price order at $.${side}[${i}]`,
          { details: { path: `$.${side}[${i}]`, price: price.toString(), previous: previous.toString() } },
        );
      }
    }
    if (sizes[i] === 0n) zeros++;
  }
  if (owned && zeros === 0) {
    return new SideLevels(isBid, (prices as bigint[]).reverse(), (sizes as bigint[]).reverse());
  }
  const storedPrices: bigint[] = [];
  const storedSizes: bigint[] = [];
  for (let i = count - 1; i >= 0; i--) {
    if (sizes[i] === 0n) continue;
    storedPrices.push(prices[i]!);
    storedSizes.push(sizes[i]!);
  }
  return new SideLevels(isBid, storedPrices, storedSizes);
}

/** Wire levels `[price, size][]` -> units, in wire order. Throws on the first bad value. */
function levelsToUnits(
  levels: readonly DepthLevel[],
  decimals: { readonly price: number; readonly size: number },
  path: string,
  scanner: DecimalScanner,
): { prices: bigint[]; sizes: bigint[] } {
  const prices: bigint[] = new Array<bigint>(levels.length);
  const sizes: bigint[] = new Array<bigint>(levels.length);
  for (let i = 0; i < levels.length; i++) {
    const level = levels[i]!;
    prices[i] = scanWhole(scanner, level[0], decimals.price, `${path}[${i}][0]`);
    sizes[i] = scanWhole(scanner, level[1], decimals.size, `${path}[${i}][1]`);
  }
  return { prices, sizes };
}

function scanWhole(scanner: DecimalScanner, text: string, decimals: number, path: string): bigint {
  const units = scanner.read(text, 0, decimals);
  if (scanner.status === ScanStatus.OK && scanner.pos === text.length) return units;
  throw scanError(scanner.status === ScanStatus.TOO_PRECISE ? ScanStatus.TOO_PRECISE : ScanStatus.NOT_DECIMAL, text, decimals, path);
}

/**
 * The order book model. Instances built by the market feed are never mutated after they are
 * emitted (the feed hands them out as `OrderBookView`); `applyDiff` is for books you keep yourself.
 *
 * @example
 * const book = OrderBook.fromDepth(depth, { pricePrecision: 100n, sizePrecision: 10n ** 8n });
 * book.bestBid();              // { price: 6183763n, size: 378826000n }
 * book.volumeTo('ask', 6183800n);
 * book.toHuman(5).asks[0];    // ['61837.64', '1.54698']
 */
export class OrderBook {
  readonly market: MarketPrecision;
  #lastUpdateId: number;
  readonly #bids: SideLevels;
  readonly #asks: SideLevels;
  readonly #decimals: { readonly price: number; readonly size: number };

  private constructor(
    market: MarketPrecision,
    decimals: { readonly price: number; readonly size: number },
    lastUpdateId: number,
    bids: SideLevels,
    asks: SideLevels,
  ) {
    this.market = market;
    this.#decimals = decimals;
    this.#lastUpdateId = lastUpdateId;
    this.#bids = bids;
    this.#asks = asks;
  }

  /**
   * A book from a parsed depth response (`source.depth(...)`). Each decimal must be exact at the
   * market's precision (`UNITS_NOT_REPRESENTABLE` otherwise); bids must be strictly descending and
   * asks strictly ascending (`PROTOCOL_SCHEMA_MISMATCH`); levels of size 0 are dropped.
   */
  static fromDepth(depth: Pick<Depth, 'lastUpdateId' | 'bids' | 'asks'>, market: MarketPrecision): OrderBook {
    const decimals = marketDecimals(market);
    const scanner = new DecimalScanner();
    const bids = levelsToUnits(depth.bids, decimals, '$.bids', scanner);
    const asks = levelsToUnits(depth.asks, decimals, '$.asks', scanner);
    return OrderBook.adoptWireOrder(market, depth.lastUpdateId, bids, asks);
  }

  /**
   * A book from levels already in units, in wire order (bids best = highest first, asks best =
   * lowest first). The order is checked; zero sizes are dropped.
   */
  static fromWireOrder(market: MarketPrecision, lastUpdateId: number, bids: WireOrderLevels, asks: WireOrderLevels): OrderBook {
    return new OrderBook(market, marketDecimals(market), lastUpdateId, sideFromWireOrder(true, bids, false), sideFromWireOrder(false, asks, false));
  }

  /**
   * As `fromWireOrder`, taking over the arrays (they are reversed in place and kept): for parsers
   * that made them and drop them, saving a copy of every level.
   */
  static adoptWireOrder(
    market: MarketPrecision,
    lastUpdateId: number,
    bids: { prices: bigint[]; sizes: bigint[] },
    asks: { prices: bigint[]; sizes: bigint[] },
  ): OrderBook {
    return new OrderBook(market, marketDecimals(market), lastUpdateId, sideFromWireOrder(true, bids, true), sideFromWireOrder(false, asks, true));
  }

  /** A book from levels in units in any order (tests, synthetic books); a price twice on one side is refused. */
  static fromLevels(
    market: MarketPrecision,
    book: { readonly lastUpdateId: number; readonly bids: readonly BookLevel[]; readonly asks: readonly BookLevel[] },
  ): OrderBook {
    const sorted = (levels: readonly BookLevel[], descending: boolean): WireOrderLevels => {
      const copy = [...levels].sort((a, b) => (a.price === b.price ? 0 : (a.price < b.price) === descending ? 1 : -1));
      return { prices: copy.map((level) => level.price), sizes: copy.map((level) => level.size) };
    };
    return OrderBook.fromWireOrder(market, book.lastUpdateId, sorted(book.bids, true), sorted(book.asks, false));
  }

  /** Block number (venue) or update id (Binance) of the state this book shows. */
  get lastUpdateId(): number {
    return this.#lastUpdateId;
  }

  #side(side: BookSideName): SideLevels {
    return side === 'bid' ? this.#bids : this.#asks;
  }

  /** Number of price levels on a side. */
  levelCount(side: BookSideName): number {
    return this.#side(side).length;
  }

  /** The level `rank` places from the best (0 = best), if there is one. */
  level(side: BookSideName, rank: number): BookLevel | undefined {
    const levels = this.#side(side);
    const index = levels.indexOfRank(rank);
    if (rank < 0 || index < 0) return undefined;
    return { price: levels.prices[index]!, size: levels.sizes[index]! };
  }

  /** Up to `limit` levels of a side, best first. */
  levels(side: BookSideName, limit = Number.POSITIVE_INFINITY): BookLevel[] {
    const levels = this.#side(side);
    const out: BookLevel[] = [];
    for (let i = levels.length - 1; i >= 0 && out.length < limit; i--) out.push({ price: levels.prices[i]!, size: levels.sizes[i]! });
    return out;
  }

  bestBid(): BookLevel | undefined {
    return this.level('bid', 0);
  }

  bestAsk(): BookLevel | undefined {
    return this.level('ask', 0);
  }

  /** Best ask minus best bid in price units (negative when crossed); undefined when a side is empty. */
  spread(): bigint | undefined {
    const bid = this.#bids.prices[this.#bids.length - 1];
    const ask = this.#asks.prices[this.#asks.length - 1];
    return bid === undefined || ask === undefined ? undefined : ask - bid;
  }

  /** (best bid + best ask) / 2 in price units (may be half a unit). */
  mid(): Decimal | undefined {
    const bid = this.#bids.prices[this.#bids.length - 1];
    const ask = this.#asks.prices[this.#asks.length - 1];
    return bid === undefined || ask === undefined ? undefined : new Decimal((bid + ask).toString()).div(2);
  }

  /** True when the best bid is at or above the best ask. */
  isCrossed(): boolean {
    const spread = this.spread();
    return spread !== undefined && spread <= 0n;
  }

  /** Size resting at exactly `price` on a side, 0 when there is no such level. */
  depthAt(side: BookSideName, price: bigint): bigint {
    const levels = this.#side(side);
    const index = levels.lowerBound(price);
    return index < levels.length && levels.prices[index] === price ? levels.sizes[index]! : 0n;
  }

  /**
   * Cumulative size from the best level up to and including `price`: what a market order could
   * take before the price gets worse than `price`. Bids: levels at or above `price`; asks: at or below.
   *
   * @example book.volumeTo('ask', book.bestAsk()!.price) === book.bestAsk()!.size
   */
  volumeTo(side: BookSideName, price: bigint): bigint {
    const levels = this.#side(side);
    const sizes = levels.sizes;
    let total = 0n;
    for (let i = levels.lowerBound(price); i < sizes.length; i++) total += sizes[i]!;
    return total;
  }

  /** Total size of the best `levels` levels of a side. */
  topVolume(side: BookSideName, levels: number): bigint {
    const sizes = this.#side(side).sizes;
    let total = 0n;
    for (let i = sizes.length - 1, n = 0; i >= 0 && n < levels; i--, n++) total += sizes[i]!;
    return total;
  }

  /**
   * Order-flow imbalance of the top `levels` levels: (bid volume - ask volume) / (bid + ask), in
   * [-1, 1]; 1 when only bids rest there. Undefined when both are empty.
   */
  imbalance(levels: number): Decimal | undefined {
    const bid = this.topVolume('bid', levels);
    const ask = this.topVolume('ask', levels);
    const total = bid + ask;
    return total === 0n ? undefined : new Decimal((bid - ask).toString()).div(total.toString());
  }

  /**
   * The microprice as an exact fraction of price units:
   * (bidPrice * askSize + askPrice * bidSize) / (bidSize + askSize), the mid weighted towards the
   * side with less size (the price is more likely to move there).
   */
  micropriceFraction(): Fraction | undefined {
    const bids = this.#bids;
    const asks = this.#asks;
    if (bids.length === 0 || asks.length === 0) return undefined;
    const bidPrice = bids.prices[bids.length - 1]!;
    const bidSize = bids.sizes[bids.length - 1]!;
    const askPrice = asks.prices[asks.length - 1]!;
    const askSize = asks.sizes[asks.length - 1]!;
    return { numerator: bidPrice * askSize + askPrice * bidSize, denominator: bidSize + askSize };
  }

  /** The microprice in price units, as a Decimal (see `micropriceFraction`). */
  microprice(): Decimal | undefined {
    const fraction = this.micropriceFraction();
    return fraction && new Decimal(fraction.numerator.toString()).div(fraction.denominator.toString());
  }

  /** Price units (bigint, or a Decimal such as `mid()`) -> human price string. */
  humanPrice(units: bigint | Decimal): string {
    return typeof units === 'bigint'
      ? fromUnits(units, this.market.pricePrecision)
      : units.div(this.market.pricePrecision.toString()).toFixed();
  }

  /** Size units -> human size string. */
  humanSize(units: bigint): string {
    return fromUnits(units, this.market.sizePrecision);
  }

  /** Up to `limit` levels a side as decimal strings, best first. */
  toHuman(limit = Number.POSITIVE_INFINITY): HumanBook {
    const view = (side: BookSideName) => this.levels(side, limit).map((level) => [this.humanPrice(level.price), this.humanSize(level.size)] as const);
    return { lastUpdateId: this.#lastUpdateId, bids: view('bid'), asks: view('ask') };
  }

  /** An independent copy (for keeping a diffed book while handing out snapshots). */
  clone(): OrderBook {
    return new OrderBook(this.market, this.#decimals, this.#lastUpdateId, this.#bids.clone(), this.#asks.clone());
  }

  /**
   * Applies one Binance diff, by Binance's procedure: a diff whose updates are all in the book
   * (`u <= lastUpdateId`) is `stale` and ignored; one that starts after the next expected update
   * (`U > lastUpdateId + 1`) is a `gap` and leaves the book unchanged (re-sync from a snapshot);
   * otherwise each level gets its new absolute size (0 removes it) and `lastUpdateId` becomes `u`.
   * Every value is converted before anything changes, so a bad diff throws with the book intact.
   */
  applyDiff(diff: Pick<DepthDiff, 'U' | 'u' | 'b' | 'a'>): DiffResult {
    if (diff.u <= this.#lastUpdateId) return STALE;
    if (diff.U > this.#lastUpdateId + 1) return { status: 'gap', expected: this.#lastUpdateId + 1, got: diff.U };
    const scanner = new DecimalScanner();
    const bids = levelsToUnits(diff.b, this.#decimals, '$.b', scanner);
    const asks = levelsToUnits(diff.a, this.#decimals, '$.a', scanner);
    for (let i = 0; i < bids.prices.length; i++) this.#bids.set(bids.prices[i]!, bids.sizes[i]!);
    for (let i = 0; i < asks.prices.length; i++) this.#asks.set(asks.prices[i]!, asks.sizes[i]!);
    this.#lastUpdateId = diff.u;
    return APPLIED;
  }
}

/** A book that can be read but not changed: what `book$` emits. */
export type OrderBookView = Omit<OrderBook, 'applyDiff'>;
