import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { RelayAuthError, createRelayAuthClient } from '../../src/clients/relay-auth-client.ts';
import { createRelayRestClient } from '../../src/clients/relay-rest-client.ts';
import { ClientError } from '../../src/clients/client-error.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { BoundJwt, JwtStore } from '../../src/protocol/jwt-store.ts';
import { recoverPersonalSignSigner } from '../../src/protocol/personal-sign.ts';
import { parseRelayRestRequest } from '../../src/protocol/relay-request.ts';
import { batchRequest, context, json, runOnClock, stubTransport } from './support.ts';

const T0 = Date.UTC(2024, 7, 8, 12, 0, 0);
// Anvil's second well-known test key: public, never funded anywhere real.
const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const wallet = account.address.toLowerCase() as `0x${string}`;
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJ3YWxsZXQiOiIweDcwIn0.c2lnbmF0dXJlLXNlY3JldA';
const requestId = '019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7b';

describe('relay auth client', () => {
  it('challenge, personal_sign of the exact message, token: stores a BoundJwt for (network, wallet)', async () => {
    const clock = new VirtualClock(T0);
    const message = 'Sign in to the relay.\n\nWallet: ' + wallet + '\nNonce: 1';
    const stub = stubTransport(clock, (request) => async () => {
      const body = JSON.parse(request.body ?? '{}') as Record<string, string>;
      if (request.url.endsWith('/auth/challenge')) {
        expect(body).toEqual({ wallet });
        return json(200, { challengeId: 'a'.repeat(32), message, expiresAt: new Date(T0 + 300_000).toISOString() });
      }
      expect(body['challengeId']).toBe('a'.repeat(32));
      expect(await recoverPersonalSignSigner({ message, signature: body['signature']! })).toBe(wallet);
      return json(200, { accessToken: JWT, tokenType: 'Bearer', expiresAt: new Date(T0 + 3_600_000).toISOString(), wallet });
    });
    const store = new JwtStore();
    const auth = createRelayAuthClient(context(clock, stub.transport), { baseUrl: 'http://relay.test', network: 'testnet', store });
    const jwt = await auth.authenticate(account);
    expect(jwt.expiresAtMs).toBe(T0 + 3_600_000);
    expect(String(jwt)).toBe('[redacted JWT]');
    expect(store.get('testnet', wallet, T0)?.reveal('testnet')).toBe(JWT);
    expect(store.get('mainnet', wallet, T0)).toBeUndefined();
    expect(() => jwt.reveal('sim')).toThrowError(expect.objectContaining({ code: 'JWT_NETWORK_MISMATCH' }));
  });

  it('a 401 AUTHENTICATION_FAILED is a RelayAuthError with the relay code', async () => {
    const clock = new VirtualClock(T0);
    const stub = stubTransport(clock, [
      json(200, { challengeId: 'b'.repeat(32), message: 'hello', expiresAt: new Date(T0 + 300_000).toISOString() }),
      json(401, { code: 'AUTHENTICATION_FAILED', message: 'challenge expired', retryable: false }),
    ]);
    const auth = createRelayAuthClient(context(clock, stub.transport), { baseUrl: 'http://relay.test', network: 'testnet', store: new JwtStore() });
    const error = await auth.authenticate(account).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RelayAuthError);
    expect(error).toMatchObject({ code: 'RELAY_AUTH_FAILED', relayCode: 'AUTHENTICATION_FAILED', retryable: false, status: 401 });
    expect(stub.requests).toHaveLength(2);
  });

  it('refuses a JWT issued for another wallet', async () => {
    const clock = new VirtualClock(T0);
    const stub = stubTransport(clock, [
      json(200, { challengeId: 'c'.repeat(32), message: 'hello', expiresAt: new Date(T0 + 300_000).toISOString() }),
      json(200, { accessToken: JWT, tokenType: 'Bearer', expiresAt: new Date(T0 + 3_600_000).toISOString(), wallet: `0x${'99'.repeat(20)}` }),
    ]);
    const store = new JwtStore();
    const auth = createRelayAuthClient(context(clock, stub.transport), { baseUrl: 'http://relay.test', network: 'testnet', store });
    await expect(auth.authenticate(account)).rejects.toMatchObject({ code: 'RELAY_AUTH_FAILED', relayCode: 'WALLET_MISMATCH' });
    expect(store.get('testnet', wallet, T0)).toBeUndefined();
  });
});

describe('relay REST client', () => {
  function setup(replies: Parameters<typeof stubTransport>[1], network = 'testnet') {
    const clock = new VirtualClock(T0);
    const stub = stubTransport(clock, replies);
    const store = new JwtStore();
    store.set(new BoundJwt({ token: JWT, network: 'testnet', wallet, expiresAtMs: T0 + 3_600_000 }));
    const relay = createRelayRestClient(context(clock, stub.transport), { baseUrl: 'http://relay.test', network, store, timeoutMs: 5_000 });
    return { clock, stub, relay, store };
  }
  const broadcast = { requestId, status: 'BROADCAST', txHash: `0x${'12'.repeat(32)}`, sponsorAddress: `0x${'34'.repeat(20)}`, sponsorNonce: '5', transactionType: 'DYNAMIC_FEE' };
  const rejected = {
    requestId,
    status: 'REJECTED',
    code: 'NONCE_NOT_INCREASING',
    message: 'nonce 1723161600000 is not above 1723161600001',
    retryable: false,
    retryAfterMs: null,
    candidateTxHash: null,
    sponsorAddress: null,
    sponsorNonce: null,
  };

  it('POSTs the encoded request with the Bearer JWT of its network in the header only', async () => {
    const { relay, stub } = setup([json(200, broadcast)]);
    const request = batchRequest(wallet, requestId);
    expect(await relay.send(request)).toEqual(broadcast);
    const sent = stub.requests[0]!;
    expect(sent.url).toBe('http://relay.test/relay');
    expect(sent.url).not.toContain(JWT);
    expect(sent.headers['authorization']).toBe(`Bearer ${JWT}`);
    expect(parseRelayRestRequest(sent.body!)).toEqual({ ok: true, value: request });
  });

  it('REJECTED and UNKNOWN answers are values, whatever their HTTP status', async () => {
    const unknown = { ...rejected, status: 'UNKNOWN', code: 'BROADCAST_RESULT_UNKNOWN', candidateTxHash: `0x${'56'.repeat(32)}`, sponsorAddress: `0x${'34'.repeat(20)}`, sponsorNonce: '6' };
    expect(await setup([json(422, rejected)]).relay.send(batchRequest(wallet, requestId))).toEqual(rejected);
    expect(await setup([json(503, unknown)]).relay.send(batchRequest(wallet, requestId))).toEqual(unknown);
    const serverError = { ...rejected, requestId: null, code: 'INTERNAL_ERROR', retryable: true };
    expect(await setup([json(500, serverError)]).relay.send(batchRequest(wallet, requestId))).toMatchObject({ requestId, status: 'REJECTED', code: 'INTERNAL_ERROR' });
  });

  it('is never retried; a lost answer is UNKNOWN (reconcile), a request that never left throws', async () => {
    const silent = setup(() => () => new Promise(() => undefined));
    const answer = await runOnClock(silent.clock, silent.relay.send(batchRequest(wallet, requestId)));
    expect(answer).toMatchObject({ requestId, status: 'UNKNOWN', code: 'BROADCAST_RESULT_UNKNOWN', retryable: false });
    expect(silent.stub.requests).toHaveLength(1);

    const reset = setup([new ClientError('HTTP_UNAVAILABLE', 'socket hang up', { details: { requestMayHaveBeenSent: true } })]);
    expect(await reset.relay.send(batchRequest(wallet, requestId))).toMatchObject({ status: 'UNKNOWN' });

    const refused = setup([new ClientError('HTTP_UNAVAILABLE', 'connect ECONNREFUSED', { details: { requestMayHaveBeenSent: false } })]);
    await expect(refused.relay.send(batchRequest(wallet, requestId))).rejects.toMatchObject({ code: 'HTTP_UNAVAILABLE' });
    expect(refused.stub.requests).toHaveLength(1);
  });

  it('needs an unexpired JWT of its own network: RELAY_NOT_AUTHENTICATED otherwise, nothing sent', async () => {
    const other = setup([json(200, broadcast)], 'mainnet');
    await expect(other.relay.send(batchRequest(wallet, requestId))).rejects.toMatchObject({ code: 'RELAY_NOT_AUTHENTICATED' });
    expect(other.stub.requests).toHaveLength(0);
    const expiring = setup([json(200, broadcast)]);
    expiring.clock.advanceTo(T0 + 3_600_000 - 1_000);
    await expect(expiring.relay.send(batchRequest(wallet, requestId))).rejects.toMatchObject({ code: 'RELAY_NOT_AUTHENTICATED' });
  });

  it('a 401 without the response shape is a RelayAuthError; no JWT in any error', async () => {
    const { relay } = setup([json(401, { code: 'AUTHENTICATION_FAILED', message: `JWT expired: ${JWT}`, retryable: false })]);
    const error = (await relay.send(batchRequest(wallet, requestId)).catch((caught: unknown) => caught)) as Error;
    expect(error).toMatchObject({ code: 'RELAY_AUTH_FAILED', relayCode: 'AUTHENTICATION_FAILED' });
    expect(error.message).not.toContain(JWT);
    expect(JSON.stringify(error)).not.toContain(JWT);
  });
});
