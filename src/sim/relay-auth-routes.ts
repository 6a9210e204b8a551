/**
 * Relay authentication of the simulated venue (venue: protocol-facts.md "Relay authentication"):
 * `POST /auth/challenge {wallet}` issues a challenge message that lives five minutes;
 * `POST /auth/token {challengeId, signature}` exchanges its `personal_sign` signature for a
 * wallet-bound JWT (claim `wallet`). `authenticate` checks the Bearer JWT of `/relay` and `/relay/ws`.
 *
 * Choices (ours): a challenge is consumed only by a successful exchange, so a wrong signature
 * leaves it usable until it expires (nobody can burn another wallet's challenge by guessing); a
 * malformed body is refused with the relay input codes (400), every authentication failure with
 * HTTP 401 AUTHENTICATION_FAILED. Relay JWTs carry `aud: "relay"` and are signed with a secret of
 * their own, so no other token of the venue (e.g. a quote token) passes for one.
 */
import { z } from 'zod';
import { isBaseError } from '../core/base-error.ts';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { RandomSource } from '../core/random.ts';
import { CHALLENGE_LIFETIME_MS, RelayErrorCode, type RelayErrorCodeName } from '../protocol/constants.ts';
import { isNonCanonicalIssue, lowercaseAddress, type Address } from '../protocol/encoding.ts';
import { recoverPersonalSignSigner } from '../protocol/personal-sign.ts';
import { challengeRequestSchema, tokenRequestSchema, type ChallengeResponse, type TokenResponse } from '../protocol/relay-auth.ts';
import { formatJsonPath, parseStrictJson } from '../protocol/strict-json.ts';
import type { SimFailure, SimRequest, SimResponse, SimRoute } from './http-types.ts';
import { JwtSecret, signJwt, verifyJwt, type JwtFailure } from './jwt.ts';

/** The audience claim of relay JWTs (ours). */
export const RELAY_JWT_AUDIENCE = 'relay';
/** Most challenges kept at once; the oldest go first beyond it (ours: bounds memory). */
export const MAX_OUTSTANDING_CHALLENGES = 100_000;
/** Retired JWT keys remembered, so their tokens read as expired; older ones read as bad signatures (both 401). */
const MAX_RETIRED_KEYS = 16;

/** The claims of a relay JWT as the sim issues them. */
const relayJwtClaims = z.object({ wallet: lowercaseAddress, aud: z.literal(RELAY_JWT_AUDIENCE), exp: z.number().int().positive() });

const JWT_FAILURE_MESSAGES: Readonly<Record<JwtFailure, string>> = {
  malformed: 'malformed JWT',
  'bad-signature': 'JWT signature does not verify',
  expired: 'JWT expired',
  'invalid-claims': 'not a relay JWT',
};

/** The body of every relay auth failure and of relay input errors outside `/relay` (venue). */
export interface RelayErrorBody {
  readonly code: RelayErrorCodeName;
  readonly message: string;
  readonly retryable: boolean;
}

export type Authentication = { readonly ok: true; readonly wallet: Address; readonly expiresAtMs: number } | { readonly ok: false; readonly message: string };

export interface RelayAuth {
  /** `POST /auth/challenge` and `POST /auth/token`. */
  readonly routes: readonly SimRoute[];
  /** Checks an `Authorization` header value: `Bearer <JWT>` with a valid signature, `aud` relay, a `wallet` claim, unexpired. */
  authenticate(authorization: string | undefined): Authentication;
  /** Challenges currently kept (issued or used, not yet expired). */
  outstandingChallenges(): number;
  /**
   * Every JWT issued so far is refused from now on as expired (a fault): the key that signed them is
   * retired and a new one drawn from the auth's random source. Tokens issued after are good.
   */
  expireIssuedTokens(): void;
}

export interface CreateRelayAuthParameters {
  readonly chainId: number;
  /** Lifetime of issued JWTs (config `auth.jwtLifetimeSec`). */
  readonly jwtLifetimeSec: number;
  /** The HS256 key of relay JWTs; give relay JWTs a key of their own. */
  readonly secret: JwtSecret;
}

interface Challenge {
  readonly wallet: Address;
  readonly message: string;
  readonly expiresAtMs: number;
  used: boolean;
}

/** A relay error body with the code's HTTP status and retryability. */
export function relayError(code: RelayErrorCodeName, message: string): SimResponse {
  const body: RelayErrorBody = { code, message, retryable: RelayErrorCode[code].retryable };
  return { status: RelayErrorCode[code].http, body };
}

/** The server's own failures (413, 500) on relay routes, in the relay error style. */
export function relayFailureBody(failure: SimFailure, message: string): RelayErrorBody {
  const code = failure === 'payload-too-large' ? 'PAYLOAD_TOO_LARGE' : 'INTERNAL_ERROR';
  return { code, message, retryable: RelayErrorCode[code].retryable };
}

function authFailure(message: string): SimResponse {
  return relayError('AUTHENTICATION_FAILED', message);
}

export type StrictBodyResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly response: SimResponse };

/**
 * Parses a JSON body strictly (duplicate fields refused, with their JSON path) and validates it with
 * a strict zod schema; failures are relay error answers, HTTP 400: INVALID_JSON, DUPLICATE_FIELD,
 * UNKNOWN_FIELD, NON_CANONICAL (e.g. an uppercase address) or INVALID_REQUEST, naming the JSON path.
 */
export function parseStrictJsonBody<S extends z.ZodType>(text: string, schema: S): StrictBodyResult<z.output<S>> {
  let json: unknown;
  try {
    json = parseStrictJson(text);
  } catch (error) {
    if (isBaseError(error, 'PROTOCOL_DUPLICATE_FIELD')) return { ok: false, response: relayError('DUPLICATE_FIELD', error.message) };
    if (isBaseError(error)) return { ok: false, response: relayError('INVALID_JSON', error.message) };
    throw error;
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, response: schemaFailure(parsed.error) };
}

/** A zod failure as a relay error answer (HTTP 400): UNKNOWN_FIELD first, then NON_CANONICAL or INVALID_REQUEST, with the JSON path. */
export function schemaFailure(error: z.ZodError): SimResponse {
  const issue = error.issues.find((candidate) => candidate.code === 'unrecognized_keys') ?? error.issues[0]!;
  const path = issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment)));
  if (issue.code === 'unrecognized_keys') return relayError('UNKNOWN_FIELD', `unknown field ${formatJsonPath([...path, issue.keys[0]!])}`);
  const code = isNonCanonicalIssue(issue) ? 'NON_CANONICAL' : 'INVALID_REQUEST';
  return relayError(code, `${formatJsonPath(path)}: ${issue.message}`);
}

function randomHex(random: RandomSource, bytes: number): string {
  return Buffer.from(random.fill(new Uint8Array(bytes))).toString('hex');
}

/** The exact text a wallet `personal_sign`s to sign in (ours). */
export function challengeMessage(parameters: { wallet: Address; challengeId: string; chainId: number; issuedAtMs: number; expiresAtMs: number }): string {
  return [
    'Sign in to the clobbot simulated relay.',
    '',
    `Wallet: ${parameters.wallet}`,
    `Challenge: ${parameters.challengeId}`,
    `Chain ID: ${parameters.chainId}`,
    `Issued At: ${new Date(parameters.issuedAtMs).toISOString()}`,
    `Expires At: ${new Date(parameters.expiresAtMs).toISOString()}`,
  ].join('\n');
}

/** `Bearer <token>` -> the token; the scheme is case-insensitive (RFC 7235). */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i.exec(authorization);
  return match?.[1];
}

/**
 * Relay authentication: the two auth routes and the JWT check of the relay endpoints. Challenge ids
 * come from the random source passed in (and the caller makes `secret` from it); time from the clock.
 *
 * @example
 * const auth = createRelayAuth({ clock, random, logger }, { chainId: 31337, jwtLifetimeSec: 3600, secret });
 * const who = auth.authenticate(request.headers.authorization);
 */
export function createRelayAuth(
  context: { readonly clock: Clock; readonly random: RandomSource; readonly logger: Logger },
  parameters: CreateRelayAuthParameters,
): RelayAuth {
  const { clock, random, logger } = context;
  const { chainId, jwtLifetimeSec } = parameters;
  let secret = parameters.secret;
  // Newest first: tokens these verify are answered as expired.
  const retired: JwtSecret[] = [];
  // Insertion order is issue order; with a constant lifetime also expiry order.
  const challenges = new Map<string, Challenge>();

  const prune = (now: number) => {
    for (const [id, challenge] of challenges) {
      if (challenge.expiresAtMs > now && challenges.size < MAX_OUTSTANDING_CHALLENGES) break;
      challenges.delete(id);
    }
  };

  const createChallenge = (request: SimRequest): SimResponse => {
    const body = parseStrictJsonBody(request.body, challengeRequestSchema);
    if (!body.ok) return body.response;
    const now = clock.now();
    prune(now);
    let challengeId = randomHex(random, 16);
    while (challenges.has(challengeId)) challengeId = randomHex(random, 16);
    const expiresAtMs = now + CHALLENGE_LIFETIME_MS;
    const message = challengeMessage({ wallet: body.value.wallet, challengeId, chainId, issuedAtMs: now, expiresAtMs });
    challenges.set(challengeId, { wallet: body.value.wallet, message, expiresAtMs, used: false });
    const answer: ChallengeResponse = { challengeId, message, expiresAt: new Date(expiresAtMs).toISOString() };
    return { status: 200, body: answer };
  };

  const exchangeToken = async (request: SimRequest): Promise<SimResponse> => {
    const body = parseStrictJsonBody(request.body, tokenRequestSchema);
    if (!body.ok) return body.response;
    const { challengeId, signature } = body.value;
    const challenge = challenges.get(challengeId);
    if (challenge === undefined) return authFailure('unknown challenge');
    if (challenge.used) return authFailure('challenge already used');
    if (clock.now() >= challenge.expiresAtMs) return authFailure('challenge expired');
    let signer: Address;
    try {
      signer = await recoverPersonalSignSigner({ message: challenge.message, signature });
    } catch (error) {
      if (isBaseError(error, 'PROTOCOL_SIGNATURE_INVALID')) return authFailure(`bad challenge signature: ${error.message}`);
      throw error;
    }
    if (signer !== challenge.wallet) return authFailure('challenge signature does not recover to the challenge wallet');
    // Checked again after the await: a concurrent exchange of the same challenge may have won.
    if (challenge.used) return authFailure('challenge already used');
    const now = clock.now();
    if (now >= challenge.expiresAtMs) return authFailure('challenge expired');
    challenge.used = true;
    const iat = Math.floor(now / 1000);
    const exp = iat + jwtLifetimeSec;
    const accessToken = signJwt(secret, { wallet: challenge.wallet, aud: RELAY_JWT_AUDIENCE, iat, exp });
    logger.info({ wallet: challenge.wallet, exp }, 'relay JWT issued');
    const answer: TokenResponse = { accessToken, tokenType: 'Bearer', expiresAt: new Date(exp * 1000).toISOString(), wallet: challenge.wallet };
    return { status: 200, body: answer };
  };

  return {
    routes: [
      { method: 'POST', pattern: '/auth/challenge', handler: createChallenge, failureBody: relayFailureBody },
      { method: 'POST', pattern: '/auth/token', handler: exchangeToken, failureBody: relayFailureBody },
    ],
    authenticate(authorization) {
      if (authorization === undefined || authorization === '') return { ok: false, message: 'missing Authorization: Bearer <JWT>' };
      const token = bearerToken(authorization);
      if (token === undefined) return { ok: false, message: 'expected Authorization: Bearer <JWT>' };
      const nowMs = clock.now();
      const verified = verifyJwt(secret, token, { nowMs, claims: relayJwtClaims });
      if (!verified.ok) {
        const signedBy = (key: JwtSecret) => {
          const result = verifyJwt(key, token, { nowMs, claims: relayJwtClaims });
          return result.ok || result.reason !== 'bad-signature';
        };
        const underRetiredKey = verified.reason === 'bad-signature' && retired.some(signedBy);
        return { ok: false, message: JWT_FAILURE_MESSAGES[underRetiredKey ? 'expired' : verified.reason] };
      }
      const { wallet, exp } = verified.claims;
      return { ok: true, wallet, expiresAtMs: exp * 1000 };
    },
    outstandingChallenges: () => challenges.size,
    expireIssuedTokens() {
      retired.unshift(secret);
      retired.length = Math.min(retired.length, MAX_RETIRED_KEYS);
      secret = JwtSecret.fromBytes(random.fill(new Uint8Array(32)));
      logger.info({ retiredKeys: retired.length }, 'relay JWTs issued so far expired (fault)');
    },
  };
}
