import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { liveClock } from '../../src/core/clock.ts';
import { seededRandom } from '../../src/core/random.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { createRelayWsClient } from '../../src/clients/relay-ws-client.ts';
import { createReceiptWatcher, type TransportOutcome } from '../../src/execution/relay-receipts.ts';
import { createRelaySession, type RelaySession } from '../../src/execution/relay-session.ts';
import {
  createFailoverTransport,
  createRestRelayTransport,
  createWsRelayTransport,
  type TransportConnectionEvent,
} from '../../src/execution/relay-transport.ts';
import { probeSignerGrant } from '../../src/execution/relay-signer-probe.ts';
import { RelayMethod } from '../../src/protocol/constants.ts';
import type { Hex } from '../../src/protocol/encoding.ts';
import { BoundJwt } from '../../src/protocol/jwt-store.ts';
import type { RelayRestRequest } from '../../src/protocol/relay-request.ts';
import { OTHER_WALLET, WALLET, lower, nextRequestId, onboard, restingBuy, signedBatch, startTestVenue, type TestVenue } from '../sim/relay-harness.ts';
import { clientContext, recordingSocketFactory, recordingTransport, reconnectInMs, TcpProxy, when } from './relay-support.ts';

let venue: TestVenue | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await venue?.stop();
  venue = undefined;
});

const wsUrl = (url: string) => `${url.replace(/^http/, 'ws')}/relay/ws`;
const market = () => venue!.config.markets[0]!.address as `0x${string}`;

async function batch(accountId: bigint): Promise<RelayRestRequest> {
  const payload = await signedBatch(venue!, WALLET, { accountId, market: market(), orders: [restingBuy()] });
  return { requestId: nextRequestId(), method: RelayMethod.executeBatch, wallet: lower(WALLET), payload, authorization7702: null };
}

function session(url: string, transport = recordingTransport().transport): RelaySession {
  const created = createRelaySession(clientContext(liveClock, transport), { network: 'sim', relayUrl: url, signer: WALLET });
  cleanups.push(() => created.stop());
  return created;
}

/** A loopback URL where nothing listens. */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}

function collect<T>(source: { subscribe(next: (value: T) => void): unknown }): T[] {
  const values: T[] = [];
  source.subscribe((value: T) => values.push(value));
  return values;
}

describe('REST relay transport', () => {
  it('submits over POST /relay and reads the outcome from the receipt; the JWT stays out of every URL', async () => {
    venue = await startTestVenue();
    const { accountId } = await onboard(venue);
    const { transport: http, requests } = recordingTransport();
    const rest = createRestRelayTransport(clientContext(liveClock, http), {
      network: 'sim',
      relayUrl: venue.url,
      rpcUrl: `${venue.url}/rpc`,
      session: session(venue.url, http),
      receiptPollMs: 20,
    });
    cleanups.push(() => rest.stop());
    const outcomes = collect<TransportOutcome>(rest.outcomes$);
    await rest.start();
    expect(rest.available()).toBe(true);

    const request = await batch(accountId);
    const answer = await rest.submit(request);
    expect(answer).toMatchObject({ requestId: request.requestId, status: 'BROADCAST', via: 'rest' });
    await when(rest.outcomes$, () => outcomes.length === 1, 'the receipt');
    expect(outcomes[0]).toMatchObject({
      requestId: request.requestId,
      txHash: answer.status === 'BROADCAST' ? answer.txHash : '',
      status: 'CONFIRMED',
      via: 'receipt',
    });
    expect(outcomes[0]!.blockNumber).toBeGreaterThan(0n);
    expect(rest.receipts.watching()).toBe(0);

    const relayCalls = requests.filter((r) => r.url.endsWith('/relay'));
    expect(relayCalls).toHaveLength(1);
    expect(relayCalls[0]!.headers['authorization']).toMatch(/^Bearer eyJ/);
    const jwt = relayCalls[0]!.headers['authorization']!.slice('Bearer '.length);
    for (const seen of requests) expect(seen.url).not.toContain(jwt);
    // Sign-in and receipts carry no credential at all.
    for (const seen of requests.filter((r) => !r.url.endsWith('/relay'))) expect(seen.headers['authorization']).toBeUndefined();
  });

  it('signs in again and sends once more after a 401 (the relay read nothing)', async () => {
    venue = await startTestVenue();
    const { accountId } = await onboard(venue);
    const { transport: http, requests } = recordingTransport();
    const own = session(venue.url, http);
    const rest = createRestRelayTransport(clientContext(liveClock, http), { network: 'sim', relayUrl: venue.url, rpcUrl: `${venue.url}/rpc`, session: own });
    cleanups.push(() => rest.stop());
    await rest.start();
    await own.start();
    // The stored JWT goes bad behind the session's back (as when the relay rotates its key).
    own.store.set(new BoundJwt({ token: 'eyJhbGciOiJIUzI1NiJ9.eyJ4IjoxfQ.forged', network: 'sim', wallet: lower(WALLET), expiresAtMs: Date.now() + 60_000 }));
    const request = await batch(accountId);
    expect(await rest.submit(request)).toMatchObject({ requestId: request.requestId, status: 'BROADCAST' });
    expect(requests.filter((r) => r.url.endsWith('/relay'))).toHaveLength(2);
    expect(requests.filter((r) => r.url.endsWith('/auth/token'))).toHaveLength(2);
  });

  it('answers NOT_SENT when no JWT can be had or the relay cannot be reached, and refuses a request of another wallet', async () => {
    venue = await startTestVenue();
    const dead = await deadUrl();
    const request: RelayRestRequest = {
      requestId: nextRequestId(),
      method: RelayMethod.cancelTrigger,
      wallet: lower(WALLET),
      payload: { accountId: 1n, authNonce: 0n, nonce: 1n, deadline: 1n, triggerId: `0x${'01'.repeat(32)}`, signature: `0x${'11'.repeat(64)}1b` },
      authorization7702: null,
    };
    // The sign-in host is down: nothing is sent.
    const noJwt = createRestRelayTransport(clientContext(liveClock), { network: 'sim', relayUrl: dead, rpcUrl: `${dead}/rpc`, session: session(dead) });
    cleanups.push(() => noJwt.stop());
    await noJwt.start();
    expect(await noJwt.submit(request)).toMatchObject({ requestId: request.requestId, status: 'NOT_SENT', code: 'HTTP_UNAVAILABLE', via: 'rest' });
    // Signed in, but the relay host refuses the connection: nothing is sent either.
    const unreachable = createRestRelayTransport(clientContext(liveClock), { network: 'sim', relayUrl: dead, rpcUrl: `${dead}/rpc`, session: session(venue.url) });
    cleanups.push(() => unreachable.stop());
    await unreachable.start();
    expect(await unreachable.submit(request)).toMatchObject({ requestId: request.requestId, status: 'NOT_SENT', code: 'HTTP_UNAVAILABLE', via: 'rest' });
    await expect(unreachable.submit({ ...request, wallet: lower(OTHER_WALLET) })).rejects.toThrow(/on the transport of/);
    await unreachable.stop();
    expect(await unreachable.submit(request)).toMatchObject({ status: 'NOT_SENT', code: 'RELAY_SESSION_STOPPED' });
  });
});

describe('receipt watcher', () => {
  it('gives up with UNRESOLVED at the deadline (on the clock)', async () => {
    venue = await startTestVenue();
    const clock = new VirtualClock(Date.now());
    const { transport, requests, answered } = recordingTransport();
    const receipts = createReceiptWatcher(clientContext(clock, transport), { rpcUrl: `${venue.url}/rpc`, pollMs: 100, deadlineMs: 1_000 });
    cleanups.push(() => receipts.stop());
    const outcomes = collect<TransportOutcome>(receipts.outcomes$);
    const txHash = `0x${'ab'.repeat(32)}` as Hex;
    receipts.watch({ requestId: 'r1', txHash });
    receipts.watch({ requestId: 'r1', txHash });
    expect(receipts.watching()).toBe(1);
    // One read at once, one per poll; each answered (no receipt) before the clock moves on.
    await answered(1);
    for (let step = 1; step < 10; step += 1) {
      clock.advanceBy(100);
      await answered(step + 1);
      expect(outcomes).toEqual([]);
    }
    expect(requests).toHaveLength(10);
    // The deadline is a clock time: UNRESOLVED at 1 000 ms, with no read.
    clock.advanceBy(100);
    expect(requests).toHaveLength(10);
    expect(receipts.watching()).toBe(0);
    expect(outcomes).toEqual([{ requestId: 'r1', txHash, status: 'UNRESOLVED', blockNumber: null, reason: expect.stringMatching(/no receipt within 1000 ms/), via: 'receipt' }]);
    expect(await receipts.read(txHash)).toBeUndefined();
  });
});

/**
 * An onboarded venue, a failover whose WebSocket goes through a TCP proxy (its backoff and the
 * failover's rule on a virtual clock) and whose REST transport records its requests; the socket is open.
 */
async function failoverBehindProxy(options: { readonly seed: number; readonly reconnectMs: number; readonly restAfterMs: number }) {
  venue = await startTestVenue();
  const { accountId } = await onboard(venue);
  const proxy = await TcpProxy.start(venue.url);
  cleanups.push(() => proxy.stop());
  const own = session(venue.url);
  const clock = new VirtualClock(Date.now());
  const reconnect = { initialDelayMs: options.reconnectMs, maxDelayMs: options.reconnectMs };
  const client = createRelayWsClient({ clock, random: seededRandom(options.seed) }, { url: wsUrl(proxy.url), session: own, reconnect });
  const ws = createWsRelayTransport(client);
  const { transport: http, requests } = recordingTransport();
  const rest = createRestRelayTransport(clientContext(liveClock, http), { network: 'sim', relayUrl: venue.url, rpcUrl: `${venue.url}/rpc`, session: own });
  const failover = createFailoverTransport({ ws, rest, clock, restAfterMs: options.restAfterMs });
  cleanups.push(() => failover.stop());
  await failover.start();
  expect(await client.whenOpen(5_000)).toBe(true);
  return { accountId, proxy, clock, client, ws, failover, requests };
}

describe('failover transport', () => {
  it('uses the WebSocket while it is open, REST at once while it is down, and the WebSocket again when it is back', async () => {
    venue = await startTestVenue();
    const { accountId } = await onboard(venue);
    const proxy = await TcpProxy.start(venue.url);
    cleanups.push(() => proxy.stop());
    const own = session(venue.url);
    const context = clientContext(liveClock);
    const recorder = recordingSocketFactory();
    // The socket's reconnect backoff and the failover's rule run on this clock.
    const clock = new VirtualClock(Date.now());
    const client = createRelayWsClient({ clock, random: seededRandom(9) }, { url: wsUrl(proxy.url), session: own, createSocket: recorder.createSocket, reconnect: { initialDelayMs: 20, maxDelayMs: 50 } });
    const ws = createWsRelayTransport(client);
    const rest = createRestRelayTransport(context, { network: 'sim', relayUrl: venue.url, rpcUrl: `${venue.url}/rpc`, session: own, receiptPollMs: 20 });
    const failover = createFailoverTransport({ ws, rest, clock });
    cleanups.push(() => failover.stop());
    const events = collect<TransportConnectionEvent>(failover.connection$);
    const outcomes = collect<TransportOutcome>(failover.outcomes$);
    await failover.start();
    expect(await client.whenOpen(5_000)).toBe(true);

    const first = await failover.submit(await batch(accountId));
    expect(first).toMatchObject({ status: 'BROADCAST', via: 'ws', connectionId: 1 });
    await when(failover.outcomes$, () => outcomes.length === 1, 'the first outcome');

    // The socket goes down and stays down (the clock does not reach its reconnect): REST at once.
    proxy.cut();
    await when(failover.connection$, () => !ws.available(), 'the drop');
    const second = await failover.submit(await batch(accountId));
    expect(second).toMatchObject({ status: 'BROADCAST', via: 'rest' });
    expect(failover.route()).toBe('rest');

    // Back when the backoff has passed: the WebSocket again, on a new connection.
    clock.advanceBy(reconnectInMs(client));
    await when(failover.connection$, () => ws.available(), 'the reconnect');
    const third = await failover.submit(await batch(accountId));
    expect(third).toMatchObject({ status: 'BROADCAST', via: 'ws', connectionId: 2 });

    expect(events.filter((event) => event.type === 'route').map((event) => event.via)).toEqual(['ws', 'rest', 'ws']);
    expect(events.filter((event) => event.type === 'open').map((event) => event.type === 'open' && event.connectionId)).toEqual([1, 2]);
    const closed = events.find((event) => event.type === 'closed');
    expect(closed?.type === 'closed' && closed.state.kind).toBe('dropped');
    // Outcomes of all three: two from the socket, one from the receipt.
    await when(failover.outcomes$, () => outcomes.length === 3, 'three outcomes');
    const by = new Map(outcomes.map((outcome) => [outcome.requestId, outcome.via]));
    expect(by.get(first.requestId)).toBe('ws');
    expect(by.get(second.requestId)).toBe('receipt');
    expect(by.get(third.requestId)).toBe('ws');
  });

  it('with restAfterMs, a submission waits for the socket to come back instead of switching', async () => {
    const { accountId, proxy, clock, client, ws, failover, requests } = await failoverBehindProxy({ seed: 10, reconnectMs: 100, restAfterMs: 5_000 });
    proxy.cut();
    await when(failover.connection$, () => !ws.available(), 'the drop');
    const request = await batch(accountId);
    const answer = failover.submit(request);
    expect(failover.route()).toBe('waiting');
    // The socket is back after its backoff (well within restAfterMs); the submission went nowhere meanwhile.
    clock.advanceBy(reconnectInMs(client));
    expect(await answer).toMatchObject({ status: 'BROADCAST', via: 'ws', connectionId: 2 });
    expect(requests.filter((r) => r.url.endsWith('/relay'))).toEqual([]);
  });

  it('with restAfterMs, switches to REST once the socket has been down that long', async () => {
    const { accountId, proxy, clock, ws, failover, requests } = await failoverBehindProxy({ seed: 11, reconnectMs: 20, restAfterMs: 300 });
    proxy.refuse = true;
    proxy.cut();
    await when(failover.connection$, () => !ws.available(), 'the drop');
    const request = await batch(accountId);
    const answer = failover.submit(request);
    const relayPosts = () => requests.filter((r) => r.url.endsWith('/relay')).length;
    // Down 299 ms (reconnects refused meanwhile): still waiting, nothing sent …
    clock.advanceBy(299);
    expect(failover.route()).toBe('waiting');
    expect(relayPosts()).toBe(0);
    // … down 300 ms: over REST.
    clock.advanceBy(1);
    expect(failover.route()).toBe('rest');
    expect(await answer).toMatchObject({ requestId: request.requestId, status: 'BROADCAST', via: 'rest' });
    expect(relayPosts()).toBe(1);
  });
});

describe('signer probe', () => {
  it('tells a wallet that is set up from one that is not, and sends nothing', async () => {
    venue = await startTestVenue();
    const own = session(venue.url);
    const rest = createRestRelayTransport(clientContext(liveClock), { network: 'sim', relayUrl: venue.url, rpcUrl: `${venue.url}/rpc`, session: own });
    cleanups.push(() => rest.stop());
    await rest.start();
    const probe = () =>
      probeSignerGrant((request) => rest.submit(request), {
        signer: WALLET,
        chainId: venue!.config.chainId,
        domainVersion: '1',
        accountId: 1n,
        market: market(),
        requestId: nextRequestId(),
        nonce: BigInt(Date.now()),
      });
    expect(await probe()).toMatchObject({ delegated: false, code: 'WALLET_NOT_DELEGATED' });
    const { accountId } = await onboard(venue);
    const ready = await probeSignerGrant((request) => rest.submit(request), {
      signer: WALLET,
      chainId: venue.config.chainId,
      domainVersion: '1',
      accountId,
      market: market(),
      requestId: nextRequestId(),
      nonce: BigInt(Date.now()),
    });
    expect(ready).toMatchObject({ delegated: true, trade: true, code: 'DEADLINE_EXPIRED' });
    // Another account: delegated, but no grant there.
    const elsewhere = await probeSignerGrant((request) => rest.submit(request), {
      signer: WALLET,
      chainId: venue.config.chainId,
      domainVersion: '1',
      accountId: accountId + 1000n,
      market: market(),
      requestId: nextRequestId(),
      nonce: BigInt(Date.now()),
    });
    expect(elsewhere).toMatchObject({ delegated: true, trade: false, code: 'SIGNER_NOT_AUTHORIZED' });
    expect(rest.receipts.watching()).toBe(0);
  });
});
