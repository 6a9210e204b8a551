import { describe, expect, it } from 'vitest';
import { decimalString, isDecimalString, signedDecimalString } from '../../src/protocol/decimal-string.ts';
import { toUnits } from '../../src/core/units.ts';

describe('decimalString', () => {
  it.each(['0', '42574', '42574.30000000', '0.00646000', '007.5'])('accepts %s and keeps the exact text', (text) => {
    expect(decimalString.parse(text)).toBe(text);
    // Every accepted value converts with the units parser (same grammar).
    expect(() => toUnits(text, 10n ** 8n)).not.toThrow();
  });

  it.each(['-1', '+1', '1e3', '1E-8', ' 1', '1 ', '1.', '.5', '1,5', '', 'NaN', 'Infinity', '0x10', '１'])(
    'refuses %j',
    (text) => {
      expect(decimalString.safeParse(text).success).toBe(false);
      expect(isDecimalString(text)).toBe(false);
    },
  );

  it('refuses numbers: decimals stay strings', () => {
    expect(decimalString.safeParse(1.5).success).toBe(false);
  });
});

describe('signedDecimalString', () => {
  it('accepts a negative change', () => {
    expect(signedDecimalString.parse('-1188.75000000')).toBe('-1188.75000000');
    expect(signedDecimalString.parse('1.647')).toBe('1.647');
  });

  it.each(['--1', '+1', '-', '-1e2', '- 1'])('refuses %j', (text) => {
    expect(signedDecimalString.safeParse(text).success).toBe(false);
  });
});
