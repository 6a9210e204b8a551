/**
 * Relay REST (`POST {relay_url}/relay`): one signed request with the Bearer JWT stored for its
 * (network, wallet), the body from `encodeRelayRestRequest`, the answer parsed with
 * `relayRestResponseSchema`. BROADCAST, REJECTED and UNKNOWN are answers, returned as values.
 *
 * Never retried: a resend could broadcast twice. When the request may have reached the relay but
 * no answer came back (a timeout, a connection lost after sending), the result is returned as
 * UNKNOWN with code BROADCAST_RESULT_UNKNOWN, exactly what the relay itself says when it does not
 * know: reconcile by receipt before retrying. The JWT goes only into the Authorization header.
 *
 * Answers without the relay's shape, from whatever stands in front of it (docs/protocol.md "Faults"):
 * a 429 (Binance's -1003 or any body) was refused unprocessed (RFC 6585), so it is returned as
 * REJECTED RATE_LIMITED, retryable, with `retryAfterMs` from `Retry-After` (null without one); a
 * 5xx says nothing of whether the relay broadcast the request, so it is UNKNOWN
 * BROADCAST_RESULT_UNKNOWN: reconcile. A relay-shaped 429 without `retryAfterMs` takes `Retry-After`.
 */
import { relayAuthFailureBodySchema } from '../protocol/error-bodies.ts';
import type { JwtStore } from '../protocol/jwt-store.ts';
import { encodeRelayRestRequest, type RelayRestRequest } from '../protocol/relay-request.ts';
import { relayRestResponseSchema, type FailedResponse, type RelayRestResponse } from '../protocol/relay-response.ts';
import { ClientError, isClientError } from './client-error.ts';
import type { CallOptions } from './market-data-source.ts';
import { RelayAuthError } from './relay-auth-client.ts';
import { describeCall, parseValue, refusalText, tryParseJson, unexpectedAnswer } from './response-body.ts';
import { NO_RETRY, parseRetryAfterMs } from './retry-policy.ts';
import { DEFAULT_TIMEOUT_MS, sendRequest, type ClientContext } from './send-request.ts';

export interface RelayRestClientParameters {
  /** `{relay_url}`. */
  readonly baseUrl: string;
  /** The network of this relay: only JWTs issued for it are used. */
  readonly network: string;
  readonly store: JwtStore;
  /** A JWT expiring sooner than this is not used (RELAY_NOT_AUTHENTICATED instead). Default 5 000 ms. */
  readonly expiryMarginMs?: number;
  readonly timeoutMs?: number;
}

export interface RelayRestClient {
  /**
   * Sends `request` once. Resolves with the relay's answer (BROADCAST, REJECTED or UNKNOWN, also for
   * HTTP 4xx/5xx answers of that shape), UNKNOWN when the answer was lost or was a 5xx without that
   * shape, REJECTED RATE_LIMITED for a 429 without it. Throws RELAY_NOT_AUTHENTICATED (no JWT),
   * RelayAuthError (a 401 without the response shape), HTTP_UNAVAILABLE (not sent: the host could
   * not be reached), HTTP_ABORTED, and a typed error for any other answer it cannot read.
   */
  send(request: RelayRestRequest, options?: CallOptions): Promise<RelayRestResponse>;
}

/** UNKNOWN for a request that may have been broadcast without an answer reaching us. */
function unknownOutcome(request: RelayRestRequest, why: string): FailedResponse {
  return {
    requestId: request.requestId,
    status: 'UNKNOWN',
    code: 'BROADCAST_RESULT_UNKNOWN',
    message: `${why}: the request may have been broadcast; reconcile before retrying`,
    retryable: false,
    retryAfterMs: null,
    candidateTxHash: null,
    sponsorAddress: null,
    sponsorNonce: null,
  };
}

/** REJECTED RATE_LIMITED for a 429 that did not come in the relay's shape: refused before it was processed. */
function rateLimited(request: RelayRestRequest, retryAfterMs: number | undefined, text: string): FailedResponse {
  return {
    requestId: request.requestId,
    status: 'REJECTED',
    code: 'RATE_LIMITED',
    message: `HTTP 429 (${text}): not processed; retry after ${retryAfterMs === undefined ? 'a while' : `${retryAfterMs} ms`}`,
    retryable: true,
    retryAfterMs: retryAfterMs ?? null,
    candidateTxHash: null,
    sponsorAddress: null,
    sponsorNonce: null,
  };
}

/**
 * @example
 * const relay = createRelayRestClient(context, { baseUrl: network.hosts.relayUrl, network: network.name, store });
 * const answer = await relay.send({ requestId: ids.next(), wallet, method, payload, authorization7702: null });
 * if (answer.status === 'BROADCAST') track(answer.txHash);
 */
export function createRelayRestClient(context: ClientContext, params: RelayRestClientParameters): RelayRestClient {
  const baseUrl = params.baseUrl.replace(/\/+$/, '');
  const { network, store } = params;
  const marginMs = params.expiryMarginMs ?? 5_000;
  const url = `${baseUrl}/relay`;
  const where = describeCall('POST', url);

  return {
    async send(request, options = {}) {
      const jwt = store.get(network, request.wallet, context.clock.now(), marginMs);
      if (jwt === undefined) {
        throw new ClientError('RELAY_NOT_AUTHENTICATED', `no unexpired relay JWT for wallet ${request.wallet} on ${network}: sign in first`, {
          details: { network, wallet: request.wallet },
        });
      }
      const timeoutMs = options.timeoutMs ?? params.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      let response;
      try {
        response = await sendRequest(context, {
          request: {
            method: 'POST',
            url,
            headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${jwt.reveal(network)}` },
            body: encodeRelayRestRequest(request),
          },
          idempotent: false,
          timeoutMs,
          retry: NO_RETRY,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        });
      } catch (error) {
        if (isClientError(error, 'HTTP_TIMEOUT')) return unknownOutcome(request, `no answer within ${timeoutMs} ms`);
        if (isClientError(error, 'HTTP_UNAVAILABLE') && error.details['requestMayHaveBeenSent'] === true) {
          return unknownOutcome(request, 'the connection failed');
        }
        throw error;
      }
      const json = tryParseJson(response.text);
      const retryAfterMs = response.status === 429 ? parseRetryAfterMs(response.headers['retry-after'], context.clock.now()) : undefined;
      if (typeof json === 'object' && json !== null && 'status' in json) {
        // The relay's own refusals (413, 500, a body it could not read) carry `requestId: null`.
        const withId = (json as Record<string, unknown>)['requestId'] === null ? { ...json, requestId: request.requestId } : json;
        const answer = parseValue(withId, { schema: relayRestResponseSchema, where });
        if (answer.status === 'REJECTED' && answer.retryAfterMs === null && retryAfterMs !== undefined) return { ...answer, retryAfterMs };
        return answer;
      }
      if (response.status === 429) return rateLimited(request, retryAfterMs, refusalText(response.text));
      if (response.status >= 500) return unknownOutcome(request, `HTTP ${response.status} without the relay's answer (${refusalText(response.text)})`);
      const auth = relayAuthFailureBodySchema.safeParse(json);
      if (auth.success) {
        throw new RelayAuthError(`${where}: ${auth.data.code}: ${refusalText(response.text)}`, {
          relayCode: auth.data.code,
          retryable: auth.data.retryable,
          status: response.status,
          details: { url: where, status: response.status },
        });
      }
      throw unexpectedAnswer(response, where, context.clock.now());
    },
  };
}
