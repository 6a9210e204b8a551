import fc from 'fast-check';
import { bytesToHex, keccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import { keccak256Bytes, keccak256Into } from '../../src/protocol/keccak256.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const ours = (input: Uint8Array): string => bytesToHex(keccak256Bytes(input));
/** Deterministic non-trivial bytes: every byte value shows up, no two blocks alike. */
const sample = (length: number): Uint8Array => Uint8Array.from({ length }, (_, i) => (i * 167 + (i >> 8) * 13 + 29) & 0xff);

describe('keccak256Bytes', () => {
  it('gives the known answers of the empty input and "abc"', () => {
    expect(ours(new Uint8Array(0))).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(ours(new TextEncoder().encode('abc'))).toBe('0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45');
  });

  it.each([1, 31, 32, 64, 66, 96, 135, 136, 137, 271, 272, 273, 407, 408, 832, 10_000])(
    'equals viem keccak256 on %i bytes (rate boundaries at multiples of 136)',
    (length) => {
      const input = sample(length);
      expect(ours(input)).toBe(keccak256(input));
      expect(ours(new Uint8Array(length).fill(0xff))).toBe(keccak256(new Uint8Array(length).fill(0xff)));
    },
  );

  it('hashes a view at a non-zero, unaligned byteOffset by its own bytes only', () => {
    const backing = sample(600);
    const view = backing.subarray(3, 3 + 300);
    expect(ours(view)).toBe(keccak256(view.slice()));
  });

  it('returns a new 32-byte array each call and keeps no state between calls', () => {
    const first = keccak256Bytes(sample(500));
    const empty = keccak256Bytes(new Uint8Array(0));
    expect(first).toHaveLength(32);
    expect(first).not.toBe(keccak256Bytes(sample(500)));
    expect(bytesToHex(empty)).toBe(keccak256(new Uint8Array(0)));
    expect(bytesToHex(keccak256Bytes(sample(500)))).toBe(bytesToHex(first));
  });

  it('equals viem keccak256 on random byte arrays of 0..2000 bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 2000 }), (input) => {
        expect(ours(input)).toBe(keccak256(input));
      }),
      fuzzSettings({ numRuns: 300 }),
    );
  });
});

describe('keccak256Into', () => {
  it('writes the 32-byte digest at the offset and leaves the other bytes alone', () => {
    const input = sample(137);
    const out = new Uint8Array(40).fill(0xaa);
    keccak256Into(input, out, 5);
    expect(bytesToHex(out.subarray(5, 37))).toBe(keccak256(input));
    expect([...out.subarray(0, 5), ...out.subarray(37)]).toEqual(Array(8).fill(0xaa));
    const atStart = new Uint8Array(32);
    keccak256Into(input, atStart);
    expect(bytesToHex(atStart)).toBe(keccak256(input));
  });

  it('may write over its own input', () => {
    const buffer = sample(64);
    const expected = keccak256(buffer.slice());
    keccak256Into(buffer, buffer, 0);
    expect(bytesToHex(buffer.subarray(0, 32))).toBe(expected);
  });

  it('refuses an offset with no room for 32 bytes', () => {
    const out = new Uint8Array(40);
    expect(() => keccak256Into(new Uint8Array(1), out, 9)).toThrow(RangeError);
    expect(() => keccak256Into(new Uint8Array(1), out, -1)).toThrow(RangeError);
    expect(() => keccak256Into(new Uint8Array(1), out, 1.5)).toThrow(RangeError);
    expect(out).toEqual(new Uint8Array(40));
  });
});
