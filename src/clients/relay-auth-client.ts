/**
 * Relay authentication (venue): `POST /auth/challenge {wallet}`, `personal_sign` of the exact
 * challenge message by the trading wallet, `POST /auth/token {challengeId, signature}`; the JWT is
 * stored as a BoundJwt per (network, wallet). Renewal and the WebSocket session come later (the
 * execution layer); this client does one sign-in. Nothing here is retried: a challenge is single-use.
 */
import { relayAuthFailureBodySchema } from '../protocol/error-bodies.ts';
import type { Address } from '../protocol/encoding.ts';
import { BoundJwt, type JwtStore } from '../protocol/jwt-store.ts';
import { personalSign, type MessageSigner } from '../protocol/personal-sign.ts';
import { challengeResponseSchema, tokenResponseSchema } from '../protocol/relay-auth.ts';
import { z } from 'zod';
import { ClientError, type ClientErrorOptions } from './client-error.ts';
import type { HttpResponse } from './http-transport.ts';
import type { CallOptions } from './market-data-source.ts';
import { describeCall, parseBody, refusalText, tryParseJson, unexpectedAnswer } from './response-body.ts';
import { NO_RETRY } from './retry-policy.ts';
import { DEFAULT_TIMEOUT_MS, sendRequest, type ClientContext } from './send-request.ts';

/** Any relay error body `{code, message, retryable}` (auth failures are `AUTHENTICATION_FAILED`, input errors others). */
const relayErrorBodySchema = z.looseObject({ code: z.string().min(1), message: z.string(), retryable: z.boolean() });

/**
 * The relay refused a sign-in. `relayCode` is the relay's code (`AUTHENTICATION_FAILED`, or an input
 * code such as `INVALID_REQUEST`); `retryable` the relay's word on trying again (with a new challenge).
 *
 * @example
 * catch (error) { if (error instanceof RelayAuthError && error.relayCode === 'AUTHENTICATION_FAILED') … }
 */
export class RelayAuthError extends ClientError {
  override readonly name: string = 'RelayAuthError';
  readonly relayCode: string;
  readonly retryable: boolean;

  constructor(message: string, options: ClientErrorOptions & { readonly relayCode: string; readonly retryable: boolean }) {
    super('RELAY_AUTH_FAILED', message, { ...options, details: { ...options.details, relayCode: options.relayCode, retryable: options.retryable } });
    this.relayCode = options.relayCode;
    this.retryable = options.retryable;
  }
}

export interface RelayAuthClientParameters {
  /** `{relay_url}`. */
  readonly baseUrl: string;
  /** The network the JWT is bound to (it can be revealed only for this network). */
  readonly network: string;
  readonly store: JwtStore;
  readonly timeoutMs?: number;
}

export interface RelayAuthClient {
  /**
   * Signs `signer` in: challenge, personal_sign, token. Stores the JWT under (network, wallet) and
   * returns it. Throws RelayAuthError for a refusal.
   */
  authenticate(signer: MessageSigner, options?: CallOptions): Promise<BoundJwt>;
}

/**
 * @example
 * const auth = createRelayAuthClient(context, { baseUrl: network.hosts.relayUrl, network: network.name, store });
 * const jwt = await auth.authenticate(account); // jwt prints as [redacted JWT]
 */
export function createRelayAuthClient(context: ClientContext, params: RelayAuthClientParameters): RelayAuthClient {
  const baseUrl = params.baseUrl.replace(/\/+$/, '');
  const { network, store } = params;

  const refusal = (response: HttpResponse, where: string): Error => {
    const json = tryParseJson(response.text);
    const auth = relayAuthFailureBodySchema.safeParse(json);
    const body = auth.success ? auth.data : relayErrorBodySchema.safeParse(json).data;
    if (body !== undefined && response.status >= 400 && response.status < 500) {
      return new RelayAuthError(`${where}: ${body.code}: ${refusalText(response.text)}`, {
        relayCode: body.code,
        retryable: body.retryable,
        status: response.status,
        details: { url: where, status: response.status },
      });
    }
    return unexpectedAnswer(response, where, context.clock.now());
  };

  const post = async (path: string, body: unknown, options: CallOptions) => {
    const url = `${baseUrl}${path}`;
    const response = await sendRequest(context, {
      request: { method: 'POST', url, headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) },
      idempotent: false,
      timeoutMs: options.timeoutMs ?? params.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retry: NO_RETRY,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const where = describeCall('POST', url);
    if (response.status !== 200) throw refusal(response, where);
    return { response, where };
  };

  return {
    async authenticate(signer, options = {}) {
      const wallet = signer.address.toLowerCase() as Address;
      const challengeAnswer = await post('/auth/challenge', { wallet }, options);
      const challenge = parseBody(challengeAnswer.response, { schema: challengeResponseSchema, where: challengeAnswer.where });
      const signature = await personalSign(signer, { message: challenge.message });
      const tokenAnswer = await post('/auth/token', { challengeId: challenge.challengeId, signature }, options);
      const token = parseBody(tokenAnswer.response, { schema: tokenResponseSchema, where: tokenAnswer.where });
      if (token.wallet !== wallet) {
        throw new RelayAuthError(`${tokenAnswer.where}: the relay issued a JWT for another wallet`, {
          relayCode: 'WALLET_MISMATCH',
          retryable: false,
          status: 200,
          details: { url: tokenAnswer.where, expected: wallet, received: token.wallet },
        });
      }
      const jwt = new BoundJwt({ token: token.accessToken, network, wallet, expiresAtMs: Date.parse(token.expiresAt) });
      store.set(jwt);
      return jwt;
    },
  };
}
