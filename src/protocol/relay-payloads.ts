/**
 * Payload schemas of the relay methods (venue): strict zod schemas that turn wire JSON into the
 * typed intents of intent-types.ts, and encoders that turn typed intents back into wire JSON.
 * Every integer is a canonical decimal string; addresses and bytes are exact-width lowercase hex.
 */
import { z } from 'zod';
import {
  MAKER_SLOTS,
  MAX_ARRAY_ITEMS,
  MAX_PACKED_OPS_BYTES,
  PACKED_OP_BYTES,
  PERMISSION_MASK,
} from './constants.ts';
import {
  bytes32,
  encodeUint,
  hexBytes,
  hexData,
  lowercaseAddress,
  signature65,
  uintMax,
  uintString,
  uintText,
  type Hex,
} from './encoding.ts';
import type {
  AuthorizeAccountSignerIntent,
  Authorization7702,
  BatchIntent,
  CancelTriggerIntent,
  IntentHeader,
  OrderIntent,
  ReplaceBySlotIntent,
} from './intent-types.ts';

const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;
const ZERO_BYTES32 = `0x${'0'.repeat(64)}`;
const UINT64_MAX = uintMax(64);
const UINT32_MAX = uintMax(32);

/** The signature that goes with every signed payload. */
export interface Signed {
  readonly signature: Hex;
}

const nonZero = (what: string) => ({ message: `${what} must be non-zero` });

export const intentHeaderSchema = z
  .strictObject({
    accountId: uintString(40),
    market: lowercaseAddress,
    authNonce: uintString(256),
    nonce: uintString(64).refine((n) => n !== 0n, nonZero('nonce')),
    deadline: uintString(64),
    clientOrderId: bytes32,
    builder: lowercaseAddress,
    builderFeePps: uintString(32),
  })
  .refine((h) => (h.builder === ZERO_ADDRESS) === (h.builderFeePps === 0n), {
    message: 'builder and builderFeePps must be both zero or both set',
    path: ['builderFeePps'],
  }) satisfies z.ZodType<IntentHeader>;

export const orderIntentSchema = z
  .strictObject({
    side: z.enum(['BUY', 'SELL']),
    quantity: uintString(96).refine((n) => n !== 0n, nonZero('quantity')),
    price: uintString(32).refine((n) => n !== 0n && n !== UINT32_MAX, {
      message: 'price must be non-zero and not 0xFFFFFFFF',
    }),
    tif: z.enum(['GTC', 'IOC', 'FOK']),
    executionInstruction: z.enum(['NONE', 'POST_ONLY']),
    minSizeAfterBlock: uintString(32),
  })
  .refine((o) => o.executionInstruction !== 'POST_ONLY' || o.tif === 'GTC', {
    message: 'POST_ONLY needs tif GTC',
    path: ['executionInstruction'],
  })
  .refine((o) => o.tif === 'GTC' || o.minSizeAfterBlock === 0n, {
    message: 'IOC and FOK need minSizeAfterBlock 0',
    path: ['minSizeAfterBlock'],
  }) satisfies z.ZodType<OrderIntent>;

const slotIndex = uintText(8)
  .refine((text) => Number(text) < MAKER_SLOTS, { message: `slot index must be below ${MAKER_SLOTS}` })
  .transform(Number);

function uniqueSlots(slots: readonly number[]): boolean {
  return new Set(slots).size === slots.length;
}

const expectedOrderIds = z.array(uintString(64)).max(MAX_ARRAY_ITEMS);

export const batchPayloadSchema = z
  .strictObject({
    header: intentHeaderSchema,
    orders: z.array(orderIntentSchema).max(MAX_ARRAY_ITEMS),
    cancelSlotIdxs: z.array(slotIndex).max(MAX_ARRAY_ITEMS).refine(uniqueSlots, { message: 'cancel slots must be unique' }),
    expectedOrderIds,
    signature: signature65,
  })
  .refine((p) => p.orders.length + p.cancelSlotIdxs.length > 0, { message: 'a batch needs at least one order or cancel' })
  .refine((p) => p.expectedOrderIds.length === p.cancelSlotIdxs.length, {
    message: 'expectedOrderIds needs exactly one id per cancel slot',
    path: ['expectedOrderIds'],
  }) satisfies z.ZodType<BatchIntent & Signed>;

export const replacePayloadSchema = z
  .strictObject({
    header: intentHeaderSchema,
    packedOps: hexData(MAX_PACKED_OPS_BYTES).refine((hex) => hex.length > 2 && ((hex.length - 2) / 2) % PACKED_OP_BYTES === 0, {
      message: `packedOps must be a non-empty whole number of ${PACKED_OP_BYTES}-byte ops`,
    }),
    expectedOrderIds: z.array(uintString(64)).max(MAX_PACKED_OPS_BYTES / PACKED_OP_BYTES),
    signature: signature65,
  })
  .refine((p) => p.expectedOrderIds.length === (p.packedOps.length - 2) / 2 / PACKED_OP_BYTES, {
    message: 'expectedOrderIds needs exactly one id per packed op',
    path: ['expectedOrderIds'],
  }) satisfies z.ZodType<ReplaceBySlotIntent & Signed>;

export const cancelTriggerPayloadSchema = z.strictObject({
  accountId: uintString(40),
  authNonce: uintString(256),
  nonce: uintString(64).refine((n) => n !== 0n, nonZero('nonce')),
  deadline: uintString(64),
  triggerId: bytes32.refine((hex) => hex !== ZERO_BYTES32, nonZero('triggerId')),
  signature: signature65,
}) satisfies z.ZodType<CancelTriggerIntent & Signed>;

export const authorizeSignerPayloadSchema = z.strictObject({
  account: lowercaseAddress,
  authorizer: lowercaseAddress,
  signer: lowercaseAddress,
  permissions: uintString(32).refine((p) => p !== 0n && (p & ~BigInt(PERMISSION_MASK)) === 0n, {
    message: 'permissions must be a non-empty set of TRADE=1, INTERNAL_TRANSFER=4, WITHDRAW=8, ADMIN=16',
  }),
  expiry: uintString(64),
  nonce: uintString(256),
  deadline: uintString(256),
  signature: signature65,
}) satisfies z.ZodType<AuthorizeAccountSignerIntent & Signed>;

export const authorization7702Schema = z.strictObject({
  authority: lowercaseAddress,
  chainId: uintString(256),
  delegate: lowercaseAddress,
  nonce: uintString(64),
  yParity: z.enum(['0', '1']).transform(Number),
  r: hexBytes(32),
  s: hexBytes(32),
}) satisfies z.ZodType<Authorization7702>;

export type BatchPayload = z.output<typeof batchPayloadSchema>;
export type ReplacePayload = z.output<typeof replacePayloadSchema>;
export type CancelTriggerPayload = z.output<typeof cancelTriggerPayloadSchema>;
export type AuthorizeSignerPayload = z.output<typeof authorizeSignerPayloadSchema>;

// ---- encoders: typed intent -> wire JSON ----

type Wire<T> = { [K in keyof T]: T[K] extends bigint ? string : T[K] extends readonly bigint[] ? string[] : T[K] extends number ? string : T[K] extends readonly number[] ? string[] : T[K] extends object ? Wire<T[K]> : T[K] };

export function encodeIntentHeader(header: IntentHeader): Wire<IntentHeader> {
  return {
    accountId: encodeUint(header.accountId, 40),
    market: header.market,
    authNonce: encodeUint(header.authNonce, 256),
    nonce: encodeUint(header.nonce, 64),
    deadline: encodeUint(header.deadline, 64),
    clientOrderId: header.clientOrderId,
    builder: header.builder,
    builderFeePps: encodeUint(header.builderFeePps, 32),
  };
}

export function encodeOrderIntent(order: OrderIntent): Wire<OrderIntent> {
  return {
    side: order.side,
    quantity: encodeUint(order.quantity, 96),
    price: encodeUint(order.price, 32),
    tif: order.tif,
    executionInstruction: order.executionInstruction,
    minSizeAfterBlock: encodeUint(order.minSizeAfterBlock, 32),
  };
}

const encodeIds = (ids: readonly bigint[]): string[] => ids.map((id) => encodeUint(id, 64));

export function encodeBatchPayload(intent: BatchIntent, signature: Hex): Wire<BatchIntent & Signed> {
  return {
    header: encodeIntentHeader(intent.header),
    orders: intent.orders.map(encodeOrderIntent),
    cancelSlotIdxs: intent.cancelSlotIdxs.map((slot) => encodeUint(BigInt(slot), 8)),
    expectedOrderIds: encodeIds(intent.expectedOrderIds),
    signature,
  };
}

export function encodeReplacePayload(intent: ReplaceBySlotIntent, signature: Hex): Wire<ReplaceBySlotIntent & Signed> {
  return {
    header: encodeIntentHeader(intent.header),
    packedOps: intent.packedOps,
    expectedOrderIds: encodeIds(intent.expectedOrderIds),
    signature,
  };
}

export function encodeCancelTriggerPayload(intent: CancelTriggerIntent, signature: Hex): Wire<CancelTriggerIntent & Signed> {
  return {
    accountId: encodeUint(intent.accountId, 40),
    authNonce: encodeUint(intent.authNonce, 256),
    nonce: encodeUint(intent.nonce, 64),
    deadline: encodeUint(intent.deadline, 64),
    triggerId: intent.triggerId,
    signature,
  };
}

export function encodeAuthorizeSignerPayload(
  intent: AuthorizeAccountSignerIntent,
  signature: Hex,
): Wire<AuthorizeAccountSignerIntent & Signed> {
  return {
    account: intent.account,
    authorizer: intent.authorizer,
    signer: intent.signer,
    permissions: encodeUint(intent.permissions, 32),
    expiry: encodeUint(intent.expiry, 64),
    nonce: encodeUint(intent.nonce, 256),
    deadline: encodeUint(intent.deadline, 256),
    signature,
  };
}

export function encodeAuthorization7702(auth: Authorization7702): Wire<Authorization7702> {
  return {
    authority: auth.authority,
    chainId: encodeUint(auth.chainId, 256),
    delegate: auth.delegate,
    nonce: encodeUint(auth.nonce, 64),
    yParity: encodeUint(BigInt(auth.yParity), 8),
    r: auth.r,
    s: auth.s,
  };
}

/** uint64 max as an expected order id: the slot must be empty. */
export const EXPECT_EMPTY_SLOT = UINT64_MAX;
