/**
 * Swap quotes (`{quote_url}`, spec): `POST /api/generate-token {user_address}` issues a JWT, then
 * `POST /api/quote` with `Authorization: Bearer <JWT>`. The JWT is cached per user until
 * `expires_at` minus a margin and renewed once at a time; each user's quotes pass a limiter set
 * from the token's `rate_limit` (1 request per second, burst 1), so the client never causes a 429
 * itself. The JWT lives only in this closure and in the Authorization header: never in a URL, an
 * error or a log line.
 */
import type { Address } from '../protocol/encoding.ts';
import { generateTokenResponseSchema, quoteRequestSchema, quoteResponseSchema, type QuoteRequestInput, type QuoteResponse } from '../protocol/quote.ts';
import { ClientError } from './client-error.ts';
import type { HttpResponse } from './http-transport.ts';
import type { CallOptions } from './market-data-source.ts';
import { createRateLimiter, type RateLimiter } from './rate-limiter.ts';
import { describeCall, parseBody, parseValue, refusalText, unexpectedAnswer } from './response-body.ts';
import { DEFAULT_RETRY_POLICY, NO_RETRY, type RetryPolicy } from './retry-policy.ts';
import { DEFAULT_TIMEOUT_MS, sendRequest, type ClientContext } from './send-request.ts';

export interface QuoteClientParameters {
  /** `{quote_url}`. */
  readonly baseUrl: string;
  /** Renew a JWT this long before its `expires_at` (at most half its lifetime). Default 30 000 ms. */
  readonly renewBeforeMs?: number;
  readonly timeoutMs?: number;
  /** Retries of a quote (a pure computation) after no answer, a 5xx or a 429. Token issues are never retried. */
  readonly retry?: RetryPolicy;
}

export interface QuoteClient {
  /**
   * The best-path quote for `request`. A quote with `status: 'error'` is an answer, returned as is.
   * Throws QUOTE_REFUSED for a 4xx, HTTP_RATE_LIMITED, HTTP_UNAVAILABLE, HTTP_TIMEOUT, HTTP_ABORTED.
   */
  quote(request: QuoteRequestInput, options?: CallOptions): Promise<QuoteResponse>;
  /** Forgets the cached JWT of `user` (e.g. on logout); the next quote issues a new one. */
  forgetToken(user: Address | string): void;
}

interface CachedToken {
  readonly token: string;
  readonly expiresAtMs: number;
  /** When to issue the next one. */
  readonly renewAtMs: number;
}

interface UserState {
  cached: CachedToken | undefined;
  issuing: Promise<CachedToken> | undefined;
  /** Kept across token renewals: a new token never allows a burst the old one had just spent. */
  readonly limiter: RateLimiter;
}

/** A 4xx refusal of the quote host (`{error}` bodies in our venue; other shapes summarised). */
function refused(response: HttpResponse, where: string): ClientError {
  return new ClientError('QUOTE_REFUSED', `${where}: HTTP ${response.status}: ${refusalText(response.text)}`, {
    status: response.status,
    details: { url: where, status: response.status },
  });
}

/** `promise`, or a rejection with the signal's reason as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * @example
 * const quotes = createQuoteClient(context, { baseUrl: network.hosts.quoteUrl });
 * const answer = await quotes.quote({ userAddress, tokenIn, tokenOut, amount: '1000000', slippageTolerance: 50, autoSlippage: false });
 */
export function createQuoteClient(context: ClientContext, params: QuoteClientParameters): QuoteClient {
  const { clock } = context;
  const baseUrl = params.baseUrl.replace(/\/+$/, '');
  const renewBeforeMs = params.renewBeforeMs ?? 30_000;
  const retry = params.retry ?? DEFAULT_RETRY_POLICY;
  const users = new Map<string, UserState>();

  const stateOf = (user: string): UserState => {
    let state = users.get(user);
    if (state === undefined) {
      state = { cached: undefined, issuing: undefined, limiter: createRateLimiter(clock, { rps: 1, burst: 1 }) };
      users.set(user, state);
    }
    return state;
  };

  async function issue(user: string, state: UserState, options: CallOptions): Promise<CachedToken> {
    const url = `${baseUrl}/api/generate-token`;
    const where = describeCall('POST', url);
    const response = await sendRequest(context, {
      request: { method: 'POST', url, headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ user_address: user }) },
      idempotent: false,
      timeoutMs: options.timeoutMs ?? params.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retry: NO_RETRY,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    if (response.status >= 400 && response.status < 500 && response.status !== 429) throw refused(response, where);
    if (response.status !== 200) throw unexpectedAnswer(response, where, clock.now());
    const answer = parseBody(response, { schema: generateTokenResponseSchema, where });
    state.limiter.setLimit({ rps: answer.rate_limit.rps, burst: answer.rate_limit.burst });
    const now = clock.now();
    const expiresAtMs = answer.expires_at * 1000;
    const margin = Math.min(renewBeforeMs, Math.max(0, (expiresAtMs - now) / 2));
    return { token: answer.token, expiresAtMs, renewAtMs: expiresAtMs - margin };
  }

  /** The user's JWT, issuing one when none is cached or it is due for renewal; one issue at a time. */
  async function tokenFor(user: string, options: CallOptions): Promise<CachedToken> {
    const state = stateOf(user);
    if (state.cached !== undefined && clock.now() < state.cached.renewAtMs) return state.cached;
    // Shared by concurrent callers, so not bound to one caller's signal: each caller stops waiting on its own.
    const issuing = (state.issuing ??= issue(user, state, { ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) }).finally(() => {
      state.issuing = undefined;
    }));
    const token = await untilAborted(issuing, options.signal);
    state.cached = token;
    return token;
  }

  /**
   * One quote request (with its retries): each attempt first waits for the user's limiter turn,
   * then takes the user's JWT, so a token never expires while its request waits for a turn.
   */
  async function quoteOnce(user: string, body: string, options: CallOptions): Promise<{ response: HttpResponse; token: CachedToken }> {
    const state = stateOf(user);
    let token: CachedToken | undefined;
    const response = await sendRequest(context, {
      request: { method: 'POST', url: `${baseUrl}/api/quote`, headers: { 'content-type': 'application/json', accept: 'application/json' }, body },
      idempotent: true,
      timeoutMs: options.timeoutMs ?? params.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retry,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      beforeAttempt: async (signal) => {
        const release = await state.limiter.acquire(signal === undefined ? {} : { signal });
        try {
          token = await tokenFor(user, options);
        } catch (error) {
          release();
          throw error;
        }
        return release;
      },
      attemptHeaders: () => ({ authorization: `Bearer ${token!.token}` }),
    });
    return { response, token: token! };
  }

  return {
    async quote(request, options = {}) {
      const url = `${baseUrl}/api/quote`;
      const where = describeCall('POST', url);
      const parsed = parseValue(request, { schema: quoteRequestSchema, where: `${where} request` });
      const user = parsed.userAddress.toLowerCase();
      const body = JSON.stringify(parsed);
      const first = await quoteOnce(user, body, options);
      let response = first.response;
      if (response.status === 401) {
        // Revoked or expired early: one new token, one more try.
        const state = stateOf(user);
        if (state.cached === first.token) state.cached = undefined;
        response = (await quoteOnce(user, body, options)).response;
      }
      if (response.status >= 400 && response.status < 500 && response.status !== 429) throw refused(response, where);
      if (response.status !== 200) throw unexpectedAnswer(response, where, clock.now());
      return parseBody(response, { schema: quoteResponseSchema, where });
    },
    forgetToken(user) {
      const state = users.get(user.toLowerCase());
      if (state !== undefined) state.cached = undefined;
    },
  };
}
