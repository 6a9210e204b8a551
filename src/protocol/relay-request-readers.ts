/**
 * Fast readers (fast-reader.ts) of what the venue's relay reads for every signed intent: the
 * WebSocket message envelope and the payloads of `executeBatch` and `executeReplaceBySlotPacked`.
 * They mirror `wsMessageSchema` (relay-request.ts) and the payload schemas (relay-payloads.ts)
 * field for field and refinement for refinement; test/protocol/relay-request-readers.prop.test.ts
 * holds them to the schemas. Anything rarer (other methods, an EIP-7702 authorization) is zod's.
 */
import { MAKER_SLOTS, MAX_ARRAY_ITEMS, MAX_PACKED_OPS_BYTES, PACKED_OP_BYTES } from './constants.ts';
import { isCanonicalUint, isHexBytes, uintMax, type Address, type Hex } from './encoding.ts';
import { arrayOf, NO_MATCH, oneOf, stringWhere, strictObject, where, type FastReader } from './fast-reader.ts';
import type { BatchPayload, ReplacePayload } from './relay-payloads.ts';
import type { IntentHeader, OrderIntent } from './intent-types.ts';

const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;
const UINT32_MAX = uintMax(32);

/** `uintString(bits)`. */
function uint(bits: number): FastReader<bigint> {
  return (value) => (typeof value === 'string' && isCanonicalUint(value, bits) ? BigInt(value) : NO_MATCH);
}

const nonZero = (bits: number) => where(uint(bits), (n) => n !== 0n);
const hexBytes = (bytes: number) => stringWhere((text) => isHexBytes(text, bytes)) as FastReader<Hex>;
const address = hexBytes(20) as FastReader<Address>;
const signature = hexBytes(65);

const header = where(
  strictObject<IntentHeader>({
    accountId: uint(40),
    market: address,
    authNonce: uint(256),
    nonce: nonZero(64),
    deadline: uint(64),
    clientOrderId: hexBytes(32),
    builder: address,
    builderFeePps: uint(32),
  }),
  (h) => (h.builder === ZERO_ADDRESS) === (h.builderFeePps === 0n),
);

const order = where(
  strictObject<OrderIntent>({
    side: oneOf(['BUY', 'SELL']),
    quantity: nonZero(96),
    price: where(uint(32), (n) => n !== 0n && n !== UINT32_MAX),
    tif: oneOf(['GTC', 'IOC', 'FOK']),
    executionInstruction: oneOf(['NONE', 'POST_ONLY']),
    minSizeAfterBlock: uint(32),
  }),
  (o) => (o.executionInstruction !== 'POST_ONLY' || o.tif === 'GTC') && (o.tif === 'GTC' || o.minSizeAfterBlock === 0n),
);

const slotIndex: FastReader<number> = (value) => (typeof value === 'string' && isCanonicalUint(value, 8) && Number(value) < MAKER_SLOTS ? Number(value) : NO_MATCH);

/** `batchPayloadSchema`'s output, or NO_MATCH. */
export const readBatchPayload = where(
  strictObject<BatchPayload>({
    header,
    orders: arrayOf(order, MAX_ARRAY_ITEMS),
    cancelSlotIdxs: where(arrayOf(slotIndex, MAX_ARRAY_ITEMS), (slots) => new Set(slots).size === slots.length),
    expectedOrderIds: arrayOf(uint(64), MAX_ARRAY_ITEMS),
    signature,
  }),
  (p) => p.orders.length + p.cancelSlotIdxs.length > 0 && p.expectedOrderIds.length === p.cancelSlotIdxs.length,
);

const PACKED_HEX = /^0x[0-9a-f]*$/;
const packedOps = stringWhere(
  (text) =>
    text.length % 2 === 0 && PACKED_HEX.test(text) && text.length <= 2 + MAX_PACKED_OPS_BYTES * 2 && text.length > 2 && ((text.length - 2) / 2) % PACKED_OP_BYTES === 0,
) as FastReader<Hex>;

/** `replacePayloadSchema`'s output, or NO_MATCH. */
export const readReplacePayload = where(
  strictObject<ReplacePayload>({
    header,
    packedOps,
    expectedOrderIds: arrayOf(uint(64), MAX_PACKED_OPS_BYTES / PACKED_OP_BYTES),
    signature,
  }),
  (p) => p.expectedOrderIds.length === (p.packedOps.length - 2) / 2 / PACKED_OP_BYTES,
);

/** Longest WebSocket message `id` (and request id read back into an error), characters (ours, docs/protocol.md). */
export const MAX_MESSAGE_ID_LENGTH = 64;
const WS_MESSAGE_KEYS = new Set(['id', 'method', 'payload', 'authorization7702']);

/** The output of `wsMessageSchema` without an authorization, or NO_MATCH. */
export interface WsMessage {
  readonly id: string;
  readonly method: string;
  readonly payload: unknown;
  readonly authorization7702?: null;
}

/** `wsMessageSchema`'s output for a message without an EIP-7702 authorization (absent or null), or NO_MATCH. */
export const readWsMessage: FastReader<WsMessage> = (value) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return NO_MATCH;
  for (const key in value) if (!WS_MESSAGE_KEYS.has(key)) return NO_MATCH;
  const { id, method, payload, authorization7702 } = value as Record<string, unknown>;
  if (typeof id !== 'string' || id.length < 1 || id.length > MAX_MESSAGE_ID_LENGTH || typeof method !== 'string' || !('payload' in value)) return NO_MATCH;
  if (authorization7702 === undefined) return 'authorization7702' in value ? NO_MATCH : { id, method, payload };
  return authorization7702 === null ? { id, method, payload, authorization7702 } : NO_MATCH;
};
