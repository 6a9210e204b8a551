/**
 * The array hashes that the signed intents carry in place of their arrays (venue):
 *
 * - `ordersHash`           = keccak256(abi.encode((uint8,uint96,uint32,uint8,uint8,uint32)[] orders))
 * - `cancelSlotIdxsHash`   = keccak256(abi.encode(uint8[] cancelSlotIdxs))
 * - `expectedOrderIdsHash` = keccak256(abi.encode(uint64[] expectedOrderIds))
 * - `packedOpsHash`        = keccak256(packedOps), the raw bytes, no ABI encoding.
 *
 * `abi.encode(array)` of one dynamic array is the full ABI encoding of a one-element parameter
 * list, so it starts with the head word 0x20 (the offset of the array), then the length word, then
 * the items (each static tuple inline, 6 words). That is exactly what viem's
 * `encodeAbiParameters([{ type: 'uint8[]' }], [arr])` produces; it is NOT the bare array
 * (length ‖ items) and NOT `abi.encodePacked`. An empty array hashes keccak256(0x20 ‖ 0).
 *
 * These functions check that each value fits its ABI type (UNITS_OUT_OF_RANGE otherwise); the
 * semantic rules (non-zero quantity, unique slots, …) belong to the relay schemas.
 */
import { bytesToHex } from 'viem';
import { BaseError } from '../core/base-error.ts';
import { UINT32_MAX, UINT64_MAX, UINT96_MAX, assertInRange } from '../core/units.ts';
import { ExecutionInstructionCode, MAX_PACKED_OPS_BYTES, OrderSideCode, TimeInForceCode } from './constants.ts';
import { writeUintWord } from './eip712-hasher.ts';
import type { Hex } from './encoding.ts';
import type { OrderIntent } from './intent-types.ts';
import { keccak256Bytes } from './keccak256.ts';

function enumCode<T extends Record<string, number>>(codes: T, value: string, field: string, index: number): number {
  const code = Object.hasOwn(codes, value) ? codes[value] : undefined;
  if (code === undefined) {
    throw new BaseError('PROTOCOL_SCHEMA_MISMATCH', `orders[${index}].${field} is not one of ${Object.keys(codes).join(', ')}`, {
      details: { index, field, value: String(value).slice(0, 40) },
    });
  }
  return code;
}

/** `abi.encode` of one dynamic array of static items: the 0x20 offset word, the length, the items. */
function encodedArray(length: number, wordsPerItem: number): Uint8Array {
  const out = new Uint8Array(64 + length * wordsPerItem * 32);
  out[31] = 0x20;
  writeUintWord(out, 32, length);
  return out;
}

/** The hash of an empty array (`abi.encode` of any `T[]` with no item): most intents carry one or two. */
const EMPTY_ARRAY_HASH = keccak256Bytes(encodedArray(0, 1));

/** `ordersHash` as raw bytes (the signing hot path); see `hashOrders`. */
export function hashOrdersBytes(orders: readonly OrderIntent[]): Uint8Array {
  const out = encodedArray(orders.length, 6);
  for (let index = 0; index < orders.length; index++) {
    const order = orders[index]!;
    const base = 64 + index * 192;
    writeUintWord(out, base, enumCode(OrderSideCode, order.side, 'side', index));
    writeUintWord(out, base + 32, assertInRange(order.quantity, UINT96_MAX, `orders[${index}].quantity`));
    writeUintWord(out, base + 64, assertInRange(order.price, UINT32_MAX, `orders[${index}].price`));
    writeUintWord(out, base + 96, enumCode(TimeInForceCode, order.tif, 'tif', index));
    writeUintWord(out, base + 128, enumCode(ExecutionInstructionCode, order.executionInstruction, 'executionInstruction', index));
    writeUintWord(out, base + 160, assertInRange(order.minSizeAfterBlock, UINT32_MAX, `orders[${index}].minSizeAfterBlock`));
  }
  return keccak256Bytes(out);
}

/**
 * `ordersHash` of a batch: side BUY=0 SELL=1, tif GTC=0 IOC=1 FOK=2, instruction NONE=0 POST_ONLY=1.
 *
 * @example hashOrders([{ side: 'BUY', quantity: 1_000_000n, price: 123_400n, tif: 'GTC', executionInstruction: 'NONE', minSizeAfterBlock: 0n }])
 */
export function hashOrders(orders: readonly OrderIntent[]): Hex {
  return bytesToHex(hashOrdersBytes(orders));
}

/** `cancelSlotIdxsHash` as raw bytes; see `hashCancelSlotIdxs`. */
export function hashCancelSlotIdxsBytes(slotIdxs: readonly number[]): Uint8Array {
  if (slotIdxs.length === 0) return EMPTY_ARRAY_HASH.slice();
  const out = encodedArray(slotIdxs.length, 1);
  for (let index = 0; index < slotIdxs.length; index++) {
    const slot = slotIdxs[index]!;
    if (!Number.isInteger(slot) || slot < 0 || slot > 0xff) {
      throw new BaseError('UNITS_OUT_OF_RANGE', `cancelSlotIdxs[${index}] ${slot} does not fit uint8`, {
        details: { index, value: String(slot) },
      });
    }
    out[64 + index * 32 + 31] = slot;
  }
  return keccak256Bytes(out);
}

/**
 * `cancelSlotIdxsHash`: keccak256(abi.encode(uint8[])).
 *
 * @example hashCancelSlotIdxs([3, 5])
 */
export function hashCancelSlotIdxs(slotIdxs: readonly number[]): Hex {
  return bytesToHex(hashCancelSlotIdxsBytes(slotIdxs));
}

/** `expectedOrderIdsHash` as raw bytes; see `hashExpectedOrderIds`. */
export function hashExpectedOrderIdsBytes(orderIds: readonly bigint[]): Uint8Array {
  if (orderIds.length === 0) return EMPTY_ARRAY_HASH.slice();
  const out = encodedArray(orderIds.length, 1);
  for (let index = 0; index < orderIds.length; index++) {
    writeUintWord(out, 64 + index * 32, assertInRange(orderIds[index]!, UINT64_MAX, `expectedOrderIds[${index}]`));
  }
  return keccak256Bytes(out);
}

/**
 * `expectedOrderIdsHash`: keccak256(abi.encode(uint64[])). uint64 max means "the slot must be empty".
 *
 * @example hashExpectedOrderIds([31n, 2n ** 64n - 1n])
 */
export function hashExpectedOrderIds(orderIds: readonly bigint[]): Hex {
  return bytesToHex(hashExpectedOrderIdsBytes(orderIds));
}

const hexBytesPattern = /^0x(?:[0-9a-fA-F]{2})*$/;

/** `packedOpsHash` as raw bytes (the signing hot path); see `hashPackedOps`. */
export function hashPackedOpsBytes(packedOps: Hex): Uint8Array {
  if (!hexBytesPattern.test(packedOps)) {
    throw new BaseError('PROTOCOL_PACKED_OP_INVALID', 'packedOps is not 0x and whole bytes of hex');
  }
  if ((packedOps.length - 2) / 2 > MAX_PACKED_OPS_BYTES) {
    throw new BaseError('PROTOCOL_PACKED_OP_INVALID', `packedOps exceeds ${MAX_PACKED_OPS_BYTES} bytes`, {
      details: { bytes: (packedOps.length - 2) / 2 },
    });
  }
  return keccak256Bytes(Buffer.from(packedOps.slice(2), 'hex'));
}

/**
 * `packedOpsHash`: keccak256 of the raw packed bytes. Checks only that `packedOps` is whole bytes
 * of hex within 64 KiB; the op rules are `decodePackedOps`'s.
 *
 * @example hashPackedOps('0x0000000000000000000000000000000000000000000000000000000000000003')
 */
export function hashPackedOps(packedOps: Hex): Hex {
  return bytesToHex(hashPackedOpsBytes(packedOps));
}
