import { describe, expect, it } from 'vitest';
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
