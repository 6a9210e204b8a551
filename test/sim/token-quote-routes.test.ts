import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/logger.ts';
import { generateTokenResponseSchema, quoteResponseSchema } from '../../src/protocol/quote.ts';
import { tokenEnvelopeSchema } from '../../src/protocol/tokens.ts';
import { createHttpServer } from '../../src/sim/http-server.ts';
import { createSimDispatch } from '../../src/sim/route-dispatch.ts';
import { JwtSecret, signJwt, verifyJwt } from '../../src/sim/jwt.ts';
import { quoteTokenClaimsSchema, tokenQuoteRoutes } from '../../src/sim/token-quote-routes.ts';
import { call } from './sim-request.ts';
import { createVenueFixture, type VenueFixture } from './venue-fixture.ts';

const USER = '0x00000000000000000000000000000000000Abc01';
const secret = JwtSecret.fromBytes(new Uint8Array(32).fill(3));
let fixture: VenueFixture;

beforeAll(async () => {
  fixture = await createVenueFixture({ levels: 10, trades: 2 });
});

function routes(lifetimeSec = 3600) {
  return tokenQuoteRoutes(fixture.venue, { clock: fixture.clock, secret, quoteTokenLifetimeSec: lifetimeSec });
}

async function issue(r: ReturnType<typeof routes>, userAddress: string = USER): Promise<string> {
  const response = await call(r, { method: 'POST', url: '/api/generate-token', body: JSON.stringify({ user_address: userAddress }) });
  expect(response.status).toBe(200);
  return generateTokenResponseSchema.parse(response.body).token;
}

function quoteBody(overrides: Record<string, unknown> = {}): string {
  const { baseToken, quoteToken } = fixture.monUsdc;
  return JSON.stringify({
    userAddress: USER,
    tokenIn: quoteToken.address,
    tokenOut: baseToken.address,
    amount: '1000000',
    slippageTolerance: 50,
    autoSlippage: false,
    ...overrides,
  });
}

function quote(r: ReturnType<typeof routes>, token: string | undefined, body = quoteBody()) {
  return call(r, { method: 'POST', url: '/api/quote', body, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
}

describe('token metadata', () => {
  it('answers {feedEpoch: null, data} for a venue token', async () => {
    const response = await call(routes(), { url: `/api/v1/tokens/${fixture.monUsdc.quoteToken.address}` });
    expect(response.status).toBe(200);
    const envelope = tokenEnvelopeSchema.parse(response.body);
    expect(envelope.feedEpoch).toBeNull();
    expect(envelope.data).toMatchObject({ tokenAddress: fixture.monUsdc.quoteToken.address, symbol: 'USDC', decimals: 6 });
  });

  it('refuses a non-lowercase address (400) and answers an unknown token 404, both {error}', async () => {
    const upper = fixture.monUsdc.quoteToken.address.toUpperCase().replace('0X', '0x');
    expect(await call(routes(), { url: `/api/v1/tokens/${upper}` })).toEqual({
      status: 400,
      body: { error: 'tokenAddress: expected a lowercase 20-byte address (0x and 40 lowercase hex characters)' },
    });
    const unknown = '0x000000000000000000000000000000000000dead';
    expect(await call(routes(), { url: `/api/v1/tokens/${unknown}` })).toEqual({
      status: 404,
      body: { error: `token ${unknown} is not a token of this venue` },
    });
  });
});

describe('generate-token', () => {
  it('issues an HS256 JWT for the user, expiring after the configured lifetime, 1 rps burst 1', async () => {
    const r = routes(120);
    const response = await call(r, { method: 'POST', url: '/api/generate-token', body: JSON.stringify({ user_address: USER }) });
    const answer = generateTokenResponseSchema.parse(response.body);
    const nowSec = Math.floor(fixture.clock.now() / 1000);
    expect(answer.expires_at).toBe(nowSec + 120);
    expect(answer.rate_limit).toEqual({ rps: 1, burst: 1 });
    const verified = verifyJwt(secret, answer.token, { nowMs: fixture.clock.now(), claims: quoteTokenClaimsSchema });
    expect(verified).toMatchObject({ ok: true, claims: { user: USER.toLowerCase(), aud: 'quote', iat: nowSec, exp: nowSec + 120 } });
    // Each token is distinct (its own rate-limit bucket).
    expect(await issue(r)).not.toBe(answer.token);
  });

  it('refuses bad JSON, a missing or bad user_address and unknown fields with 400 {error}', async () => {
    const r = routes();
    const post = (body: string) => call(r, { method: 'POST', url: '/api/generate-token', body });
    expect(await post('{')).toEqual({ status: 400, body: { error: 'request body is not valid JSON' } });
    expect(await post('')).toEqual({ status: 400, body: { error: 'request body is not valid JSON' } });
    expect((await post('{}')).body).toMatchObject({ error: expect.stringMatching(/^user_address: /) });
    expect((await post('{"user_address":"0x12"}')).body).toEqual({ error: 'user_address: expected 0x and 40 hex characters' });
    expect((await post(JSON.stringify({ user_address: USER, extra: 1 }))).body).toMatchObject({ error: expect.stringContaining('extra') });
    expect((await post('[]')).status).toBe(400);
  });
});

describe('quote', () => {
  it('answers a quote for a valid token and body', async () => {
    const r = routes();
    const response = await quote(r, await issue(r));
    expect(response.status).toBe(200);
    expect(quoteResponseSchema.parse(response.body).type).toBe('swap_calculation');
  });

  it('refuses a missing, malformed, foreign, tampered or expired token with 401 {error}', async () => {
    const r = routes(60);
    const token = await issue(r);
    expect(await quote(r, undefined)).toEqual({ status: 401, body: { error: 'missing Authorization: Bearer <token> (from POST /api/generate-token)' } });
    expect((await call(r, { method: 'POST', url: '/api/quote', body: quoteBody(), headers: { authorization: `Basic ${token}` } })).status).toBe(401);
    expect(await quote(r, 'not-a-jwt')).toEqual({ status: 401, body: { error: 'invalid token' } });
    const foreign = signJwt(JwtSecret.generate(), { user: USER.toLowerCase(), aud: 'quote', jti: '1', iat: 0, exp: 4_000_000_000 });
    expect(await quote(r, foreign)).toEqual({ status: 401, body: { error: 'invalid token' } });
    // A token of this server's key but another kind (no quote audience).
    const relayLike = signJwt(secret, { wallet: USER.toLowerCase(), iat: 0, exp: 4_000_000_000 });
    expect(await quote(r, relayLike)).toEqual({ status: 401, body: { error: 'invalid token' } });
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, exp: 4_000_000_000 })).toString('base64url')}.${signature}`;
    expect(await quote(r, tampered)).toEqual({ status: 401, body: { error: 'invalid token' } });
    fixture.clock.advanceBy(60_000);
    expect(await quote(r, token)).toEqual({ status: 401, body: { error: 'token expired' } });
  });

  it('allows 1 request per second per token, burst 1, then 429 {error} with Retry-After', async () => {
    const r = routes();
    const token = await issue(r);
    const other = await issue(r);
    expect((await quote(r, token)).status).toBe(200);
    const refused = await quote(r, token);
    expect(refused.status).toBe(429);
    expect(refused.headers).toEqual({ 'Retry-After': '1' });
    expect(refused.body).toEqual({ error: 'rate limit exceeded: 1 request per second per token, burst 1' });
    // Another token has its own bucket.
    expect((await quote(r, other)).status).toBe(200);
    fixture.clock.advanceBy(999);
    expect((await quote(r, token)).status).toBe(429);
    fixture.clock.advanceBy(1);
    expect((await quote(r, token)).status).toBe(200);
    // A refused body still spends the request.
    fixture.clock.advanceBy(1000);
    expect((await quote(r, token, '{')).status).toBe(400);
    expect((await quote(r, token)).status).toBe(429);
  });

  const badBodies: [string, Record<string, unknown>, RegExp][] = [
    ['slippage 0', { slippageTolerance: 0 }, /^slippageTolerance: /],
    ['slippage 10001', { slippageTolerance: 10_001 }, /^slippageTolerance: /],
    ['fractional slippage', { slippageTolerance: 1.5 }, /^slippageTolerance: /],
    ['amount with a sign', { amount: '-1' }, /^amount: /],
    ['amount as a number', { amount: 5 }, /^amount: /],
    ['bad tokenIn', { tokenIn: 'MON' }, /^tokenIn: /],
    ['referrer fee 10001', { referrerFeeBps: 10_001 }, /^referrerFeeBps: /],
    ['missing autoSlippage', { autoSlippage: undefined }, /^autoSlippage: /],
    ['an unknown field', { deadline: 5 }, /deadline/],
  ];
  it.each(badBodies)('refuses %s with 400 naming the field', async (_name, overrides, message) => {
    const r = routes();
    const response = await quote(r, await issue(r), quoteBody(overrides));
    expect(response.status).toBe(400);
    expect((response.body as { error: string }).error).toMatch(message);
  });

  it('never logs a token or the secret, over HTTP with the log at trace level', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'trace', destination: { write: (line: string) => void lines.push(line) } });
    const throwing = { method: 'POST' as const, pattern: '/api/boom', handler: () => Promise.reject(new Error(`secret ${String(secret)}`)) };
    const server = createHttpServer({ dispatch: createSimDispatch({ routes: [...routes(), throwing], maxBodyBytes: 4096, logger }), logger, clock: fixture.clock });
    const { url } = await server.listen(0);
    try {
      const issued = await fetch(`${url}/api/generate-token`, { method: 'POST', body: JSON.stringify({ user_address: USER }) });
      const { token } = generateTokenResponseSchema.parse(await issued.json());
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      expect((await fetch(`${url}/api/quote`, { method: 'POST', headers, body: quoteBody() })).status).toBe(200);
      expect((await fetch(`${url}/api/quote`, { method: 'POST', headers, body: quoteBody() })).status).toBe(429);
      expect((await fetch(`${url}/api/quote`, { method: 'POST', headers: { authorization: `Bearer ${token}x` }, body: quoteBody() })).status).toBe(401);
      expect((await fetch(`${url}/api/boom`, { method: 'POST', headers, body: '{}' })).status).toBe(500);
      const log = lines.join('');
      expect(lines.length).toBeGreaterThan(4);
      for (const part of token.split('.').slice(1)) expect(log).not.toContain(part);
      expect(log).not.toContain(Buffer.alloc(32, 3).toString('base64url'));
      expect(log).not.toContain(Buffer.alloc(32, 3).toString('hex'));
    } finally {
      await server.close();
    }
  });
});
