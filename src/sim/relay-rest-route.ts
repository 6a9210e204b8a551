/**
 * `POST /relay` of the simulated venue (venue + spec; protocol-facts.md "Relay requests"): Bearer JWT,
 * strict envelope parsing, the envelope wallet bound to the JWT's `wallet` claim, then the venue's
 * `submit`. Every answer has the immediate-response shape; its HTTP status is 200 for BROADCAST and
 * `RelayErrorCode[code].http` otherwise.
 *
 * Choices (ours): the JWT is checked before the body is parsed; `requestId` echoes the request's
 * id, or is `null` when none could be read (unreadable JSON, a missing or malformed `requestId`). REST
 * transactions are not tracked: a REST client reconciles by receipt.
 *
 * Faults (asked of the fault model, fault-model.ts): a request may be answered REJECTED without
 * being sent, a broadcast one UNKNOWN, and every answer may leave `relayDelayMs` late. A request
 * refused by the HTTP edge in front of the relay (`rate-limit-relay`, `fail-relay` and their rates)
 * gets that edge's bare answer instead, in the Binance shape of the other hosts: HTTP 429 -1003
 * with `Retry-After`, or 500 (-1000), 502 or 503 (-1001); nothing reaches the venue. Every 429
 * carries `Retry-After` in whole seconds (the relay's own RATE_LIMITED too: its `retryAfterMs`
 * rounded up).
 */
import type { Logger } from '../core/logger.ts';
import { MarketErrorCode, RelayErrorCode, type RelayErrorCodeName } from '../protocol/constants.ts';
import type { MarketDataErrorBody } from '../protocol/error-bodies.ts';
import { parseRelayRestRequest } from '../protocol/relay-request.ts';
import type { SimVenue, SubmitResult } from '../venue/sim-venue.ts';
import type { RelayEdgeStatus, RelayRejection, RelayRestFaultReader } from './fault-model.ts';
import type { SimFailure, SimRequest, SimResponse, SimRoute } from './http-types.ts';
import type { RelayAuth } from './relay-auth-routes.ts';

/** An immediate response's wire fields (without `requestId` or WS `id`), and its REST status. */
export interface ImmediateAnswer {
  readonly status: number;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** A REJECTED answer with the code's status and retryability, nothing sent. */
export function rejected(code: RelayErrorCodeName, message: string, retryAfterMs: number | null = null): ImmediateAnswer {
  return {
    status: RelayErrorCode[code].http,
    fields: {
      status: 'REJECTED',
      code,
      message,
      retryable: RelayErrorCode[code].retryable,
      retryAfterMs,
      candidateTxHash: null,
      sponsorAddress: null,
      sponsorNonce: null,
    },
  };
}

/**
 * The REJECTED answer of an injected refusal, worded as the relay words its own: nothing was sent.
 *
 * @example rejectedByFault({ code: 'RATE_LIMITED', retryAfterMs: 1000 }).status // 429
 */
export function rejectedByFault(rejection: RelayRejection): ImmediateAnswer {
  return rejection.code === 'RATE_LIMITED'
    ? rejected('RATE_LIMITED', `too many requests: retry after ${rejection.retryAfterMs ?? 0} ms`, rejection.retryAfterMs ?? 0)
    : rejected('INTERNAL_ERROR', 'the relay failed before broadcasting: the request was not sent');
}

/**
 * The bodies of the HTTP edge in front of the relay (ours: the Binance shape of the market-data
 * host, whose edge it is too; -1003 "Too many requests queued." is one of Binance's texts).
 */
export const RELAY_EDGE_BODIES = {
  429: { code: MarketErrorCode.TOO_MANY_REQUESTS, msg: 'Too many requests queued.' },
  500: { code: MarketErrorCode.UNKNOWN, msg: 'An unknown error occurred while processing the request.' },
  502: { code: MarketErrorCode.DISCONNECTED, msg: 'Internal error; unable to process your request. Please try again.' },
  503: { code: MarketErrorCode.DISCONNECTED, msg: 'Internal error; unable to process your request. Please try again.' },
} as const satisfies Record<RelayEdgeStatus, MarketDataErrorBody>;

/** `Retry-After` of a 429 in whole seconds, rounded up (absent without a wait). */
function retryAfterHeader(status: number, retryAfterMs: unknown): Readonly<Record<string, string>> | undefined {
  return status === 429 && typeof retryAfterMs === 'number' ? { 'Retry-After': String(Math.ceil(retryAfterMs / 1000)) } : undefined;
}

/**
 * A venue submit result as wire fields. With `answerUnknown`, a BROADCAST is answered UNKNOWN
 * (BROADCAST_RESULT_UNKNOWN, HTTP 503) with its hash as `candidateTxHash`: the transaction is sent all the same.
 */
export function submitAnswer(result: SubmitResult, answerUnknown = false): ImmediateAnswer {
  if (result.status === 'BROADCAST') {
    if (answerUnknown) {
      const code = 'BROADCAST_RESULT_UNKNOWN';
      return {
        status: RelayErrorCode[code].http,
        fields: {
          status: 'UNKNOWN',
          code,
          message: 'the broadcast result is unknown: reconcile by receipt before retrying',
          retryable: RelayErrorCode[code].retryable,
          retryAfterMs: null,
          candidateTxHash: result.txHash,
          sponsorAddress: result.sponsorAddress,
          sponsorNonce: result.sponsorNonce.toString(),
        },
      };
    }
    return {
      status: 200,
      fields: {
        status: 'BROADCAST',
        txHash: result.txHash,
        sponsorAddress: result.sponsorAddress,
        sponsorNonce: result.sponsorNonce.toString(),
        transactionType: result.transactionType,
      },
    };
  }
  return {
    status: RelayErrorCode[result.code].http,
    fields: {
      status: result.status,
      code: result.code,
      message: result.message,
      retryable: result.retryable,
      retryAfterMs: result.retryAfterMs,
      candidateTxHash: result.candidateTxHash,
      sponsorAddress: result.sponsorAddress,
      sponsorNonce: result.sponsorNonce === null ? null : result.sponsorNonce.toString(),
    },
  };
}

/** Best effort: the `requestId` of a body that may not parse, for echoing it in an early refusal. */
function readRequestId(body: string): string | null {
  try {
    const value: unknown = JSON.parse(body);
    if (typeof value !== 'object' || value === null) return null;
    const id = (value as Record<string, unknown>).requestId;
    return typeof id === 'string' && id.length > 0 && id.length <= 64 ? id : null;
  } catch {
    return null;
  }
}

export interface RelayRestRouteContext {
  readonly venue: SimVenue;
  readonly auth: Pick<RelayAuth, 'authenticate'>;
  readonly logger: Logger;
  /** Which requests are answered REJECTED or UNKNOWN, and how late. */
  readonly faults: RelayRestFaultReader;
}

/**
 * The `POST /relay` route.
 *
 * @example const route = relayRestRoute({ venue, auth, logger, faults: createFaultModel({ clock, random }) });
 */
export function relayRestRoute(context: RelayRestRouteContext): SimRoute {
  const { venue, auth, logger, faults } = context;
  const reply = (requestId: string | null, answer: ImmediateAnswer, delayMs = 0): SimResponse => {
    const headers = retryAfterHeader(answer.status, answer.fields['retryAfterMs']);
    return { status: answer.status, ...(headers === undefined ? {} : { headers }), body: { requestId, ...answer.fields }, ...(delayMs > 0 ? { delayMs } : {}) };
  };
  /** The edge's own answer: a bare status with its Binance body, no relay fields. */
  const edgeReply = (rejection: RelayRejection & { readonly edgeStatus: RelayEdgeStatus }, delayMs: number): SimResponse => {
    const headers = retryAfterHeader(rejection.edgeStatus, rejection.retryAfterMs);
    return { status: rejection.edgeStatus, ...(headers === undefined ? {} : { headers }), body: RELAY_EDGE_BODIES[rejection.edgeStatus], ...(delayMs > 0 ? { delayMs } : {}) };
  };
  const handler = async (request: SimRequest): Promise<SimResponse> => {
    // A token in the URL (access_token=…) would be logged and cached on the way: any query is refused
    // before the header is looked at, as on the WebSocket, so no URL token is ever accepted.
    if ([...request.query.keys()].length > 0) {
      return reply(readRequestId(request.body), rejected('INVALID_REQUEST', 'POST /relay takes no query parameters: send the JWT in the Authorization header, never in the URL'));
    }
    const who = auth.authenticate(request.headers.authorization);
    if (!who.ok) return reply(readRequestId(request.body), rejected('AUTHENTICATION_FAILED', who.message));
    const parsed = parseRelayRestRequest(request.body);
    if (!parsed.ok) return reply(parsed.error.id ?? null, rejected(parsed.error.code, parsed.error.message));
    const { requestId, wallet, authorization7702, ...call } = parsed.value;
    if (wallet !== who.wallet) return reply(requestId, rejected('WALLET_MISMATCH', '$.wallet must equal the wallet claim of the JWT'));
    // A slow relay: the request is handled now, its answer leaves late (a client may time out first).
    const delayMs = faults.relayDelayMs();
    const rejection = faults.relayRejection();
    if (rejection !== undefined) {
      logger.debug({ requestId, method: call.method, wallet, code: rejection.code, edgeStatus: rejection.edgeStatus }, 'relay request refused (fault)');
      if (rejection.edgeStatus !== undefined) return edgeReply({ ...rejection, edgeStatus: rejection.edgeStatus }, delayMs);
      return reply(requestId, rejectedByFault(rejection), delayMs);
    }
    const result = await venue.submit(wallet, call, authorization7702);
    const unknown = result.status === 'BROADCAST' && faults.relayUnknown();
    logger.debug({ requestId, method: call.method, wallet, status: unknown ? 'UNKNOWN' : result.status }, 'relay request');
    return reply(requestId, submitAnswer(result, unknown), delayMs);
  };
  // The server's own 413 and 500 in the failed-response shape; no requestId could be read.
  const failureBody = (failure: SimFailure, message: string) => {
    const code = failure === 'payload-too-large' ? 'PAYLOAD_TOO_LARGE' : 'INTERNAL_ERROR';
    return { requestId: null, ...rejected(code, message).fields };
  };
  return { method: 'POST', pattern: '/relay', handler, failureBody };
}
