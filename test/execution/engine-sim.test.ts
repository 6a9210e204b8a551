/**
 * The engine against the real venue model through the in-process connection, on virtual time (real
 * keys, real WebSocket/REST transports and relay rules, real user-data clients, receipts over viem):
 * placing, replacing, cancelling everything, refusing trigger creation, the kill switch, and the
 * in-flight cap under demand.
 */
import { firstValueFrom, filter } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { UINT64_MAX } from '../../src/core/units.ts';
import type { EngineStats, IntentFate } from '../../src/execution/execution-engine.ts';
import type { MarketState } from '../../src/execution/portfolio.ts';
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
  watchRelayPending,
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

function current(market: `0x${string}`): MarketState {
  return currentState(setup!, market);
}

/** A venue, a journal directory and an engine on them. */
async function world(options: { readonly blockMs?: number; readonly cap?: number } = {}): Promise<{ v: EngineVenue; setup: EngineSetup; dir: string }> {
  v = await startEngineVenue(options.blockMs === undefined ? {} : { blockMs: options.blockMs });
  tmp = tempJournalDir();
  setup = engineOn(v, tmp.dir, options.cap === undefined ? {} : { engine: { maxPendingOutcomes: options.cap } });
  return { v, setup, dir: tmp.dir };
}

describe('execution engine on the venue model (in-process, virtual time)', () => {
  it('places a batch (live only after CONFIRMED, with its slot), replaces it, cancels everything, refuses trigger creation', async () => {
    const { v, setup, dir } = await world();
    const { engine } = setup;
    const market = v.market.address;
    await run(v, async () => {
      await engine.start();

      const placed = await engine.submit(placeIntent(market, [buy(300_000n)]));
      expect(placed).toMatchObject({ status: 'CONFIRMED' });
      await until(v, () => current(market).slots[0]?.orderId !== undefined, 5_000, 'the order id of slot 0');
      const first = current(market).slots[0]!;
      expect(first).toMatchObject({ side: 'BUY', price: 300_000n, size: 100n, slot: 0 });
      expect(venueOrderIds(v, market)).toEqual([first.orderId]);

      // Replace slot 0: the engine binds the op to the order it holds.
      const replaced = await engine.submit({ type: 'ReplaceSlots', market, purpose: 'test', ops: [{ slotIdx: 0, kind: 'place', side: 'BUY', postOnly: true, price: 299_000n, size: 200n, minSizeAfterBlock: 0n }] });
      expect(replaced).toMatchObject({ status: 'CONFIRMED' });
      await until(v, () => {
        const slot = current(market).slots[0];
        return slot?.price === 299_000n && slot.orderId !== undefined;
      }, 5_000, 'the replacement in slot 0');
      const second = current(market).slots[0]!;
      expect(second.orderId).not.toBe(first.orderId);
      expect(venueOrderIds(v, market)).toEqual([second.orderId]);

      // Two more in one batch: the lowest free slots.
      expect(await engine.submit(placeIntent(market, [buy(298_000n), buy(297_000n)]))).toMatchObject({ status: 'CONFIRMED' });
      await until(v, () => current(market).slots.filter((slot) => slot?.orderId !== undefined).length === 3, 5_000, 'three orders with ids');
      expect(current(market).slots.slice(0, 3).map((slot) => slot?.price)).toEqual([299_000n, 298_000n, 297_000n]);

      // Trigger creation: refused, nothing signed.
      const signedBefore = engine.stats().signed;
      const trigger = await engine.submit({ type: 'CreateBatchTrigger', market, purpose: 'test', orders: [buy(296_000n)] });
      expect(trigger).toMatchObject({ status: 'REFUSED', code: 'INTENT_NOT_SUPPORTED_LIVE' });
      expect((trigger as Extract<IntentFate, { status: 'REFUSED' }>).message).toMatch(/not supported live/);
      expect(engine.stats().signed).toBe(signedBefore);

      // CancelAll leaves nothing open.
      const cancelled = await engine.submit({ type: 'CancelAll', purpose: 'test' });
      expect(cancelled).toMatchObject({ status: 'CONFIRMED' });
      expect(venueOrderIds(v, market)).toEqual([]);
      await until(v, () => current(market).orders.length === 0, 5_000, 'no orders in the state');
      // Nothing left to cancel.
      expect(await engine.submit({ type: 'CancelAll', market, purpose: 'test' })).toMatchObject({ status: 'NOTHING_TO_DO' });

      const stats = await engine.stop();
      expect(stats).toMatchObject({ signed: 4, confirmed: 4, refused: 1, unresolved: 0 });
    });
    const audit = auditJournal(setup.journal.lines(), dir);
    expect(audit.problems).toEqual([]);
    expect(audit.signed).toBe(4);
    // No order was placed twice.
    for (const count of createdByPrice(v, market).values()) expect(count).toBe(1);
  });

  it('expects an empty slot to be empty and an occupied one to hold its order (uint64 max for empty)', async () => {
    const { v, setup, dir } = await world();
    const { engine } = setup;
    const market = v.market.address;
    await run(v, async () => {
      await engine.start();
      // A cancel of an empty slot binds uint64 max: it executes (nothing to cancel).
      expect(await engine.submit(placeIntent(market, [buy(300_000n)], 'test', [5]))).toMatchObject({ status: 'CONFIRMED' });
      await until(v, () => current(market).slots[0]?.orderId !== undefined, 5_000, 'the order id of slot 0');
      // Cancelling the occupied slot 0 binds its order id.
      expect(await engine.submit(placeIntent(market, [buy(299_000n)], 'test', [0]))).toMatchObject({ status: 'CONFIRMED' });
      await engine.stop();
    });
    const signed = setup.journal.lines().filter((line) => line.includes('"kind":"signed"'));
    const expected = signed.map((line) => JSON.parse(JSON.parse(line).body).payload.expectedOrderIds as string[]);
    expect(expected[0]).toEqual([UINT64_MAX.toString()]);
    expect(expected[1]).toHaveLength(1);
    expect(expected[1]![0]).not.toBe(UINT64_MAX.toString());
    expect(createdByPrice(v, market).get(300_000n)).toBe(1);
    expect(auditJournal(setup.journal.lines(), dir).problems).toEqual([]);
  });

  it('with 100 intents in flight demand keeps the pending count at the cap, and every one resolves', async () => {
    const cap = 8;
    const { v, setup, dir } = await world({ blockMs: 150, cap });
    const { engine } = setup;
    const market = v.market.address;
    const relayPending = watchRelayPending(v);
    const seen: EngineStats[] = [];
    const sub = engine.stats$.subscribe((stats) => seen.push(stats));
    await run(v, async () => {
      await engine.start();
      // IOC buys far below the mid: each executes (created, then cancelled unfilled) and takes no slot.
      const fates = await Promise.all(Array.from({ length: 100 }, (_, i) => engine.submit(placeIntent(market, [buy(200_000n + 10n * BigInt(i), 100n, 'IOC')]))));
      expect(fates.every((fate) => fate.status === 'CONFIRMED')).toBe(true);
      const stats = await engine.stop();
      expect(stats).toMatchObject({ signed: 100, confirmed: 100, reconnects: 0, unresolved: 0 });
    });
    relayPending.stop();
    sub.unsubscribe();
    expect(Math.max(...seen.map((stats) => stats.pendingOutcomes))).toBeLessThanOrEqual(cap);
    expect(engine.stats().maxPendingOutcomes).toBe(cap);
    // The relay held outcomes pending (the watch saw them), never more than the engine's cap.
    expect(relayPending.max()).toBeGreaterThan(0);
    expect(relayPending.max()).toBeLessThanOrEqual(cap);
    expect(auditJournal(setup.journal.lines(), dir).problems).toEqual([]);
    const created = createdByPrice(v, market);
    expect(created.size).toBe(100);
    for (const count of created.values()) expect(count).toBe(1);
  });

  it('the kill switch cancels every order and refuses placements from then on', async () => {
    const { v, setup, dir } = await world();
    const { engine } = setup;
    const market = v.market.address;
    const reports: string[] = [];
    await run(v, async () => {
      await engine.start();
      const fates = await Promise.all([300_000n, 299_000n, 298_000n].map((price) => engine.submit(placeIntent(market, [buy(price)]))));
      expect(fates.map((fate) => fate.status)).toEqual(['CONFIRMED', 'CONFIRMED', 'CONFIRMED']);
      expect(venueOrderIds(v, market)).toHaveLength(3);
      engine.reports$.subscribe((report) => reports.push(`${report.intent.type}:${report.intent.purpose}:${report.fate.status}`));
      engine.kill('test');
      expect(await engine.submit(placeIntent(market, [buy(297_000n)]))).toMatchObject({ status: 'REFUSED', code: 'RISK_KILL_SWITCH' });
      await until(v, () => venueOrderIds(v, market).length === 0, 10_000, 'every order cancelled');
      await firstValueFrom(engine.state$(market).pipe(filter((state) => state.orders.length === 0)));
      await engine.stop();
    });
    expect(reports).toContain('CancelAll:kill-switch:CONFIRMED');
    expect(createdByPrice(v, market).get(297_000n)).toBeUndefined();
    expect(auditJournal(setup.journal.lines(), dir).problems).toEqual([]);
  });
});
