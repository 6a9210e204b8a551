/**
 * A real simulated venue on loopback for the sim tests, and a small client written for them: JSON
 * over fetch, relay sign-in with personal_sign, signed relay requests (EIP-712, EIP-7702) and a
 * WebSocket that queues what the server sends.
 */
import { filter, firstValueFrom, throwError, timeout } from 'rxjs';
import { createPublicClient, http } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { WebSocket } from 'ws';
import { liveClock, type Clock } from '../../src/core/clock.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { createIdSource } from '../../src/core/ids.ts';
import { createLogger } from '../../src/core/logger.ts';
import { seededRandom } from '../../src/core/random.ts';
import { loadConfigOrThrow } from '../../src/config/load-config.ts';
import { simConfigSchema, type SimConfig } from '../../src/config/sim-config.ts';
import { Permission, RelayMethod } from '../../src/protocol/constants.ts';
import { accountCoreDomain, tradingWalletDomain } from '../../src/protocol/eip712-types.ts';
import { signAuthorization7702 } from '../../src/protocol/eip7702.ts';
import type { Address } from '../../src/protocol/encoding.ts';
import { signAuthorizeAccountSigner, signBatchIntent } from '../../src/protocol/intent-signing.ts';
import type { BatchIntent, OrderIntent } from '../../src/protocol/intent-types.ts';
import { personalSign } from '../../src/protocol/personal-sign.ts';
import { challengeResponseSchema, tokenResponseSchema } from '../../src/protocol/relay-auth.ts';
import { encodeRelayRestRequest, encodeRelayWsMessage, type RelayRestRequest } from '../../src/protocol/relay-request.ts';
import { createSimServer, type SimServer } from '../../src/sim/sim-server.ts';
import type { SimVenueModel } from '../../src/venue/sim-venue.ts';

/** Fixed test keys (never used anywhere else). */
export const OWNER = privateKeyToAccount(`0x${'a1'.repeat(32)}`);
export const WALLET = privateKeyToAccount(`0x${'b2'.repeat(32)}`);
export const OTHER_WALLET = privateKeyToAccount(`0x${'c3'.repeat(32)}`);

export const lower = (account: PrivateKeyAccount): Address => account.address.toLowerCase() as Address;

let baseConfig: SimConfig | undefined;
export async function simYaml(): Promise<SimConfig> {
  baseConfig ??= await loadConfigOrThrow(new URL('../../config/sim.yaml', import.meta.url).pathname, simConfigSchema, { env: {} });
  return baseConfig;
}

export interface TestVenue {
  readonly server: SimServer;
  readonly url: string;
  readonly config: SimConfig;
  readonly clock: Clock;
  stop(): Promise<void>;
}

export interface StartTestVenueOptions {
  readonly blockMs?: number;
  readonly faults?: Partial<SimConfig['faults']>;
  readonly jwtLifetimeSec?: number;
  readonly maxBodyBytes?: number;
  readonly clock?: Clock;
  readonly backgroundFlow?: boolean;
}

/** A createSimServer on 127.0.0.1 and a free port, from config/sim.yaml with short blocks. */
export async function startTestVenue(options: StartTestVenueOptions = {}): Promise<TestVenue> {
  const base = await simYaml();
  const config: SimConfig = {
    ...base,
    blockMs: options.blockMs ?? 20,
    auth: { ...base.auth, jwtLifetimeSec: options.jwtLifetimeSec ?? base.auth.jwtLifetimeSec },
    http: { ...base.http, maxBodyBytes: options.maxBodyBytes ?? base.http.maxBodyBytes },
    faults: { ...base.faults, ...options.faults },
  };
  const clock = options.clock ?? liveClock;
  const server = createSimServer({
    config,
    clock,
    random: seededRandom(42),
    logger: createLogger({ level: 'silent' }),
    backgroundFlow: options.backgroundFlow ?? false,
  });
  const { url } = await server.start({ port: 0 });
  venuesByUrl.set(url, server.venue);
  return {
    server,
    url,
    config,
    clock,
    stop: () => {
      venuesByUrl.delete(url);
      return server.stop();
    },
  };
}

/** The venues of startTestVenue by URL, so that waitForReceipt can wait on a venue's blocks instead of polling. */
const venuesByUrl = new Map<string, SimVenueModel>();

export interface JsonAnswer {
  readonly status: number;
  readonly body: any;
  readonly headers: Headers;
}

export async function postText(url: string, text: string, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: text });
  const raw = await response.text();
  return { status: response.status, body: raw === '' ? undefined : JSON.parse(raw), headers: response.headers };
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  return postText(url, JSON.stringify(body), headers);
}

export async function getJson(url: string): Promise<JsonAnswer> {
  const response = await fetch(url);
  return { status: response.status, body: await response.json(), headers: response.headers };
}

/** Challenge, personal_sign, token: the relay JWT of `account`. */
export async function signIn(url: string, account: PrivateKeyAccount): Promise<string> {
  const challenge = challengeResponseSchema.parse((await postJson(`${url}/auth/challenge`, { wallet: lower(account) })).body);
  const signature = await personalSign(account, { message: challenge.message });
  const answer = await postJson(`${url}/auth/token`, { challengeId: challenge.challengeId, signature });
  if (answer.status !== 200) throw new Error(`sign-in failed: ${JSON.stringify(answer.body)}`);
  return tokenResponseSchema.parse(answer.body).accessToken;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const ids = createIdSource({ clock: liveClock, random: seededRandom(7) });
export const nextRequestId = () => ids.next();

/** The last nonce handed out on each clock (test files share this module when vitest does not isolate them). */
const lastNonces = new WeakMap<Clock, bigint>();
/** Intent nonces: ms since the epoch on `clock`, strictly increasing on that clock. */
export function nextNonce(clock: Clock = liveClock): bigint {
  const now = BigInt(clock.now());
  const last = lastNonces.get(clock) ?? 0n;
  const nonce = now > last ? now : last + 1n;
  lastNonces.set(clock, nonce);
  return nonce;
}

/**
 * The REST request that grants `wallet` TRADE on `owner`'s account and installs its EIP-7702
 * delegation (a SET_CODE transaction).
 */
export async function authorizeSignerRequest(venue: TestVenue, owner: PrivateKeyAccount, wallet: PrivateKeyAccount, nonce = 1n): Promise<string> {
  const { chainId, contracts } = venue.config;
  const intent = {
    account: lower(owner),
    authorizer: lower(owner),
    signer: lower(wallet),
    permissions: BigInt(Permission.TRADE),
    expiry: 0n,
    nonce,
    deadline: BigInt(Math.floor(venue.clock.now() / 1000) + 300),
  };
  const signature = await signAuthorizeAccountSigner(owner, { domain: accountCoreDomain({ chainId, accountCore: contracts.accountCore }), intent });
  const authorization7702 = await signAuthorization7702(wallet, { chainId: BigInt(chainId), delegate: contracts.tradingWalletDelegate, nonce: 0n });
  const request: RelayRestRequest = {
    requestId: nextRequestId(),
    method: RelayMethod.authorizeAccountSigner,
    wallet: lower(wallet),
    payload: { ...intent, signature },
    authorization7702,
  };
  return encodeRelayRestRequest(request);
}

export interface BatchParameters {
  readonly accountId: bigint;
  readonly market: Address;
  readonly orders: readonly OrderIntent[];
  readonly nonce?: bigint;
  readonly cancelSlotIdxs?: readonly number[];
  readonly expectedOrderIds?: readonly bigint[];
}

/** A signed `wallet.execute_batch` intent with its payload. */
export async function signedBatch(venue: TestVenue, wallet: PrivateKeyAccount, parameters: BatchParameters) {
  const intent: BatchIntent = {
    header: {
      accountId: parameters.accountId,
      market: parameters.market,
      authNonce: 0n,
      nonce: parameters.nonce ?? nextNonce(venue.clock),
      deadline: BigInt(Math.floor(venue.clock.now() / 1000) + 300),
      clientOrderId: `0x${'00'.repeat(31)}01`,
      builder: `0x${'00'.repeat(20)}`,
      builderFeePps: 0n,
    },
    orders: parameters.orders,
    cancelSlotIdxs: parameters.cancelSlotIdxs ?? [],
    expectedOrderIds: parameters.expectedOrderIds ?? [],
  };
  const signature = await signBatchIntent(wallet, { domain: tradingWalletDomain({ chainId: venue.config.chainId, wallet: lower(wallet) }), intent });
  return { ...intent, signature };
}

export async function batchWsFrame(venue: TestVenue, wallet: PrivateKeyAccount, id: string, parameters: BatchParameters): Promise<string> {
  const payload = await signedBatch(venue, wallet, parameters);
  return encodeRelayWsMessage({ id, method: RelayMethod.executeBatch, payload, authorization7702: null });
}

export async function batchRestBody(venue: TestVenue, wallet: PrivateKeyAccount, parameters: BatchParameters, requestId = nextRequestId()): Promise<string> {
  const payload = await signedBatch(venue, wallet, parameters);
  return encodeRelayRestRequest({ requestId, method: RelayMethod.executeBatch, wallet: lower(wallet), payload, authorization7702: null });
}

/** One resting BUY of MON_USDC far below the configured mid (0.035). */
export function restingBuy(quantity = 100n): OrderIntent {
  return { side: 'BUY', quantity, price: 300_000n, tif: 'GTC', executionInstruction: 'NONE', minSizeAfterBlock: 0n };
}

/**
 * Resolves once `hash` is in a block of `venue`: at once when it already is, else on the block that
 * holds it (no polling; on a virtual clock the test moves the clock). `timeoutMs` of wall time only
 * turns a hang into a readable failure.
 */
function mined(venue: SimVenueModel, hash: `0x${string}`, timeoutMs: number): Promise<unknown> {
  if (venue.receipt(hash) !== undefined) return Promise.resolve();
  const wanted = hash.toLowerCase();
  return firstValueFrom(
    venue.blocks$.pipe(
      filter((block) => block.transactions.some((tx) => tx.toLowerCase() === wanted)),
      timeout({ first: timeoutMs, with: () => throwError(() => new Error(`no block holds ${hash} within ${timeoutMs} ms`)) }),
    ),
  );
}

/** Waits for the block that holds `hash` on a venue of startTestVenue, then reads the receipt through viem's public client. */
export async function waitForReceipt(url: string, hash: `0x${string}`, timeoutMs = 5000) {
  const venue = venuesByUrl.get(url);
  if (venue === undefined) throw new Error(`waitForReceipt: ${url} is not a running venue of startTestVenue`);
  await mined(venue, hash, timeoutMs);
  return createPublicClient({ transport: http(`${url}/rpc`) }).getTransactionReceipt({ hash });
}

/**
 * A funded owner whose trading wallet holds TRADE and is delegated: fund -> sign in -> authorize
 * (REST, SET_CODE) -> receipt. On a virtual clock it moves the clock one block (nothing else would).
 * Returns the account id and the wallet's JWT.
 */
export async function onboard(venue: TestVenue, owner = OWNER, wallet = WALLET): Promise<{ accountId: bigint; token: string }> {
  const funded = await postJson(`${venue.url}/sim/fund`, { owner: lower(owner), token: 'USDC', amount: '1000000000000' });
  if (funded.status !== 200) throw new Error(`fund failed: ${JSON.stringify(funded.body)}`);
  const token = await signIn(venue.url, wallet);
  const answer = await postText(`${venue.url}/relay`, await authorizeSignerRequest(venue, owner, wallet), bearer(token));
  if (answer.body.status !== 'BROADCAST') throw new Error(`authorize failed: ${JSON.stringify(answer.body)}`);
  if (venue.clock instanceof VirtualClock) venue.clock.advanceBy(venue.config.blockMs);
  await mined(venue.server.venue, answer.body.txHash, 5000);
  if (venue.server.venue.receipt(answer.body.txHash)?.success !== true) throw new Error('authorize reverted');
  return { accountId: BigInt(funded.body.accountId), token };
}

export interface WsClosed {
  readonly code: number;
  readonly reason: string;
}

/** A WebSocket client that queues every server message and remembers how it closed. */
export class TestSocket {
  readonly messages: any[] = [];
  #syncs = 0;
  closed: WsClosed | undefined;
  readonly #waiters = new Set<() => void>();

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.messages.push(JSON.parse(String(data)));
      this.#wake();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.#wake();
    });
    ws.on('error', () => undefined);
  }

  #wake() {
    for (const waiter of this.#waiters) waiter();
  }

  static async connect(url: string, token: string | undefined, path = '/relay/ws'): Promise<TestSocket> {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}${path}`, { headers: token === undefined ? {} : bearer(token) });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new TestSocket(ws);
  }

  send(text: string) {
    this.ws.send(text);
  }

  /** Waits until `predicate` holds over what was received (default 5 s). */
  async until(predicate: (socket: TestSocket) => boolean, timeoutMs = 5000): Promise<void> {
    if (predicate(this)) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`timed out; received ${JSON.stringify(this.messages).slice(0, 2000)}; closed ${JSON.stringify(this.closed)}`));
      }, timeoutMs);
      const check = () => {
        if (predicate(this)) {
          clearTimeout(timer);
          this.#waiters.delete(check);
          resolve();
        }
      };
      this.#waiters.add(check);
    });
  }

  /** The first message of `type` for `id`, waiting for it. */
  async message(type: string, id: string, timeoutMs?: number): Promise<any> {
    const find = () => this.messages.find((message) => message.type === type && message.id === id);
    await this.until(() => find() !== undefined, timeoutMs);
    return find();
  }

  /**
   * A round trip: sends a frame the relay answers at once without submitting anything (an unknown
   * method) and waits for that answer. The relay writes to one socket in order, so whatever it sent
   * before answering is in `messages` by then: the barrier before asserting that something did not
   * come. The barrier's own answer is taken out of `messages`.
   */
  async sync(): Promise<void> {
    this.#syncs += 1;
    const id = `sync-${this.#syncs}`;
    this.send(JSON.stringify({ id, method: 'test.sync', payload: {} }));
    const answer = await this.message('response', id);
    this.messages.splice(this.messages.indexOf(answer), 1);
  }

  async waitClosed(timeoutMs?: number): Promise<WsClosed> {
    await this.until((socket) => socket.closed !== undefined, timeoutMs);
    return this.closed!;
  }

  close() {
    this.ws.close();
  }
}

/** The HTTP status (and body) with which an upgrade is refused; undefined when it is accepted. */
export async function upgradeRefusal(url: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: any } | undefined> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}${path}`, { headers });
  return new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text === '' ? undefined : JSON.parse(text) }));
    });
    ws.once('open', () => {
      ws.close();
      resolve(undefined);
    });
    ws.once('error', (error) => reject(error));
  });
}
