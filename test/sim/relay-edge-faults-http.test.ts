/**
 * The relay's edge faults on the wire, on both faces of the local venue: `clobbot sim`'s server on
 * loopback (fetch, wall clock) and the in-process connection (its HTTP transport, a VirtualClock)
 * run one scenario through the same raw requests and must get the same answers: `POST /relay`
 * rate limited (HTTP 429 -1003 with `Retry-After`) and failed (500 -1000, 502 and 503 -1001) by
 * the edge, the relay's own RATE_LIMITED with `Retry-After`, the standing rate; after every refusal
 * the venue is unchanged (no transaction: the next broadcast takes the sponsor's next nonce; no
 * order) and the very same signed body is accepted afterwards (its intent nonce was not used).
 * On loopback's relay WebSocket the same faults answer REJECTED RATE_LIMITED with `retryAfterMs`
 * and REJECTED INTERNAL_ERROR, and the connection's nonce does not move either.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetchTransport, type HttpTransport } from '../../src/clients/http-transport.ts';
import { liveClock, type Clock } from '../../src/core/clock.ts';
import { createLogger } from '../../src/core/logger.ts';
import { seededRandom } from '../../src/core/random.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import type { SimConfig } from '../../src/config/sim-config.ts';
import { Permission, RelayMethod } from '../../src/protocol/constants.ts';
import { accountCoreDomain, tradingWalletDomain } from '../../src/protocol/eip712-types.ts';
import { signAuthorization7702 } from '../../src/protocol/eip7702.ts';
import type { Address } from '../../src/protocol/encoding.ts';
import { signAuthorizeAccountSigner, signBatchIntent } from '../../src/protocol/intent-signing.ts';
import type { BatchIntent } from '../../src/protocol/intent-types.ts';
import { personalSign } from '../../src/protocol/personal-sign.ts';
import { encodeRelayRestRequest, encodeRelayWsMessage } from '../../src/protocol/relay-request.ts';
import { createInProcessVenue } from '../../src/runtime/in-process-venue.ts';
import { createPendingWork } from '../../src/runtime/pending-work.ts';
import { runOnVirtualClock } from '../../src/runtime/virtual-driver.ts';
import type { SimVenueModel } from '../../src/venue/sim-venue.ts';
import { simYaml, startTestVenue, TestSocket, type TestVenue } from './relay-harness.ts';

const OWNER = privateKeyToAccount(`0x${'5a'.repeat(32)}`);
const WALLET = privateKeyToAccount(`0x${'6b'.repeat(32)}`);
const lower = (address: string) => address.toLowerCase() as Address;

/** One face of the venue: how to send raw HTTP to it, its model and clock. */
interface Face {
  readonly transport: HttpTransport;
  readonly url: string;
  readonly model: SimVenueModel;
  readonly config: SimConfig;
  readonly clock: Clock;
}

/** What a test keeps of an answer: the status, `Retry-After`, and the body without the request id (made from each face's clock). */
interface Seen {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly body: Record<string, unknown>;
}

let requestCount = 0;
/** UUIDv7-shaped ids, the same on both faces. */
const requestId = () => `01900000-0000-7000-8000-${(++requestCount).toString(16).padStart(12, '0')}`;

async function call(face: Face, method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Readonly<Record<string, string>>; json: any }> {
  const answer = await face.transport({
    method,
    url: `${face.url}${path}`,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: answer.status, headers: answer.headers, json: answer.text === '' ? undefined : JSON.parse(answer.text) };
}

function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.scheduler.schedule(() => resolve(), ms));
}

async function untilMined(face: Face, txHash: `0x${string}`): Promise<void> {
  for (let i = 0; i < 500 && face.model.receipt(txHash) === undefined; i++) await sleep(face.clock, 10);
  if (face.model.receipt(txHash)?.success !== true) throw new Error(`${txHash} not mined, or reverted`);
}

/** OWNER funded, WALLET signed in, granted TRADE and delegated (confirmed): the account id and WALLET's JWT. */
async function onboard(face: Face): Promise<{ accountId: bigint; bearer: Record<string, string> }> {
  const funded = await call(face, 'POST', '/sim/fund', { owner: lower(OWNER.address), token: 'USDC', amount: '1000000000000' });
  const challenge = (await call(face, 'POST', '/auth/challenge', { wallet: lower(WALLET.address) })).json;
  const signature = await personalSign(WALLET, { message: challenge.message });
  const token = (await call(face, 'POST', '/auth/token', { challengeId: challenge.challengeId, signature })).json.accessToken as string;
  const bearer = { authorization: `Bearer ${token}` };
  const { chainId, contracts } = face.config;
  const intent = {
    account: lower(OWNER.address),
    authorizer: lower(OWNER.address),
    signer: lower(WALLET.address),
    permissions: BigInt(Permission.TRADE),
    expiry: 0n,
    nonce: 1n,
    deadline: BigInt(Math.floor(face.clock.now() / 1000) + 300),
  };
  const grant = await signAuthorizeAccountSigner(OWNER, { domain: accountCoreDomain({ chainId, accountCore: contracts.accountCore }), intent });
  const authorization7702 = await signAuthorization7702(WALLET, { chainId: BigInt(chainId), delegate: contracts.tradingWalletDelegate, nonce: 0n });
  const body = encodeRelayRestRequest({ requestId: requestId(), method: RelayMethod.authorizeAccountSigner, wallet: lower(WALLET.address), payload: { ...intent, signature: grant }, authorization7702 });
  const answer = await call(face, 'POST', '/relay', body, bearer);
  if (answer.json.status !== 'BROADCAST') throw new Error(`authorize: ${JSON.stringify(answer.json)}`);
  await untilMined(face, answer.json.txHash);
  return { accountId: BigInt(funded.json.accountId), bearer };
}

/** A signed batch of one resting buy of MON_USDC, nonce `nonce`. */
async function signedBatch(face: Face, accountId: bigint, nonce: bigint) {
  const market = face.model.info().markets.find((spec) => spec.symbol === 'MON_USDC')!.address;
  const intent: BatchIntent = {
    header: {
      accountId,
      market,
      authNonce: 0n,
      nonce,
      deadline: BigInt(Math.floor(face.clock.now() / 1000) + 300),
      clientOrderId: `0x${'00'.repeat(31)}01`,
      builder: `0x${'00'.repeat(20)}`,
      builderFeePps: 0n,
    },
    orders: [{ side: 'BUY', quantity: 100n, price: 300_000n, tif: 'GTC', executionInstruction: 'NONE', minSizeAfterBlock: 0n }],
    cancelSlotIdxs: [],
    expectedOrderIds: [],
  };
  const signature = await signBatchIntent(WALLET, { domain: tradingWalletDomain({ chainId: face.config.chainId, wallet: lower(WALLET.address) }), intent });
  return { market, payload: { ...intent, signature } };
}

/** The scenario, every answer in order (request ids taken out), with the venue's state checked along the way. */
async function scenario(face: Face): Promise<Seen[]> {
  const { accountId, bearer } = await onboard(face);
  const nonce = BigInt(face.clock.now());
  const { market, payload } = await signedBatch(face, accountId, nonce);
  // The same signed request every time: only the first that reaches the venue may use its nonce.
  const body = encodeRelayRestRequest({ requestId: requestId(), method: RelayMethod.executeBatch, wallet: lower(WALLET.address), payload, authorization7702: null });
  const seen: Seen[] = [];
  const post = async () => {
    const answer = await call(face, 'POST', '/relay', body, bearer);
    const { requestId: _id, ...rest } = answer.json as Record<string, unknown>;
    seen.push({ status: answer.status, retryAfter: answer.headers['retry-after'], body: rest });
    return answer;
  };
  const apply = async (action: Record<string, unknown>) => expect((await call(face, 'POST', '/sim/faults/actions', action)).status).toBe(200);

  await apply({ action: 'rate-limit-relay', retryAfterSec: 3 });
  await apply({ action: 'fail-relay', status: 500 });
  await apply({ action: 'fail-relay', status: 502 });
  await apply({ action: 'fail-relay' });
  await apply({ action: 'answer-rejected', code: 'RATE_LIMITED', retryAfterMs: 1500 });
  for (let i = 0; i < 5; i++) await post();
  expect((await call(face, 'GET', '/sim/faults/actions')).json.pending.relayRejections).toBe(0);
  // Nothing reached the venue: no order, and (below) no sponsor nonce was used.
  expect(face.model.openOrders(accountId, market)).toEqual([]);

  // Standing rates, set as `POST /sim/faults` does.
  expect((await call(face, 'POST', '/sim/faults', { relayRateLimitRate: 1, relayRetryAfterSec: 7 })).status).toBe(200);
  await post();
  expect((await call(face, 'POST', '/sim/faults', { relayRateLimitRate: 0 })).status).toBe(200);

  // The very same signed request now goes through: the refusals used neither its nonce nor a sponsor nonce.
  const accepted = await post();
  expect(accepted.status).toBe(200);
  expect(accepted.json).toMatchObject({ status: 'BROADCAST', sponsorNonce: '1' });
  await untilMined(face, accepted.json.txHash);
  expect(face.model.openOrders(accountId, market)).toHaveLength(1);
  // And once used, it is refused as a replay.
  expect((await call(face, 'POST', '/relay', body, bearer)).json).toMatchObject({ status: 'REJECTED', code: 'NONCE_NOT_INCREASING' });
  return seen;
}

const EDGE_429 = { code: -1003, msg: 'Too many requests queued.' };
const EDGE_500 = { code: -1000, msg: 'An unknown error occurred while processing the request.' };
const EDGE_50X = { code: -1001, msg: 'Internal error; unable to process your request. Please try again.' };

let loopback: TestVenue | undefined;
afterEach(async () => {
  await loopback?.stop();
  loopback = undefined;
});

describe('relay edge faults on the wire', () => {
  it('POST /relay: 429 -1003 with Retry-After, 500/502/503 with Binance bodies, nothing executed; the same on loopback and in-process', async () => {
    loopback = await startTestVenue({ blockMs: 20 });
    const onLoopback = await scenario({ transport: createFetchTransport(), url: loopback.url, model: loopback.server.venue, config: loopback.config, clock: liveClock });

    const relayRateLimited = {
      status: 'REJECTED',
      code: 'RATE_LIMITED',
      message: 'too many requests: retry after 1500 ms',
      retryable: true,
      retryAfterMs: 1500,
      candidateTxHash: null,
      sponsorAddress: null,
      sponsorNonce: null,
    };
    expect(onLoopback.slice(0, 6)).toEqual([
      { status: 429, retryAfter: '3', body: EDGE_429 },
      { status: 500, retryAfter: undefined, body: EDGE_500 },
      { status: 502, retryAfter: undefined, body: EDGE_50X },
      { status: 503, retryAfter: undefined, body: EDGE_50X },
      // The relay's own refusal keeps its body, and its 429 says Retry-After too (whole seconds, rounded up).
      { status: 429, retryAfter: '2', body: relayRateLimited },
      { status: 429, retryAfter: '7', body: EDGE_429 },
    ]);

    // The in-process connection answers through the same routes and fault model.
    const base = await simYaml();
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const pending = createPendingWork();
    const venue = createInProcessVenue({
      config: { ...base, blockMs: 20 },
      clock,
      random: seededRandom(42),
      secrets: seededRandom(43),
      latencyRandom: seededRandom(44),
      latency: { relay: { kind: 'constant', ms: 30 }, marketData: { kind: 'constant', ms: 30 }, userData: { kind: 'constant', ms: 30 } },
      logger: createLogger({ level: 'silent' }),
      pending,
      backgroundFlow: false,
    });
    venue.start();
    try {
      const face: Face = { transport: venue.transport, url: venue.url, model: venue.service.venue, config: { ...base, blockMs: 20 }, clock };
      const inProcess = await runOnVirtualClock(clock, () => scenario(face), { busy: pending.busy });
      expect(inProcess).toEqual(onLoopback);
    } finally {
      venue.stop();
    }
  });

  it('the relay WebSocket answers the same faults REJECTED RATE_LIMITED with retryAfterMs and INTERNAL_ERROR; the connection’s nonce does not move', async () => {
    loopback = await startTestVenue({ blockMs: 20 });
    const face: Face = { transport: createFetchTransport(), url: loopback.url, model: loopback.server.venue, config: loopback.config, clock: liveClock };
    const { accountId, bearer } = await onboard(face);
    const socket = await TestSocket.connect(loopback.url, bearer.authorization!.slice('Bearer '.length));
    const { market, payload } = await signedBatch(face, accountId, BigInt(liveClock.now()));
    const frame = (id: string) => encodeRelayWsMessage({ id, method: RelayMethod.executeBatch, payload, authorization7702: null });
    const apply = async (action: Record<string, unknown>) => expect((await call(face, 'POST', '/sim/faults/actions', action)).status).toBe(200);
    try {
      await apply({ action: 'rate-limit-relay', retryAfterSec: 2 });
      await apply({ action: 'fail-relay', status: 502 });
      socket.send(frame('a'));
      socket.send(frame('b'));
      expect(await socket.message('response', 'a')).toEqual({
        type: 'response',
        id: 'a',
        status: 'REJECTED',
        code: 'RATE_LIMITED',
        message: 'too many requests: retry after 2000 ms',
        retryable: true,
        retryAfterMs: 2000,
        candidateTxHash: null,
        sponsorAddress: null,
        sponsorNonce: null,
      });
      expect(await socket.message('response', 'b')).toMatchObject({ status: 'REJECTED', code: 'INTERNAL_ERROR', retryable: true, retryAfterMs: null, candidateTxHash: null });
      // A standing rate of 1 refuses the next one too.
      expect((await call(face, 'POST', '/sim/faults', { relayServerErrorRate: 1 })).status).toBe(200);
      socket.send(frame('c'));
      expect(await socket.message('response', 'c')).toMatchObject({ status: 'REJECTED', code: 'INTERNAL_ERROR' });
      expect((await call(face, 'POST', '/sim/faults', { relayServerErrorRate: 0 })).status).toBe(200);
      await socket.sync();
      expect(face.model.openOrders(accountId, market)).toEqual([]);
      expect(socket.messages.filter((message) => message.type === 'outcome')).toEqual([]);

      // The same signed intent under a new id: its nonce is still free on the connection and at the venue.
      socket.send(frame('d'));
      const accepted = await socket.message('response', 'd');
      expect(accepted).toMatchObject({ status: 'BROADCAST', sponsorNonce: '1' });
      expect(await socket.message('outcome', 'd')).toMatchObject({ status: 'CONFIRMED', txHash: accepted.txHash });
      expect(face.model.openOrders(accountId, market)).toHaveLength(1);
    } finally {
      socket.close();
    }
  });
});
