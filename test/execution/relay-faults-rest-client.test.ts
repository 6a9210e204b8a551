/**
 * How the relay REST client reads answers that do not come in the relay's shape (from the edge in
 * front of it), over a stub transport for the cases the local venue never sends: a 429 is REJECTED
 * RATE_LIMITED, retryable, with `Retry-After` as `retryAfterMs` (seconds or an HTTP date; null
 * without it), whatever its body; a 5xx is UNKNOWN BROADCAST_RESULT_UNKNOWN (the relay may have
 * broadcast it); a relay-shaped 429 without `retryAfterMs` takes `Retry-After`. Each is sent once.
 */
import { describe, expect, it } from 'vitest';
import { createRelayRestClient } from '../../src/clients/relay-rest-client.ts';
import type { HttpResponse } from '../../src/clients/http-transport.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { RelayMethod } from '../../src/protocol/constants.ts';
import { BoundJwt, JwtStore } from '../../src/protocol/jwt-store.ts';
import { parseRelayRestRequest, type RelayRestRequest } from '../../src/protocol/relay-request.ts';
import { context, json, runOnClock, stubTransport } from '../clients/support.ts';

const T0 = Date.UTC(2026, 0, 1);
const wallet = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const requestId = '019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7b';

function request(): RelayRestRequest {
  const parsed = parseRelayRestRequest(
    JSON.stringify({
      requestId,
      method: RelayMethod.cancelTrigger,
      wallet,
      payload: { accountId: '7', authNonce: '0', nonce: '1767225600000', deadline: '1767225660', triggerId: `0x${'11'.repeat(32)}`, signature: `0x${'ab'.repeat(65)}` },
      authorization7702: null,
    }),
  );
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

async function answerTo(reply: HttpResponse) {
  const clock = new VirtualClock(T0);
  const stub = stubTransport(clock, [reply]);
  const store = new JwtStore();
  store.set(new BoundJwt({ token: 'eyJhbGciOiJIUzI1NiJ9.eyJ3YWxsZXQiOiIweDcwIn0.c2ln', network: 'sim', wallet, expiresAtMs: T0 + 3_600_000 }));
  const client = createRelayRestClient(context(clock, stub.transport), { baseUrl: 'http://relay.test', network: 'sim', store });
  const answer = await runOnClock(clock, client.send(request()));
  expect(stub.requests).toHaveLength(1);
  return answer;
}

const edge429 = { code: -1003, msg: 'Too many requests queued.' };

describe('relay REST client: answers of the edge in front of the relay', () => {
  it('a 429 with Binance’s body and Retry-After in seconds: REJECTED RATE_LIMITED, retryable, retryAfterMs from the header', async () => {
    expect(await answerTo(json(429, edge429, { 'retry-after': '3' }))).toEqual({
      requestId,
      status: 'REJECTED',
      code: 'RATE_LIMITED',
      message: 'HTTP 429 (Too many requests queued.): not processed; retry after 3000 ms',
      retryable: true,
      retryAfterMs: 3000,
      candidateTxHash: null,
      sponsorAddress: null,
      sponsorNonce: null,
    });
  });

  it('a 429 with an HTTP date, with plain text, or with no Retry-After at all', async () => {
    expect(await answerTo(json(429, edge429, { 'retry-after': new Date(T0 + 5_000).toUTCString() }))).toMatchObject({ status: 'REJECTED', code: 'RATE_LIMITED', retryAfterMs: 5_000 });
    expect(await answerTo({ status: 429, headers: { 'content-type': 'text/html', 'retry-after': '2' }, text: '<html>slow down</html>' })).toMatchObject({ status: 'REJECTED', code: 'RATE_LIMITED', retryable: true, retryAfterMs: 2_000 });
    expect(await answerTo(json(429, edge429))).toMatchObject({ status: 'REJECTED', code: 'RATE_LIMITED', retryable: true, retryAfterMs: null });
  });

  it('a 5xx without the relay’s shape: UNKNOWN BROADCAST_RESULT_UNKNOWN, to reconcile', async () => {
    for (const [status, body] of [
      [500, { code: -1000, msg: 'An unknown error occurred while processing the request.' }],
      [502, { code: -1001, msg: 'Internal error; unable to process your request. Please try again.' }],
      [503, 'Service Unavailable'],
    ] as const) {
      const reply = typeof body === 'string' ? { status, headers: { 'content-type': 'text/plain' }, text: body } : json(status, body);
      expect(await answerTo(reply), `HTTP ${status}`).toMatchObject({ requestId, status: 'UNKNOWN', code: 'BROADCAST_RESULT_UNKNOWN', retryable: false, candidateTxHash: null });
    }
  });

  it('the relay’s own answers keep their fields: a RATE_LIMITED without retryAfterMs takes Retry-After, one with it keeps it', async () => {
    const relayRefusal = { requestId, status: 'REJECTED', code: 'RATE_LIMITED', message: 'too many requests', retryable: true, retryAfterMs: null, candidateTxHash: null, sponsorAddress: null, sponsorNonce: null };
    expect(await answerTo(json(429, relayRefusal, { 'retry-after': '4' }))).toEqual({ ...relayRefusal, retryAfterMs: 4_000 });
    expect(await answerTo(json(429, { ...relayRefusal, retryAfterMs: 1_500 }, { 'retry-after': '2' }))).toEqual({ ...relayRefusal, retryAfterMs: 1_500 });
    const internal = { ...relayRefusal, code: 'INTERNAL_ERROR', message: 'the relay failed before broadcasting' };
    expect(await answerTo(json(500, internal))).toEqual(internal);
  });
});
