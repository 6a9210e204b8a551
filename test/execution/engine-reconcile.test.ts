/**
 * Reconciliation against the venue model (in-process, virtual time) when answers are lost for good:
 * requests reach the venue but the relay link is cut before their answers come back (the engine's
 * process holds what the relay sends, then loses it with the connection), so the engine knows no
 * transaction hash. It must find the executed ones in the order events (never sending them again),
 * settle the ones that did not execute as DROPPED once a later nonce is confirmed, and keep its
 * slots right.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { IntentFate } from '../../src/execution/execution-engine.ts';
import {
  auditJournal,
  buy,
  createdByPrice,
  currentState,
  engineOn,
  placeIntent,
  run,
  startEngineVenue,
  tearDownEngineWorld,
  tempJournalDir,
  until,
  venueOrderIds,
  type EngineSetup,
  type EngineVenue,
} from './engine-support.ts';

let v: EngineVenue | undefined;
let setup: EngineSetup | undefined;
let tmp: ReturnType<typeof tempJournalDir> | undefined;

afterEach(() => {
  tearDownEngineWorld({ setup, v, tmp });
  v = undefined;
  setup = undefined;
  tmp = undefined;
});

describe('execution engine reconciliation without transaction hashes', () => {
  it('finds executed requests in the order events, settles the rest by the nonce fence, never resends', async () => {
    const world = (v = await startEngineVenue({ blockMs: 50 }));
    tmp = tempJournalDir();
    const engineSetup = (setup = engineOn(world, tmp.dir));
    const { engine, process } = engineSetup;
    const market = world.market.address;
    const current = () => currentState(engineSetup, market);

    await run(world, async () => {
      await engine.start();
      await until(world, () => engineSetup.relay.transport.available() && world.service.relayWs.connectionCount() === 1, 5_000, 'the socket');
      // One order placed normally first, so slots start occupied.
      expect(await engine.submit(placeIntent(market, [buy(300_000n)]))).toMatchObject({ status: 'CONFIRMED' });

      // Answers held: the requests reach the venue and execute, the engine hears nothing.
      process.hold = true;
      const prices = [299_000n, 298_000n, 297_000n, 296_000n];
      const lost: Promise<IntentFate>[] = prices.map((price) => engine.submit(placeIntent(market, [buy(price)])));
      // One that reverts at execution (price off the tick): it leaves no trace.
      lost.push(engine.submit(placeIntent(market, [buy(295_005n)])));
      lost.push(engine.submit(placeIntent(market, [buy(294_000n, 100n, 'IOC')])));
      await until(world, () => venueOrderIds(world, market).length === 5, 5_000, 'the held requests executed at the venue');
      process.cutRelay();
      await until(world, () => engine.stats().reconnects === 1, 5_000, 'the engine to see the new connection');

      // A later request, confirmed: the fence for the one that left no trace.
      expect(await engine.submit(placeIntent(market, [buy(293_000n)]))).toMatchObject({ status: 'CONFIRMED' });
      const fates = await Promise.all(lost);
      expect(fates.map((fate) => fate.status)).toEqual(['CONFIRMED', 'CONFIRMED', 'CONFIRMED', 'CONFIRMED', 'DROPPED', 'CONFIRMED']);
      expect(fates[4]).toMatchObject({ txHash: '', code: 'INTENT_DROPPED_NONCE_FENCED', reason: expect.stringMatching(/not executed/), details: { confirmedNonce: expect.stringMatching(/^[0-9]+$/) } });
      const resolved = engineSetup.journal
        .lines()
        .map((line) => JSON.parse(line) as { kind: string; how?: string; status?: string })
        .filter((record) => record.kind === 'resolved');
      expect(resolved.filter((record) => record.how === 'order-events' && record.status === 'CONFIRMED')).toHaveLength(5);
      expect(resolved.filter((record) => record.how === 'order-events' && record.status === 'DROPPED')).toHaveLength(1);
      expect(engine.stats().signed).toBe(8);

      // The engine's slots are the venue's.
      await until(world, () => current().orders.filter((order) => order.orderId !== undefined).length === 6, 5_000, 'every order id');
      const venueSlots = new Map(world.model.openOrders(world.accountId, market).map((order) => [order.id, order.slot]));
      for (const order of current().orders) expect(order.slot, `order ${order.orderId}`).toBe(venueSlots.get(order.orderId!));

      await engine.stop();
    });
    expect(venueOrderIds(world, market)).toEqual([]);
    expect(auditJournal(engineSetup.journal.lines(), tmp.dir).problems).toEqual([]);
    for (const count of createdByPrice(world, market).values()) expect(count).toBe(1);
  });
});
