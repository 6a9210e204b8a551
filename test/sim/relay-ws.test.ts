/**
 * The relay WebSocket over a real socket: upgrade refusals (token in the URL, bad or expired JWT),
 * one connection per wallet, one answer per id, the 64-pending-outcome limit, frame limits and the
 * injected faults; the server keeps serving after each. The venue runs on a virtual clock: blocks,
 * outcome delays and socket drops happen when a test moves the clock, and "nothing came" is checked
 * after a round trip on the same socket (`TestSocket.sync`), never after a sleep.
 */
import { connect as connectTcp } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import type { OrderIntent } from '../../src/protocol/intent-types.ts';
import {
  OTHER_WALLET,
  WALLET,
  batchWsFrame,
  bearer,
  getJson,
  nextNonce,
  onboard,
  postJson,
  signIn,
  startTestVenue,
  TestSocket,
  upgradeRefusal,
  waitForReceipt,
  type TestVenue,
} from './relay-harness.ts';

const clock = new VirtualClock(Date.now());
let venue: TestVenue;
let accountId: bigint;
let token: string;
let market: `0x${string}`;
const open: TestSocket[] = [];

const ioc: OrderIntent = { side: 'BUY', quantity: 100n, price: 300_000n, tif: 'IOC', executionInstruction: 'NONE', minSizeAfterBlock: 0n };
/** The next block: its outcomes go out before `advanceBy` returns. */
const mine = () => clock.advanceBy(venue.config.blockMs);

async function connect(jwt = token): Promise<TestSocket> {
  const socket = await TestSocket.connect(venue.url, jwt);
  open.push(socket);
  return socket;
}

beforeAll(async () => {
  venue = await startTestVenue({ clock, blockMs: 20, maxBodyBytes: 64 * 1024 });
  ({ accountId, token } = await onboard(venue));
  market = venue.config.markets[0]!.address;
});
afterAll(() => venue.stop());
afterEach(async () => {
  for (const socket of open.splice(0)) socket.close();
  await postJson(`${venue.url}/sim/faults`, { dropWebSocketsEveryMs: 0, outcomeDelayMs: 0, withholdOutcomesRate: 0, unknownResponseRate: 0 });
  // The server keeps serving after every case.
  expect((await getJson(`${venue.url}/sim/info`)).status).toBe(200);
});

describe('relay WebSocket upgrade', () => {
  it('refuses any query with HTTP 400, even with a valid Authorization header, and never accepts a token in the URL', async () => {
    for (const query of [`?token=${token}`, `?access_token=${token}`, `?jwt=${token}`, '?foo=1', '?=']) {
      const withHeader = await upgradeRefusal(venue.url, `/relay/ws${query}`, bearer(token));
      expect(withHeader, query).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST', retryable: false } });
      expect(await upgradeRefusal(venue.url, `/relay/ws${query}`, {}), query).toMatchObject({ status: 400 });
    }
    // A lone `?` (URL clients drop it, so write the request by hand).
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connectTcp(Number(new URL(venue.url).port), '127.0.0.1', () => {
        socket.write(
          `GET /relay/ws? HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n` +
            `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer ${token}\r\n\r\n`,
        );
      });
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(venue.server.relayWs.connectionCount()).toBe(0);
  });

  it('refuses a missing or bad JWT with HTTP 401 and an unknown path with 404', async () => {
    expect(await upgradeRefusal(venue.url, '/relay/ws', {})).toMatchObject({ status: 401, body: { code: 'AUTHENTICATION_FAILED' } });
    expect(await upgradeRefusal(venue.url, '/relay/ws', { authorization: 'Bearer x.y.z' })).toMatchObject({ status: 401 });
    expect(await upgradeRefusal(venue.url, '/relay/ws', { authorization: token })).toMatchObject({ status: 401 });
    expect(await upgradeRefusal(venue.url, '/other', bearer(token))).toMatchObject({ status: 404 });
    expect(await upgradeRefusal(venue.url, '/relay/ws', bearer(token))).toBeUndefined();
  });

  it('refuses an expired JWT with HTTP 401 (virtual clock)', async () => {
    const clock = new VirtualClock(Date.now());
    const virtual = await startTestVenue({ clock, jwtLifetimeSec: 1, blockMs: 1000 });
    try {
      const jwt = await signIn(virtual.url, WALLET);
      expect(await upgradeRefusal(virtual.url, '/relay/ws', bearer(jwt))).toBeUndefined();
      clock.advanceBy(1000);
      expect(await upgradeRefusal(virtual.url, '/relay/ws', bearer(jwt))).toMatchObject({
        status: 401,
        body: { code: 'AUTHENTICATION_FAILED', message: 'JWT expired' },
      });
    } finally {
      await virtual.stop();
    }
  });
});

describe('relay WebSocket connections', () => {
  it('replaces the connection of a wallet: the old one is closed with 4001', async () => {
    const first = await connect();
    const second = await connect();
    expect(await first.waitClosed()).toEqual({ code: 4001, reason: 'REPLACED' });
    const other = await connect(await signIn(venue.url, OTHER_WALLET));
    second.send(await batchWsFrame(venue, WALLET, 'after-replace', { accountId, market, orders: [ioc] }));
    expect(await second.message('response', 'after-replace')).toMatchObject({ status: 'BROADCAST' });
    expect(second.closed).toBeUndefined();
    expect(other.closed).toBeUndefined();
    expect(venue.server.relayWs.connectionCount()).toBe(2);
  });

  it('answers an unreadable frame with an error, and every frame with an id with exactly one response', async () => {
    const socket = await connect();
    socket.send('not json');
    socket.send('{"method":"wallet.execute_batch"}');
    socket.send('{"id":"a","method":"nope","payload":{}}');
    socket.send('{"id":"b","method":"wallet.execute_batch","payload":{},"wallet":"0x"}');
    socket.send('{"id":"c","id":"c","method":"wallet.execute_batch","payload":{}}');
    socket.send('{"id":"a","method":"nope","payload":{}}');
    socket.send(await batchWsFrame(venue, WALLET, 'good', { accountId, market, orders: [ioc] }));
    await socket.message('response', 'good');
    expect(socket.messages.slice(0, 7).map((message) => [message.type, message.id ?? null, message.code ?? message.status])).toEqual([
      ['error', null, 'INVALID_JSON'],
      ['error', null, 'INVALID_REQUEST'],
      ['response', 'a', 'INVALID_REQUEST'],
      ['response', 'b', 'UNKNOWN_FIELD'],
      ['response', 'c', 'DUPLICATE_FIELD'],
      ['response', 'a', 'INVALID_REQUEST'],
      ['response', 'good', 'BROADCAST'],
    ]);
    expect(socket.messages[3].message).toContain('$.wallet');
    expect(socket.messages[4].message).toContain('$.id');
    expect(socket.messages[5].message).toBe('id already used on this connection');
    expect(socket.messages[2]).toMatchObject({ status: 'REJECTED', retryable: false, retryAfterMs: null, candidateTxHash: null });
  });

  it('refuses a nonce that does not increase within the connection', async () => {
    const socket = await connect();
    const nonce = nextNonce(clock);
    socket.send(await batchWsFrame(venue, WALLET, 'n1', { accountId, market, orders: [ioc], nonce }));
    socket.send(await batchWsFrame(venue, WALLET, 'n2', { accountId, market, orders: [ioc], nonce }));
    expect(await socket.message('response', 'n1')).toMatchObject({ status: 'BROADCAST' });
    expect(await socket.message('response', 'n2')).toMatchObject({ status: 'REJECTED', code: 'NONCE_NOT_INCREASING' });
  });

  it('closes with 4008 PENDING_OUTCOME_LIMIT after the response of the 65th pending transaction, which is broadcast', async () => {
    // No block while the 65 are sent: every outcome stays pending.
    const socket = await connect();
    const frames: string[] = [];
    for (let i = 0; i < 65; i++) frames.push(await batchWsFrame(venue, WALLET, `p${i}`, { accountId, market, orders: [ioc] }));
    for (const frame of frames) socket.send(frame);
    const closed = await socket.waitClosed();
    expect(closed).toEqual({ code: 4008, reason: 'PENDING_OUTCOME_LIMIT' });
    const responses = socket.messages.filter((message) => message.type === 'response');
    expect(responses).toHaveLength(65);
    expect(responses.every((response) => response.status === 'BROADCAST')).toBe(true);
    expect(responses.at(-1).id).toBe('p64');
    expect(socket.messages.some((message) => message.type === 'outcome')).toBe(false);
    mine();
    expect((await waitForReceipt(venue.url, responses.at(-1).txHash)).status).toBe('success');
    // The outcomes of the closed connection go nowhere; a new connection works.
    const next = await connect();
    next.send(await batchWsFrame(venue, WALLET, 'after-limit', { accountId, market, orders: [ioc] }));
    await next.message('response', 'after-limit');
    mine();
    expect(await next.message('outcome', 'after-limit')).toMatchObject({ status: 'CONFIRMED' });
    expect(next.messages.filter((message) => /^p\d+$/.test(message.id ?? ''))).toEqual([]);
    expect(venue.server.relayWs.pendingOutcomeCount()).toBe(0);
  });

  it('closes a socket that sends a frame over the size limit with 1009', async () => {
    const socket = await connect();
    socket.send(JSON.stringify({ id: 'big', pad: 'x'.repeat(70 * 1024) }));
    expect((await socket.waitClosed()).code).toBe(1009);
  });

  it('does not re-send outcomes of a closed connection', async () => {
    const socket = await connect();
    socket.send(await batchWsFrame(venue, WALLET, 'orphan', { accountId, market, orders: [ioc] }));
    const response = await socket.message('response', 'orphan');
    socket.close();
    await socket.waitClosed();
    const next = await connect();
    mine();
    expect((await waitForReceipt(venue.url, response.txHash)).status).toBe('success');
    expect(venue.server.relayWs.pendingOutcomeCount()).toBe(0);
    // The outcome went out (or not) during mine(), before this round trip.
    await next.sync();
    expect(next.messages).toEqual([]);
  });
});

describe('relay WebSocket faults', () => {
  it('drops every socket every dropWebSocketsEveryMs', async () => {
    const socket = await connect();
    await postJson(`${venue.url}/sim/faults`, { dropWebSocketsEveryMs: 50 });
    clock.advanceBy(49);
    await socket.sync();
    expect(socket.closed).toBeUndefined();
    clock.advanceBy(1);
    expect((await socket.waitClosed()).code).toBe(1006);
    // And again 50 ms later, for the socket that replaced it.
    const again = await connect();
    clock.advanceBy(50);
    expect((await again.waitClosed()).code).toBe(1006);
  });

  it('withholds outcomes at withholdOutcomesRate', async () => {
    await postJson(`${venue.url}/sim/faults`, { withholdOutcomesRate: 1 });
    const socket = await connect();
    socket.send(await batchWsFrame(venue, WALLET, 'held', { accountId, market, orders: [ioc] }));
    const response = await socket.message('response', 'held');
    expect(response.status).toBe('BROADCAST');
    expect(venue.server.relayWs.pendingOutcomeCount()).toBe(1);
    mine();
    expect((await waitForReceipt(venue.url, response.txHash)).status).toBe('success');
    expect(venue.server.relayWs.pendingOutcomeCount()).toBe(0);
    await socket.sync();
    expect(socket.messages.filter((message) => message.type === 'outcome')).toEqual([]);
  });

  it('delays outcomes by outcomeDelayMs', async () => {
    await postJson(`${venue.url}/sim/faults`, { outcomeDelayMs: 300 });
    const socket = await connect();
    socket.send(await batchWsFrame(venue, WALLET, 'late', { accountId, market, orders: [ioc] }));
    const response = await socket.message('response', 'late');
    mine();
    await waitForReceipt(venue.url, response.txHash);
    // Still pending (and unsent) 1 ms before the delay ends …
    clock.advanceBy(299);
    await socket.sync();
    expect(socket.messages.some((message) => message.type === 'outcome')).toBe(false);
    expect(venue.server.relayWs.pendingOutcomeCount()).toBe(1);
    // … sent when it ends.
    clock.advanceBy(1);
    expect(await socket.message('outcome', 'late')).toMatchObject({ status: 'CONFIRMED', txHash: response.txHash });
    expect(venue.server.relayWs.pendingOutcomeCount()).toBe(0);
  });

  it('answers UNKNOWN with the candidate hash at unknownResponseRate, and the transaction is sent', async () => {
    await postJson(`${venue.url}/sim/faults`, { unknownResponseRate: 1 });
    const socket = await connect();
    socket.send(await batchWsFrame(venue, WALLET, 'unsure', { accountId, market, orders: [ioc] }));
    const response = await socket.message('response', 'unsure');
    expect(response).toMatchObject({ status: 'UNKNOWN', code: 'BROADCAST_RESULT_UNKNOWN', retryable: false });
    mine();
    expect((await waitForReceipt(venue.url, response.candidateTxHash)).status).toBe('success');
  });
});
