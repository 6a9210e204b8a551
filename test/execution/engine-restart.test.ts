/**
 * Restart: an engine with intents in flight against the venue model (in-process, virtual time) is
 * killed at once (its clock callbacks, transports and journal descriptors cut, as by SIGKILL). A new
 * engine on the same journal directory and the same venue reconciles everything the journal left
 * unresolved: nothing stays unresolved, no order is placed twice, every new nonce is above every
 * earlier one, and it knows the slots of the orders the killed engine left open (so its stop can
 * cancel them).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineStats } from '../../src/execution/execution-engine.ts';
import { readJournalRecords } from '../../src/execution/journal-history.ts';
import { journalPath, openJournal } from '../../src/execution/journal.ts';
import { lower } from '../sim/relay-harness.ts';
import {
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
  WALLET,
  type EngineSetup,
  type EngineVenue,
} from './engine-support.ts';

let v: EngineVenue | undefined;
let setup: EngineSetup | undefined;
let killed: EngineSetup | undefined;
let tmp: ReturnType<typeof tempJournalDir> | undefined;

afterEach(() => {
  killed?.process.kill();
  tearDownEngineWorld({ setup, v, tmp });
  v = undefined;
  setup = undefined;
  killed = undefined;
  tmp = undefined;
});

/** An engine submits `count` placements from `top` down and is killed once some are confirmed and others still in flight. */
async function runAndKill(world: EngineVenue, dir: string, count: number, top: bigint): Promise<EngineStats> {
  const doomed = (killed = engineOn(world, dir, { engine: { maxPendingOutcomes: 16 } }));
  const { engine } = doomed;
  return run(world, async () => {
    await engine.start();
    let price = top;
    for (let i = 0; i < count; i++) {
      // Every third one an IOC (no slot), the others rest.
      void engine.submit(placeIntent(world.market.address, [buy(price, 100n, i % 3 === 2 ? 'IOC' : 'GTC')]));
      price -= 10n;
    }
    return new Promise<EngineStats>((resolve) => {
      const sub = engine.stats$.subscribe((stats) => {
        if (stats.confirmed >= 3 && stats.unresolved >= 4) {
          doomed.process.kill();
          resolve(stats);
          queueMicrotask(() => sub.unsubscribe());
        }
      });
    });
  });
}

describe('execution engine restart', () => {
  it('reconciles what a killed engine left in flight: nothing unresolved, no duplicate order, nonces above every earlier one', async () => {
    const world = (v = await startEngineVenue({ blockMs: 250 }));
    tmp = tempJournalDir();
    const market = world.market.address;
    const atDeath = await runAndKill(world, tmp.dir, 30, 300_000n);
    expect(atDeath.unresolved).toBeGreaterThanOrEqual(4);

    // What the killed engine left: requests signed and not resolved.
    const left = openJournal({ clock: world.clock }, { dir: tmp.dir, network: 'sim', wallet: lower(WALLET) });
    const unresolvedBefore = left.restored.unresolved.length;
    const floor = left.restored.nonceFloor;
    left.close();
    expect(unresolvedBefore).toBeGreaterThan(0);
    const oldNonces = readJournalRecords(journalPath({ dir: tmp.dir, network: 'sim', wallet: lower(WALLET) })).flatMap((record) =>
      record.kind === 'signed' ? [BigInt(record.nonce)] : [],
    );
    expect(oldNonces.every((nonce) => nonce <= floor)).toBe(true);

    const engineSetup = (setup = engineOn(world, tmp.dir, { seed: 12, engine: { maxPendingOutcomes: 16 } }));
    const { engine } = engineSetup;
    const current = () => currentState(engineSetup, market);
    await run(world, async () => {
      await engine.start();
      await until(world, () => engine.stats().unresolved === 0, 30_000, 'every restored request settled');
      expect(engine.stats().reconciled + engine.stats().confirmed).toBeGreaterThan(0);

      // Something new: signed above every earlier nonce.
      expect(await engine.submit(placeIntent(market, [buy(250_000n)]))).toMatchObject({ status: 'CONFIRMED' });
      const newSigned = engineSetup.journal
        .lines()
        .map((line) => JSON.parse(line) as { kind: string; nonce?: string })
        .filter((record) => record.kind === 'signed');
      expect(newSigned).toHaveLength(1);
      expect(BigInt(newSigned[0]!.nonce!)).toBeGreaterThan(floor);

      // No order placed twice; the engine knows every open order with the venue's slot.
      for (const [price, count] of createdByPrice(world, market)) expect(count, `orders at ${price}`).toBe(1);
      const venueOrders = world.model.openOrders(world.accountId, market);
      expect(venueOrders.length).toBeGreaterThan(1);
      await until(
        world,
        () => current().orders.filter((order) => order.orderId !== undefined && order.slot !== undefined).length === venueOrders.length,
        10_000,
        'the engine to know every open order and its slot',
      );
      const slots = new Map(venueOrders.map((order) => [order.id, order.slot]));
      for (const order of current().orders) expect(order.slot, `order ${order.orderId}`).toBe(slots.get(order.orderId!));

      // Its stop cancels the orders the killed engine placed too.
      const stats = await engine.stop();
      expect(stats.unresolved).toBe(0);
    });
    expect(venueOrderIds(world, market)).toEqual([]);
    const after = openJournal({ clock: world.clock }, { dir: tmp.dir, network: 'sim', wallet: lower(WALLET) });
    expect(after.restored.unresolved).toEqual([]);
    expect(after.restored.nonceFloor).toBeGreaterThan(floor);
    after.close();
  });
});
