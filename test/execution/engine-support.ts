/**
 * Shared pieces of the engine tests against the real local venue: a venue with short blocks and an
 * onboarded wallet, the real relay transports (WebSocket, REST, failover) over a relay session, the
 * user-data and receipt readers over the real clients, an engine wired to all of it, a journal file
 * system that remembers every line ever written (compaction removes history), and the audits every
 * run must pass.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActiveOrdersClient } from '../../src/clients/active-orders-client.ts';
import { createFetchTransport } from '../../src/clients/http-transport.ts';
import { orderEvents } from '../../src/clients/order-events.ts';
import { createOrderEventsClient } from '../../src/clients/order-events-client.ts';
import { createRelayWsClient } from '../../src/clients/relay-ws-client.ts';
import type { ClientContext } from '../../src/clients/send-request.ts';
import { liveClock, type Clock } from '../../src/core/clock.ts';
import { createIdSource } from '../../src/core/ids.ts';
import { createLogger, type LogLevel } from '../../src/core/logger.ts';
import { seededRandom } from '../../src/core/random.ts';
import { resolveNetwork } from '../../src/config/network-config.ts';
import type { EngineConfig, RiskConfig } from '../../src/config/run-config.ts';
import type { SimConfig } from '../../src/config/sim-config.ts';
import { createExecutionEngine } from '../../src/execution/create-execution-engine.ts';
import type { EngineTuning, ExecutionEngine, ExecutionEngineParameters, ReceiptReader, UserDataReader } from '../../src/execution/execution-engine.ts';
import { decodeJournalLine, type JournalRecord } from '../../src/execution/journal-record.ts';
import { journalPath, nodeJournalFs, openJournal, type JournalFs } from '../../src/execution/journal.ts';
import type { MarketState } from '../../src/execution/portfolio.ts';
import { createReceiptWatcher } from '../../src/execution/relay-receipts.ts';
import { createRelaySession, type RelaySession } from '../../src/execution/relay-session.ts';
import { createFailoverTransport, createRestRelayTransport, createWsRelayTransport, type RelayTransport } from '../../src/execution/relay-transport.ts';
import type { Address, Hex } from '../../src/protocol/encoding.ts';
import type { OrderEvent } from '../../src/protocol/user-data.ts';
import type { Intent, OrderRequest } from '../../src/strategy/intents.ts';
import type { MarketSpec } from '../../src/protocol/market-spec.ts';
import { createSimServer } from '../../src/sim/sim-server.ts';
import { lower, onboard, OWNER, postJson, simYaml, WALLET, type TestVenue } from '../sim/relay-harness.ts';

export { OWNER, WALLET };

export const logLevel = (process.env['CLOBBOT_TEST_LOG'] ?? 'silent') as LogLevel;

export interface EngineVenue {
  readonly venue: TestVenue;
  readonly accountId: bigint;
  readonly markets: readonly MarketSpec[];
  /** MON_USDC. */
  readonly market: MarketSpec;
  /** The mid the risk band uses, price units (0.035 USDC). */
  readonly mid: bigint;
}

export interface EngineVenueOptions {
  readonly blockMs?: number;
  readonly jwtLifetimeSec?: number;
  readonly faults?: Partial<SimConfig['faults']>;
  readonly port?: number;
}

/** A local venue (own config: short blocks, no user-data cache) with OWNER funded and WALLET set up. */
export async function startEngineVenue(options: EngineVenueOptions = {}): Promise<EngineVenue> {
  const base = await simYaml();
  const config: SimConfig = {
    ...base,
    blockMs: options.blockMs ?? 50,
    auth: { ...base.auth, jwtLifetimeSec: options.jwtLifetimeSec ?? base.auth.jwtLifetimeSec },
    userData: { ...base.userData, orderEventsCacheMs: 0 },
    faults: { ...base.faults, ...options.faults },
  };
  const server = createSimServer({ config, clock: liveClock, random: seededRandom(42), logger: createLogger({ level: 'silent' }), backgroundFlow: false });
  const { url } = await server.start({ port: options.port ?? 0 });
  const venue: TestVenue = { server, url, config, clock: liveClock, stop: () => server.stop() };
  const { accountId } = await onboard(venue);
  const funded = await postJson(`${url}/sim/fund`, { owner: lower(OWNER), token: 'MON', amount: (10n ** 24n).toString() });
  if (funded.status !== 200) throw new Error(`fund MON failed: ${JSON.stringify(funded.body)}`);
  const markets = server.venue.info().markets;
  const market = markets.find((spec) => spec.symbol === 'MON_USDC')!;
  return { venue, accountId, markets, market, mid: 350_000n };
}

/** Sets fault injection at runtime (`POST /sim/faults`). */
export async function setFaults(venue: TestVenue, faults: Partial<SimConfig['faults']>): Promise<void> {
  const answer = await postJson(`${venue.url}/sim/faults`, faults);
  if (answer.status !== 200) throw new Error(`faults refused: ${JSON.stringify(answer.body)}`);
}

export function clientContextOf(clock: Clock, seed = 5): ClientContext {
  return { transport: createFetchTransport(), clock, random: seededRandom(seed) };
}

export interface Relay {
  readonly transport: RelayTransport;
  readonly session: RelaySession;
  stop(): Promise<void>;
}

/** The live transports: WebSocket first, REST while the socket is down (failover), one relay session. */
export function relayFor(url: string, options: { readonly clock?: Clock; readonly seed?: number; readonly responseTimeoutMs?: number; readonly wsBaseUrl?: string } = {}): Relay {
  const clock = options.clock ?? liveClock;
  const context = clientContextOf(clock, options.seed ?? 5);
  const logger = createLogger({ level: logLevel });
  const session = createRelaySession({ ...context, logger }, { network: 'sim', relayUrl: url, signer: WALLET });
  const client = createRelayWsClient(
    { clock, random: seededRandom(options.seed ?? 5), logger },
    {
      url: `${(options.wsBaseUrl ?? url).replace(/^http/, 'ws')}/relay/ws`,
      session,
      reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
      ...(options.responseTimeoutMs === undefined ? {} : { responseTimeoutMs: options.responseTimeoutMs }),
    },
  );
  const ws = createWsRelayTransport(client);
  const rest = createRestRelayTransport({ ...context, logger }, { network: 'sim', relayUrl: url, rpcUrl: `${url}/rpc`, session, receiptPollMs: 50, receiptDeadlineMs: 20_000 });
  const transport = createFailoverTransport({ ws, rest, clock, logger });
  return {
    transport,
    session,
    async stop() {
      await transport.stop();
      session.stop();
    },
  };
}

/** The account's order events and active orders over the real user-data clients. */
export function userDataReaderFor(url: string, owner: Address, clock: Clock = liveClock): UserDataReader {
  const context = clientContextOf(clock, 6);
  const events = createOrderEventsClient(context, { baseUrl: url });
  const active = createActiveOrdersClient(context, { baseUrl: url });
  return {
    async orderEventsSince(fromMs) {
      const out: OrderEvent[] = [];
      for await (const batch of orderEvents(events, { user: owner, fromTimestamp: Math.max(0, Math.floor(fromMs / 1000)), follow: false, pageLimit: 500 })) {
        for (const received of batch.events) if (received.timeMs >= fromMs) out.push(received.event);
      }
      return out;
    },
    async activeOrders(market) {
      return (await active.activeOrders({ user: owner, marketAddress: market, limit: 100 })).orders;
    },
  };
}

/** Receipts over viem's public client on the venue's /rpc. */
export function receiptReaderFor(url: string, clock: Clock = liveClock): ReceiptReader {
  const watcher = createReceiptWatcher(clientContextOf(clock, 7), { rpcUrl: `${url}/rpc` });
  return {
    async receipt(txHash) {
      const found = await watcher.read(txHash as Hex);
      if (found === undefined || (found.status !== 'CONFIRMED' && found.status !== 'REVERTED')) return null;
      return { success: found.status === 'CONFIRMED', blockNumber: found.blockNumber ?? 0n };
    },
  };
}

export const TEST_RISK: RiskConfig = {
  maxPosition: '100000000',
  maxOrderSize: '1000000',
  maxNotional: '100000000',
  priceBandBps: 9_000,
  maxOrdersPerSecond: 10_000,
  maxOpenOrders: 100_000,
};

/** node:fs for the journal, remembering every complete line appended to the journal file. */
export function recordingJournalFs(base: JournalFs = nodeJournalFs): { readonly fs: JournalFs; lines(): string[] } {
  const paths = new Map<number, string>();
  let text = '';
  const fs: JournalFs = {
    ...base,
    openSync(path, flags, mode) {
      const fd = base.openSync(path, flags, mode);
      paths.set(fd, path);
      return fd;
    },
    writeSync(fd, buffer, offset, length) {
      const written = base.writeSync(fd, buffer, offset, length);
      const path = paths.get(fd) ?? '';
      if (path.endsWith('.journal.jsonl')) text += Buffer.from(buffer.subarray(offset, offset + written)).toString('utf8');
      return written;
    },
    closeSync(fd) {
      paths.delete(fd);
      base.closeSync(fd);
    },
  };
  return { fs, lines: () => text.split('\n').filter((line) => line.length > 0) };
}

export function tempJournalDir(): { readonly dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'clobbot-engine-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** What an engine needs to know of a venue it reaches only over the network (a child process). */
export interface VenueRef {
  readonly url: string;
  readonly chainId: number;
  readonly accountId: bigint;
  readonly markets: readonly MarketSpec[];
  readonly market: MarketSpec;
  readonly mid: bigint;
}

export function venueRef(v: EngineVenue): VenueRef {
  return { url: v.venue.url, chainId: v.venue.config.chainId, accountId: v.accountId, markets: v.markets, market: v.market, mid: v.mid };
}

export interface EngineSetup {
  readonly engine: ExecutionEngine;
  readonly relay: Relay;
  readonly journal: ReturnType<typeof recordingJournalFs>;
  readonly params: ExecutionEngineParameters;
}

/** An engine on `v` with the live transports, readers and a recording journal in `dir`. */
export function engineOn(
  target: EngineVenue | VenueRef,
  dir: string,
  options: {
    readonly engine?: Partial<EngineConfig>;
    readonly overrides?: Partial<ExecutionEngineParameters>;
    /** Replaces some of the test timings below. */
    readonly tuning?: Partial<EngineTuning>;
    readonly seed?: number;
    readonly responseTimeoutMs?: number;
    /** The relay WebSocket through another base URL (a proxy); REST and reads go straight to the venue. */
    readonly wsBaseUrl?: string;
  } = {},
): EngineSetup {
  const v = 'venue' in target ? venueRef(target) : target;
  const clock = liveClock;
  const random = seededRandom(options.seed ?? 11);
  const relay = relayFor(v.url, {
    clock,
    seed: options.seed ?? 5,
    ...(options.responseTimeoutMs === undefined ? {} : { responseTimeoutMs: options.responseTimeoutMs }),
    ...(options.wsBaseUrl === undefined ? {} : { wsBaseUrl: options.wsBaseUrl }),
  });
  const journal = recordingJournalFs();
  const params: ExecutionEngineParameters = {
    network: resolveNetwork('sim', { venueUrl: v.url, chainId: v.chainId }),
    signer: WALLET,
    accountId: v.accountId,
    authNonce: 0n,
    markets: v.markets,
    transport: relay.transport,
    userData: userDataReaderFor(v.url, lower(OWNER)),
    receipts: receiptReaderFor(v.url),
    journalDir: dir,
    engine: { maxPendingOutcomes: 48, queuePolicy: 'queue', ...options.engine },
    risk: TEST_RISK,
    mid: (market) => (market === v.market.address ? v.mid : market === v.markets.find((spec) => spec.address !== v.market.address)?.address ? 300_000n : undefined),
    deadlineSec: 6,
    tuning: { pollMs: 150, idlePollMs: 500, reconcileGraceMs: 2_000, eventLagMs: 300, reconcileQuietMs: 600, idWaitMs: 1_500, activeOrdersEveryMs: 2_000, outcomeWaitMs: 1_000, outcomeGiveUpMs: 10_000, ...options.tuning },
    journalFs: journal.fs,
    ...options.overrides,
  };
  const engine = createExecutionEngine({ clock, random, ids: createIdSource({ clock, random }), logger: createLogger({ level: logLevel }) }, params);
  return { engine, relay, journal, params };
}

/** A buy far below the mid (rests, never fills): `price` makes it recognisable. */
export function buy(price: bigint, size = 100n, tif: OrderRequest['tif'] = 'GTC'): OrderRequest {
  return { side: 'BUY', price, size, tif, executionInstruction: 'NONE', minSizeAfterBlock: 0n };
}

export function placeIntent(market: Address, orders: readonly OrderRequest[], purpose = 'test', cancelSlots: readonly number[] = []): Intent {
  return { type: 'PlaceAndCancel', market, purpose, cancelSlots, orders };
}

/** Waits on real time until `predicate` holds. */
export async function until(predicate: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const started = Date.now();
  while (!(await predicate())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface JournalAudit {
  readonly records: readonly JournalRecord[];
  readonly signed: number;
  readonly nonces: readonly bigint[];
}

/**
 * Every line the journal file ever received: each signed request resolved exactly once, nonces
 * strictly increasing (none used twice), and the reopened journal holds nothing unresolved.
 */
export function auditJournal(lines: readonly string[], dir: string, wallet: Address = lower(WALLET)): JournalAudit & { readonly problems: readonly string[] } {
  const problems: string[] = [];
  const records = lines.map((line, index) => decodeJournalLine(line, { path: 'recorded', lineNumber: index + 1 }));
  const nonces: bigint[] = [];
  const signed = new Set<string>();
  const resolved = new Map<string, number>();
  for (const record of records) {
    if (record.kind === 'signed') {
      const nonce = BigInt(record.nonce);
      if (nonces.length > 0 && nonce <= nonces.at(-1)!) problems.push(`nonce ${nonce} after ${nonces.at(-1)}`);
      nonces.push(nonce);
      if (signed.has(record.requestId)) problems.push(`request ${record.requestId} signed twice`);
      signed.add(record.requestId);
    } else if (record.kind === 'resolved') {
      resolved.set(record.requestId, (resolved.get(record.requestId) ?? 0) + 1);
    }
  }
  for (const id of signed) if (resolved.get(id) !== 1) problems.push(`request ${id} resolved ${resolved.get(id) ?? 0} times`);
  if (new Set(nonces.map(String)).size !== nonces.length) problems.push('a nonce was used twice');
  const journal = openJournal({ clock: liveClock }, { dir, network: 'sim', wallet });
  if (journal.restored.unresolved.length > 0) problems.push(`${journal.restored.unresolved.length} unresolved after the run`);
  journal.close();
  return { records, signed: signed.size, nonces, problems };
}

export { journalPath };

/** Order-created events of the account on `market`, by price (each test intent has its own prices). */
export function createdByPrice(v: EngineVenue, market: Address): Map<bigint, number> {
  const { events } = v.venue.server.venue.orderEvents(v.accountId, { eventType: 'order-created', marketAddress: market, limit: 100_000 } as never);
  const counts = new Map<bigint, number>();
  for (const event of events) {
    if (event.eventType !== 'order-created') continue;
    const price = BigInt(event.eventData.price);
    counts.set(price, (counts.get(price) ?? 0) + 1);
  }
  return counts;
}

/** The venue's resting order ids of the account on `market`. */
export function venueOrderIds(v: EngineVenue, market: Address): bigint[] {
  return v.venue.server.venue.openOrders(v.accountId, market).map((order) => order.id);
}

/** Stops whatever a test started (engine, relay, proxy, venue, temp journal), in that order. */
export async function tearDownEngineWorld(world: {
  readonly setup?: EngineSetup | undefined;
  readonly v?: EngineVenue | undefined;
  readonly tmp?: { remove(): void } | undefined;
  readonly proxy?: { stop(): Promise<void> } | undefined;
}): Promise<void> {
  await world.setup?.engine.stop({ cancelAll: false, timeoutMs: 2_000 }).catch(() => undefined);
  await world.setup?.relay.stop();
  await world.proxy?.stop();
  await world.v?.venue.stop();
  world.tmp?.remove();
}

/** The engine's current state of `market` (state$ replays it at once). */
export function currentState(setup: EngineSetup, market: Address): MarketState {
  let value: MarketState | undefined;
  setup.engine.state$(market).subscribe((state) => (value = state as MarketState)).unsubscribe();
  return value!;
}
