import { createHmac } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../src/core/logger.ts';
import { JwtSecret, signJwt, verifyJwt } from '../../src/sim/jwt.ts';

const secret = JwtSecret.fromBytes(new Uint8Array(32).fill(7));
const other = JwtSecret.fromBytes(new Uint8Array(32).fill(8));
const claims = z.object({ user: z.string(), exp: z.number() });
const NOW = Date.UTC(2024, 7, 8);
const exp = NOW / 1000 + 60;

function segments(token: string): [string, string, string] {
  return token.split('.') as [string, string, string];
}

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** A token over any payload text, signed with `secret`'s bytes (to forge what signJwt would not write). */
function signRaw(payloadText: string, header: unknown = { alg: 'HS256', typ: 'JWT' }): string {
  const input = `${b64(header)}.${Buffer.from(payloadText).toString('base64url')}`;
  return `${input}.${createHmac('sha256', Buffer.alloc(32, 7)).update(input).digest('base64url')}`;
}

describe('signJwt / verifyJwt', () => {
  it('round-trips the claims of a token that is still valid', () => {
    const token = signJwt(secret, { user: '0xab', exp });
    const [header] = segments(token);
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(verifyJwt(secret, token, { nowMs: NOW, claims })).toEqual({ ok: true, claims: { user: '0xab', exp } });
  });

  it('matches an independent HS256 implementation (RFC 7519 layout)', () => {
    const token = signJwt(secret, { user: '0xab', exp });
    expect(token).toBe(signRaw(JSON.stringify({ user: '0xab', exp })));
  });

  it('refuses an expired token, from its exp second on', () => {
    const token = signJwt(secret, { user: '0xab', exp });
    expect(verifyJwt(secret, token, { nowMs: exp * 1000 - 1, claims }).ok).toBe(true);
    expect(verifyJwt(secret, token, { nowMs: exp * 1000, claims })).toEqual({ ok: false, reason: 'expired' });
    // Correctly signed, but without a numeric exp: refused as never valid.
    for (const payload of [{ user: '0xab' }, { user: '0xab', exp: String(exp) }, { user: '0xab', exp: null }]) {
      expect(verifyJwt(secret, signRaw(JSON.stringify(payload)), { nowMs: NOW, claims })).toEqual({ ok: false, reason: 'expired' });
    }
  });

  it('refuses a token of another key, a changed payload or signature, and a non-canonical signature', () => {
    const token = signJwt(secret, { user: '0xab', exp });
    const [header, payload, signature] = segments(token);
    expect(verifyJwt(other, token, { nowMs: NOW, claims })).toEqual({ ok: false, reason: 'bad-signature' });
    expect(verifyJwt(secret, `${header}.${b64({ user: '0xcd', exp })}.${signature}`, { nowMs: NOW, claims })).toEqual({ ok: false, reason: 'bad-signature' });
    expect(verifyJwt(secret, `${header}.${payload}.${signature.slice(0, -1)}`, { nowMs: NOW, claims })).toEqual({ ok: false, reason: 'bad-signature' });
    // The last character of a 32-byte base64url signature carries 2 spare bits: a twin spelling decodes the same.
    const last = signature.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const twin = alphabet[alphabet.indexOf(last) ^ 1]!;
    const twinToken = `${header}.${payload}.${signature.slice(0, -1)}${twin}`;
    expect(Buffer.from(twinToken.split('.')[2]!, 'base64url').equals(Buffer.from(signature, 'base64url'))).toBe(true);
    expect(verifyJwt(secret, twinToken, { nowMs: NOW, claims })).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('refuses alg none and other algorithms, and malformed tokens', () => {
    const payload = b64({ user: '0xab', exp });
    for (const alg of ['none', 'HS512', 'RS256']) {
      expect(verifyJwt(secret, `${b64({ alg, typ: 'JWT' })}.${payload}.`, { nowMs: NOW, claims }).ok).toBe(false);
      expect(verifyJwt(secret, `${b64({ alg, typ: 'JWT' })}.${payload}.abc`, { nowMs: NOW, claims })).toEqual({ ok: false, reason: 'malformed' });
    }
    for (const token of ['', 'a.b', 'a.b.c.d', 'a b.c.d', '!!.x.y', `${b64([1])}.${payload}.abc`, 'x'.repeat(9000)]) {
      expect(verifyJwt(secret, token, { nowMs: NOW, claims })).toEqual({ ok: false, reason: 'malformed' });
    }
    // Correctly signed, but the payload is not a JSON object, or the header names another algorithm.
    for (const text of ['[1]', 'null', '{"exp":', '"text"']) {
      expect(verifyJwt(secret, signRaw(text), { nowMs: NOW, claims })).toEqual({ ok: false, reason: 'malformed' });
    }
    expect(verifyJwt(secret, signRaw(JSON.stringify({ user: '0xab', exp }), { alg: 'HS384' }), { nowMs: NOW, claims })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses valid tokens whose claims do not match the schema', () => {
    const token = signJwt(secret, { wallet: '0xab', exp });
    expect(verifyJwt(secret, token, { nowMs: NOW, claims })).toEqual({ ok: false, reason: 'invalid-claims' });
  });

  it('never shows the key', () => {
    const generated = JwtSecret.generate();
    expect(String(generated)).toBe('[redacted]');
    expect(JSON.stringify({ generated })).toBe('{"generated":"[redacted]"}');
    expect(inspect(generated)).toBe('[redacted]');
    expect(Object.keys(generated)).toEqual([]);
    const lines: string[] = [];
    const logger = createLogger({ destination: { write: (line: string) => void lines.push(line) } });
    logger.info({ secret: generated, key: secret, holder: { generated } }, 'secret');
    expect(lines.join('')).not.toMatch(/0707|BwcH/);
    expect(() => JwtSecret.fromBytes(new Uint8Array(16))).toThrowError(expect.objectContaining({ code: 'SIM_JWT_KEY_INVALID' }));
  });
});
