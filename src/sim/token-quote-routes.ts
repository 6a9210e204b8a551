/**
 * The token and quote hosts: `GET /api/v1/tokens/:tokenAddress`, `POST /api/generate-token` and
 * `POST /api/quote`. Quote tokens are HS256 JWTs signed with the server's secret, carrying the
 * `user` they were issued to; each token may quote once per second with burst 1 (spec), counted on
 * the clock. Every refusal is an `{error}` body (ours: the spec shows no error body for these hosts).
 */
import { z } from 'zod';
import type { Clock } from '../core/clock.ts';
import { QUOTE_TOKEN_RATE_LIMIT } from '../protocol/constants.ts';
import { lowercaseAddress } from '../protocol/encoding.ts';
import { generateTokenRequestSchema, quoteRequestSchema, type GenerateTokenResponse } from '../protocol/quote.ts';
import { tokenPathSchema, type TokenEnvelope } from '../protocol/tokens.ts';
import type { SimVenue } from '../venue/sim-venue.ts';
import type { SimFailure, SimRequest, SimResponse, SimRoute } from './http-types.ts';
import { signJwt, verifyJwt, type JwtSecret } from './jwt.ts';
import { createTokenBuckets } from './token-bucket.ts';

export interface TokenQuoteRoutesOptions {
  readonly clock: Pick<Clock, 'now'>;
  /** Signs and verifies quote tokens; one per server run (`JwtSecret.generate()`). */
  readonly secret: JwtSecret;
  /** Lifetime of an issued quote token (config `auth.quoteTokenLifetimeSec`). */
  readonly quoteTokenLifetimeSec: number;
}

/** The audience claim of quote tokens, so a token of another kind signed with the same key is refused. */
const QUOTE_AUDIENCE = 'quote';

/** Claims of a quote token: `user` (lowercase address), `aud`, `jti` (unique per server), `iat`, `exp` (Unix s). */
export const quoteTokenClaimsSchema = z.object({
  user: lowercaseAddress,
  aud: z.literal(QUOTE_AUDIENCE),
  jti: z.string().min(1),
  iat: z.int().min(0),
  exp: z.int().min(0),
});
export type QuoteTokenClaims = z.output<typeof quoteTokenClaimsSchema>;

function error(status: number, message: string, headers?: Readonly<Record<string, string>>): SimResponse {
  return headers === undefined ? { status, body: { error: message } } : { status, headers, body: { error: message } };
}

function errorFailureBody(failure: SimFailure, message: string): unknown {
  return { error: failure === 'internal-error' ? 'internal server error' : message };
}

/** The first issue of a failed body parse, naming its field (e.g. `slippageTolerance: Too small: …`). */
function issueText(issues: readonly z.core.$ZodIssue[]): string {
  const first = issues[0];
  if (first === undefined) return 'invalid request body';
  const field = first.path.map(String).join('.');
  return field === '' ? first.message : `${field}: ${first.message}`;
}

type JsonBody = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly response: SimResponse };

function jsonBody(request: SimRequest): JsonBody {
  try {
    return { ok: true, value: JSON.parse(request.body) as unknown };
  } catch {
    return { ok: false, response: error(400, 'request body is not valid JSON') };
  }
}

/** The token of `Authorization: Bearer <token>`, or undefined. */
function bearerToken(request: SimRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1];
}

const UNAUTHORIZED_MESSAGES = {
  missing: 'missing Authorization: Bearer <token> (from POST /api/generate-token)',
  malformed: 'invalid token',
  'bad-signature': 'invalid token',
  'invalid-claims': 'invalid token',
  expired: 'token expired',
} as const;

/**
 * The three token and quote routes over `venue`.
 *
 * @example tokenQuoteRoutes(venue, { clock, secret: JwtSecret.generate(), quoteTokenLifetimeSec: 3600 })
 */
export function tokenQuoteRoutes(venue: SimVenue, options: TokenQuoteRoutesOptions): SimRoute[] {
  const { clock, secret, quoteTokenLifetimeSec } = options;
  const buckets = createTokenBuckets(clock, { ratePerSecond: QUOTE_TOKEN_RATE_LIMIT.rps, burst: QUOTE_TOKEN_RATE_LIMIT.burst });
  let issued = 0;

  const token: SimRoute = {
    method: 'GET',
    pattern: '/api/v1/tokens/:tokenAddress',
    failureBody: errorFailureBody,
    handler(request) {
      const path = tokenPathSchema.safeParse(request.params);
      if (!path.success) return error(400, `tokenAddress: expected a lowercase 20-byte address (0x and 40 lowercase hex characters)`);
      const data = venue.token(path.data.tokenAddress);
      if (data === undefined) return error(404, `token ${path.data.tokenAddress} is not a token of this venue`);
      return { status: 200, body: { feedEpoch: null, data } satisfies TokenEnvelope };
    },
  };

  const generateToken: SimRoute = {
    method: 'POST',
    pattern: '/api/generate-token',
    failureBody: errorFailureBody,
    handler(request) {
      const json = jsonBody(request);
      if (!json.ok) return json.response;
      const body = generateTokenRequestSchema.safeParse(json.value);
      if (!body.success) return error(400, issueText(body.error.issues));
      const iat = Math.floor(clock.now() / 1000);
      const exp = iat + quoteTokenLifetimeSec;
      issued += 1;
      const claims: QuoteTokenClaims = { user: body.data.user_address, aud: QUOTE_AUDIENCE, jti: String(issued), iat, exp };
      const answer: GenerateTokenResponse = {
        token: signJwt(secret, claims),
        expires_at: exp,
        rate_limit: { rps: QUOTE_TOKEN_RATE_LIMIT.rps, burst: QUOTE_TOKEN_RATE_LIMIT.burst },
      };
      return { status: 200, body: answer };
    },
  };

  const quote: SimRoute = {
    method: 'POST',
    pattern: '/api/quote',
    failureBody: errorFailureBody,
    handler(request) {
      const bearer = bearerToken(request);
      if (bearer === undefined) return error(401, UNAUTHORIZED_MESSAGES.missing);
      const verified = verifyJwt(secret, bearer, { nowMs: clock.now(), claims: quoteTokenClaimsSchema });
      if (!verified.ok) return error(401, UNAUTHORIZED_MESSAGES[verified.reason]);
      const take = buckets.take(verified.claims.jti);
      if (!take.allowed) {
        const seconds = Math.max(1, Math.ceil(take.retryAfterMs / 1000));
        return error(429, `rate limit exceeded: ${QUOTE_TOKEN_RATE_LIMIT.rps} request per second per token, burst ${QUOTE_TOKEN_RATE_LIMIT.burst}`, {
          'Retry-After': String(seconds),
        });
      }
      const json = jsonBody(request);
      if (!json.ok) return json.response;
      const body = quoteRequestSchema.safeParse(json.value);
      if (!body.success) return error(400, issueText(body.error.issues));
      return { status: 200, body: venue.quote(body.data) };
    },
  };

  return [token, generateToken, quote];
}
