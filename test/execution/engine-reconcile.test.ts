/**
 * Reconciliation against the local venue when answers are lost for good: requests reach the venue
 * but the socket is cut before their answers come back (a TCP proxy holds what the server sends),
 * so the engine knows no transaction hash. It must find the executed ones in the order events
 * (never sending them again), settle the ones that did not execute as DROPPED once a later nonce
 * is confirmed, and keep its slots right.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { IntentFate } from '../../src/execution/execution-engine.ts';
import type { MarketState } from '../../src/execution/portfolio.ts';
import { TcpProxy } from './relay-support.ts';
import {
  auditJournal,
  buy,
  createdByPrice,
  engineOn,
  placeIntent,
  startEngineVenue,
  tempJournalDir,
  until,
  venueOrderIds,
  type EngineSetup,
  type EngineVenue,
  currentState,
  tearDownEngineWorld,
} from './engine-support.ts';

let v: EngineVenue | undefined;
let setup: EngineSetup | undefined;
let tmp: ReturnType<typeof tempJournalDir> | undefined;
let proxy: TcpProxy | undefined;

afterEach(async () => {
  await tearDownEngineWorld({ setup, v, tmp, proxy });
  v = undefined;
  setup = undefined;
  tmp = undefined;
  proxy = undefined;
});

function current(market: `0x${string}`): MarketState {
  return currentState(setup!, market);
}

describe('execution engine reconciliation without transaction hashes', () => {
  it('finds executed requests in the order events, settles the rest by the nonce fence, never resends', { timeout: 60_000 }, async () => {
    v = await startEngineVenue({ blockMs: 50 });
    tmp = tempJournalDir();
    proxy = await TcpProxy.start(v.venue.url);
    setup = engineOn(v, tmp.dir, { wsBaseUrl: proxy.url });
    const { engine } = setup;
    const market = v.market.address;
    await engine.start();
    await until(() => setup!.relay.transport.available() && v!.venue.server.relayWs.connectionCount() === 1, 5_000, 'the socket');
    // One order placed normally first, so slots start occupied.
    expect(await engine.submit(placeIntent(market, [buy(300_000n)]))).toMatchObject({ status: 'CONFIRMED' });

    // Answers held: the requests reach the venue and execute, the engine hears nothing.
    proxy.hold = true;
    const prices = [299_000n, 298_000n, 297_000n, 296_000n];
    const lost: Promise<IntentFate>[] = prices.map((price) => engine.submit(placeIntent(market, [buy(price)])));
    // One that reverts at execution (price off the tick): it leaves no trace.
    lost.push(engine.submit(placeIntent(market, [buy(295_005n)])));
    lost.push(engine.submit(placeIntent(market, [buy(294_000n, 100n, 'IOC')])));
    await until(() => venueOrderIds(v!, market).length === 5, 5_000, 'the held requests executed at the venue');
    proxy.cut();
    proxy.hold = false;
    await until(() => engine.stats().reconnects === 1, 5_000, 'the engine to see the new connection');

    // A later request, confirmed: the fence for the one that left no trace.
    expect(await engine.submit(placeIntent(market, [buy(293_000n)]))).toMatchObject({ status: 'CONFIRMED' });
    const fates = await Promise.all(lost);
    expect(fates.map((fate) => fate.status)).toEqual(['CONFIRMED', 'CONFIRMED', 'CONFIRMED', 'CONFIRMED', 'DROPPED', 'CONFIRMED']);
    expect(fates[4]).toMatchObject({ txHash: '', reason: expect.stringMatching(/not executed/) });
    const resolved = setup.journal
      .lines()
      .map((line) => JSON.parse(line) as { kind: string; how?: string; status?: string })
      .filter((record) => record.kind === 'resolved');
    expect(resolved.filter((record) => record.how === 'order-events' && record.status === 'CONFIRMED')).toHaveLength(5);
    expect(resolved.filter((record) => record.how === 'order-events' && record.status === 'DROPPED')).toHaveLength(1);
    expect(engine.stats().signed).toBe(8);

    // The engine's slots are the venue's.
    await until(() => current(market).orders.filter((order) => order.orderId !== undefined).length === 6, 5_000, 'every order id');
    const venueSlots = new Map(v.venue.server.venue.openOrders(v.accountId, market).map((order) => [order.id, order.slot]));
    for (const order of current(market).orders) expect(order.slot, `order ${order.orderId}`).toBe(venueSlots.get(order.orderId!));

    await engine.stop();
    expect(venueOrderIds(v, market)).toEqual([]);
    expect(auditJournal(setup.journal.lines(), tmp.dir).problems).toEqual([]);
    for (const count of createdByPrice(v, market).values()) expect(count).toBe(1);
  });
});
