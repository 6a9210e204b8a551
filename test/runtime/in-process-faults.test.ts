/**
 * Faults of the local venue reaching the real clients through the in-process connection, on a
 * VirtualClock driven from event to event: a drop scripted at t = 12.4 s and the relay WebSocket
 * client's reconnect at its exact virtual time, the 4008 close, expired JWTs and the re-sign-in,
 * a market-data 429 whose Retry-After the client waits out, 5xx retried, and injected REJECTED,
 * UNKNOWN and delayed-outcome answers, each exactly as the relay would send them.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { filter, firstValueFrom, skip } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { HttpTransport } from '../../src/clients/http-transport.ts';
import { createMarketDataClient } from '../../src/clients/market-data-client.ts';
import { createRelayRestClient } from '../../src/clients/relay-rest-client.ts';
import { createRelayWsClient, type RelayWsClient, type RelayWsState } from '../../src/clients/relay-ws-client.ts';
import type { ClientContext } from '../../src/clients/send-request.ts';
import { createIdSource } from '../../src/core/ids.ts';
import { createLogger } from '../../src/core/logger.ts';
import { seededRandom } from '../../src/core/random.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import type { FaultScript } from '../../src/config/fault-config.ts';
import { loadConfigOrThrow } from '../../src/config/load-config.ts';
import { resolveNetwork } from '../../src/config/network-config.ts';
import { simConfigSchema, type SimConfig } from '../../src/config/sim-config.ts';
import { createRelaySession, type RelaySession } from '../../src/execution/relay-session.ts';
import { Permission, RelayMethod, WS_CLOSE_PENDING_OUTCOME_LIMIT } from '../../src/protocol/constants.ts';
import { accountCoreDomain } from '../../src/protocol/eip712-types.ts';
import { signAuthorization7702 } from '../../src/protocol/eip7702.ts';
import type { Address } from '../../src/protocol/encoding.ts';
import { signAuthorizeAccountSigner } from '../../src/protocol/intent-signing.ts';
import type { RelayWsRequest } from '../../src/protocol/relay-request.ts';
import { createInProcessVenue, type InProcessVenue } from '../../src/runtime/in-process-venue.ts';
import { createPendingWork, type PendingWork } from '../../src/runtime/pending-work.ts';
import { runOnVirtualClock } from '../../src/runtime/virtual-driver.ts';

const T0 = Date.UTC(2026, 0, 1);
/** One-way delay of every message of the connection. */
const LATENCY_MS = 30;
const OWNER = privateKeyToAccount(`0x${'d4'.repeat(32)}`);
const WALLET = privateKeyToAccount(`0x${'e5'.repeat(32)}`);
const lower = (address: string) => address.toLowerCase() as Address;

interface World {
  readonly clock: VirtualClock;
  readonly venue: InProcessVenue;
  readonly pending: PendingWork;
  readonly config: SimConfig;
  readonly context: ClientContext;
  readonly hosts: ReturnType<typeof resolveNetwork>['hosts'];
}

async function world(faults?: FaultScript): Promise<World> {
  const base = await loadConfigOrThrow(new URL('../../config/sim.yaml', import.meta.url).pathname, simConfigSchema, { env: {} });
  const config: SimConfig = { ...base, blockMs: 50 };
  const clock = new VirtualClock(T0);
  const pending = createPendingWork();
  const latency = { kind: 'constant', ms: LATENCY_MS } as const;
  const venue = createInProcessVenue({
    config,
    clock,
    random: seededRandom(1),
    secrets: seededRandom(2),
    latencyRandom: seededRandom(3),
    latency: { relay: latency, marketData: latency, userData: latency },
    logger: createLogger({ level: 'silent' }),
    pending,
    backgroundFlow: false,
    ...(faults === undefined ? {} : { faults }),
  });
  venue.start();
  const hosts = resolveNetwork('sim', { venueUrl: venue.url, chainId: config.chainId }).hosts;
  return { clock, venue, pending, config, context: { transport: venue.transport, clock, random: seededRandom(4) }, hosts };
}

/** Runs `work` on the world's virtual clock; fails after `limitMs` of virtual time instead of running the blocks forever. */
async function run<T>(w: World, work: () => Promise<T>, limitMs = 120_000): Promise<T> {
  let expire: (error: Error) => void = () => undefined;
  const limited = new Promise<never>((_, reject) => (expire = reject));
  const timer = w.clock.scheduler.schedule(() => expire(new Error(`still waiting after ${limitMs} ms of virtual time`)), limitMs);
  try {
    return await runOnVirtualClock(w.clock, () => Promise.race([work(), limited]), { busy: w.pending.busy });
  } finally {
    timer.unsubscribe();
    w.venue.stop();
  }
}

/** OWNER's TRADE grant to WALLET (with WALLET's delegation when `delegate`): what the relay broadcasts once OWNER has an account. */
async function grant(w: World, nonce: bigint, delegate: boolean): Promise<Pick<RelayWsRequest & { method: typeof RelayMethod.authorizeAccountSigner }, 'method' | 'payload' | 'authorization7702'>> {
  const { chainId, contracts } = w.config;
  const intent = {
    account: lower(OWNER.address),
    authorizer: lower(OWNER.address),
    signer: lower(WALLET.address),
    permissions: BigInt(Permission.TRADE),
    expiry: 0n,
    nonce,
    deadline: BigInt(Math.floor(w.clock.now() / 1000) + 300),
  };
  const signature = await signAuthorizeAccountSigner(OWNER, { domain: accountCoreDomain({ chainId, accountCore: contracts.accountCore }), intent });
  const authorization7702 = delegate ? await signAuthorization7702(WALLET, { chainId: BigInt(chainId), delegate: contracts.tradingWalletDelegate, nonce: 0n }) : null;
  return { method: RelayMethod.authorizeAccountSigner, payload: { ...intent, signature }, authorization7702 };
}

/** Opens OWNER's account on the venue. */
function fundOwner(w: World): void {
  const usdc = w.venue.service.venue.info().tokens.find((token) => token.symbol === 'USDC')!.address;
  w.venue.service.venue.fund(lower(OWNER.address), usdc, 10n ** 9n);
}

/** A signed-in relay WebSocket client of WALLET, with every state it passes through and when. */
function wsClient(w: World): { session: RelaySession; client: RelayWsClient; states: { at: number; state: RelayWsState }[]; signIns: number[] } {
  const session = createRelaySession(w.context, { network: 'sim', relayUrl: w.hosts.relayUrl!, signer: WALLET });
  const client = createRelayWsClient({ clock: w.clock, random: seededRandom(5) }, { url: w.hosts.relayWsUrl!, session, createSocket: w.venue.createSocket });
  const states: { at: number; state: RelayWsState }[] = [];
  const signIns: number[] = [];
  client.state$.subscribe((state) => states.push({ at: w.clock.now() - T0, state }));
  session.renewals$.subscribe(() => signIns.push(w.clock.now() - T0));
  return { session, client, states, signIns };
}

function nextState(client: RelayWsClient, predicate: (state: RelayWsState) => boolean): Promise<RelayWsState> {
  return firstValueFrom(client.state$.pipe(filter(predicate)));
}

const isOpen = (state: RelayWsState) => state.status === 'open';

describe('in-process venue faults: the relay WebSocket', () => {
  it('drops the connection at exactly t = 12.4 s (a run file script); the client sees 1006 and reconnects after its backoff', async () => {
    const w = await world([{ at: 12_400, fault: { action: 'drop-connections' } }]);
    const { client, states } = wsClient(w);
    await run(w, async () => {
      client.start();
      await nextState(client, isOpen);
      const closed = await nextState(client, (state) => state.status === 'closed');
      await nextState(client, isOpen);
      await client.stop();
      return closed;
    });
    const closedAt = states.findIndex(({ state }) => state.status === 'closed');
    const closed = states[closedAt]!;
    // The cut happens at 12 400 ms; the client learns it one connection delay later.
    expect(closed).toMatchObject({ at: 12_400 + LATENCY_MS, state: { status: 'closed', code: 1006, kind: 'dropped' } });
    const reconnectInMs = (closed.state as { reconnectInMs: number }).reconnectInMs;
    expect(reconnectInMs).toBeGreaterThanOrEqual(125);
    expect(reconnectInMs).toBeLessThanOrEqual(250);
    // Backoff, then the upgrade request and its answer each travel one delay.
    const reopened = states.slice(closedAt).find(({ state }) => state.status === 'open')!;
    expect(reopened.at).toBe(closed.at + reconnectInMs + 2 * LATENCY_MS);
    expect(states.filter(({ state }) => state.status === 'open')).toHaveLength(2);
  });

  it('closes with 4008 PENDING_OUTCOME_LIMIT when told, and the client reconnects', async () => {
    const w = await world();
    const { client } = wsClient(w);
    const closed = await run(w, async () => {
      client.start();
      await nextState(client, isOpen);
      w.venue.service.faults.apply({ action: 'close-pending-outcome-limit' });
      const state = await nextState(client, (candidate) => candidate.status === 'closed');
      await nextState(client, isOpen);
      await client.stop();
      return state;
    });
    expect(closed).toMatchObject({ status: 'closed', code: WS_CLOSE_PENDING_OUTCOME_LIMIT, reason: 'PENDING_OUTCOME_LIMIT', kind: 'pending-outcome-limit' });
  });

  it('expired JWTs: the reconnect is refused with 401, the session signs in again and the client gets back in', async () => {
    const w = await world([
      { at: 5000, fault: { action: 'expire-tokens' } },
      { at: 5000, fault: { action: 'drop-connections' } },
    ]);
    const { client, states, signIns, session } = wsClient(w);
    const refused = await run(w, async () => {
      client.start();
      await nextState(client, isOpen);
      await nextState(client, (state) => state.status === 'closed' && state.kind === 'dropped');
      const state = await nextState(client, (candidate) => candidate.status === 'closed' && candidate.kind === 'unauthorized');
      await nextState(client, isOpen);
      await client.stop();
      session.stop();
      return state;
    });
    expect(refused).toMatchObject({ kind: 'unauthorized', httpStatus: 401 });
    // One sign-in at the start, one after the refusal; the JWT itself had an hour left.
    expect(signIns).toHaveLength(2);
    expect(signIns[1]).toBeGreaterThan(5000);
    expect(states.filter(({ state }) => state.status === 'open')).toHaveLength(2);
  });

  it('expired JWTs on REST: the relay answers REJECTED AUTHENTICATION_FAILED "JWT expired"; after a new sign-in it answers again', async () => {
    const w = await world();
    const session = createRelaySession(w.context, { network: 'sim', relayUrl: w.hosts.relayUrl!, signer: WALLET });
    const rest = createRelayRestClient(w.context, { baseUrl: w.hosts.relayUrl!, network: 'sim', store: session.store });
    fundOwner(w);
    const ids = createIdSource({ clock: w.clock, random: seededRandom(6) });
    const [expired, again] = await run(w, async () => {
      await session.start();
      const call = await grant(w, 1n, true);
      w.venue.service.faults.apply({ action: 'expire-tokens' });
      const first = await rest.send({ requestId: ids.next(), wallet: lower(WALLET.address), ...call });
      session.invalidate();
      await session.token();
      const second = await rest.send({ requestId: ids.next(), wallet: lower(WALLET.address), ...call });
      session.stop();
      return [first, second];
    });
    expect(expired).toMatchObject({ status: 'REJECTED', code: 'AUTHENTICATION_FAILED', message: 'JWT expired', retryable: false });
    expect(again.status).toBe('BROADCAST');
  });
});

describe('in-process venue faults: market data', () => {
  /** The in-process transport, recording when each request left and its answer came back. */
  function recorded(w: World): { transport: HttpTransport; log: { sentAt: number; status: number; answeredAt: number; retryAfter: string | undefined }[] } {
    const log: { sentAt: number; status: number; answeredAt: number; retryAfter: string | undefined }[] = [];
    const transport: HttpTransport = async (request) => {
      const sentAt = w.clock.now() - T0;
      const response = await w.venue.transport(request);
      log.push({ sentAt, status: response.status, answeredAt: w.clock.now() - T0, retryAfter: response.headers['retry-after'] });
      return response;
    };
    return { transport, log };
  }

  it('a 429 with Retry-After: the client waits exactly that long before it asks again', async () => {
    const w = await world();
    const { transport, log } = recorded(w);
    const market = createMarketDataClient({ ...w.context, transport }, { baseUrl: w.hosts.exchangeUrl! });
    const ticker = await run(w, async () => {
      w.venue.service.faults.apply({ action: 'rate-limit-market-data', count: 1, retryAfterSec: 3 });
      return market.ticker24hr({ symbol: 'MON_USDC' });
    });
    expect(ticker.symbol).toBe('MON_USDC');
    expect(log.map(({ status, retryAfter }) => [status, retryAfter])).toEqual([
      [429, '3'],
      [200, undefined],
    ]);
    expect(log[0]!.answeredAt - log[0]!.sentAt).toBe(2 * LATENCY_MS);
    expect(log[1]!.sentAt - log[0]!.answeredAt).toBe(3000);
  });

  it('5xx answers are retried with backoff until one succeeds; a slow-response setting holds answers back', async () => {
    const w = await world();
    const { transport, log } = recorded(w);
    const market = createMarketDataClient({ ...w.context, transport }, { baseUrl: w.hosts.exchangeUrl! });
    await run(w, async () => {
      w.venue.service.faults.apply({ action: 'fail-market-data', count: 2, status: 500 });
      await market.exchangeInfo();
      w.venue.service.faults.apply({ action: 'set', settings: { marketDataDelayMs: 700 } });
      await market.exchangeInfo();
    });
    expect(log.map(({ status }) => status)).toEqual([500, 500, 200, 200]);
    expect(log[1]!.sentAt).toBeGreaterThan(log[0]!.answeredAt);
    expect(log[3]!.answeredAt - log[3]!.sentAt).toBe(2 * LATENCY_MS + 700);
  });
});

describe('in-process venue faults: relay answers and outcomes', () => {
  it('REJECTED RATE_LIMITED without broadcasting, a delayed outcome, then UNKNOWN with the candidate hash (broadcast, not tracked)', async () => {
    const w = await world();
    fundOwner(w);
    const { client, session } = wsClient(w);
    const ids = createIdSource({ clock: w.clock, random: seededRandom(6) });
    const result = await run(w, async () => {
      client.start();
      await nextState(client, isOpen);
      const first = { id: ids.next(), ...(await grant(w, 1n, true)) };
      w.venue.service.faults.apply({ action: 'answer-rejected', code: 'RATE_LIMITED', retryAfterMs: 2000 });
      const rejected = await client.send(first);
      // Not broadcast: the same grant (one-shot nonce) is taken when sent again.
      w.venue.service.faults.apply({ action: 'delay-outcomes', count: 1, delayMs: 5000 });
      const outcome = firstValueFrom(client.outcomes$);
      const accepted = await client.send({ ...first, id: ids.next() });
      const answeredAt = w.clock.now();
      const delayed = await outcome;
      const outcomeAt = w.clock.now();
      w.venue.service.faults.apply({ action: 'answer-unknown' });
      const unknown = await client.send({ id: ids.next(), ...(await grant(w, 2n, false)) });
      // Two blocks later the transaction is mined, yet no outcome comes for it.
      await new Promise((resolve) => w.clock.scheduler.schedule(resolve, 200));
      const pendingOutcomes = client.pendingOutcomes();
      await client.stop();
      session.stop();
      return { rejected, accepted, delayed, waited: outcomeAt - answeredAt, unknown, pendingOutcomes };
    });
    expect(result.rejected).toMatchObject({ status: 'REJECTED', code: 'RATE_LIMITED', retryable: true, retryAfterMs: 2000, candidateTxHash: null });
    expect(result.accepted.status).toBe('BROADCAST');
    expect(result.delayed.status).toBe('CONFIRMED');
    // Mined within one block (50 ms), held 5 s, then one delay on the way.
    expect(result.waited).toBeGreaterThanOrEqual(5000);
    expect(result.waited).toBeLessThanOrEqual(5000 + 50 + LATENCY_MS);
    expect(result.unknown).toMatchObject({ status: 'UNKNOWN', code: 'BROADCAST_RESULT_UNKNOWN', retryable: false });
    const candidate = (result.unknown as { candidateTxHash: `0x${string}` }).candidateTxHash;
    expect(w.venue.service.venue.receipt(candidate)?.success).toBe(true);
    expect(result.pendingOutcomes).toBe(0);
  });

  it('a slow relay: answers leave relayDelayMs late, outcomes wait behind them, and past the timeout the client answers TIMEOUT', async () => {
    const w = await world();
    fundOwner(w);
    const { client, session } = wsClient(w);
    const ids = createIdSource({ clock: w.clock, random: seededRandom(7) });
    const outcomes: { at: number; matched: boolean }[] = [];
    // An outcome is matched only when its answer came first: the client learns the id from the answer.
    client.outcomes$.subscribe((outcome) => outcomes.push({ at: w.clock.now() - T0, matched: outcome.matched }));
    const times = await run(w, async () => {
      const now = () => w.clock.now() - T0;
      client.start();
      await nextState(client, isOpen);
      w.venue.service.faults.apply({ action: 'set', settings: { relayDelayMs: 3000 } });
      const secondOutcome = firstValueFrom(client.outcomes$.pipe(skip(1)));
      const firstSent = now();
      const first = await client.send({ id: ids.next(), ...(await grant(w, 1n, true)) });
      const firstAnswered = now();
      w.venue.service.faults.apply({ action: 'set', settings: { relayDelayMs: 12_000 } });
      const late = firstValueFrom(client.lateResponses$);
      const secondSent = now();
      const second = await client.send({ id: ids.next(), ...(await grant(w, 2n, false)) }, { timeoutMs: 10_000 });
      const secondAnswered = now();
      const lateResponse = await late;
      const lateAt = now();
      await secondOutcome;
      await client.stop();
      session.stop();
      return { firstSent, first, firstAnswered, secondSent, second, secondAnswered, lateResponse, lateAt };
    });
    expect(times.first.status).toBe('BROADCAST');
    expect(times.firstAnswered - times.firstSent).toBe(3000 + 2 * LATENCY_MS);
    expect(times.second).toMatchObject({ status: 'TIMEOUT', timeoutMs: 10_000 });
    expect(times.secondAnswered - times.secondSent).toBe(10_000);
    expect(times.lateResponse.status).toBe('BROADCAST');
    expect(times.lateAt - times.secondSent).toBe(12_000 + 2 * LATENCY_MS);
    // Each mined within a block, yet delivered only behind its late answer.
    expect(outcomes).toEqual([
      { at: times.firstAnswered, matched: true },
      { at: times.lateAt, matched: true },
    ]);
  });

  it('a close waits behind answers still held back: the answer arrives, then the 4008', async () => {
    const w = await world();
    fundOwner(w);
    const { client, session, states } = wsClient(w);
    const ids = createIdSource({ clock: w.clock, random: seededRandom(8) });
    const answer = await run(w, async () => {
      client.start();
      await nextState(client, isOpen);
      w.venue.service.faults.apply({ action: 'set', settings: { relayDelayMs: 1000 } });
      const sent = client.send({ id: ids.next(), ...(await grant(w, 1n, true)) });
      // Once the relay has the request (one delay), close every connection.
      await new Promise((resolve) => w.clock.scheduler.schedule(resolve, LATENCY_MS + 1));
      w.venue.service.faults.apply({ action: 'close-pending-outcome-limit' });
      const result = await sent;
      await nextState(client, (state) => state.status === 'closed');
      await client.stop();
      session.stop();
      return result;
    });
    expect(answer.status).toBe('BROADCAST');
    expect(states.find(({ state }) => state.status === 'closed')?.state).toMatchObject({ code: WS_CLOSE_PENDING_OUTCOME_LIMIT, kind: 'pending-outcome-limit' });
  });
});
