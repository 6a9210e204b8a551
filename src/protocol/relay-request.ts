/**
 * Relay requests as they cross the wire: the REST envelope (`POST /relay`) and the WebSocket client
 * message (`/relay/ws`), parsed strictly (unknown and duplicate fields refused at any depth) into
 * typed requests. Expected failures of input are returned as values carrying a relay error code
 * and the offending JSON path.
 */
import { z } from 'zod';
import { isBaseError } from '../core/base-error.ts';
import { RelayMethod, UNSUPPORTED_RELAY_METHODS, type RelayErrorCodeName, type RelayMethodName } from './constants.ts';
import { isNonCanonicalIssue, lowercaseAddress, type Address, type Hex } from './encoding.ts';
import type {
  AuthorizeAccountSignerIntent,
  Authorization7702,
  BatchIntent,
  CancelTriggerIntent,
  ReplaceBySlotIntent,
} from './intent-types.ts';
import {
  authorization7702Schema,
  authorizeSignerPayloadSchema,
  batchPayloadSchema,
  cancelTriggerPayloadSchema,
  encodeAuthorization7702,
  encodeAuthorizeSignerPayload,
  encodeBatchPayload,
  encodeCancelTriggerPayload,
  encodeReplacePayload,
  replacePayloadSchema,
  type Signed,
} from './relay-payloads.ts';
import { MAX_MESSAGE_ID_LENGTH, readBatchPayload, readReplacePayload, readWsMessage } from './relay-request-readers.ts';
import { NO_MATCH, type FastReader } from './fast-reader.ts';
import { formatJsonPath, parseStrictJson } from './strict-json.ts';

/** A lowercase RFC 9562 UUID of version 7. */
export const uuidv7Schema = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'expected a lowercase UUIDv7');

/** A request of one supported method with its typed payload. */
export type RelayCall =
  | { readonly method: typeof RelayMethod.authorizeAccountSigner; readonly payload: AuthorizeAccountSignerIntent & Signed }
  | { readonly method: typeof RelayMethod.executeBatch; readonly payload: BatchIntent & Signed }
  | { readonly method: typeof RelayMethod.executeReplaceBySlotPacked; readonly payload: ReplaceBySlotIntent & Signed }
  | { readonly method: typeof RelayMethod.cancelTrigger; readonly payload: CancelTriggerIntent & Signed };

export type RelayRestRequest = RelayCall & {
  readonly requestId: string;
  readonly wallet: Address;
  readonly authorization7702: Authorization7702 | null;
};

export type RelayWsRequest = RelayCall & {
  readonly id: string;
  readonly authorization7702: Authorization7702 | null;
};

export interface RelayRequestError {
  readonly code: RelayErrorCodeName;
  readonly message: string;
  /** JSON path of the offending field, e.g. `$.payload.orders[0].price`. */
  readonly path: string;
  /** The request's id (`requestId` or WS `id`) when it could be read, so the answer can carry it. */
  readonly id: string | undefined;
}

export type ParseResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: RelayRequestError };

const payloadSchemas = {
  [RelayMethod.authorizeAccountSigner]: authorizeSignerPayloadSchema,
  [RelayMethod.executeBatch]: batchPayloadSchema,
  [RelayMethod.executeReplaceBySlotPacked]: replacePayloadSchema,
  [RelayMethod.cancelTrigger]: cancelTriggerPayloadSchema,
} as const;

const fastPayloadReaders: ReadonlyMap<string, FastReader<unknown>> = new Map<string, FastReader<unknown>>([
  [RelayMethod.executeBatch, readBatchPayload],
  [RelayMethod.executeReplaceBySlotPacked, readReplacePayload],
]);

const allMethods = new Set<string>(Object.values(RelayMethod));

const restEnvelopeSchema = z.strictObject({
  requestId: uuidv7Schema,
  method: z.string(),
  wallet: lowercaseAddress,
  payload: z.unknown(),
  authorization7702: authorization7702Schema.nullable().optional(),
});

/** A WebSocket client message; its payload is read by method afterwards (parseCall). */
export const wsMessageSchema = z.strictObject({
  id: z.string().min(1).max(MAX_MESSAGE_ID_LENGTH),
  method: z.string(),
  payload: z.unknown(),
  authorization7702: authorization7702Schema.nullable().optional(),
});

function failure(code: RelayErrorCodeName, message: string, path: string, id: string | undefined): { ok: false; error: RelayRequestError } {
  return { ok: false, error: { code, message, path, id } };
}

/** Maps the first zod issue to a relay error: unknown keys, non-canonical values, other shape errors. */
function fromZodError(error: z.ZodError, prefix: readonly (string | number)[], id: string | undefined) {
  // An unknown field is the most telling issue; report it before any shape error.
  const issue = error.issues.find((candidate) => candidate.code === 'unrecognized_keys') ?? error.issues[0]!;
  const base = [...prefix, ...(issue.path as (string | number)[])];
  if (issue.code === 'unrecognized_keys') {
    const path = formatJsonPath([...base, issue.keys[0]!]);
    return failure('UNKNOWN_FIELD', `unknown field ${path}`, path, id);
  }
  const path = formatJsonPath(base);
  const code = isNonCanonicalIssue(issue) ? 'NON_CANONICAL' : 'INVALID_REQUEST';
  return failure(code, `${path}: ${issue.message}`, path, id);
}

function readId(value: unknown, key: 'requestId' | 'id'): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const id = (value as Record<string, unknown>)[key];
  return typeof id === 'string' && id.length > 0 && id.length <= MAX_MESSAGE_ID_LENGTH ? id : undefined;
}

function parseCall(method: string, payload: unknown, id: string | undefined): ParseResult<RelayCall> {
  if (!allMethods.has(method)) {
    return failure('INVALID_REQUEST', `unknown method ${JSON.stringify(method.slice(0, 80))}`, '$.method', id);
  }
  if (UNSUPPORTED_RELAY_METHODS.includes(method as RelayMethodName)) {
    return failure('UNSUPPORTED_METHOD', `${method} is defined but not supported live`, '$.method', id);
  }
  // The two methods of every quote update: a fast reader first, zod for what it is unsure of.
  const fast = fastPayloadReaders.get(method);
  const read = fast === undefined ? NO_MATCH : fast(payload);
  if (read !== NO_MATCH) return { ok: true, value: { method, payload: read } as RelayCall };
  const schema = payloadSchemas[method as keyof typeof payloadSchemas];
  const parsed = schema.safeParse(payload);
  if (!parsed.success) return fromZodError(parsed.error, ['payload'], id);
  return { ok: true, value: { method, payload: parsed.data } as RelayCall };
}

function parseText(text: string, key: 'requestId' | 'id'): ParseResult<unknown> {
  try {
    return { ok: true, value: parseStrictJson(text) };
  } catch (error) {
    if (isBaseError(error, 'PROTOCOL_DUPLICATE_FIELD')) {
      // Best effort: the id of a request with a duplicate field, for correlating the answer.
      let id: string | undefined;
      try {
        id = readId(JSON.parse(text), key);
      } catch {
        id = undefined;
      }
      return failure('DUPLICATE_FIELD', error.message, String(error.details.path), id);
    }
    if (isBaseError(error)) return failure('INVALID_JSON', error.message, String(error.details.path ?? '$'), undefined);
    throw error;
  }
}

/**
 * Parses the body of `POST /relay`. `signer` of an authorize-signer payload and `authority` of an
 * EIP-7702 authorization must equal the envelope's `wallet`.
 *
 * @example
 * const result = parseRelayRestRequest(body);
 * if (!result.ok) reply(400, result.error);
 */
export function parseRelayRestRequest(text: string): ParseResult<RelayRestRequest> {
  const json = parseText(text, 'requestId');
  if (!json.ok) return json;
  const id = readId(json.value, 'requestId');
  const envelope = restEnvelopeSchema.safeParse(json.value);
  if (!envelope.success) return fromZodError(envelope.error, [], id);
  const { requestId, method, wallet, payload, authorization7702 = null } = envelope.data;
  const call = parseCall(method, payload, requestId);
  if (!call.ok) return call;
  const bound = checkWalletBindings(call.value, authorization7702, wallet, requestId);
  if (bound) return bound;
  return { ok: true, value: { ...call.value, requestId, wallet, authorization7702 } };
}

/**
 * Parses one WebSocket client message. The wallet comes from the connection's JWT, so the same
 * bindings as REST are checked against `wallet`.
 */
export function parseRelayWsMessage(text: string, wallet: Address): ParseResult<RelayWsRequest> {
  const json = parseText(text, 'id');
  if (!json.ok) return json;
  const id = readId(json.value, 'id');
  const read = readWsMessage(json.value);
  const message = read !== NO_MATCH ? { success: true as const, data: read } : wsMessageSchema.safeParse(json.value);
  if (!message.success) return fromZodError(message.error, [], id);
  const { method, payload, authorization7702 = null } = message.data;
  const call = parseCall(method, payload, message.data.id);
  if (!call.ok) return call;
  const bound = checkWalletBindings(call.value, authorization7702, wallet, message.data.id);
  if (bound) return bound;
  return { ok: true, value: { ...call.value, id: message.data.id, authorization7702 } };
}

function checkWalletBindings(call: RelayCall, authorization: Authorization7702 | null, wallet: Address, id: string) {
  if (call.method === RelayMethod.authorizeAccountSigner && call.payload.signer !== wallet) {
    return failure('WALLET_MISMATCH', 'payload.signer must equal the request wallet', '$.payload.signer', id);
  }
  if (authorization && authorization.authority !== wallet) {
    return failure('WALLET_MISMATCH', 'authorization7702.authority must equal the request wallet', '$.authorization7702.authority', id);
  }
  return undefined;
}

// ---- encoding: typed request -> wire JSON text ----

/** The wire form of a call's payload (canonical values). */
function encodePayload(call: RelayCall): unknown {
  switch (call.method) {
    case RelayMethod.authorizeAccountSigner:
      return encodeAuthorizeSignerPayload(call.payload, call.payload.signature);
    case RelayMethod.executeBatch:
      return encodeBatchPayload(call.payload, call.payload.signature);
    case RelayMethod.executeReplaceBySlotPacked:
      return encodeReplacePayload(call.payload, call.payload.signature);
    case RelayMethod.cancelTrigger:
      return encodeCancelTriggerPayload(call.payload, call.payload.signature);
  }
}

/**
 * The payload text of each payload encoded, by the payload object (requests are immutable): the
 * engine's request is encoded for its journal record and again for the wire, and its signed payload
 * is the unsigned one with the signature put in (`withPayloadSignature`).
 */
const payloadTexts = new WeakMap<object, string>();

function payloadText(call: RelayCall): string {
  let text = payloadTexts.get(call.payload);
  if (text === undefined) {
    text = JSON.stringify(encodePayload(call));
    payloadTexts.set(call.payload, text);
  }
  return text;
}

const authorizationText = (authorization: Authorization7702 | null) => (authorization ? JSON.stringify(encodeAuthorization7702(authorization)) : 'null');

/**
 * The JSON body of `POST /relay` for a typed request: canonical values, `authorization7702: null`
 * when there is none. `parseRelayRestRequest` reads it back to the same value.
 */
export function encodeRelayRestRequest(request: RelayRestRequest): string {
  const { requestId, method, wallet } = request;
  return `{"requestId":${JSON.stringify(requestId)},"method":${JSON.stringify(method)},"wallet":${JSON.stringify(wallet)},"payload":${payloadText(request)},"authorization7702":${authorizationText(request.authorization7702)}}`;
}

/** One WebSocket client message for a typed request (no `wallet`: the connection's JWT binds it). */
export function encodeRelayWsMessage(request: RelayWsRequest): string {
  return `{"id":${JSON.stringify(request.id)},"method":${JSON.stringify(request.method)},"payload":${payloadText(request)},"authorization7702":${authorizationText(request.authorization7702)}}`;
}

/**
 * `request` with `signature` in its payload (the last field of every payload): its text is the
 * unsigned payload's with the signature put in, when that one was encoded.
 *
 * @example const signed = withPayloadSignature(unsigned, await account.sign({ hash: digest }));
 */
export function withPayloadSignature<R extends RelayCall>(request: R, signature: Hex): R {
  const payload = { ...request.payload, signature };
  const unsigned = payloadTexts.get(request.payload);
  const field = `"signature":${JSON.stringify(request.payload.signature)}}`;
  if (unsigned?.endsWith(field)) payloadTexts.set(payload, `${unsigned.slice(0, -field.length)}"signature":${JSON.stringify(signature)}}`);
  return { ...request, payload };
}
