/**
 * What the relay answers: immediate responses (BROADCAST, REJECTED, UNKNOWN) on REST and, with a
 * `type` discriminator, on the WebSocket, plus terminal outcomes and unreadable-frame errors.
 * Client-side these parse leniently (extra fields ignored) so a newer relay does not break us.
 */
import { z } from 'zod';
import { OUTCOME_STATUSES, RelayErrorCode, type RelayErrorCodeName } from './constants.ts';
import { anyCaseAddress, hexBytes, uintText } from './encoding.ts';

const txHash = hexBytes(32);
const relayErrorCode = z.string().min(1) as z.ZodType<RelayErrorCodeName | (string & {})>;

/** `BROADCAST`: an RPC accepted the transaction. Not a terminal outcome. */
export const broadcastResponseFields = {
  status: z.literal('BROADCAST'),
  txHash,
  sponsorAddress: anyCaseAddress,
  sponsorNonce: uintText(64),
  transactionType: z.enum(['DYNAMIC_FEE', 'SET_CODE']),
};

/** `REJECTED` (not sent) or `UNKNOWN` (may have been sent: reconcile before retrying). */
export const failedResponseFields = {
  status: z.enum(['REJECTED', 'UNKNOWN']),
  code: relayErrorCode,
  message: z.string(),
  retryable: z.boolean(),
  retryAfterMs: z.number().int().nonnegative().nullable(),
  candidateTxHash: txHash.nullable(),
  sponsorAddress: anyCaseAddress.nullable(),
  sponsorNonce: uintText(64).nullable(),
};

export const relayRestResponseSchema = z.discriminatedUnion('status', [
  z.object({ requestId: z.string(), ...broadcastResponseFields }),
  // null when the relay could not read an id (no or bad JWT, oversized or unreadable body)
  z.object({ requestId: z.string().nullable(), ...failedResponseFields }),
]);
export type RelayRestResponse = z.output<typeof relayRestResponseSchema>;
export type BroadcastResponse = Extract<RelayRestResponse, { status: 'BROADCAST' }>;
export type FailedResponse = Extract<RelayRestResponse, { status: 'REJECTED' | 'UNKNOWN' }>;

/** WebSocket: exactly one per accepted `id`, with the immediate-response fields. */
export const wsResponseMessageSchema = z.discriminatedUnion('status', [
  z.object({ type: z.literal('response'), id: z.string(), ...broadcastResponseFields }),
  z.object({ type: z.literal('response'), id: z.string(), ...failedResponseFields }),
]);

/** WebSocket: the terminal outcome of a tracked transaction, sent once. */
export const wsOutcomeMessageSchema = z.object({
  type: z.literal('outcome'),
  id: z.string(),
  txHash,
  status: z.enum(OUTCOME_STATUSES),
  blockNumber: uintText(64).nullable(),
  reason: z.string().nullable(),
});

/** WebSocket: a frame that could not be read at all (no usable `id`). */
export const wsErrorMessageSchema = z.object({
  type: z.literal('error'),
  code: relayErrorCode,
  message: z.string(),
});

export const wsServerMessageSchema = z.union([wsResponseMessageSchema, wsOutcomeMessageSchema, wsErrorMessageSchema]);
export type WsServerMessage = z.output<typeof wsServerMessageSchema>;
export type WsResponseMessage = z.output<typeof wsResponseMessageSchema>;
export type WsOutcomeMessage = z.output<typeof wsOutcomeMessageSchema>;
export type WsErrorMessage = z.output<typeof wsErrorMessageSchema>;

/** True for codes of our stable relay table (docs/protocol.md). */
export function isKnownRelayErrorCode(code: string): code is RelayErrorCodeName {
  return Object.hasOwn(RelayErrorCode, code);
}
