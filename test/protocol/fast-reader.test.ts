import { describe, expect, it } from 'vitest';
import { matching, NO_MATCH, stringWhere } from '../../src/protocol/fast-reader.ts';

describe('fast readers that remember their last value', () => {
  it('refuse a missing value, before and after remembering one', () => {
    const address = matching(/^0x[a-fA-F0-9]{4}$/, true);
    const digits = stringWhere((text) => /^[0-9]+$/.test(text));
    expect(address(undefined)).toBe(NO_MATCH);
    expect(digits(undefined)).toBe(NO_MATCH);
    expect(address('0xABcd')).toBe('0xabcd');
    expect(address('0xABcd')).toBe('0xabcd');
    expect(digits('12')).toBe('12');
    expect(digits('12')).toBe('12');
    expect(address(undefined)).toBe(NO_MATCH);
    expect(digits(undefined)).toBe(NO_MATCH);
    expect(address('0xABc')).toBe(NO_MATCH);
    expect(digits('1x')).toBe(NO_MATCH);
    expect(address('0xABcd')).toBe('0xabcd');
  });
});
