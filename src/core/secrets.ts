/**
 * What counts as a secret, and how to take secrets out of values and text before they reach a log,
 * an error message or a terminal. Used by the logger and by the config loader.
 */

/** Shown in place of a secret. */
export const REDACTED = '[redacted]';

/** Key fragments whose values are secrets, matched case-insensitively anywhere in the key. */
export const SECRET_KEY_PARTS: readonly string[] = ['privatekey', 'key', 'secret', 'token', 'jwt', 'password', 'mnemonic'];

/** Whole keys (lowercase) whose values are secrets although no fragment matches: HTTP credentials. */
const SECRET_KEYS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/**
 * Keys that contain a fragment but name public values of the venue (token addresses and symbols,
 * not access tokens). Without them every order event, market and token list would log as redacted.
 */
const PUBLIC_KEYS = new Set(['tokens', 'basetoken', 'quotetoken', 'tokenaddress', 'tokenin', 'tokenout', 'tokensymbol']);

/**
 * True when values under `key` are secrets: the key contains privateKey, key, secret, token, jwt,
 * password or mnemonic (any case, e.g. `walletPrivateKey`, `accessToken`), or is an HTTP credential
 * header. Venue fields such as `baseToken` and `tokenAddress` are public.
 *
 * @example isSecretKey('walletPrivateKey') // true
 */
export function isSecretKey(key: string): boolean {
  const lower = key.toLowerCase();
  if (PUBLIC_KEYS.has(lower)) return false;
  if (SECRET_KEYS.has(lower)) return true;
  return SECRET_KEY_PARTS.some((part) => lower.includes(part));
}

/**
 * Keys whose 32-byte hex values are public (transaction and block hashes, order and trigger ids),
 * so the private-key pattern does not hide them.
 */
export function isPublicHashKey(key: string): boolean {
  return /hash$/i.test(key) || key === 'clientOrderId' || key === 'triggerId';
}

/** 0x (or 0X) + exactly 64 hex digits, not part of a longer hex run: the shape of a secp256k1 private key. */
const PRIVATE_KEY_PATTERN = /(?<![0-9a-zA-Z])0[xX][0-9a-fA-F]{64}(?![0-9a-fA-F])/g;
/** Bare 64 hex digits (a key without its 0x), not part of a longer run. */
const BARE_PRIVATE_KEY_PATTERN = /(?<![0-9a-zA-Z])[0-9a-fA-F]{64}(?![0-9a-zA-Z])/g;
/** Three base64url segments whose header starts like a JSON object (`{"` = `eyJ`): a JWT. */
const JWT_PATTERN = /eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/g;
/** `Bearer <credential>` as in an Authorization header. */
const BEARER_PATTERN = /\bBearer\s+[A-Za-z0-9._~+/=-]+/gi;

export interface ScrubOptions {
  /** Keep 32-byte hex values (the string sits under a hash-like key). */
  readonly keepHex32?: boolean;
}

/**
 * Replaces anything in `text` that looks like a private key (0x or 0X + 64 hex, or 64 bare hex digits),
 * a JWT or a Bearer credential with `[redacted]`.
 *
 * @example scrubSecretText(`key 0x${'ab'.repeat(32)}`) // 'key [redacted]'
 */
export function scrubSecretText(text: string, options: ScrubOptions = {}): string {
  let out = text.replace(JWT_PATTERN, REDACTED).replace(BEARER_PATTERN, `Bearer ${REDACTED}`);
  if (!options.keepHex32) out = out.replace(PRIVATE_KEY_PATTERN, REDACTED).replace(BARE_PRIVATE_KEY_PATTERN, REDACTED);
  return out;
}

/** Replaces every occurrence of each known secret string (shorter than 6 characters: ignored) in `text`. */
export function scrubKnownSecrets(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 6 && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

const MAX_DEPTH = 16;

/** An Error as a plain object: type, message, stack, its own enumerable fields (code, details…) and cause. */
function errorToObject(error: Error): Record<string, unknown> {
  const out: Record<string, unknown> = { type: error.name, message: error.message };
  if (error.stack !== undefined) out['stack'] = error.stack;
  for (const [key, value] of Object.entries(error)) {
    if (!(key in out) && key !== 'name') out[key] = value;
  }
  if (error.cause !== undefined) out['cause'] = error.cause;
  return out;
}

/**
 * A deep copy of `value` fit for a log or an error detail: values under secret-like keys become
 * `[redacted]`, strings are scrubbed of private keys and JWTs (32-byte hex kept under hash-like
 * keys), errors become plain objects, bigints become decimal strings, cycles become `[Circular]`.
 * Objects that define `toJSON` (e.g. a bound JWT) are replaced by what it returns.
 *
 * @example redactSecrets({ wallet: { privateKey: '0x…' }, txHash: '0x…' }) // { wallet: { privateKey: '[redacted]' }, txHash: '0x…' }
 */
export function redactSecrets(value: unknown): unknown {
  return redactValue(value, undefined, new WeakSet(), 0);
}

function redactValue(value: unknown, key: string | undefined, seen: WeakSet<object>, depth: number): unknown {
  if (key !== undefined && isSecretKey(key) && value !== undefined && value !== null) return REDACTED;
  switch (typeof value) {
    case 'string':
      return scrubSecretText(value, { keepHex32: key !== undefined && isPublicHashKey(key) });
    case 'bigint':
      return value.toString();
    case 'object': {
      if (value === null) return null;
      if (seen.has(value)) return '[Circular]';
      if (depth >= MAX_DEPTH) return '[Truncated]';
      seen.add(value);
      try {
        return redactObject(value, seen, depth);
      } finally {
        seen.delete(value);
      }
    }
    default:
      return value;
  }
}

function redactObject(value: object, seen: WeakSet<object>, depth: number): unknown {
  const next = depth + 1;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, undefined, seen, next));
  if (value instanceof Error) return redactEntries(Object.entries(errorToObject(value)), seen, next);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  if (value instanceof Map) return redactEntries([...value].map(([k, v]) => [String(k), v] as const), seen, next);
  if (value instanceof Set) return [...value].map((item) => redactValue(item, undefined, seen, next));
  if (ArrayBuffer.isView(value)) return `[${value.constructor.name} ${value.byteLength} bytes]`;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return redactValue(toJSON.call(value), undefined, seen, next);
  return redactEntries(Object.entries(value), seen, next);
}

function redactEntries(entries: readonly (readonly [string, unknown])[], seen: WeakSet<object>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of entries) out[key] = redactValue(item, key, seen, depth);
  return out;
}
