/**
 * HS256 JSON Web Tokens for the simulated venue's own tokens (quote tokens, relay tokens): sign,
 * and verify with a constant-time signature comparison, `alg` pinned to HS256 and `exp` checked
 * against the clock. Claims are generic: each caller validates its own with a zod schema.
 *
 * The key lives in a `JwtSecret` that never prints (toString, JSON and inspect show `[redacted]`),
 * and failures are values that never carry the token, so neither reaches a log.
 */
import { BaseError } from '../core/base-error.ts';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { z } from 'zod';

const REDACTED = '[redacted]';
/** Keys of live secrets, out of reach of any property walk (logging, JSON, inspect). */
const keys = new WeakMap<JwtSecret, Buffer>();

/** An HMAC key for HS256. */
export class JwtSecret {
  private constructor(key: Buffer) {
    keys.set(this, key);
  }

  /** A fresh random 256-bit key (one per server run). */
  static generate(): JwtSecret {
    return new JwtSecret(randomBytes(32));
  }

  /** A key from given bytes (tests); at least 32 bytes, as RFC 7518 requires for HS256. */
  static fromBytes(bytes: Uint8Array): JwtSecret {
    if (bytes.length < 32) throw new BaseError('SIM_JWT_KEY_INVALID', 'an HS256 key needs at least 32 bytes', { details: { bytes: bytes.length } });
    return new JwtSecret(Buffer.from(bytes));
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return REDACTED;
  }
}

/** Claims of a token: `exp` (Unix seconds) is required, the rest is the caller's. */
export interface JwtClaims {
  readonly exp: number;
  readonly [name: string]: unknown;
}

export type JwtFailure =
  /** Not three base64url segments of JSON objects, or a header other than HS256. */
  | 'malformed'
  /** The signature does not match. */
  | 'bad-signature'
  /** `exp` is missing, not a number, or not after now. */
  | 'expired'
  /** Signed and current, but the claims do not match the caller's schema. */
  | 'invalid-claims';

export type JwtVerifyResult<C> = { readonly ok: true; readonly claims: C } | { readonly ok: false; readonly reason: JwtFailure };

export interface VerifyJwtParameters<S extends z.ZodType> {
  /** Now, ms since the epoch (the clock's). */
  readonly nowMs: number;
  /** The claims this kind of token must carry. */
  readonly claims: S;
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
const SEGMENT = /^[A-Za-z0-9_-]+$/;
/** Longer tokens are refused before any decoding. */
const MAX_TOKEN_LENGTH = 8192;

function signature(secret: JwtSecret, signingInput: string): string {
  const key = keys.get(secret);
  if (key === undefined) throw new BaseError('SIM_JWT_KEY_INVALID', 'not a JwtSecret made by JwtSecret.generate or JwtSecret.fromBytes');
  return createHmac('sha256', key).update(signingInput).digest('base64url');
}

function decodeObject(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A compact HS256 JWT of `claims`.
 *
 * @example signJwt(secret, { user: '0xab…', iat: 1723075200, exp: 1723078800 }) // 'eyJhbGciOiJIUzI1NiIs…'
 */
export function signJwt(secret: JwtSecret, claims: JwtClaims): string {
  const signingInput = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${signingInput}.${signature(secret, signingInput)}`;
}

/**
 * Verifies `token` and parses its claims with `params.claims`. The signature is compared in
 * constant time with its canonical encoding, so one token has exactly one valid spelling.
 *
 * @example
 * const result = verifyJwt(secret, token, { nowMs: clock.now(), claims: z.object({ user: lowercaseAddress }) });
 * if (!result.ok) return unauthorized(result.reason);
 */
export function verifyJwt<S extends z.ZodType>(secret: JwtSecret, token: string, params: VerifyJwtParameters<S>): JwtVerifyResult<z.output<S>> {
  if (token.length > MAX_TOKEN_LENGTH) return { ok: false, reason: 'malformed' };
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'malformed' };
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  if (!SEGMENT.test(headerPart) || !SEGMENT.test(payloadPart) || !SEGMENT.test(signaturePart)) return { ok: false, reason: 'malformed' };
  const header = decodeObject(headerPart);
  if (header === undefined || header['alg'] !== 'HS256') return { ok: false, reason: 'malformed' };

  const expected = Buffer.from(signature(secret, `${headerPart}.${payloadPart}`));
  const given = Buffer.from(signaturePart);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'bad-signature' };

  const payload = decodeObject(payloadPart);
  if (payload === undefined) return { ok: false, reason: 'malformed' };
  const exp = payload['exp'];
  if (typeof exp !== 'number' || !Number.isFinite(exp) || params.nowMs >= exp * 1000) return { ok: false, reason: 'expired' };
  const claims = params.claims.safeParse(payload);
  return claims.success ? { ok: true, claims: claims.data } : { ok: false, reason: 'invalid-claims' };
}
