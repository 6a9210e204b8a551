/**
 * Fuzzing the relay's inbound side: REST answers as the relay REST client reads them (any status,
 * any body) and server frames as the relay WebSocket client reads them over a real loopback socket.
 * A REST answer is a response its schema accepts or a BaseError of a documented code; every frame
 * gives exactly one event (a frame error, an outcome, a response) and the connection stays open.
 */
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { HttpResponse } from '../../src/clients/http-transport.ts';
import { createRelayRestClient } from '../../src/clients/relay-rest-client.ts';
import { createRelayWsClient, type RelayWsClient, type WsFrameError, type WsOutcome } from '../../src/clients/relay-ws-client.ts';
import { liveClock } from '../../src/core/clock.ts';
import type { ErrorCode } from '../../src/core/error-codes.ts';
import { seededRandom } from '../../src/core/random.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { BoundJwt, JwtStore } from '../../src/protocol/jwt-store.ts';

import { relayRestResponseSchema, wsServerMessageSchema } from '../../src/protocol/relay-response.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';
import { batchRequest, context, runOnClock, stubTransport } from '../clients/support.ts';
import { expectTypedOutcome, hostileJson } from './support/hostile.ts';

const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);
const WALLET = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJ3YWxsZXQiOiIweDcwIn0.c2lnbmF0dXJlLXNlY3JldA';
const REQUEST_ID = '019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7b';

const BROADCAST = { status: 'BROADCAST', txHash: `0x${'12'.repeat(32)}`, sponsorAddress: `0x${'34'.repeat(20)}`, sponsorNonce: '5', transactionType: 'DYNAMIC_FEE' };
const REJECTED = { status: 'REJECTED', code: 'NONCE_NOT_INCREASING', message: 'nonce 1 is not above 2', retryable: false, retryAfterMs: null, candidateTxHash: null, sponsorAddress: null, sponsorNonce: null };
const REST_TEMPLATES = [
  JSON.stringify({ requestId: REQUEST_ID, ...BROADCAST }),
  JSON.stringify({ requestId: REQUEST_ID, ...REJECTED }),
  JSON.stringify({ requestId: null, ...REJECTED, code: 'PAYLOAD_TOO_LARGE', message: 'too large' }),
  JSON.stringify({ code: 'AUTHENTICATION_FAILED', message: 'expired', retryable: false }),
];
const FRAME_TEMPLATES = [
  JSON.stringify({ type: 'response', id: 'not-in-flight', ...BROADCAST }),
  JSON.stringify({ type: 'response', id: 'not-in-flight', ...REJECTED }),
  JSON.stringify({ type: 'outcome', id: 'r1', txHash: `0x${'12'.repeat(32)}`, status: 'CONFIRMED', blockNumber: '18446744073709551615', reason: null }),
  JSON.stringify({ type: 'outcome', id: 'r2', txHash: `0x${'AB'.repeat(32)}`, status: 'DROPPED', blockNumber: null, reason: 'gone' }),
  JSON.stringify({ type: 'error', code: 'INVALID_JSON', message: 'not JSON' }),
];

describe('relay REST answers', () => {
  const codes: readonly ErrorCode[] = ['PROTOCOL_SCHEMA_MISMATCH', 'RELAY_AUTH_FAILED', 'HTTP_UNEXPECTED_STATUS', 'HTTP_UNAVAILABLE', 'HTTP_RATE_LIMITED'];
  const status = fc.constantFrom(200, 400, 401, 403, 413, 422, 429, 500, 503, 302);

  async function send(answer: HttpResponse) {
    const clock = new VirtualClock(T0);
    const stub = stubTransport(clock, [answer]);
    const store = new JwtStore();
    store.set(new BoundJwt({ token: JWT, network: 'sim', wallet: WALLET, expiresAtMs: T0 + 3_600_000 }));
    const relay = createRelayRestClient(context(clock, stub.transport), { baseUrl: 'http://relay.test', network: 'sim', store });
    return runOnClock(clock, relay.send(batchRequest(WALLET, REQUEST_ID)));
  }

  it('the templates read (answers) or refuse (the auth failure) as the relay means them', async () => {
    expect(await send({ status: 200, headers: {}, text: REST_TEMPLATES[0]! })).toMatchObject({ requestId: REQUEST_ID, status: 'BROADCAST' });
    expect(await send({ status: 413, headers: {}, text: REST_TEMPLATES[2]! })).toMatchObject({ requestId: REQUEST_ID, code: 'PAYLOAD_TOO_LARGE' });
    await expect(send({ status: 401, headers: {}, text: REST_TEMPLATES[3]! })).rejects.toMatchObject({ code: 'RELAY_AUTH_FAILED' });
  });

  it('any answer is a response its schema accepts, or a typed error', async () => {
    await fc.assert(
      fc.asyncProperty(hostileJson(REST_TEMPLATES), status, async (text, code) => {
        await expectTypedOutcome(() => send({ status: code, headers: {}, text }), codes, (value) => {
          expect(relayRestResponseSchema.safeParse(value).success).toBe(true);
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          if (typeof json === 'object' && json !== null && 'status' in json) {
            // A relay-shaped body is read through the schema, as it is.
            const body = json as Record<string, unknown>;
            expect(relayRestResponseSchema.safeParse({ ...body, requestId: body['requestId'] ?? REQUEST_ID }).success).toBe(true);
            expect(value.status).toBe(body['status']);
          } else if (code === 429) {
            // Anything else in front of the relay: a 429 was not processed, a 5xx may have been.
            expect(value).toMatchObject({ status: 'REJECTED', code: 'RATE_LIMITED', retryable: true });
          } else {
            expect(code).toBeGreaterThanOrEqual(500);
            expect(value).toMatchObject({ status: 'UNKNOWN', code: 'BROADCAST_RESULT_UNKNOWN' });
          }
        });
      }),
      fuzzSettings({ numRuns: 200 }),
    );
  });
});

describe('relay WebSocket frames over loopback', () => {
  let server: WebSocketServer;
  let peer: WebSocket;
  let client: RelayWsClient;
  const errors: WsFrameError[] = [];
  const outcomes: WsOutcome[] = [];
  const late: unknown[] = [];

  beforeAll(async () => {
    server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const connected = new Promise<WebSocket>((resolve) => server.once('connection', (socket) => resolve(socket)));
    const jwt = new BoundJwt({ token: JWT, network: 'sim', wallet: WALLET, expiresAtMs: Date.now() + 3_600_000 });
    client = createRelayWsClient(
      { clock: liveClock, random: seededRandom(1) },
      { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/relay/ws`, session: { network: 'sim', wallet: WALLET, token: async () => jwt, invalidate: () => undefined } },
    );
    client.errors$.subscribe((error) => errors.push(error));
    client.outcomes$.subscribe((outcome) => outcomes.push(outcome));
    client.lateResponses$.subscribe((response) => late.push(response));
    client.start();
    peer = await connected;
    expect(await client.whenOpen(5_000)).toBe(true);
  });
  afterAll(async () => {
    await client.stop();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** Waits until the client has read the sentinel error frame `marker` (frames are read in order). */
  async function sentinel(marker: string): Promise<void> {
    peer.send(JSON.stringify({ type: 'error', code: 'SENTINEL', message: marker }));
    const started = Date.now();
    while (!errors.some((error) => error.code === 'SENTINEL' && error.message === marker)) {
      if (Date.now() - started > 5_000) throw new Error(`the client did not read sentinel ${marker}`);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  it('every frame is one frame error, outcome or response event; the client keeps reading', async () => {
    let round = 0;
    const clientCodes = ['PROTOCOL_INVALID_JSON', 'PROTOCOL_SCHEMA_MISMATCH', 'UNEXPECTED_RESPONSE'];
    await fc.assert(
      fc.asyncProperty(hostileJson(FRAME_TEMPLATES), fc.boolean(), async (text, binary) => {
        round += 1;
        const before = { errors: errors.length, outcomes: outcomes.length, late: late.length };
        peer.send(binary ? Buffer.from(text, 'utf8') : text);
        await sentinel(`s${round}`);
        const newErrors = errors.slice(before.errors, -1);
        const events = newErrors.length + outcomes.length - before.outcomes + late.length - before.late;
        expect(events).toBe(1);
        for (const error of newErrors) {
          if (error.source === 'client') expect(clientCodes).toContain(error.code);
          else expect(wsServerMessageSchema.safeParse(JSON.parse(text)).success).toBe(true);
        }
        if (outcomes.length > before.outcomes) {
          const outcome = outcomes.at(-1)!;
          const parsed = wsServerMessageSchema.parse(JSON.parse(text));
          expect(parsed).toMatchObject({ type: 'outcome', id: outcome.id, status: outcome.status });
          expect(outcome.blockNumber === null || outcome.blockNumber >= 0n).toBe(true);
        }
        expect(client.isOpen()).toBe(true);
      }),
      fuzzSettings({ numRuns: 150 }),
    );
  });
});
