/**
 * The connection faults a property test drives, on the venue's one fault model and a VirtualClock:
 * `duplicate-outcomes` and `reorder-outcomes` carried out by the relay WebSocket hub (frames recorded
 * with their exact clock times on a bare peer), and `delay-order-events` (with the standing
 * `orderEventsDelayMs`) carried out by the user-data route, through the service's own dispatcher.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/logger.ts';
import { seededRandom } from '../../src/core/random.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import type { SimConfig } from '../../src/config/sim-config.ts';
import { Permission, RelayMethod } from '../../src/protocol/constants.ts';
import { accountCoreDomain, tradingWalletDomain } from '../../src/protocol/eip712-types.ts';
import { signAuthorization7702 } from '../../src/protocol/eip7702.ts';
import type { Address } from '../../src/protocol/encoding.ts';
import { signAuthorizeAccountSigner, signBatchIntent } from '../../src/protocol/intent-signing.ts';
import type { OrderIntent } from '../../src/protocol/intent-types.ts';
import { encodeRelayWsMessage } from '../../src/protocol/relay-request.ts';
import { orderEventsResponseSchema, type OrderEvent } from '../../src/protocol/user-data.ts';
import type { MarketSpec } from '../../src/protocol/market-spec.ts';
import { DUPLICATE_OUTCOME_GAP_MS, REORDER_MAX_HOLD_MS } from '../../src/sim/fault-model.ts';
import type { RelayHubConnection } from '../../src/sim/relay-ws-hub.ts';
import { createSimService, type SimService } from '../../src/sim/sim-service.ts';
import { simYaml } from './relay-harness.ts';

const T0 = Date.UTC(2026, 0, 1);
const BLOCK_MS = 50;
const OWNER = privateKeyToAccount(`0x${'f6'.repeat(32)}`);
const WALLET = privateKeyToAccount(`0x${'a7'.repeat(32)}`);
const lower = (address: string) => address.toLowerCase() as Address;

interface Frame {
  readonly at: number;
  readonly text: string;
  readonly message: { readonly type: string; readonly id?: string; readonly status?: string };
}

interface World {
  readonly clock: VirtualClock;
  readonly config: SimConfig;
  readonly service: SimService;
  readonly market: MarketSpec;
  readonly accountId: bigint;
}

let current: World | undefined;
afterEach(() => {
  current?.service.stop();
  current = undefined;
});

/** A sim service on a VirtualClock (no background flow, no order-events cache), OWNER funded, WALLET granted TRADE and delegated. */
async function world(): Promise<World> {
  const base = await simYaml();
  const config: SimConfig = { ...base, blockMs: BLOCK_MS, userData: { ...base.userData, orderEventsCacheMs: 0 } };
  const clock = new VirtualClock(T0);
  const service = createSimService({ config, clock, random: seededRandom(1), secrets: seededRandom(2), logger: createLogger({ level: 'silent' }), backgroundFlow: false });
  service.start();
  const { venue } = service;
  const market = venue.marketBySymbol('MON_USDC')!;
  const accountId = venue.fund(lower(OWNER.address), market.quoteToken.address, 10n ** 12n);
  const intent = {
    account: lower(OWNER.address),
    authorizer: lower(OWNER.address),
    signer: lower(WALLET.address),
    permissions: BigInt(Permission.TRADE),
    expiry: 0n,
    nonce: 1n,
    deadline: BigInt(Math.floor(clock.now() / 1000) + 300),
  };
  const signature = await signAuthorizeAccountSigner(OWNER, { domain: accountCoreDomain({ chainId: config.chainId, accountCore: config.contracts.accountCore }), intent });
  const authorization7702 = await signAuthorization7702(WALLET, { chainId: BigInt(config.chainId), delegate: config.contracts.tradingWalletDelegate, nonce: 0n });
  const answer = await venue.submit(lower(WALLET.address), { method: RelayMethod.authorizeAccountSigner, payload: { ...intent, signature } }, authorization7702);
  if (answer.status !== 'BROADCAST') throw new Error(`authorize: ${JSON.stringify(answer)}`);
  clock.advanceBy(BLOCK_MS);
  if (venue.receipt(answer.txHash)?.success !== true) throw new Error('authorize did not confirm');
  current = { clock, config, service, market, accountId };
  return current;
}

function restingBuy(price: bigint): OrderIntent {
  return { side: 'BUY', price, quantity: 100n, tif: 'GTC', executionInstruction: 'NONE', minSizeAfterBlock: 0n };
}

let nonce = 0n;
/** A signed batch placing one resting buy at `price`, as a relay WebSocket frame with id `id`. */
async function batchFrame(w: World, id: string, price: bigint): Promise<string> {
  nonce = BigInt(w.clock.now()) > nonce ? BigInt(w.clock.now()) : nonce + 1n;
  const intent = {
    header: {
      accountId: w.accountId,
      market: w.market.address,
      authNonce: 0n,
      nonce,
      deadline: BigInt(Math.floor(w.clock.now() / 1000) + 300),
      clientOrderId: `0x${'00'.repeat(31)}01` as const,
      builder: `0x${'00'.repeat(20)}` as Address,
      builderFeePps: 0n,
    },
    orders: [restingBuy(price)],
    cancelSlotIdxs: [],
    expectedOrderIds: [],
  };
  const signature = await signBatchIntent(WALLET, { domain: tradingWalletDomain({ chainId: w.config.chainId, wallet: lower(WALLET.address) }), intent });
  return encodeRelayWsMessage({ id, method: RelayMethod.executeBatch, payload: { ...intent, signature }, authorization7702: null });
}

/** WALLET's relay WebSocket on the hub, without a socket: every frame sent, with its time after T0. */
function connect(w: World): { connection: RelayHubConnection; frames: Frame[]; outcomes: () => Frame[] } {
  const frames: Frame[] = [];
  const connection = w.service.relayWs.accept(
    {
      send: (text) => frames.push({ at: w.clock.now() - T0, text, message: JSON.parse(text) }),
      close: () => undefined,
      terminate: () => undefined,
    },
    lower(WALLET.address),
  );
  return { connection, frames, outcomes: () => frames.filter((frame) => frame.message.type === 'outcome') };
}

/** Sends a batch and checks it was answered BROADCAST at once. */
async function place(w: World, connection: RelayHubConnection, frames: Frame[], id: string, price: bigint): Promise<void> {
  await connection.frame(await batchFrame(w, id, price));
  const response = frames.findLast((frame) => frame.message.type === 'response');
  expect(response?.message).toMatchObject({ id, status: 'BROADCAST' });
}

describe('duplicate-outcomes', () => {
  it('sends the next outcome twice, the identical frame 1 ms apart (later frames behind it, as on one stream); the next one once', async () => {
    const w = await world();
    const { connection, frames, outcomes } = connect(w);
    w.service.faults.apply({ action: 'duplicate-outcomes' });
    await place(w, connection, frames, 'a', 300_000n);
    await place(w, connection, frames, 'b', 300_010n);
    expect(w.service.relayWs.pendingOutcomeCount()).toBe(2);
    w.clock.advanceBy(BLOCK_MS);
    const block = w.clock.now() - T0;
    // b, of the same block, waits behind the copy; neither is pending any more.
    expect(outcomes().map((frame) => [frame.message.id, frame.at])).toEqual([['a', block]]);
    expect(w.service.relayWs.pendingOutcomeCount()).toBe(0);
    w.clock.advanceBy(DUPLICATE_OUTCOME_GAP_MS);
    const sent = outcomes();
    expect(sent.map((frame) => [frame.message.id, frame.at])).toEqual([
      ['a', block],
      ['a', block + DUPLICATE_OUTCOME_GAP_MS],
      ['b', block + DUPLICATE_OUTCOME_GAP_MS],
    ]);
    expect(sent[1]!.text).toBe(sent[0]!.text);
    expect(sent[0]!.message).toMatchObject({ type: 'outcome', status: 'CONFIRMED' });
    w.clock.advanceBy(1000);
    expect(outcomes()).toHaveLength(3);
    expect(w.service.faults.pending().outcomes).toBe(0);
  });

  it('a duplicated outcome that is also delayed: the copy follows the delayed first one', async () => {
    const w = await world();
    const { connection, frames, outcomes } = connect(w);
    w.service.faults.apply({ action: 'set', settings: { outcomeDelayMs: 200, duplicateOutcomesRate: 1 } });
    await place(w, connection, frames, 'a', 300_000n);
    w.clock.advanceBy(BLOCK_MS);
    const block = w.clock.now() - T0;
    expect(outcomes()).toEqual([]);
    w.clock.advanceBy(300);
    expect(outcomes().map((frame) => frame.at)).toEqual([block + 200, block + 200 + DUPLICATE_OUTCOME_GAP_MS]);
  });
});

describe('reorder-outcomes', () => {
  it('holds the next outcome (still pending) until the following one is sent, then sends it right behind it', async () => {
    const w = await world();
    const { connection, frames, outcomes } = connect(w);
    w.service.faults.apply({ action: 'reorder-outcomes' });
    await place(w, connection, frames, 'a', 300_000n);
    w.clock.advanceBy(BLOCK_MS);
    expect(outcomes()).toEqual([]);
    expect(w.service.relayWs.pendingOutcomeCount()).toBe(1);
    await place(w, connection, frames, 'b', 300_010n);
    w.clock.advanceBy(BLOCK_MS);
    const block = w.clock.now() - T0;
    expect(outcomes().map((frame) => [frame.message.id, frame.at])).toEqual([
      ['b', block],
      ['a', block],
    ]);
    expect(w.service.relayWs.pendingOutcomeCount()).toBe(0);
    w.clock.advanceBy(2 * REORDER_MAX_HOLD_MS);
    expect(outcomes()).toHaveLength(2);
  });

  it('several held ones go out behind the next unheld outcome, in the order held', async () => {
    const w = await world();
    const { connection, frames, outcomes } = connect(w);
    w.service.faults.apply({ action: 'reorder-outcomes', count: 2 });
    await place(w, connection, frames, 'a', 300_000n);
    w.clock.advanceBy(BLOCK_MS);
    await place(w, connection, frames, 'b', 300_010n);
    w.clock.advanceBy(BLOCK_MS);
    expect(w.service.relayWs.pendingOutcomeCount()).toBe(2);
    await place(w, connection, frames, 'c', 300_020n);
    w.clock.advanceBy(BLOCK_MS);
    expect(outcomes().map((frame) => frame.message.id)).toEqual(['c', 'a', 'b']);
  });

  it('a held outcome with no successor goes out alone REORDER_MAX_HOLD_MS after it was due', async () => {
    const w = await world();
    const { connection, frames, outcomes } = connect(w);
    w.service.faults.apply({ action: 'reorder-outcomes' });
    await place(w, connection, frames, 'a', 300_000n);
    w.clock.advanceBy(BLOCK_MS);
    const due = w.clock.now() - T0;
    w.clock.advanceBy(REORDER_MAX_HOLD_MS - 1);
    expect(outcomes()).toEqual([]);
    expect(w.service.relayWs.pendingOutcomeCount()).toBe(1);
    w.clock.advanceBy(1);
    expect(outcomes().map((frame) => [frame.message.id, frame.at])).toEqual([['a', due + REORDER_MAX_HOLD_MS]]);
    expect(w.service.relayWs.pendingOutcomeCount()).toBe(0);
  });

  it('a held outcome of a dropped connection is never sent', async () => {
    const w = await world();
    const { connection, frames, outcomes } = connect(w);
    w.service.faults.apply({ action: 'reorder-outcomes' });
    await place(w, connection, frames, 'a', 300_000n);
    w.clock.advanceBy(BLOCK_MS);
    w.service.faults.apply({ action: 'drop-connections' });
    w.clock.advanceBy(2 * REORDER_MAX_HOLD_MS);
    expect(outcomes()).toEqual([]);
    expect(w.service.relayWs.pendingOutcomeCount()).toBe(0);
  });
});

describe('delay-order-events and orderEventsDelayMs', () => {
  /** GET order-events of OWNER through the service's dispatcher, parsed. */
  async function read(w: World, query = ''): Promise<{ events: OrderEvent[]; total: number }> {
    const answer = await w.service.dispatch({
      method: 'GET',
      target: `/api/v3/${lower(OWNER.address)}/user/order-events${query}`,
      headers: {},
      readBody: async () => ({ ok: true, text: '' }),
      ip: '127.0.0.1',
    });
    expect(answer.status).toBe(200);
    const { data, pagination } = orderEventsResponseSchema.parse(JSON.parse(answer.text)).data;
    return { events: data, total: pagination.total };
  }

  /** Places one resting buy of `accountId` at `price` (a system transaction) and lets its block come; returns the block time. */
  function placeAndMine(w: World, accountId: bigint, price: bigint): number {
    w.service.venue.enqueueSystemTx(accountId, w.market.address, { kind: 'batch', orders: [restingBuy(price)], cancelSlotIdxs: [], expectedOrderIds: [] });
    w.clock.advanceBy(BLOCK_MS);
    const [event] = w.service.venue.orderEvents(accountId, { limit: 1, offset: 0 }).events;
    expect(event?.eventType === 'order-created' ? BigInt(event.eventData.price) : undefined).toBe(price);
    return Date.parse(event!.blockTimestamp);
  }

  const prices = (events: readonly OrderEvent[]) => events.map((event) => (event.eventType === 'order-created' ? BigInt(event.eventData.price) : 0n));

  it('shows the next events readers come upon only delayMs after their block, timestamps unchanged; total and offsets count what is shown', async () => {
    const w = await world();
    const before = placeAndMine(w, w.accountId, 300_000n);
    // Blocks at or after the moment of the action take it: 1 ms after this block.
    w.clock.advanceBy(1);
    w.service.faults.apply({ action: 'delay-order-events', count: 2, delayMs: 3000 });
    const first = placeAndMine(w, w.accountId, 300_010n);
    const second = placeAndMine(w, w.accountId, 300_020n);
    placeAndMine(w, w.accountId, 300_030n);
    // Not read yet: nothing used up.
    expect(w.service.faults.pending().orderEvents).toBe(2);
    const now = await read(w);
    expect(w.service.faults.pending().orderEvents).toBe(0);
    expect(prices(now.events)).toEqual([300_030n, 300_000n]);
    expect(now.total).toBe(2);
    expect(Date.parse(now.events[1]!.blockTimestamp)).toBe(before);
    expect(prices((await read(w, '?limit=1&offset=1')).events)).toEqual([300_000n]);

    w.clock.advanceTo(first + 2999);
    expect((await read(w)).total).toBe(2);
    w.clock.advanceTo(first + 3000);
    const one = await read(w);
    expect(prices(one.events)).toEqual([300_030n, 300_010n, 300_000n]);
    expect(Date.parse(one.events[1]!.blockTimestamp)).toBe(first);
    w.clock.advanceTo(second + 3000);
    const all = await read(w);
    expect(prices(all.events)).toEqual([300_030n, 300_020n, 300_010n, 300_000n]);
    expect(all.total).toBe(4);
  });

  it('events of accounts no one reads take no delay; an event of a block before the action neither', async () => {
    const w = await world();
    const unread = w.service.venue.fund('0x00000000000000000000000000000000000b0b01', w.market.quoteToken.address, 10n ** 12n);
    const older = placeAndMine(w, w.accountId, 300_000n);
    w.clock.advanceBy(1);
    w.service.faults.apply({ action: 'delay-order-events', delayMs: 5000 });
    placeAndMine(w, unread, 300_100n);
    placeAndMine(w, unread, 300_110n);
    expect(w.service.faults.pending().orderEvents).toBe(1);
    // OWNER's only event is older than the action: shown, nothing used up.
    expect(prices((await read(w)).events)).toEqual([300_000n]);
    expect(w.service.faults.pending().orderEvents).toBe(1);
    const delayed = placeAndMine(w, w.accountId, 300_010n);
    expect(prices((await read(w)).events)).toEqual([300_000n]);
    expect(w.service.faults.pending().orderEvents).toBe(0);
    w.clock.advanceTo(delayed + 5000);
    expect(prices((await read(w)).events)).toEqual([300_010n, 300_000n]);
    expect(older).toBeLessThan(delayed);
  });

  it('a standing orderEventsDelayMs shows every event that long after its block, on top of a one-shot delay', async () => {
    const w = await world();
    w.service.faults.apply({ action: 'set', settings: { orderEventsDelayMs: 400 } });
    const plain = placeAndMine(w, w.accountId, 300_000n);
    w.clock.advanceBy(1);
    w.service.faults.apply({ action: 'delay-order-events', delayMs: 1000 });
    const delayed = placeAndMine(w, w.accountId, 300_010n);
    expect((await read(w)).total).toBe(0);
    w.clock.advanceTo(plain + 399);
    expect((await read(w)).total).toBe(0);
    w.clock.advanceTo(plain + 400);
    expect(prices((await read(w)).events)).toEqual([300_000n]);
    w.clock.advanceTo(delayed + 1399);
    expect((await read(w)).total).toBe(1);
    w.clock.advanceTo(delayed + 1400);
    expect(prices((await read(w)).events)).toEqual([300_010n, 300_000n]);
    w.service.faults.apply({ action: 'set', settings: { orderEventsDelayMs: 0 } });
    expect((await read(w)).total).toBe(2);
  });
});
