import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { msReader, numberReader } from '../../src/feeds/ns-to-ms.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

describe('msReader', () => {
  it('gives exactly the floored ms of any non-negative int64 ns timestamp (1970 to 2262)', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: 0n, max: 9_223_372_036_854_775_807n }), { minLength: 1, maxLength: 50 }), (values) => {
        const column = BigInt64Array.from(values);
        const ms = msReader(column);
        values.forEach((ns, index) => expect(ms(index)).toBe(Number(ns / 1_000_000n)));
      }),
      fuzzSettings({ numRuns: 500 }),
    );
    const edges = BigInt64Array.from([0n, 999_999n, 1_000_000n, 4_294_967_295n, 4_294_967_296n, 1_723_161_253_937_085_768n]);
    const ms = msReader(edges.subarray(1));
    expect([0, 1, 2, 3, 4].map(ms)).toEqual([0, 1, 4_294, 4_294, 1_723_161_253_937]);
  });
});

describe('numberReader', () => {
  it('reads non-negative int64 values below 2^53 exactly, whatever their high word', () => {
    const values = [0n, 1n, 4_294_967_295n, 4_294_967_296n, 6_180_001n, 2n ** 52n + 12_345n, 2n ** 53n - 1n];
    const read = numberReader(BigInt64Array.from(values));
    expect(values.map((_, i) => read(i))).toEqual(values.map(Number));
  });
});
