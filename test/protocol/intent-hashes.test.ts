/**
 * Known answers for the intent array hashes, checked against ABI encodings assembled by hand from
 * 32-byte words (concat/pad/numberToHex), not through encodeAbiParameters.
 */
import { concat, keccak256, numberToHex, pad } from 'viem';
import { describe, expect, it } from 'vitest';
import { isBaseError } from '../../src/core/base-error.ts';
import type { Hex } from '../../src/protocol/encoding.ts';
import { hashCancelSlotIdxs, hashExpectedOrderIds, hashOrders, hashPackedOps } from '../../src/protocol/intent-hashes.ts';
import type { OrderIntent } from '../../src/protocol/intent-types.ts';

const word = (value: bigint | number): Hex => pad(numberToHex(value), { size: 32 });
/** abi.encode(T[] array) of static items: offset 0x20, length, then the items' words. */
const encodeArray = (items: readonly Hex[][]): Hex => concat([word(0x20), word(items.length), ...items.flat()]);

function errorOf(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

const orders: OrderIntent[] = [
  { side: 'BUY', quantity: 5_000_000n, price: 1_234_567n, tif: 'GTC', executionInstruction: 'POST_ONLY', minSizeAfterBlock: 77n },
  { side: 'SELL', quantity: (1n << 96n) - 1n, price: 0xfffffffen, tif: 'FOK', executionInstruction: 'NONE', minSizeAfterBlock: 0n },
  { side: 'SELL', quantity: 1n, price: 1n, tif: 'IOC', executionInstruction: 'NONE', minSizeAfterBlock: 0n },
];

describe('ordersHash', () => {
  it('is keccak256 of abi.encode of the order tuples with the venue enum codes', () => {
    const expected = keccak256(
      encodeArray([
        [word(0), word(5_000_000n), word(1_234_567), word(0), word(1), word(77)],
        [word(1), word((1n << 96n) - 1n), word(0xfffffffe), word(2), word(0), word(0)],
        [word(1), word(1), word(1), word(1), word(0), word(0)],
      ]),
    );
    expect(hashOrders(orders)).toBe(expected);
  });

  it('changes with the order of the orders', () => {
    expect(hashOrders([orders[1]!, orders[0]!])).not.toBe(hashOrders([orders[0]!, orders[1]!]));
  });

  it('of no orders is keccak256(0x20 ‖ 0)', () => {
    expect(hashOrders([])).toBe(keccak256(concat([word(0x20), word(0)])));
  });

  it('refuses values that do not fit their ABI types', () => {
    const base = orders[0]!;
    expect(isBaseError(errorOf(() => hashOrders([{ ...base, quantity: 1n << 96n }])), 'UNITS_OUT_OF_RANGE')).toBe(true);
    expect(isBaseError(errorOf(() => hashOrders([{ ...base, price: 1n << 32n }])), 'UNITS_OUT_OF_RANGE')).toBe(true);
    expect(isBaseError(errorOf(() => hashOrders([{ ...base, minSizeAfterBlock: -1n }])), 'UNITS_OUT_OF_RANGE')).toBe(true);
    const badSide = { ...base, side: 'buy' } as unknown as OrderIntent;
    expect(isBaseError(errorOf(() => hashOrders([badSide])), 'PROTOCOL_SCHEMA_MISMATCH')).toBe(true);
    const badTif = { ...base, tif: 'toString' } as unknown as OrderIntent;
    expect(isBaseError(errorOf(() => hashOrders([badTif])), 'PROTOCOL_SCHEMA_MISMATCH')).toBe(true);
  });
});

describe('cancelSlotIdxsHash', () => {
  it('is keccak256(abi.encode(uint8[])), offset word included', () => {
    expect(hashCancelSlotIdxs([3, 5, 61])).toBe(keccak256(encodeArray([[word(3)], [word(5)], [word(61)]])));
    expect(hashCancelSlotIdxs([])).toBe(keccak256(concat([word(0x20), word(0)])));
  });

  it('differs from the hash of the bare array without the offset word', () => {
    expect(hashCancelSlotIdxs([3])).not.toBe(keccak256(concat([word(1), word(3)])));
  });

  it('refuses slots that do not fit uint8', () => {
    expect(isBaseError(errorOf(() => hashCancelSlotIdxs([256])), 'UNITS_OUT_OF_RANGE')).toBe(true);
    expect(isBaseError(errorOf(() => hashCancelSlotIdxs([-1])), 'UNITS_OUT_OF_RANGE')).toBe(true);
    expect(isBaseError(errorOf(() => hashCancelSlotIdxs([1.5])), 'UNITS_OUT_OF_RANGE')).toBe(true);
  });
});

describe('expectedOrderIdsHash', () => {
  it('is keccak256(abi.encode(uint64[])), uint64 max included', () => {
    const max = (1n << 64n) - 1n;
    expect(hashExpectedOrderIds([31n, max, 0n])).toBe(keccak256(encodeArray([[word(31n)], [word(max)], [word(0n)]])));
  });

  it('refuses ids that do not fit uint64', () => {
    expect(isBaseError(errorOf(() => hashExpectedOrderIds([1n << 64n])), 'UNITS_OUT_OF_RANGE')).toBe(true);
  });
});

describe('packedOpsHash', () => {
  it('is keccak256 of the raw bytes, whatever their case', () => {
    const packed: Hex = `0x${'00'.repeat(31)}03${'ab'.repeat(32)}`;
    expect(hashPackedOps(packed)).toBe(keccak256(packed));
    expect(hashPackedOps(packed.toUpperCase().replace('0X', '0x') as Hex)).toBe(keccak256(packed));
  });

  it('refuses odd hex, non-hex and more than 64 KiB', () => {
    expect(isBaseError(errorOf(() => hashPackedOps('0x123')), 'PROTOCOL_PACKED_OP_INVALID')).toBe(true);
    expect(isBaseError(errorOf(() => hashPackedOps('0xzz')), 'PROTOCOL_PACKED_OP_INVALID')).toBe(true);
    expect(isBaseError(errorOf(() => hashPackedOps(`0x${'00'.repeat(65_537)}`)), 'PROTOCOL_PACKED_OP_INVALID')).toBe(true);
    expect(hashPackedOps(`0x${'00'.repeat(65_536)}`)).toMatch(/^0x[0-9a-f]{64}$/);
  });
});
