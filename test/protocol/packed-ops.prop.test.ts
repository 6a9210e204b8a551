/**
 * Property tests of the packed replacement op codec. Words are built independently with bigint
 * shifts (`slotIdx | flags << 8 | price << 16 | size << 48 | minSizeAfterBlock << 144`), the venue
 * SDK's formula. fast-check prints the seed and path of any failure; rerun with them to replay.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBaseError } from '../../src/core/base-error.ts';
import type { Hex } from '../../src/protocol/encoding.ts';
import { decodePackedOps, encodePackedOps, encodePackedOpsToBytes, type PackedOp, type PackedPlaceOp } from '../../src/protocol/packed-ops.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const RUNS = fuzzSettings({ numRuns: 300 });
const UINT32 = (1n << 32n) - 1n;
const UINT96 = (1n << 96n) - 1n;

interface Fields {
  slot: bigint;
  flags: bigint;
  price: bigint;
  size: bigint;
  minSize: bigint;
  high?: bigint;
}
/** One op word by the bit layout, as 64 hex digits (no 0x). */
const wordHex = ({ slot, flags, price, size, minSize, high = 0n }: Fields): string =>
  (slot | (flags << 8n) | (price << 16n) | (size << 48n) | (minSize << 144n) | (high << 176n)).toString(16).padStart(64, '0');
const packed = (...words: string[]): Hex => `0x${words.join('')}`;

function wordOf(op: PackedOp): string {
  if (op.kind === 'cancel') return wordHex({ slot: BigInt(op.slotIdx), flags: 0n, price: 0n, size: 0n, minSize: 0n });
  const flags = (op.side === 'BUY' ? 1n : 0n) | (op.postOnly ? 8n : 0n);
  return wordHex({ slot: BigInt(op.slotIdx), flags, price: op.price, size: op.size, minSize: op.minSizeAfterBlock });
}

/** The PROTOCOL_PACKED_OP_INVALID error of `action`, with its details. */
function packedError(action: () => unknown): { message: string; details: Record<string, unknown> } {
  try {
    action();
  } catch (error) {
    if (isBaseError(error, 'PROTOCOL_PACKED_OP_INVALID')) return { message: error.message, details: { ...error.details } };
    throw error;
  }
  throw new Error('expected PROTOCOL_PACKED_OP_INVALID, nothing was thrown');
}

const placeFields = {
  side: fc.constantFrom('BUY' as const, 'SELL' as const),
  postOnly: fc.boolean(),
  price: fc.bigInt({ min: 1n, max: UINT32 - 1n }),
  size: fc.bigInt({ min: 1n, max: UINT96 }),
  minSizeAfterBlock: fc.bigInt({ min: 0n, max: UINT32 }),
};
const opAt = (slotIdx: number): fc.Arbitrary<PackedOp> =>
  fc.oneof(
    fc.constant<PackedOp>({ slotIdx, kind: 'cancel' }),
    fc.record(placeFields).map((fields): PackedOp => ({ slotIdx, kind: 'place', ...fields })),
  );
const validOps: fc.Arbitrary<PackedOp[]> = fc
  .uniqueArray(fc.integer({ min: 0, max: 61 }), { maxLength: 62 })
  .chain((slots) => fc.tuple(...slots.map(opAt)));
const placeOp = (slotIdx: number, fields: Partial<PackedPlaceOp> = {}): PackedPlaceOp => ({
  slotIdx,
  kind: 'place',
  side: 'BUY',
  postOnly: false,
  price: 100n,
  size: 10n,
  minSizeAfterBlock: 0n,
  ...fields,
});

describe('packed ops: known words', () => {
  it('pins a post-only BUY to its exact word (the venue SDK example)', () => {
    const op = placeOp(2, { postOnly: true, price: 50_000_000n, size: 100_000_000n, minSizeAfterBlock: 123n });
    // reserved 10 bytes | minSize 0x7b | size 0x5f5e100 (12 bytes) | price 0x2faf080 | flags 0x09 | slot 0x02
    const word = `0x${'00'.repeat(10)}0000007b000000000000000005f5e10002faf0800902`;
    expect(encodePackedOps([op])).toBe(word);
    expect(decodePackedOps(word as Hex)).toEqual([op]);
  });

  it('a cancel of slot 3 is 0x00…03: bit 0 is the least significant bit of the word', () => {
    expect(encodePackedOps([{ slotIdx: 3, kind: 'cancel' }])).toBe(`0x${'00'.repeat(31)}03`);
    expect(decodePackedOps(`0x${'00'.repeat(31)}03`)).toEqual([{ slotIdx: 3, kind: 'cancel' }]);
  });

  it('no ops is 0x, both ways', () => {
    expect(encodePackedOps([])).toBe('0x');
    expect(decodePackedOps('0x')).toEqual([]);
  });
});

describe('packed ops: round trip', () => {
  it('decode(encode(ops)) = ops, and each word matches the bit layout', () => {
    fc.assert(
      fc.property(validOps, (ops) => {
        const hex = encodePackedOps(ops);
        expect(hex).toBe(packed(...ops.map(wordOf)));
        expect(decodePackedOps(hex)).toEqual(ops);
        expect(decodePackedOps(encodePackedOpsToBytes(ops))).toEqual(ops);
      }),
      RUNS,
    );
  });

  it('encode(decode(hex)) = hex for valid words, in either letter case', () => {
    fc.assert(
      fc.property(validOps, (ops) => {
        const hex = packed(...ops.map(wordOf));
        expect(encodePackedOps(decodePackedOps(hex))).toBe(hex);
        expect(encodePackedOps(decodePackedOps(hex.toUpperCase().replace('0X', '0x') as Hex))).toBe(hex);
      }),
      RUNS,
    );
  });

  it('decodes a byte array that is a view into a larger buffer', () => {
    const ops: PackedOp[] = [placeOp(5, { side: 'SELL', size: UINT96 }), { slotIdx: 61, kind: 'cancel' }];
    const inner = encodePackedOpsToBytes(ops);
    const outer = new Uint8Array(inner.length + 7);
    outer.set(inner, 3);
    expect(decodePackedOps(outer.subarray(3, 3 + inner.length))).toEqual(ops);
  });
});

describe('packed ops: every broken rule is refused', () => {
  it('slotIdx 62..255 (decode) and 62+, negative or fractional (encode)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 62, max: 255 }), fc.boolean(), (slot, asCancel) => {
        const fields = asCancel ? { flags: 0n, price: 0n, size: 0n, minSize: 0n } : { flags: 1n, price: 5n, size: 5n, minSize: 0n };
        const decoded = packedError(() => decodePackedOps(packed(wordHex({ slot: BigInt(slot), ...fields }))));
        expect(decoded.details).toMatchObject({ index: 0, field: 'slotIdx' });
        expect(packedError(() => encodePackedOps([{ slotIdx: slot, kind: 'cancel' }])).details).toMatchObject({ index: 0, field: 'slotIdx' });
      }),
      RUNS,
    );
    for (const slotIdx of [-1, 1.5, Number.NaN]) {
      expect(packedError(() => encodePackedOps([{ slotIdx, kind: 'cancel' }])).details).toMatchObject({ field: 'slotIdx' });
    }
  });

  it('a slot used twice, naming the later op', () => {
    fc.assert(
      fc.property(validOps.filter((ops) => ops.length > 0), fc.nat(), fc.nat(), (ops, pick, at) => {
        const original = pick % ops.length;
        const position = 1 + (at % ops.length);
        const withDuplicate = [...ops.slice(0, position), { slotIdx: ops[original]!.slotIdx, kind: 'cancel' as const }, ...ops.slice(position)];
        // the error names the second of the two ops with that slot
        const later = position <= original ? original + 1 : position;
        expect(packedError(() => encodePackedOps(withDuplicate)).details).toMatchObject({ index: later, field: 'slotIdx' });
        const hex = packed(...withDuplicate.map(wordOf));
        expect(packedError(() => decodePackedOps(hex)).details).toMatchObject({ index: later, field: 'slotIdx' });
      }),
      RUNS,
    );
  });

  it('a flag bit other than 0x01 and 0x08', () => {
    const otherBits = fc.integer({ min: 1, max: 255 }).filter((flags) => (flags & ~0x09) !== 0);
    fc.assert(
      fc.property(otherBits, fc.boolean(), (flags, asCancel) => {
        const fields = asCancel ? { price: 0n, size: 0n } : { price: 7n, size: 9n };
        const hex = packed(wordHex({ slot: 1n, flags: BigInt(flags), minSize: 0n, ...fields }));
        expect(packedError(() => decodePackedOps(hex)).details).toMatchObject({ index: 0, field: 'flags' });
      }),
      RUNS,
    );
  });

  it('any non-zero bit in 176-255', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: (1n << 80n) - 1n }), fc.nat({ max: 3 }), (high, at) => {
        const valid = packed(wordHex({ slot: 0n, flags: 0n, price: 0n, size: 0n, minSize: 0n }), wordHex({ slot: 1n, flags: 1n, price: 1n, size: 1n, minSize: 1n }));
        const words = [valid.slice(2, 66), valid.slice(66)];
        const index = at % 2;
        words[index] = wordHex({ slot: BigInt(index + 5), flags: 0n, price: 3n, size: 3n, minSize: 0n, high });
        expect(packedError(() => decodePackedOps(packed(...words))).details).toMatchObject({ index, field: 'reserved bits 176-255' });
      }),
      RUNS,
    );
  });

  it('a cancel (price and size zero) with flags or minSizeAfterBlock set', () => {
    fc.assert(
      fc.property(fc.constantFrom(1n, 8n, 9n), fc.bigInt({ min: 1n, max: UINT32 }), (flags, minSize) => {
        const withFlags = packed(wordHex({ slot: 4n, flags, price: 0n, size: 0n, minSize: 0n }));
        expect(packedError(() => decodePackedOps(withFlags)).details).toMatchObject({ index: 0, field: 'flags' });
        const withMinSize = packed(wordHex({ slot: 4n, flags: 0n, price: 0n, size: 0n, minSize }));
        expect(packedError(() => decodePackedOps(withMinSize)).details).toMatchObject({ index: 0, field: 'minSizeAfterBlock' });
      }),
      RUNS,
    );
  });

  it('an op with only one of price and size', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: UINT32 - 1n }), fc.bigInt({ min: 1n, max: UINT96 }), fc.constantFrom(0n, 1n, 8n, 9n), (price, size, flags) => {
        const priceOnly = packed(wordHex({ slot: 2n, flags, price, size: 0n, minSize: 0n }));
        expect(packedError(() => decodePackedOps(priceOnly)).details).toMatchObject({ index: 0, field: 'size' });
        const sizeOnly = packed(wordHex({ slot: 2n, flags, price: 0n, size, minSize: 0n }));
        expect(packedError(() => decodePackedOps(sizeOnly)).details).toMatchObject({ index: 0, field: 'price' });
        expect(packedError(() => encodePackedOps([placeOp(2, { price: 0n, size })])).details).toMatchObject({ field: 'price' });
        expect(packedError(() => encodePackedOps([placeOp(2, { price, size: 0n })])).details).toMatchObject({ field: 'size' });
      }),
      RUNS,
    );
  });

  it('price, size or minSizeAfterBlock out of range, price 0xFFFFFFFF included', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.bigInt({ min: UINT32, max: 1n << 40n }), fc.bigInt({ min: -(1n << 40n), max: -1n })),
        fc.oneof(fc.bigInt({ min: UINT96 + 1n, max: 1n << 100n }), fc.bigInt({ min: -(1n << 100n), max: -1n })),
        fc.oneof(fc.bigInt({ min: UINT32 + 1n, max: 1n << 40n }), fc.bigInt({ min: -(1n << 40n), max: -1n })),
        (price, size, minSizeAfterBlock) => {
          expect(packedError(() => encodePackedOps([placeOp(0, { price })])).details).toMatchObject({ index: 0, field: 'price' });
          expect(packedError(() => encodePackedOps([placeOp(0, { size })])).details).toMatchObject({ index: 0, field: 'size' });
          expect(packedError(() => encodePackedOps([placeOp(0, { minSizeAfterBlock })])).details).toMatchObject({ index: 0, field: 'minSizeAfterBlock' });
        },
      ),
      RUNS,
    );
    const reservedPrice = packed(wordHex({ slot: 0n, flags: 1n, price: UINT32, size: 1n, minSize: 0n }));
    expect(packedError(() => decodePackedOps(reservedPrice)).details).toMatchObject({ index: 0, field: 'price' });
  });

  it('fields of the wrong type, an unknown kind or side', () => {
    expect(packedError(() => encodePackedOps([placeOp(0, { price: 5 as unknown as bigint })])).details).toMatchObject({ field: 'price' });
    expect(packedError(() => encodePackedOps([placeOp(0, { postOnly: 'yes' as unknown as boolean })])).details).toMatchObject({ field: 'postOnly' });
    expect(packedError(() => encodePackedOps([placeOp(0, { side: 'buy' as unknown as 'BUY' })])).details).toMatchObject({ field: 'side' });
    expect(packedError(() => encodePackedOps([{ slotIdx: 0, kind: 'replace' } as unknown as PackedOp])).details).toMatchObject({ field: 'kind' });
  });

  it('a length that is not a whole number of 32-byte ops', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4000 }).filter((bytes) => bytes % 32 !== 0), (bytes) => {
        expect(packedError(() => decodePackedOps(`0x${'00'.repeat(bytes)}`)).details).toMatchObject({ field: 'length' });
        expect(packedError(() => decodePackedOps(new Uint8Array(bytes))).details).toMatchObject({ field: 'length' });
      }),
      RUNS,
    );
    expect(packedError(() => decodePackedOps(`0x${'00'.repeat(32)}0` as Hex)).details).toMatchObject({ field: 'length' });
    expect(packedError(() => decodePackedOps(`0x${'00'.repeat(31)}zz` as Hex)).details).toMatchObject({ field: 'length' });
    expect(packedError(() => decodePackedOps('00' as Hex)).details).toMatchObject({ field: 'length' });
  });

  it('more than 64 KiB, checked before anything else', () => {
    const cancels = (count: number): PackedOp[] => Array.from({ length: count }, (_, index) => ({ slotIdx: index % 62, kind: 'cancel' }));
    expect(packedError(() => encodePackedOps(cancels(2049))).details).toMatchObject({ field: 'length' });
    expect(packedError(() => decodePackedOps(`0x${'00'.repeat(65_536 + 32)}`)).details).toMatchObject({ field: 'length' });
    expect(packedError(() => decodePackedOps(new Uint8Array(65_536 + 32))).details).toMatchObject({ field: 'length' });
    // exactly 64 KiB passes the length rule, then fails on the repeated slot 0
    expect(packedError(() => decodePackedOps(`0x${'00'.repeat(65_536)}`)).details).toMatchObject({ index: 1, field: 'slotIdx' });
    expect(packedError(() => encodePackedOps(cancels(2048))).details).toMatchObject({ index: 62, field: 'slotIdx' });
  });
});
