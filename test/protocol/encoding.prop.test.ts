import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeUint, encodeUint, isCanonicalUint, isHexBytes, toHexBytes, uintMax } from '../../src/protocol/encoding.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const bits = fc.constantFrom(8, 32, 40, 64, 96, 256);

describe('canonical integer encoding', () => {
  it('round-trips every value of every width', () => {
    fc.assert(
      fc.property(bits.chain((b) => fc.tuple(fc.constant(b), fc.bigInt({ min: 0n, max: uintMax(b) }))), ([b, value]) => {
        const text = encodeUint(value, b);
        expect(isCanonicalUint(text, b)).toBe(true);
        expect(decodeUint(text, b)).toBe(value);
      }),
      fuzzSettings(),
    );
  });

  it('refuses every non-canonical form of a value', () => {
    const nonCanonical = fc.bigInt({ min: 0n, max: uintMax(64) }).chain((value) =>
      fc.constantFrom(
        `0${value}`,
        `-${value}`,
        `+${value}`,
        ` ${value}`,
        `${value} `,
        `${value}.0`,
        `${value}e0`,
        `0x${value.toString(16)}`,
        `${value}\n`,
        '',
      ),
    );
    fc.assert(
      fc.property(nonCanonical, (text) => {
        expect(isCanonicalUint(text, 64)).toBe(false);
        expect(() => decodeUint(text, 64)).toThrowError(expect.objectContaining({ code: 'PROTOCOL_NON_CANONICAL' }));
      }),
      fuzzSettings(),
    );
  });

  it('refuses values beyond the width, both ways', () => {
    fc.assert(
      fc.property(bits, fc.bigInt({ min: 1n, max: 1n << 300n }), (b, extra) => {
        const tooLarge = uintMax(b) + extra;
        expect(() => encodeUint(tooLarge, b)).toThrowError(expect.objectContaining({ code: 'PROTOCOL_NON_CANONICAL' }));
        expect(isCanonicalUint(tooLarge.toString(), b)).toBe(false);
      }),
      fuzzSettings(),
    );
    expect(() => encodeUint(-1n, 64)).toThrowError(expect.objectContaining({ code: 'PROTOCOL_NON_CANONICAL' }));
    expect(isCanonicalUint('0', 8)).toBe(true);
    expect(isCanonicalUint('00', 8)).toBe(false);
  });
});

describe('exact-width lowercase hex', () => {
  it('round-trips and refuses other widths or upper case', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 32 }).chain((n) => fc.tuple(fc.constant(n), fc.bigInt({ min: 0n, max: uintMax(n * 8) }))), ([n, value]) => {
        const hex = toHexBytes(value, n);
        expect(isHexBytes(hex, n)).toBe(true);
        expect(BigInt(hex)).toBe(value);
        expect(isHexBytes(hex.toUpperCase().replace('0X', '0x'), n)).toBe(/[a-f]/.test(hex.slice(2)) ? false : true);
        expect(isHexBytes(`${hex}00`, n)).toBe(false);
        expect(isHexBytes(hex.slice(0, -2), n)).toBe(false);
      }),
      fuzzSettings(),
    );
  });
});
