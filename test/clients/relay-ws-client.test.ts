import { afterEach, describe, expect, it } from 'vitest';
import { liveClock } from '../../src/core/clock.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import {
  createRelayWsClient,
  type RelayTokenSource,
  type RelayWsClient,
  type RelayWsState,
  type WsAnswer,
  type WsConnectionEvent,
  type WsFrameError,
  type WsOutcome,
  type WsResponse,
} from '../../src/clients/relay-ws-client.ts';
import { createRelaySession, type RelaySession } from '../../src/execution/relay-session.ts';
import { RelayMethod, WS_CLOSE_PENDING_OUTCOME_LIMIT, WS_CLOSE_REPLACED } from '../../src/protocol/constants.ts';
import { BoundJwt } from '../../src/protocol/jwt-store.ts';
import type { RelayWsRequest } from '../../src/protocol/relay-request.ts';
import { seededRandom } from '../../src/core/random.ts';
import {
  OWNER,
  WALLET,
  lower,
  nextRequestId,
  onboard,
  postJson,
  restingBuy,
  signedBatch,
  startTestVenue,
  type TestVenue,
} from '../sim/relay-harness.ts';
import { clientContext, onboardByBlocks, recordingSocketFactory, reconnectInMs, TcpProxy, when } from '../execution/relay-support.ts';

let venue: TestVenue | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await venue?.stop();
  venue = undefined;
});

function sessionFor(url: string): RelaySession {
  const session = createRelaySession(clientContext(liveClock), { network: 'sim', relayUrl: url, signer: WALLET });
  cleanups.push(() => session.stop());
  return session;
}

interface Watched {
  readonly client: RelayWsClient;
  readonly states: RelayWsState[];
  readonly connections: WsConnectionEvent[];
  readonly outcomes: WsOutcome[];
  readonly late: WsResponse[];
}

function watch(client: RelayWsClient): Watched {
  const watched: Watched = { client, states: [], connections: [], outcomes: [], late: [] };
  client.state$.subscribe((state) => watched.states.push(state));
  client.connections$.subscribe((event) => watched.connections.push(event));
  client.outcomes$.subscribe((outcome) => watched.outcomes.push(outcome));
  client.lateResponses$.subscribe((response) => watched.late.push(response));
  cleanups.push(() => client.stop());
  return watched;
}

async function batchRequest(accountId: bigint, market: `0x${string}`): Promise<RelayWsRequest> {
  const payload = await signedBatch(venue!, WALLET, { accountId, market, orders: [restingBuy()] });
  return { id: nextRequestId(), method: RelayMethod.executeBatch, payload, authorization7702: null };
}

const wsUrl = (url: string) => `${url.replace(/^http/, 'ws')}/relay/ws`;
const market = () => venue!.config.markets[0]!.address as `0x${string}`;

describe('relay WebSocket client against the local venue', () => {
  it('keeps many requests in flight, answers each id exactly once and matches every outcome', async () => {
    venue = await startTestVenue();
    const { accountId } = await onboard(venue);
    const recorder = recordingSocketFactory();
    const session = sessionFor(venue.url);
    const client = createRelayWsClient({ clock: liveClock, random: seededRandom(1) }, { url: wsUrl(venue.url), session, createSocket: recorder.createSocket });
    const watched = watch(client);
    client.start();
    expect(await client.whenOpen(5_000)).toBe(true);
    expect(watched.connections).toEqual([{ connectionId: 1, previous: undefined }]);

    // Signed in nonce order, sent in that order, all at once.
    const requests: RelayWsRequest[] = [];
    for (let i = 0; i < 40; i += 1) requests.push(await batchRequest(accountId, market()));
    const answers = await Promise.all(requests.map((request) => client.send(request)));
    expect(answers.map((answer) => answer.id)).toEqual(requests.map((request) => request.id));
    for (const answer of answers) expect(answer.status, JSON.stringify(answer)).toBe('BROADCAST');

    await when(client.outcomes$, () => watched.outcomes.length === 40, '40 outcomes', 10_000);
    const hashes = new Map(answers.map((answer) => [answer.id, answer.status === 'BROADCAST' ? answer.txHash : '']));
    for (const outcome of watched.outcomes) {
      expect(outcome.status).toBe('CONFIRMED');
      expect(outcome.matched).toBe(true);
      expect(outcome.txHash).toBe(hashes.get(outcome.id));
      expect(outcome.connectionId).toBe(1);
    }
    expect(new Set(watched.outcomes.map((outcome) => outcome.id)).size).toBe(40);
    expect(client.pendingOutcomes()).toBe(0);

    // The JWT went in the Authorization header, never in the URL.
    const jwt = session.current()!.reveal('sim');
    expect(recorder.sockets).toHaveLength(1);
    expect(recorder.sockets[0]!.url).toBe(wsUrl(venue.url));
    expect(recorder.sockets[0]!.url).not.toContain(jwt);
    expect(recorder.sockets[0]!.headers['authorization']).toBe(`Bearer ${jwt}`);
  });

  it('answers TIMEOUT after responseTimeoutMs and delivers the late response on lateResponses$ only', async () => {
    venue = await startTestVenue();
    const { accountId } = await onboard(venue);
    const clock = new VirtualClock(Date.now());
    const session = createRelaySession(clientContext(liveClock), { network: 'sim', relayUrl: venue.url, signer: WALLET });
    cleanups.push(() => session.stop());
    const client = createRelayWsClient({ clock, random: seededRandom(1) }, { url: wsUrl(venue.url), session, responseTimeoutMs: 1_000 });
    const watched = watch(client);
    client.start();
    expect(await client.whenOpen(5_000)).toBe(true);

    const request = await batchRequest(accountId, market());
    const answers: WsAnswer[] = [];
    const sent = client.send(request).then((answer) => {
      answers.push(answer);
      return answer;
    });
    // The virtual second passes before the venue can answer.
    clock.advanceBy(1_000);
    expect(await sent).toEqual({ id: request.id, status: 'TIMEOUT', timeoutMs: 1_000 });
    await when(client.lateResponses$, () => watched.late.length === 1, 'the late response');
    expect(watched.late[0]).toMatchObject({ id: request.id, status: 'BROADCAST' });
    // The outcome of a late BROADCAST still comes, matched to its id.
    await when(client.outcomes$, () => watched.outcomes.length === 1, 'the outcome');
    expect(watched.outcomes[0]).toMatchObject({ id: request.id, status: 'CONFIRMED', matched: true });
    expect(answers).toHaveLength(1);
  });

  it('answers DISCONNECTED when the socket drops mid-flight, then reconnects with a new session and tells of it', async () => {
    venue = await startTestVenue();
    const { accountId } = await onboard(venue);
    const proxy = await TcpProxy.start(venue.url);
    cleanups.push(() => proxy.stop());
    const recorder = recordingSocketFactory();
    const session = sessionFor(venue.url);
    // The reconnect backoff runs on this clock.
    const clock = new VirtualClock(Date.now());
    const client = createRelayWsClient(
      { clock, random: seededRandom(2) },
      { url: wsUrl(proxy.url), session, createSocket: recorder.createSocket, reconnect: { initialDelayMs: 20, maxDelayMs: 200 } },
    );
    const watched = watch(client);
    client.start();
    expect(await client.whenOpen(5_000)).toBe(true);

    const requests: RelayWsRequest[] = [];
    for (let i = 0; i < 5; i += 1) requests.push(await batchRequest(accountId, market()));
    // The venue answers, but nothing it sends reaches the client before the connection is cut.
    proxy.hold = true;
    const pending = requests.map((request) => client.send(request));
    // The venue took all five: their responses sit in the proxy.
    await proxy.whenHeld((text) => text.split('"type":"response"').length - 1 >= 5);
    proxy.cut();
    const answers = await Promise.all(pending);
    for (const [index, answer] of answers.entries()) {
      expect(answer).toEqual({ id: requests[index]!.id, status: 'DISCONNECTED', code: 1006, reason: '' });
    }
    proxy.hold = false;
    const closed = watched.states.find((state) => state.status === 'closed');
    expect(closed).toMatchObject({ status: 'closed', connectionId: 1, code: 1006, kind: 'dropped' });
    // It reconnects when the backoff has passed on the clock, not before.
    const delay = reconnectInMs(client);
    expect(delay).toBeGreaterThanOrEqual(10);
    expect(delay).toBeLessThanOrEqual(20);
    clock.advanceBy(delay - 1);
    expect(client.state().status).toBe('closed');
    clock.advanceBy(1);
    expect(client.state().status).toBe('connecting');
    await when(client.connections$, () => watched.connections.length === 2, 'the reconnect');
    const second = watched.connections[1]!;
    expect(second.connectionId).toBe(2);
    // The caller learns which ids to reconcile.
    expect([...(second.previous?.awaitingOutcome ?? [])].sort()).toEqual(requests.map((request) => request.id).sort());
    expect(recorder.sockets).toHaveLength(2);

    // The new connection works, with nonces above the old ones.
    const next = await batchRequest(accountId, market());
    expect(await client.send(next)).toMatchObject({ id: next.id, status: 'BROADCAST' });
  });

  it('reconnects after the venue drops every socket (fault dropWebSocketsEveryMs; venue and client on one virtual clock)', async () => {
    const clock = new VirtualClock(Date.now());
    venue = await startTestVenue({ clock });
    const session = sessionFor(venue.url);
    const client = createRelayWsClient({ clock, random: seededRandom(3) }, { url: wsUrl(venue.url), session, reconnect: { initialDelayMs: 20, maxDelayMs: 100 } });
    const watched = watch(client);
    client.start();
    expect(await client.whenOpen(5_000)).toBe(true);
    await postJson(`${venue.url}/sim/faults`, { dropWebSocketsEveryMs: 100 });
    clock.advanceBy(100);
    await when(client.state$, () => client.state().status === 'closed', 'a drop');
    await postJson(`${venue.url}/sim/faults`, { dropWebSocketsEveryMs: 0 });
    expect(client.state()).toMatchObject({ code: 1006, kind: 'dropped' });
    const delay = reconnectInMs(client);
    expect(delay).toBeGreaterThanOrEqual(10);
    expect(delay).toBeLessThanOrEqual(20);
    clock.advanceBy(delay);
    await when(client.connections$, () => watched.connections.length === 2 && client.isOpen(), 'a new connection');
  });

  it('sees 4008 PENDING_OUTCOME_LIMIT after 64 pending outcomes, then reconnects', async () => {
    venue = await startTestVenue({ blockMs: 60_000 });
    const accountId = await onboardByBlocks(venue, OWNER, WALLET);
    const session = sessionFor(venue.url);
    const clock = new VirtualClock(Date.now());
    const client = createRelayWsClient({ clock, random: seededRandom(4) }, { url: wsUrl(venue.url), session, reconnect: { initialDelayMs: 20, maxDelayMs: 100 } });
    const watched = watch(client);
    client.start();
    expect(await client.whenOpen(5_000)).toBe(true);

    const requests: RelayWsRequest[] = [];
    for (let i = 0; i < 65; i += 1) requests.push(await batchRequest(accountId, market()));
    const answers = await Promise.all(requests.map((request) => client.send(request)));
    // Every one was answered: the 65th got its response before the close.
    for (const answer of answers) expect(answer.status).toBe('BROADCAST');
    await when(client.state$, () => client.state().status === 'closed', 'the close');
    const closed = client.state();
    clock.advanceBy(reconnectInMs(client));
    await when(client.connections$, () => watched.connections.length === 2, 'the reconnect');
    expect(closed).toMatchObject({ status: 'closed', code: WS_CLOSE_PENDING_OUTCOME_LIMIT, reason: 'PENDING_OUTCOME_LIMIT', kind: 'pending-outcome-limit' });
    // "Some submissions may be out": all 65 await reconciliation.
    expect(closed.status === 'closed' && closed.awaitingOutcome.length).toBe(65);
    expect(watched.connections[1]!.previous?.code).toBe(WS_CLOSE_PENDING_OUTCOME_LIMIT);
    expect(client.pendingOutcomes()).toBe(0);
  });

  it('is closed with 4001 when a second client connects for the same wallet, and leaves the wallet to it', async () => {
    venue = await startTestVenue();
    // Every timer of both clients (a reconnect would be one) runs on this clock.
    const clock = new VirtualClock(Date.now());
    const first = createRelayWsClient({ clock, random: seededRandom(5) }, { url: wsUrl(venue.url), session: sessionFor(venue.url) });
    const second = createRelayWsClient({ clock, random: seededRandom(6) }, { url: wsUrl(venue.url), session: sessionFor(venue.url) });
    const one = watch(first);
    watch(second);
    first.start();
    expect(await first.whenOpen(5_000)).toBe(true);
    second.start();
    expect(await second.whenOpen(5_000)).toBe(true);
    await when(first.state$, () => first.state().status === 'closed', 'the replaced close');
    expect(first.state()).toMatchObject({ status: 'closed', code: WS_CLOSE_REPLACED, reason: 'REPLACED', kind: 'replaced', reconnectInMs: null });
    // No reconnect is due at any time: a minute later it has not even started connecting.
    const statesAtClose = one.states.length;
    clock.advanceBy(60_000);
    expect(one.states).toHaveLength(statesAtClose);
    expect(first.state().status).toBe('closed');
    expect(one.connections).toHaveLength(1);
    expect(second.isOpen()).toBe(true);
    expect(venue.server.relayWs.connectionCount()).toBe(1);
  });

  it('after an HTTP 401 at upgrade, invalidates the JWT and reconnects with a fresh one', async () => {
    venue = await startTestVenue();
    const real = sessionFor(venue.url);
    let invalidated = 0;
    let stale = true;
    const source: RelayTokenSource = {
      network: 'sim',
      wallet: lower(WALLET),
      async token() {
        if (stale) return new BoundJwt({ token: 'eyJhbGciOiJIUzI1NiJ9.eyJ3YWxsZXQiOiIweCJ9.bad', network: 'sim', wallet: lower(WALLET), expiresAtMs: Date.now() + 60_000 });
        return real.token();
      },
      invalidate() {
        invalidated += 1;
        stale = false;
      },
    };
    const clock = new VirtualClock(Date.now());
    const client = createRelayWsClient({ clock, random: seededRandom(7) }, { url: wsUrl(venue.url), session: source, reconnect: { initialDelayMs: 20, maxDelayMs: 100 } });
    const watched = watch(client);
    client.start();
    await when(client.state$, () => client.state().status === 'closed', 'the refused upgrade');
    const refused = client.state();
    expect(refused).toMatchObject({ status: 'closed', kind: 'unauthorized', httpStatus: 401, connectionId: null });
    expect(invalidated).toBe(1);
    clock.advanceBy(reconnectInMs(client));
    expect(await client.whenOpen(5_000)).toBe(true);
    expect(invalidated).toBe(1);
    expect(watched.connections).toEqual([{ connectionId: 1, previous: undefined }]);
  });

  it('surfaces the relay\'s {type: "error"} frames on errors$', async () => {
    venue = await startTestVenue();
    const recorder = recordingSocketFactory();
    const client = createRelayWsClient({ clock: liveClock, random: seededRandom(12) }, { url: wsUrl(venue.url), session: sessionFor(venue.url), createSocket: recorder.createSocket });
    watch(client);
    const errors: WsFrameError[] = [];
    client.errors$.subscribe((error) => errors.push(error));
    client.start();
    expect(await client.whenOpen(5_000)).toBe(true);
    recorder.last()!.send('{not json');
    await when(client.errors$, () => errors.length === 1, 'the error frame');
    expect(errors[0]).toMatchObject({ source: 'relay', code: 'INVALID_JSON', connectionId: 1 });
    expect(client.isOpen()).toBe(true);
  });

  it('answers NOT_SENT while no socket is open, and DISCONNECTED for what is in flight at stop()', async () => {
    venue = await startTestVenue();
    const { accountId } = await onboard(venue);
    const session = sessionFor(venue.url);
    const client = createRelayWsClient({ clock: liveClock, random: seededRandom(8) }, { url: wsUrl(venue.url), session });
    watch(client);
    const early = await batchRequest(accountId, market());
    expect(await client.send(early)).toEqual({ id: early.id, status: 'NOT_SENT', reason: 'no open relay connection' });
    client.start();
    expect(await client.whenOpen(5_000)).toBe(true);
    const request = await batchRequest(accountId, market());
    const answer = client.send(request);
    await client.stop();
    const settled = await answer;
    expect(['DISCONNECTED', 'BROADCAST']).toContain(settled.status);
    expect(client.state()).toMatchObject({ status: 'closed', kind: 'stopped' });
    expect(await client.send(await batchRequest(accountId, market()))).toMatchObject({ status: 'NOT_SENT' });
  });
});
