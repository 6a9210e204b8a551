import fc from 'fast-check';
import { hash as lz4jsHash } from 'lz4js/xxh32.js';
import { describe, expect, it } from 'vitest';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';
import { xxh32 } from '../../src/feeds/xxh32.ts';

const text = (value: string) => new TextEncoder().encode(value);

describe('XXH32', () => {
  it("gives xxHash's published values", () => {
    expect(xxh32(text(''))).toBe(0x02cc5d05);
    expect(xxh32(text('a'))).toBe(0x550d7456);
    expect(xxh32(text('abc'))).toBe(0x32d153ff);
    expect(xxh32(text('Nobody inspects the spammish repetition'))).toBe(0xe2293b2f);
  });

  it('agrees with another implementation (lz4js) at every offset, length and seed, aligned or not', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(7), fc.nat(), fc.integer({ min: 0, max: 0xffffffff }), (bytes, offset, cut, seed) => {
        const padded = new Uint8Array(offset + bytes.length);
        padded.set(bytes, offset);
        const length = bytes.length === 0 ? 0 : cut % (bytes.length + 1);
        expect(xxh32(padded, offset, length, seed)).toBe(lz4jsHash(seed, padded, offset, length) >>> 0);
      }),
      fuzzSettings({ numRuns: 500, seed: 20_261_131 }),
    );
  });

  it('hashes a view into a larger buffer by its own bytes', () => {
    const buffer = new Uint8Array(64).map((_, i) => i * 7);
    const view = buffer.subarray(5, 45);
    expect(xxh32(view)).toBe(xxh32(Uint8Array.from(view)));
  });
});
