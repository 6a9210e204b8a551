import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.ts';
import { OrderBook } from '../../src/market/order-book-model.ts';

const market = { pricePrecision: 100n, sizePrecision: 1000n };
const depth = {
  lastUpdateId: 42,
  bids: [
    ['100.50', '1.000'],
    ['100.25', '2'],
    ['99', '0.5'],
  ] as [string, string][],
  asks: [
    ['100.75', '3'],
    ['101.00000000', '0.001'],
    ['102', '4.5'],
  ] as [string, string][],
};

describe('OrderBook', () => {
  const book = OrderBook.fromDepth(depth, market);

  it('converts human decimals to units exactly, trailing zeros or not', () => {
    expect(book.lastUpdateId).toBe(42);
    expect(book.bestBid()).toEqual({ price: 10_050n, size: 1_000n });
    expect(book.bestAsk()).toEqual({ price: 10_075n, size: 3_000n });
    expect(book.levels('ask')).toEqual([
      { price: 10_075n, size: 3_000n },
      { price: 10_100n, size: 1n },
      { price: 10_200n, size: 4_500n },
    ]);
    expect(book.level('bid', 2)).toEqual({ price: 9_900n, size: 500n });
    expect(book.level('bid', 3)).toBeUndefined();
    expect(book.level('bid', -1)).toBeUndefined();
    expect(book.levelCount('bid')).toBe(3);
  });

  it('reads spread, mid, depth at a price and volume to a price', () => {
    expect(book.spread()).toBe(25n);
    expect(book.mid()?.toFixed()).toBe('10062.5');
    expect(book.humanPrice(book.mid()!)).toBe('100.625');
    expect(book.isCrossed()).toBe(false);
    expect(book.depthAt('bid', 10_025n)).toBe(2_000n);
    expect(book.depthAt('bid', 10_026n)).toBe(0n);
    expect(book.depthAt('ask', 10_025n)).toBe(0n);
    // from the best up to and including the price
    expect(book.volumeTo('bid', 10_050n)).toBe(1_000n);
    expect(book.volumeTo('bid', 10_030n)).toBe(1_000n);
    expect(book.volumeTo('bid', 10_025n)).toBe(3_000n);
    expect(book.volumeTo('bid', 1n)).toBe(3_500n);
    expect(book.volumeTo('bid', 20_000n)).toBe(0n);
    expect(book.volumeTo('ask', 10_100n)).toBe(3_001n);
    expect(book.volumeTo('ask', 10_074n)).toBe(0n);
    expect(book.volumeTo('ask', 99_999n)).toBe(7_501n);
  });

  it('computes imbalance of the top levels and the microprice', () => {
    // top 1: bid 1000 vs ask 3000
    expect(book.imbalance(1)?.toFixed()).toBe('-0.5');
    // top 2: 3000 vs 3001
    expect(book.imbalance(2)?.eq(new Decimal(-1).div(6001))).toBe(true);
    // (10050 * 3000 + 10075 * 1000) / 4000 = 10056.25: nearer the bid, the side with less size
    expect(book.micropriceFraction()).toEqual({ numerator: 10_050n * 3_000n + 10_075n * 1_000n, denominator: 4_000n });
    expect(book.microprice()?.toFixed()).toBe('10056.25');
    const empty = OrderBook.fromDepth({ lastUpdateId: 1, bids: [], asks: [] }, market);
    expect(empty.imbalance(5)).toBeUndefined();
    expect(empty.microprice()).toBeUndefined();
    expect(empty.mid()).toBeUndefined();
    expect(empty.spread()).toBeUndefined();
    const bidsOnly = OrderBook.fromDepth({ lastUpdateId: 1, bids: [['1', '1']], asks: [] }, market);
    expect(bidsOnly.imbalance(5)?.toFixed()).toBe('1');
  });

  it('gives human views through fromUnits', () => {
    expect(book.toHuman(2)).toEqual({
      lastUpdateId: 42,
      bids: [
        ['100.5', '1'],
        ['100.25', '2'],
      ],
      asks: [
        ['100.75', '3'],
        ['101', '0.001'],
      ],
    });
    expect(book.humanSize(1n)).toBe('0.001');
  });

  it('refuses a decimal finer than the precision, and text that is not a decimal', () => {
    expect(() => OrderBook.fromDepth({ lastUpdateId: 1, bids: [['100.001', '1']], asks: [] }, market)).toThrowError(
      expect.objectContaining({ code: 'UNITS_NOT_REPRESENTABLE', details: expect.objectContaining({ path: '$.bids[0][0]' }) }),
    );
    expect(() => OrderBook.fromDepth({ lastUpdateId: 1, bids: [], asks: [['1', '0.0001']] }, market)).toThrowError(
      expect.objectContaining({ code: 'UNITS_NOT_REPRESENTABLE', details: expect.objectContaining({ path: '$.asks[0][1]' }) }),
    );
    for (const bad of ['', '1.', '.5', '-1', '1e3', ' 1', '1 ', '0x1', '１']) {
      expect(() => OrderBook.fromDepth({ lastUpdateId: 1, bids: [[bad, '1']], asks: [] }, market), bad).toThrowError(
        expect.objectContaining({ code: 'PROTOCOL_SCHEMA_MISMATCH' }),
      );
    }
  });

  it('refuses unordered or repeated prices and precisions that are not powers of ten; drops zero sizes', () => {
    expect(() => OrderBook.fromDepth({ lastUpdateId: 1, bids: [['1', '1'], ['2', '1']], asks: [] }, market)).toThrowError(
      expect.objectContaining({ code: 'PROTOCOL_SCHEMA_MISMATCH' }),
    );
    expect(() => OrderBook.fromDepth({ lastUpdateId: 1, bids: [], asks: [['2', '1'], ['2', '1']] }, market)).toThrowError(
      expect.objectContaining({ code: 'PROTOCOL_SCHEMA_MISMATCH' }),
    );
    expect(() => OrderBook.fromDepth(depth, { pricePrecision: 20n, sizePrecision: 1n })).toThrowError(
      expect.objectContaining({ code: 'UNITS_PRECISION_INVALID' }),
    );
    const zeros = OrderBook.fromDepth({ lastUpdateId: 1, bids: [['2', '0'], ['1', '1']], asks: [] }, market);
    expect(zeros.levels('bid')).toEqual([{ price: 100n, size: 1_000n }]);
  });

  it('keeps values beyond 2^53 units exact', () => {
    const big = { pricePrecision: 10n ** 18n, sizePrecision: 10n ** 30n };
    const wide = OrderBook.fromDepth({ lastUpdateId: 1, bids: [['123456789.123456789012345678', '79228162514.264337593543950335']], asks: [] }, big);
    expect(wide.bestBid()).toEqual({ price: 123_456_789_123_456_789_012_345_678n, size: 79_228_162_514_264_337_593_543_950_335n * 10n ** 12n });
    expect(wide.toHuman().bids[0]).toEqual(['123456789.123456789012345678', '79228162514.264337593543950335']);
  });

  it('builds from unit levels in any order', () => {
    const built = OrderBook.fromLevels(market, {
      lastUpdateId: 3,
      bids: [
        { price: 5n, size: 1n },
        { price: 9n, size: 2n },
      ],
      asks: [
        { price: 20n, size: 1n },
        { price: 11n, size: 3n },
      ],
    });
    expect(built.bestBid()).toEqual({ price: 9n, size: 2n });
    expect(built.bestAsk()).toEqual({ price: 11n, size: 3n });
  });
});

describe('OrderBook.applyDiff', () => {
  const fresh = () =>
    OrderBook.fromDepth(
      {
        lastUpdateId: 100,
        bids: [
          ['10', '1'],
          ['9', '1'],
        ],
        asks: [
          ['11', '1'],
          ['12', '1'],
        ],
      },
      market,
    );

  it('applies absolute sizes: new levels, changed levels, 0 removes (absent levels are fine)', () => {
    const book = fresh();
    expect(book.applyDiff({ U: 95, u: 101, b: [['10', '0'], ['9.5', '2'], ['8', '0']], a: [['11', '3'], ['10.5', '1']] })).toEqual({ status: 'applied' });
    expect(book.lastUpdateId).toBe(101);
    expect(book.toHuman()).toEqual({
      lastUpdateId: 101,
      bids: [
        ['9.5', '2'],
        ['9', '1'],
      ],
      asks: [
        ['10.5', '1'],
        ['11', '3'],
        ['12', '1'],
      ],
    });
  });

  it("follows Binance's sequencing: stale diffs are ignored, a gap leaves the book unchanged", () => {
    const book = fresh();
    expect(book.applyDiff({ U: 90, u: 100, b: [['10', '0']], a: [] })).toEqual({ status: 'stale' });
    expect(book.applyDiff({ U: 102, u: 103, b: [['10', '0']], a: [] })).toEqual({ status: 'gap', expected: 101, got: 102 });
    expect(book.bestBid()?.price).toBe(1_000n);
    expect(book.applyDiff({ U: 101, u: 101, b: [], a: [] })).toEqual({ status: 'applied' });
    expect(book.applyDiff({ U: 102, u: 110, b: [['10', '5']], a: [] })).toEqual({ status: 'applied' });
    expect(book.depthAt('bid', 1_000n)).toBe(5_000n);
  });

  it('changes nothing when a diff holds a bad value', () => {
    const book = fresh();
    expect(() => book.applyDiff({ U: 101, u: 102, b: [['9.5', '1']], a: [['11.001', '1']] })).toThrowError(
      expect.objectContaining({ code: 'UNITS_NOT_REPRESENTABLE', details: expect.objectContaining({ path: '$.a[0][0]' }) }),
    );
    expect(book.lastUpdateId).toBe(100);
    expect(book.levelCount('bid')).toBe(2);
  });

  it('leaves clones alone', () => {
    const book = fresh();
    const copy = book.clone();
    book.applyDiff({ U: 101, u: 101, b: [['10', '0']], a: [] });
    expect(copy.bestBid()?.price).toBe(1_000n);
    expect(copy.lastUpdateId).toBe(100);
  });
});
