import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.ts';
import { baseTokenToHuman, fixed18ToHuman, priceToHuman, sizeToHuman } from '../../src/core/denomination.ts';

describe('denomination rules', () => {
  it('rule 1: sizes are size-precision units', () => {
    expect(sizeToHuman('123456', '1000').toFixed()).toBe('123.456');
    expect(sizeToHuman(5n, 100n).toFixed()).toBe('0.05');
  });
  it('rules 2 and 6: base amounts are raw base-token units', () => {
    expect(baseTokenToHuman('1500000000000000000', 18).toFixed()).toBe('1.5');
    expect(baseTokenToHuman('2500000', 6).toFixed()).toBe('2.5');
    expect(() => baseTokenToHuman('1', -1)).toThrowError(expect.objectContaining({ code: 'UNITS_PRECISION_INVALID' }));
  });
  it('rule 3: order prices are price-precision units', () => {
    expect(priceToHuman('34125', '10000').toFixed()).toBe('3.4125');
  });
  it('rules 4 and 5: fillPrice and *InUsd are 1e18 fixed point, exactly', () => {
    expect(fixed18ToHuman('3412500000000000000').toFixed()).toBe('3.4125');
    expect(fixed18ToHuman('123456789012345678901234567890').toFixed()).toBe('123456789012.34567890123456789');
  });
});

describe('denomination rules, repeated conversions', () => {
  it('give what a fresh division gives, for every divisor, however often and in whatever order', () => {
    const values = ['0', '1', '-7', '123456', '999999999999999999999', '00042', '-0', '3412500000000000000'];
    const divisors = [1n, 10n, 100n, 7n, 3n, 10n ** 18n];
    for (let round = 0; round < 3; round++) {
      for (const value of values) {
        for (const divisor of divisors) {
          const expected = new Decimal(value).div(divisor.toString());
          expect(sizeToHuman(value, divisor).toFixed()).toBe(expected.toFixed());
          expect(sizeToHuman(BigInt(value), divisor.toString()).eq(expected)).toBe(true);
        }
        expect(fixed18ToHuman(value).toFixed()).toBe(new Decimal(value).div('1000000000000000000').toFixed());
      }
    }
    expect(() => sizeToHuman('12', 0n)).toThrowError(expect.objectContaining({ code: 'UNITS_PRECISION_INVALID' }));
    expect(() => sizeToHuman('1.x', 10n)).toThrow();
  });
});
