import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.ts';
import {
  MAX_PRICE_UNITS,
  UINT96_MAX,
  fromUnits,
  roundPriceToTick,
  toPriceUnits,
  toSizeUnits,
  toUnits,
} from '../../src/core/units.ts';
import { isBaseError } from '../../src/core/base-error.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const precisions = fc.integer({ min: 0, max: 18 }).map((e) => 10n ** BigInt(e));

describe('units', () => {
  it('converts documented examples', () => {
    expect(toUnits('1.2345', 1000n, 'down')).toBe(1234n);
    expect(toUnits('1.2345', 1000n, 'up')).toBe(1235n);
    expect(toUnits('1.234', 1000n)).toBe(1234n);
    expect(fromUnits(1234n, 1000n)).toBe('1.234');
    expect(fromUnits(1000n, 1000n)).toBe('1');
    expect(toPriceUnits('1.23456', { pricePrecision: 10_000n, tickSize: 5n }, 'sell')).toBe(12_350n);
    expect(toPriceUnits('1.23456', { pricePrecision: 10_000n, tickSize: 5n }, 'buy')).toBe(12_345n);
    expect(toSizeUnits('0.015', 100n)).toBe(1n);
    expect(toUnits(new Decimal('2.5'), 10n)).toBe(25n);
  });

  it('refuses what is not a plain non-negative decimal', () => {
    for (const bad of ['-1', '1e3', '', ' ', '1.', '.5', '0x10', 'NaN', '1,5', '+1']) {
      expect(() => toUnits(bad, 10n), bad).toThrowError(expect.objectContaining({ code: 'UNITS_INVALID_DECIMAL' }));
    }
  });

  it('refuses an inexact amount when asked for exact, and bad precisions', () => {
    expect(() => toUnits('0.001', 100n)).toThrowError(expect.objectContaining({ code: 'UNITS_NOT_REPRESENTABLE' }));
    expect(() => toUnits('1', 0n)).toThrowError(expect.objectContaining({ code: 'UNITS_PRECISION_INVALID' }));
  });

  it('checks uint32 price and uint96 size bounds', () => {
    const grid = { pricePrecision: 1n, tickSize: 1n };
    expect(toPriceUnits(MAX_PRICE_UNITS.toString(), grid, 'buy')).toBe(MAX_PRICE_UNITS);
    expect(() => toPriceUnits((MAX_PRICE_UNITS + 1n).toString(), grid, 'buy')).toThrowError(
      expect.objectContaining({ code: 'UNITS_OUT_OF_RANGE' }),
    );
    expect(() => toPriceUnits('0.4', grid, 'buy')).toThrowError(expect.objectContaining({ code: 'UNITS_OUT_OF_RANGE' }));
    expect(toSizeUnits(UINT96_MAX.toString(), 1n)).toBe(UINT96_MAX);
    expect(() => toSizeUnits((UINT96_MAX + 1n).toString(), 1n)).toThrowError(expect.objectContaining({ code: 'UNITS_OUT_OF_RANGE' }));
    expect(() => toSizeUnits('0.001', 100n)).toThrowError(expect.objectContaining({ code: 'UNITS_OUT_OF_RANGE' }));
  });

  it('round-trips units -> human -> units exactly', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 1n << 200n }), precisions, (units, precision) => {
        expect(toUnits(fromUnits(units, precision), precision)).toBe(units);
      }),
      fuzzSettings(),
    );
  });

  it('rounds within one unit, in the stated direction', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 24 }), precisions, (digits, scale, precision) => {
        const text = new Decimal(digits.toString()).div(new Decimal(10).pow(scale)).toFixed();
        const exact = new Decimal(text).mul(precision.toString());
        const down = toUnits(text, precision, 'down');
        const up = toUnits(text, precision, 'up');
        expect(new Decimal(down.toString()).lte(exact)).toBe(true);
        expect(new Decimal(up.toString()).gte(exact)).toBe(true);
        expect(up - down).toBe(exact.isInteger() ? 0n : 1n);
      }),
      fuzzSettings(),
    );
  });

  it('rounds buy prices down and sell prices up to the tick, never past one tick', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.integer({ min: 0, max: 8 }),
        fc.bigInt({ min: 1n, max: 1000n }),
        (digits, scale, tick) => {
          const grid = { pricePrecision: 10_000n, tickSize: tick };
          const text = new Decimal(digits.toString()).div(new Decimal(10).pow(scale)).toFixed();
          const exact = new Decimal(text).mul(10_000);
          try {
            const buy = toPriceUnits(text, grid, 'buy');
            expect(buy % tick).toBe(0n);
            expect(new Decimal(buy.toString()).lte(exact)).toBe(true);
            expect(exact.minus(buy.toString()).lt(tick.toString())).toBe(true);
          } catch (error) {
            if (!isBaseError(error, 'UNITS_OUT_OF_RANGE')) throw error;
            expect(exact.lt(tick.toString()) || exact.gt(MAX_PRICE_UNITS.toString())).toBe(true);
          }
          try {
            const sell = toPriceUnits(text, grid, 'sell');
            expect(sell % tick).toBe(0n);
            expect(new Decimal(sell.toString()).gte(exact)).toBe(true);
            expect(new Decimal(sell.toString()).minus(exact).lt(tick.toString())).toBe(true);
          } catch (error) {
            if (!isBaseError(error, 'UNITS_OUT_OF_RANGE')) throw error;
            expect(exact.plus(tick.toString()).gt(MAX_PRICE_UNITS.toString())).toBe(true);
          }
        },
      ),
      fuzzSettings(),
    );
  });

  it('snaps price units to the tick in the side direction', () => {
    expect(roundPriceToTick(1234n, 10n, 'buy')).toBe(1230n);
    expect(roundPriceToTick(1234n, 10n, 'sell')).toBe(1240n);
    expect(roundPriceToTick(1230n, 10n, 'sell')).toBe(1230n);
  });
});

describe('fromUnits', () => {
  it('writes the same decimal as decimal.js for every precision, powers of ten or not', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 100n), max: 1n << 100n }), fc.oneof(precisions, fc.bigInt({ min: 1n, max: 10n ** 12n })), (units, precision) => {
        expect(fromUnits(units, precision)).toBe(new Decimal(units.toString()).div(precision.toString()).toFixed());
      }),
      fuzzSettings(),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: -10_000n, max: 10_000n }), fc.integer({ min: 0, max: 6 }), precisions, (units, zeros, precision) => {
        const value = units * 10n ** BigInt(zeros);
        expect(fromUnits(value, precision)).toBe(new Decimal(value.toString()).div(precision.toString()).toFixed());
      }),
      fuzzSettings(),
    );
    for (let i = 0; i < 2; i++) expect(() => fromUnits(1n, 0n)).toThrowError(expect.objectContaining({ code: 'UNITS_PRECISION_INVALID' }));
    expect(fromUnits(-5n, 100n)).toBe('-0.05');
    expect(fromUnits(0n, 1000n)).toBe('0');
    expect(fromUnits(123_000n, 1000n)).toBe('123');
  });
});
