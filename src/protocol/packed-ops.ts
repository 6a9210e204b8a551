/**
 * The packed replacement op codec of `wallet.execute_replace_by_slot_packed` (venue).
 *
 * Each op is one 32-byte big-endian word; ops are concatenated, at most 64 KiB in all. Bit numbers
 * count from the least significant bit of the uint256 word (the Solidity reading: bit 0 is the
 * lowest bit, so `slotIdx = word & 0xff` is the LAST byte of the op):
 *
 * | bits    | bytes of the op | field                                             |
 * |---------|-----------------|---------------------------------------------------|
 * | 0-7     | 31              | slotIdx (< 62, unique within one call)            |
 * | 8-15    | 30              | flags: 0x01 BUY, 0x08 post-only; no other bit     |
 * | 16-47   | 26..29          | price (uint32)                                    |
 * | 48-143  | 14..25          | size (uint96)                                     |
 * | 144-175 | 10..13          | minSizeAfterBlock (uint32)                        |
 * | 176-255 | 0..9            | zero                                              |
 *
 * Source of the bit order: the venue's TypeScript SDK (Kuru-Labs/ts-sdk) encodes
 * `slotIdx | flags << 8 | price << 16 | size << 48 | minSizeAfterBlock << 144` as a 32-byte number
 * and validates with `word & 0xff`, `(word >> 8) & 0xff`, …, `word >> 176 == 0`; its pinned
 * cancel of slot 3 is `0x00…0003`.
 *
 * A cancel is an op whose price, size, flags and minSizeAfterBlock are all zero; any other op
 * needs both price and size non-zero. Price 0xFFFFFFFF is reserved by the venue (as for native
 * orders) and refused. An empty list encodes to `0x` (whether an empty call is acceptable is the
 * relay request's rule, not the codec's).
 */
import { BaseError } from '../core/base-error.ts';
import { MAX_PRICE_UNITS, UINT32_MAX, UINT96_MAX } from '../core/units.ts';
import { MAKER_SLOTS, MAX_PACKED_OPS_BYTES, PACKED_OP_BYTES, type OrderSide } from './constants.ts';
import type { Hex } from './encoding.ts';

/** Flag bits of a packed op (venue). */
export const PackedOpFlag = { BUY: 0x01, POST_ONLY: 0x08 } as const;
const VALID_FLAGS = PackedOpFlag.BUY | PackedOpFlag.POST_ONLY;
const MAX_PRICE = Number(MAX_PRICE_UNITS);

/** Empty the maker slot `slotIdx`. */
export interface PackedCancelOp {
  readonly slotIdx: number;
  readonly kind: 'cancel';
}

/** Place (or replace whatever is in) maker slot `slotIdx` with a limit order. */
export interface PackedPlaceOp {
  readonly slotIdx: number;
  readonly kind: 'place';
  readonly side: OrderSide;
  readonly postOnly: boolean;
  /** uint32 price-precision units, 1..0xFFFFFFFE. */
  readonly price: bigint;
  /** uint96 size-precision units, non-zero. */
  readonly size: bigint;
  /** uint32 */
  readonly minSizeAfterBlock: bigint;
}

export type PackedOp = PackedCancelOp | PackedPlaceOp;

function opError(index: number, field: string, problem: string, value?: unknown): BaseError {
  return new BaseError('PROTOCOL_PACKED_OP_INVALID', `packed op ${index}: ${field} ${problem}`, {
    details: { index, field, ...(value === undefined ? {} : { value: String(value).slice(0, 100) }) },
  });
}

function lengthError(problem: string, bytes: number): BaseError {
  return new BaseError('PROTOCOL_PACKED_OP_INVALID', `packedOps: ${problem}`, { details: { field: 'length', bytes } });
}

function checkBigint(index: number, field: string, value: unknown, min: bigint, max: bigint): bigint {
  if (typeof value !== 'bigint') throw opError(index, field, 'must be a bigint', typeof value);
  if (value < min || value > max) throw opError(index, field, `${value} is outside ${min}..${max}`, value);
  return value;
}

/**
 * Typed ops -> the packed bytes, written into one Uint8Array.
 *
 * @example encodePackedOpsToBytes([{ slotIdx: 3, kind: 'cancel' }])
 */
export function encodePackedOpsToBytes(ops: readonly PackedOp[]): Uint8Array {
  const byteLength = ops.length * PACKED_OP_BYTES;
  if (byteLength > MAX_PACKED_OPS_BYTES) {
    throw lengthError(`${ops.length} ops are ${byteLength} bytes, more than ${MAX_PACKED_OPS_BYTES}`, byteLength);
  }
  const bytes = new Uint8Array(byteLength);
  const view = new DataView(bytes.buffer);
  // Slots seen so far, as a 62-bit set in two 32-bit halves: no allocation per op.
  let seenLow = 0;
  let seenHigh = 0;
  for (let index = 0; index < ops.length; index++) {
    const op = ops[index]!;
    const at = index * PACKED_OP_BYTES;
    const slot = op.slotIdx;
    if (!Number.isInteger(slot) || slot < 0 || slot >= MAKER_SLOTS) {
      throw opError(index, 'slotIdx', `must be an integer below ${MAKER_SLOTS}`, slot);
    }
    const bit = 1 << (slot & 31);
    if ((slot < 32 ? seenLow : seenHigh) & bit) throw opError(index, 'slotIdx', `${slot} repeats an earlier op's slot`, slot);
    if (slot < 32) seenLow |= bit;
    else seenHigh |= bit;
    bytes[at + 31] = slot;
    if (op.kind === 'cancel') continue;
    if (op.kind !== 'place') throw opError(index, 'kind', "must be 'cancel' or 'place'", (op as { kind: unknown }).kind);

    let flags: number;
    if (op.side === 'BUY') flags = PackedOpFlag.BUY;
    else if (op.side === 'SELL') flags = 0;
    else throw opError(index, 'side', "must be 'BUY' or 'SELL'", op.side);
    if (op.postOnly === true) flags |= PackedOpFlag.POST_ONLY;
    else if (op.postOnly !== false) throw opError(index, 'postOnly', 'must be a boolean', op.postOnly);

    const price = checkBigint(index, 'price', op.price, 1n, MAX_PRICE_UNITS);
    const size = checkBigint(index, 'size', op.size, 1n, UINT96_MAX);
    const minSizeAfterBlock = checkBigint(index, 'minSizeAfterBlock', op.minSizeAfterBlock, 0n, UINT32_MAX);

    bytes[at + 30] = flags;
    view.setUint32(at + 26, Number(price));
    view.setUint32(at + 14, Number(size >> 64n));
    view.setUint32(at + 18, Number((size >> 32n) & 0xffffffffn));
    view.setUint32(at + 22, Number(size & 0xffffffffn));
    view.setUint32(at + 10, Number(minSizeAfterBlock));
  }
  return bytes;
}

/**
 * Typed ops -> `0x` lowercase hex of the packed bytes (the relay's `packedOps`).
 *
 * @example encodePackedOps([{ slotIdx: 3, kind: 'cancel' }]) // '0x000…0003'
 */
export function encodePackedOps(ops: readonly PackedOp[]): Hex {
  const bytes = encodePackedOpsToBytes(ops);
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
}

const hexDigits = /^[0-9a-fA-F]*$/;

function hexToPackedBytes(packed: string): Uint8Array {
  if (typeof packed !== 'string' || !packed.startsWith('0x')) {
    throw lengthError('is not a 0x hex string', -1);
  }
  const digits = packed.length - 2;
  if (digits % 2 !== 0) throw lengthError('has an odd number of hex digits', digits / 2);
  const byteLength = digits / 2;
  if (byteLength > MAX_PACKED_OPS_BYTES) throw lengthError(`${byteLength} bytes, more than ${MAX_PACKED_OPS_BYTES}`, byteLength);
  if (byteLength % PACKED_OP_BYTES !== 0) throw lengthError(`${byteLength} bytes is not a multiple of ${PACKED_OP_BYTES}`, byteLength);
  if (!hexDigits.test(packed.slice(2))) throw lengthError('holds a character that is not a hex digit', byteLength);
  return Buffer.from(packed.slice(2), 'hex');
}

/**
 * The packed bytes (hex or a byte array) -> typed ops. Every broken rule throws
 * PROTOCOL_PACKED_OP_INVALID naming the op index and the field.
 *
 * @example decodePackedOps('0x000…0003') // [{ slotIdx: 3, kind: 'cancel' }]
 */
export function decodePackedOps(packed: Hex | Uint8Array): PackedOp[] {
  const bytes = typeof packed === 'string' ? hexToPackedBytes(packed) : packed;
  if (bytes.length > MAX_PACKED_OPS_BYTES) throw lengthError(`${bytes.length} bytes, more than ${MAX_PACKED_OPS_BYTES}`, bytes.length);
  if (bytes.length % PACKED_OP_BYTES !== 0) {
    throw lengthError(`${bytes.length} bytes is not a multiple of ${PACKED_OP_BYTES}`, bytes.length);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = bytes.length / PACKED_OP_BYTES;
  const ops: PackedOp[] = new Array<PackedOp>(count);
  let seenLow = 0;
  let seenHigh = 0;
  for (let index = 0; index < count; index++) {
    const at = index * PACKED_OP_BYTES;
    for (let k = 0; k < 10; k++) {
      if (bytes[at + k] !== 0) throw opError(index, 'reserved bits 176-255', 'must be zero', `byte ${k}`);
    }
    const slot = bytes[at + 31]!;
    const flags = bytes[at + 30]!;
    if (slot >= MAKER_SLOTS) throw opError(index, 'slotIdx', `must be below ${MAKER_SLOTS}`, slot);
    const bit = 1 << (slot & 31);
    if ((slot < 32 ? seenLow : seenHigh) & bit) throw opError(index, 'slotIdx', `${slot} repeats an earlier op's slot`, slot);
    if (slot < 32) seenLow |= bit;
    else seenHigh |= bit;
    if ((flags & ~VALID_FLAGS) !== 0) throw opError(index, 'flags', 'has a bit other than 0x01 (BUY) and 0x08 (post-only)', flags);

    const price = view.getUint32(at + 26);
    const sizeHigh = view.getUint32(at + 14);
    const sizeMiddle = view.getUint32(at + 18);
    const sizeLow = view.getUint32(at + 22);
    const minSizeAfterBlock = view.getUint32(at + 10);
    const sizeIsZero = sizeHigh === 0 && sizeMiddle === 0 && sizeLow === 0;

    if (price === 0 && sizeIsZero) {
      if (flags !== 0) throw opError(index, 'flags', 'must be zero in a cancel (price and size are zero)', flags);
      if (minSizeAfterBlock !== 0) {
        throw opError(index, 'minSizeAfterBlock', 'must be zero in a cancel (price and size are zero)', minSizeAfterBlock);
      }
      ops[index] = { slotIdx: slot, kind: 'cancel' };
      continue;
    }
    if (price === 0) throw opError(index, 'price', 'is zero but size is not: an op that is not a cancel needs both', 0);
    if (sizeIsZero) throw opError(index, 'size', 'is zero but price is not: an op that is not a cancel needs both', 0);
    if (price > MAX_PRICE) throw opError(index, 'price', 'is 0xFFFFFFFF, reserved by the venue', price);

    ops[index] = {
      slotIdx: slot,
      kind: 'place',
      side: (flags & PackedOpFlag.BUY) !== 0 ? 'BUY' : 'SELL',
      postOnly: (flags & PackedOpFlag.POST_ONLY) !== 0,
      price: BigInt(price),
      size: (BigInt(sizeHigh) << 64n) | (BigInt(sizeMiddle) << 32n) | BigInt(sizeLow),
      minSizeAfterBlock: BigInt(minSizeAfterBlock),
    };
  }
  return ops;
}
