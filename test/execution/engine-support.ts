/**
 * Shared pieces of the engine tests against the real venue model through the in-process connection,
 * on a VirtualClock: the sim service (venue model, routes, relay WebSocket hub) with short blocks and
 * an onboarded wallet, the real relay transports (WebSocket, REST, failover) over a relay session,
 * the user-data and receipt readers over the real clients, real signatures and real relay rules. An
 * engine lives in an EngineProcess (engine-process.ts) that can be killed at once; its journal and
 * the audits every run must pass are in engine-journal.ts. Time moves only while a test waits
 * (`run(v, work)`): from event to event, without wall time.
 */
import { filter, firstValueFrom } from 'rxjs';
import { createRelayWsClient } from '../../src/clients/relay-ws-client.ts';
import type { ClientContext } from '../../src/clients/send-request.ts';
import { createIdSource } from '../../src/core/ids.ts';
import { createLogger, type LogLevel } from '../../src/core/logger.ts';
import { seededRandom } from '../../src/core/random.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { resolveNetwork, type ResolvedNetwork } from '../../src/config/network-config.ts';
import type { EngineConfig, RiskConfig } from '../../src/config/run-config.ts';
import type { SimConfig } from '../../src/config/sim-config.ts';
import { DEFAULT_VIRTUAL_LATENCY, type VirtualConfig } from '../../src/config/virtual-config.ts';
import { createExecutionEngine } from '../../src/execution/create-execution-engine.ts';
import type { EngineTuning, ExecutionEngine, ExecutionEngineParameters, UserDataReader } from '../../src/execution/execution-engine.ts';
import { nodeJournalFs, type JournalFs } from '../../src/execution/journal.ts';
import type { MarketState } from '../../src/execution/portfolio.ts';
import { createRelaySession, type RelaySession } from '../../src/execution/relay-session.ts';
import { createFailoverTransport, createRestRelayTransport, createWsRelayTransport, type RelayTransport } from '../../src/execution/relay-transport.ts';
import { Permission, RelayMethod } from '../../src/protocol/constants.ts';
import { accountCoreDomain } from '../../src/protocol/eip712-types.ts';
import { signAuthorization7702 } from '../../src/protocol/eip7702.ts';
import type { Address } from '../../src/protocol/encoding.ts';
import { signAuthorizeAccountSigner } from '../../src/protocol/intent-signing.ts';
import type { MarketSpec } from '../../src/protocol/market-spec.ts';
import type { SimVenueModel } from '../../src/venue/sim-venue.ts';
import type { SimService } from '../../src/sim/sim-service.ts';
import type { Intent, OrderRequest } from '../../src/strategy/intents.ts';
import { createInProcessVenue, type InProcessVenue } from '../../src/runtime/in-process-venue.ts';
import { createPendingWork, type PendingWork } from '../../src/runtime/pending-work.ts';
import { runOnVirtualClock } from '../../src/runtime/virtual-driver.ts';
import { createReceiptReader, createUserDataReader } from '../../src/runtime/venue-readers.ts';
import { lower, OWNER, simYaml, WALLET } from '../sim/relay-harness.ts';
import { recordingJournalFs } from './engine-journal.ts';
import { EngineProcess } from './engine-process.ts';

export { OWNER, WALLET };

export const logLevel = (process.env['CLOBBOT_TEST_LOG'] ?? 'silent') as LogLevel;

/** Where every test venue's clock starts. */
export const T0 = Date.UTC(2026, 0, 1);

export interface EngineVenue {
  readonly clock: VirtualClock;
  readonly venue: InProcessVenue;
  readonly service: SimService;
  readonly model: SimVenueModel;
  /** The venue's work under way (the driver does not move the clock meanwhile). */
  readonly pending: PendingWork;
  readonly network: ResolvedNetwork;
  readonly accountId: bigint;
  readonly markets: readonly MarketSpec[];
  /** MON_USDC. */
  readonly market: MarketSpec;
  /** The mid the risk band uses, price units (0.035 USDC). */
  readonly mid: bigint;
  /** Called after every step of the clock (to sample what the venue holds at each instant). */
  readonly onStep: Set<() => void>;
}

export interface EngineVenueOptions {
  readonly blockMs?: number;
  readonly jwtLifetimeSec?: number;
  readonly faults?: Partial<SimConfig['faults']>;
  /** The connection's one-way delays; default the virtual run's (30 / 30 / 50 ms). */
  readonly latency?: VirtualConfig['latency'];
  /** Seeds the venue's faults, secrets and the connection's delays. */
  readonly seed?: number;
}

/**
 * Runs `work` on the venue's virtual clock: the clock jumps from one scheduled action to the next
 * while the work waits, until it settles. `limitMs` of virtual time bounds it (a test that waits for
 * something that never comes fails, instead of running the venue's blocks forever).
 */
export async function run<T>(v: EngineVenue, work: () => Promise<T>, limitMs = 600_000): Promise<T> {
  let expire: (error: Error) => void = () => undefined;
  const limited = new Promise<never>((_, reject) => (expire = reject));
  const timer = v.clock.scheduler.schedule(() => expire(new Error(`still waiting after ${limitMs} ms of virtual time`)), limitMs);
  try {
    // `busy` is asked after every step, before the clock moves again: the hook for the step watchers.
    return await runOnVirtualClock(v.clock, () => Promise.race([work(), limited]), {
      busy: () => {
        for (const watch of v.onStep) watch();
        return v.pending.busy();
      },
    });
  } finally {
    timer.unsubscribe();
  }
}

/** Waits `ms` of virtual time (call inside `run`). */
export function sleep(v: EngineVenue, ms: number): Promise<void> {
  return new Promise((resolve) => v.clock.scheduler.schedule(() => resolve(), ms));
}

/** Waits (inside `run`) until `predicate` holds, checked every 10 ms of virtual time; fails after `timeoutMs` of it. */
export async function until(v: EngineVenue, predicate: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = v.clock.now() + timeoutMs;
  while (!predicate()) {
    if (v.clock.now() > deadline) throw new Error(`timed out waiting for ${what} (${timeoutMs} ms of virtual time)`);
    await sleep(v, 10);
  }
}

/**
 * OWNER's account funded (USDC, MON) and WALLET set up for it: a TRADE grant signed by OWNER with
 * WALLET's EIP-7702 delegation, sent over the relay's REST face after a real sign-in, confirmed.
 */
async function onboard(v: Omit<EngineVenue, 'accountId'>, config: SimConfig, seed: number): Promise<bigint> {
  const tokens = v.model.info().tokens;
  const token = (symbol: string) => tokens.find((candidate) => candidate.symbol === symbol)!.address;
  const accountId = v.model.fund(lower(OWNER), token('USDC'), 10n ** 12n);
  v.model.fund(lower(OWNER), token('MON'), 10n ** 24n);
  const random = seededRandom(seed ^ 0x0b0a);
  const context: ClientContext = { transport: v.venue.transport, clock: v.clock, random };
  const session = createRelaySession(context, { network: 'sim', relayUrl: v.network.hosts.relayUrl!, signer: WALLET });
  const rest = createRestRelayTransport(context, { network: 'sim', relayUrl: v.network.hosts.relayUrl!, rpcUrl: v.network.hosts.rpcUrl!, session, receiptPollMs: 50 });
  const nowMs = v.clock.now();
  const intent = {
    account: lower(OWNER),
    authorizer: lower(OWNER),
    signer: lower(WALLET),
    permissions: BigInt(Permission.TRADE),
    expiry: 0n,
    nonce: 1n,
    deadline: BigInt(Math.floor(nowMs / 1000) + 300),
  };
  const signature = await signAuthorizeAccountSigner(OWNER, { domain: accountCoreDomain({ chainId: config.chainId, accountCore: config.contracts.accountCore }), intent });
  const authorization7702 = await signAuthorization7702(WALLET, { chainId: BigInt(config.chainId), delegate: config.contracts.tradingWalletDelegate, nonce: 0n });
  const requestId = createIdSource({ clock: v.clock, random }).next();
  await session.start();
  await rest.start();
  const outcome = firstValueFrom(rest.outcomes$.pipe(filter((candidate) => candidate.requestId === requestId)));
  const answer = await rest.submit({ requestId, method: RelayMethod.authorizeAccountSigner, wallet: lower(WALLET), payload: { ...intent, signature }, authorization7702 });
  if (answer.status !== 'BROADCAST') throw new Error(`authorize failed: ${JSON.stringify(answer)}`);
  const result = await outcome;
  await rest.stop();
  session.stop();
  if (result.status !== 'CONFIRMED') throw new Error(`authorize ${result.status}: ${result.reason}`);
  return accountId;
}

/** The in-process venue (own config: short blocks, no user-data cache, no background flow) with OWNER funded and WALLET set up, then `faults` on. */
export async function startEngineVenue(options: EngineVenueOptions = {}): Promise<EngineVenue> {
  const base = await simYaml();
  const config: SimConfig = {
    ...base,
    blockMs: options.blockMs ?? 50,
    auth: { ...base.auth, jwtLifetimeSec: options.jwtLifetimeSec ?? base.auth.jwtLifetimeSec },
    userData: { ...base.userData, orderEventsCacheMs: 0 },
  };
  const seed = options.seed ?? 42;
  const clock = new VirtualClock(T0);
  const pending = createPendingWork();
  const venue = createInProcessVenue({
    config,
    clock,
    random: seededRandom(seed),
    secrets: seededRandom(seed + 1),
    latencyRandom: seededRandom(seed + 2),
    latency: options.latency ?? DEFAULT_VIRTUAL_LATENCY,
    logger: createLogger({ level: (process.env['CLOBBOT_VENUE_LOG'] ?? 'silent') as LogLevel }),
    pending,
    backgroundFlow: false,
  });
  venue.start();
  const markets = venue.service.venue.info().markets;
  const world = {
    clock,
    venue,
    service: venue.service,
    model: venue.service.venue,
    pending,
    network: resolveNetwork('sim', { venueUrl: venue.url, chainId: config.chainId }),
    markets,
    market: markets.find((spec) => spec.symbol === 'MON_USDC')!,
    mid: 350_000n,
    onStep: new Set<() => void>(),
  };
  const accountId = await run({ ...world, accountId: 0n }, () => onboard(world, config, seed), 60_000);
  const ready = { ...world, accountId };
  // Faults only once the wallet is set up: the setup is not what the tests are about.
  if (options.faults !== undefined) setFaults(ready, options.faults);
  return ready;
}

/** Changes the venue's fault settings (what `POST /sim/faults` does). */
export function setFaults(v: EngineVenue, faults: Partial<SimConfig['faults']>): void {
  v.service.faults.set({ ...v.service.faults.get(), ...faults });
}

/** The most outcomes the relay held pending at once, sampled at every step from now on; `stop()` ends the watch. */
export function watchRelayPending(v: EngineVenue): { max(): number; stop(): void } {
  let max = 0;
  const watch = () => (max = Math.max(max, v.service.relayWs.pendingOutcomeCount()));
  v.onStep.add(watch);
  return { max: () => max, stop: () => v.onStep.delete(watch) };
}

export interface Relay {
  readonly transport: RelayTransport;
  readonly session: RelaySession;
}

/** The live transports over the process's seams: WebSocket first, REST while the socket is down (failover), one relay session. */
function relayFor(v: EngineVenue, process: EngineProcess, seed: number, responseTimeoutMs: number | undefined): Relay {
  const { clock } = process;
  const logger = createLogger({ level: logLevel, clock: v.clock });
  const context: ClientContext = { transport: process.transport, clock, random: seededRandom(seed) };
  const { hosts } = v.network;
  const session = createRelaySession({ ...context, logger }, { network: 'sim', relayUrl: hosts.relayUrl!, signer: WALLET });
  const client = createRelayWsClient(
    { clock, random: seededRandom(seed + 1), logger },
    {
      url: hosts.relayWsUrl!,
      session,
      createSocket: process.createSocket,
      reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
      ...(responseTimeoutMs === undefined ? {} : { responseTimeoutMs }),
    },
  );
  const rest = createRestRelayTransport({ ...context, logger }, { network: 'sim', relayUrl: hosts.relayUrl!, rpcUrl: hosts.rpcUrl!, session, receiptPollMs: 50, receiptDeadlineMs: 20_000 });
  const transport = createFailoverTransport({ ws: createWsRelayTransport(client), rest, clock, logger });
  return { transport, session };
}

export const TEST_RISK: RiskConfig = {
  maxPosition: '100000000',
  maxOrderSize: '1000000',
  maxNotional: '100000000',
  priceBandBps: 9_000,
  maxOrdersPerSecond: 10_000,
  maxOpenOrders: 100_000,
};

export interface EngineSetup {
  readonly engine: ExecutionEngine;
  readonly relay: Relay;
  readonly journal: ReturnType<typeof recordingJournalFs>;
  readonly params: ExecutionEngineParameters;
  /** The engine's process: `kill()` crashes it, `hold`/`cutRelay()` lose relay answers. */
  readonly process: EngineProcess;
}

export interface EngineOptions {
  readonly engine?: Partial<EngineConfig>;
  readonly overrides?: Partial<ExecutionEngineParameters>;
  /** Replaces some of the test timings below. */
  readonly tuning?: Partial<EngineTuning>;
  readonly seed?: number;
  readonly responseTimeoutMs?: number;
  readonly deadlineSec?: number;
  /** Wraps the real user-data reader (a test's lagging view). */
  readonly userData?: (real: UserDataReader) => UserDataReader;
}

/** node:fs without fsync: a killed EngineProcess loses no written page (the OS keeps them), so fsync buys nothing here but time. */
const unsyncedFs: JournalFs = { ...nodeJournalFs, fsyncSync: () => undefined };

/** An engine on `v` in a new process, with the live transports, readers and a recording journal in `dir`. */
export function engineOn(v: EngineVenue, dir: string, options: EngineOptions = {}): EngineSetup {
  const seed = options.seed ?? 11;
  const process = new EngineProcess({ clock: v.clock, transport: v.venue.transport, createSocket: v.venue.createSocket, journalFs: unsyncedFs });
  const { clock } = process;
  const random = seededRandom(seed);
  const relay = relayFor(v, process, seed + 100, options.responseTimeoutMs);
  const journal = recordingJournalFs(process.journalFs);
  const context: ClientContext = { transport: process.transport, clock, random: seededRandom(seed + 200) };
  const userData = createUserDataReader(context, { userUrl: v.network.hosts.userUrl!, owner: lower(OWNER) });
  const second = v.markets.find((spec) => spec.address !== v.market.address)?.address;
  const params: ExecutionEngineParameters = {
    network: v.network,
    signer: WALLET,
    accountId: v.accountId,
    authNonce: 0n,
    markets: v.markets,
    transport: relay.transport,
    userData: options.userData?.(userData) ?? userData,
    receipts: createReceiptReader(context, { rpcUrl: v.network.hosts.rpcUrl! }),
    journalDir: dir,
    engine: { maxPendingOutcomes: 48, queuePolicy: 'queue', ...options.engine },
    risk: TEST_RISK,
    mid: (market) => (market === v.market.address ? v.mid : market === second ? 300_000n : undefined),
    deadlineSec: options.deadlineSec ?? 6,
    tuning: { pollMs: 150, idlePollMs: 500, reconcileGraceMs: 2_000, eventLagMs: 300, reconcileQuietMs: 600, idWaitMs: 1_500, activeOrdersEveryMs: 2_000, outcomeWaitMs: 1_000, outcomeGiveUpMs: 10_000, ...options.tuning },
    journalFs: journal.fs,
    ...options.overrides,
  };
  const engine = createExecutionEngine({ clock, random, ids: createIdSource({ clock, random }), logger: createLogger({ level: logLevel, clock: v.clock }) }, params);
  return { engine, relay, journal, params, process };
}

/** A buy far below the mid (rests, never fills): `price` makes it recognisable. */
export function buy(price: bigint, size = 100n, tif: OrderRequest['tif'] = 'GTC'): OrderRequest {
  return { side: 'BUY', price, size, tif, executionInstruction: 'NONE', minSizeAfterBlock: 0n };
}

export function placeIntent(market: Address, orders: readonly OrderRequest[], purpose = 'test', cancelSlots: readonly number[] = []): Intent {
  return { type: 'PlaceAndCancel', market, purpose, cancelSlots, orders };
}

export { auditJournal, recordingJournalFs, tempJournalDir, type JournalAudit } from './engine-journal.ts';

/** Order-created events of the account on `market`, by price (each test intent has its own prices). */
export function createdByPrice(v: EngineVenue, market: Address): Map<bigint, number> {
  const { events } = v.model.orderEvents(v.accountId, { eventType: 'order-created', marketAddress: market, limit: 100_000 } as never);
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
  return v.model.openOrders(v.accountId, market).map((order) => order.id);
}

/** Ends whatever a test started: the engine's process dies, the venue stops, the temp journal goes. */
export function tearDownEngineWorld(world: { readonly setup?: EngineSetup | undefined; readonly v?: EngineVenue | undefined; readonly tmp?: { remove(): void } | undefined }): void {
  world.setup?.process.kill();
  world.v?.venue.stop();
  world.tmp?.remove();
}

/** The engine's current state of `market` (state$ replays it at once). */
export function currentState(setup: EngineSetup, market: Address): MarketState {
  let value: MarketState | undefined;
  setup.engine.state$(market).subscribe((state) => (value = state as MarketState)).unsubscribe();
  return value!;
}
