/**
 * Relay authentication as plain routes: challenge, personal_sign exchange, JWT checks, on a virtual
 * clock with real viem keys.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/logger.ts';
import { seededRandom } from '../../src/core/random.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { CHALLENGE_LIFETIME_MS } from '../../src/protocol/constants.ts';
import { personalSign } from '../../src/protocol/personal-sign.ts';
import { challengeResponseSchema, tokenResponseSchema } from '../../src/protocol/relay-auth.ts';
import type { SimRequest, SimResponse } from '../../src/sim/http-types.ts';
import { JwtSecret, signJwt } from '../../src/sim/jwt.ts';
import { createRelayAuth } from '../../src/sim/relay-auth-routes.ts';

const wallet = privateKeyToAccount(`0x${'11'.repeat(32)}`);
const other = privateKeyToAccount(`0x${'22'.repeat(32)}`);
const walletAddress = wallet.address.toLowerCase();

function setup(jwtLifetimeSec = 60) {
  const clock = new VirtualClock(Date.UTC(2025, 0, 1));
  const random = seededRandom(7);
  const secret = JwtSecret.fromBytes(random.fill(new Uint8Array(32)));
  const auth = createRelayAuth({ clock, random, logger: createLogger({ level: 'silent' }) }, { chainId: 31337, jwtLifetimeSec, secret });
  const route = (pattern: string) => auth.routes.find((candidate) => candidate.pattern === pattern)!.handler;
  const post = async (pattern: string, body: string): Promise<SimResponse> => {
    const request: SimRequest = { method: 'POST', path: pattern, params: {}, query: new URLSearchParams(), headers: {}, body, ip: '127.0.0.1' };
    return route(pattern)(request);
  };
  const challenge = async (address = walletAddress) => {
    const response = await post('/auth/challenge', JSON.stringify({ wallet: address }));
    expect(response.status).toBe(200);
    return challengeResponseSchema.parse(response.body);
  };
  return { clock, auth, post, challenge, secret };
}

describe('relay auth routes', () => {
  it('issues a challenge naming the wallet, id, chain and time, and exchanges its signature for a wallet JWT', async () => {
    const { clock, auth, post, challenge } = setup();
    const issued = await challenge();
    expect(issued.challengeId).toMatch(/^[0-9a-f]{32}$/);
    expect(issued.message).toContain(walletAddress);
    expect(issued.message).toContain(issued.challengeId);
    expect(issued.message).toContain('31337');
    expect(issued.message).toContain(new Date(clock.now()).toISOString());
    expect(Date.parse(issued.expiresAt)).toBe(clock.now() + CHALLENGE_LIFETIME_MS);

    const signature = await personalSign(wallet, { message: issued.message });
    const response = await post('/auth/token', JSON.stringify({ challengeId: issued.challengeId, signature }));
    expect(response.status).toBe(200);
    const token = tokenResponseSchema.parse(response.body);
    expect(token).toMatchObject({ tokenType: 'Bearer', wallet: walletAddress });
    expect(Date.parse(token.expiresAt)).toBe(clock.now() + 60_000);
    const claims = JSON.parse(Buffer.from(token.accessToken.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims.wallet).toBe(walletAddress);

    expect(auth.authenticate(`Bearer ${token.accessToken}`)).toMatchObject({ ok: true, wallet: walletAddress });
    expect(auth.authenticate(`bearer ${token.accessToken}`)).toMatchObject({ ok: true });
    clock.advanceBy(59_999);
    expect(auth.authenticate(`Bearer ${token.accessToken}`).ok).toBe(true);
    clock.advanceBy(1);
    expect(auth.authenticate(`Bearer ${token.accessToken}`)).toEqual({ ok: false, message: 'JWT expired' });
  });

  it('consumes a challenge once; a wrong signature does not consume it', async () => {
    const { post, challenge } = setup();
    const issued = await challenge();
    const wrong = await personalSign(other, { message: issued.message });
    const refused = await post('/auth/token', JSON.stringify({ challengeId: issued.challengeId, signature: wrong }));
    expect(refused).toEqual({
      status: 401,
      body: { code: 'AUTHENTICATION_FAILED', message: 'challenge signature does not recover to the challenge wallet', retryable: false },
    });
    const signature = await personalSign(wallet, { message: issued.message });
    expect((await post('/auth/token', JSON.stringify({ challengeId: issued.challengeId, signature }))).status).toBe(200);
    const replay = await post('/auth/token', JSON.stringify({ challengeId: issued.challengeId, signature }));
    expect(replay).toMatchObject({ status: 401, body: { code: 'AUTHENTICATION_FAILED', message: 'challenge already used' } });
  });

  it('refuses an expired or unknown challenge and a signature over another message', async () => {
    const { clock, post, challenge } = setup();
    const issued = await challenge();
    const signature = await personalSign(wallet, { message: issued.message });
    const otherMessage = await personalSign(wallet, { message: `${issued.message} ` });
    expect((await post('/auth/token', JSON.stringify({ challengeId: issued.challengeId, signature: otherMessage }))).status).toBe(401);
    expect(await post('/auth/token', JSON.stringify({ challengeId: 'ab'.repeat(16), signature }))).toMatchObject({
      status: 401,
      body: { message: 'unknown challenge' },
    });
    clock.advanceBy(CHALLENGE_LIFETIME_MS);
    expect(await post('/auth/token', JSON.stringify({ challengeId: issued.challengeId, signature }))).toMatchObject({
      status: 401,
      body: { message: 'challenge expired' },
    });
  });

  it('refuses a high-s challenge signature as an authentication failure', async () => {
    const { post, challenge } = setup();
    const issued = await challenge();
    const signature = await personalSign(wallet, { message: issued.message });
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const s = BigInt(`0x${signature.slice(66, 130)}`);
    const v = signature.slice(130) === '1b' ? '1c' : '1b';
    const high = `${signature.slice(0, 66)}${(n - s).toString(16).padStart(64, '0')}${v}`;
    const response = await post('/auth/token', JSON.stringify({ challengeId: issued.challengeId, signature: high }));
    expect(response).toMatchObject({ status: 401, body: { code: 'AUTHENTICATION_FAILED' } });
    expect((response.body as { message: string }).message).toContain('high-s');
  });

  it('refuses malformed bodies with the relay input codes and the JSON path', async () => {
    const { post } = setup();
    const cases: [string, number, string, string?][] = [
      ['{', 400, 'INVALID_JSON'],
      [`{"wallet":"${walletAddress}","wallet":"${walletAddress}"}`, 400, 'DUPLICATE_FIELD', '$.wallet'],
      [`{"wallet":"${walletAddress}","extra":1}`, 400, 'UNKNOWN_FIELD', '$.extra'],
      [`{"wallet":"${wallet.address}"}`, 400, 'NON_CANONICAL', '$.wallet'],
      ['{"wallet":42}', 400, 'INVALID_REQUEST', '$.wallet'],
      ['[]', 400, 'INVALID_REQUEST'],
      ['{}', 400, 'INVALID_REQUEST', '$.wallet'],
    ];
    for (const [body, status, code, path] of cases) {
      const response = await post('/auth/challenge', body);
      expect(response.status, body).toBe(status);
      expect(response.body, body).toMatchObject({ code, retryable: false });
      if (path) expect((response.body as { message: string }).message, body).toContain(path);
    }
    const token = await post('/auth/token', JSON.stringify({ challengeId: 'AB'.repeat(16), signature: `0x${'00'.repeat(65)}` }));
    expect(token).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
  });

  it('authenticates only Bearer relay JWTs signed with its key, unexpired', async () => {
    const { clock, auth, secret } = setup();
    const exp = Math.floor(clock.now() / 1000) + 60;
    const good = signJwt(secret, { wallet: walletAddress, aud: 'relay', exp });
    expect(auth.authenticate(`Bearer ${good}`).ok).toBe(true);
    expect(auth.authenticate(undefined)).toEqual({ ok: false, message: 'missing Authorization: Bearer <JWT>' });
    expect(auth.authenticate(`Basic ${good}`).ok).toBe(false);
    expect(auth.authenticate(`Bearer ${good}x`)).toEqual({ ok: false, message: 'JWT signature does not verify' });
    expect(auth.authenticate('Bearer a.b.c')).toEqual({ ok: false, message: 'malformed JWT' });
    const foreign = signJwt(JwtSecret.fromBytes(new Uint8Array(32).fill(9)), { wallet: walletAddress, aud: 'relay', exp });
    expect(auth.authenticate(`Bearer ${foreign}`).ok).toBe(false);
    const quoteLike = signJwt(secret, { user_address: walletAddress, exp });
    expect(auth.authenticate(`Bearer ${quoteLike}`)).toEqual({ ok: false, message: 'not a relay JWT' });
    const expired = signJwt(secret, { wallet: walletAddress, aud: 'relay', exp: Math.floor(clock.now() / 1000) });
    expect(auth.authenticate(`Bearer ${expired}`)).toEqual({ ok: false, message: 'JWT expired' });
  });

  it('forgets expired challenges', async () => {
    const { clock, auth, challenge } = setup();
    await challenge();
    await challenge();
    expect(auth.outstandingChallenges()).toBe(2);
    clock.advanceBy(CHALLENGE_LIFETIME_MS);
    await challenge();
    expect(auth.outstandingChallenges()).toBe(1);
  });
});

describe('relay auth: the expire-tokens fault', () => {
  it('refuses every JWT issued before as expired, accepts those issued after, and other keys stay bad signatures', async () => {
    const { auth, secret } = setup(3600);
    const claims = { wallet: walletAddress, aud: 'relay', iat: 1_735_689_600, exp: 1_735_693_200 };
    const before = signJwt(secret, claims);
    expect(auth.authenticate(`Bearer ${before}`)).toMatchObject({ ok: true });
    auth.expireIssuedTokens();
    expect(auth.authenticate(`Bearer ${before}`)).toEqual({ ok: false, message: 'JWT expired' });
    const stranger = signJwt(JwtSecret.fromBytes(new Uint8Array(32).fill(3)), claims);
    expect(auth.authenticate(`Bearer ${stranger}`)).toEqual({ ok: false, message: 'JWT signature does not verify' });
    // Sixteen more expiries: the oldest key is forgotten, its token then fails as any unknown key's (still a 401).
    for (let i = 0; i < 16; i++) auth.expireIssuedTokens();
    expect(auth.authenticate(`Bearer ${before}`)).toEqual({ ok: false, message: 'JWT signature does not verify' });
  });
});
