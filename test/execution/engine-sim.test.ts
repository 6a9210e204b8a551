/**
 * The engine against a real local venue (sim server on port 0, real keys, real WebSocket/REST
 * transports, real user-data clients, receipts over viem): placing, replacing, cancelling
 * everything, refusing trigger creation, the kill switch, and the in-flight cap under demand.
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

afterEach(async () => {
  await tearDownEngineWorld({ setup, v, tmp });
  v = undefined;
  setup = undefined;
  tmp = undefined;
});

function current(market: `0x${string}`): MarketState {
  return currentState(setup!, market);
}

describe('execution engine on the local venue', () => {
  it('places a batch (live only after CONFIRMED, with its slot), replaces it, cancels everything, refuses trigger creation', async () => {
    v = await startEngineVenue();
    tmp = tempJournalDir();
    setup = engineOn(v, tmp.dir);
    const { engine } = setup;
    const market = v.market.address;
    await engine.start();

    const placed = await engine.submit(placeIntent(market, [buy(300_000n)]));
    expect(placed).toMatchObject({ status: 'CONFIRMED' });
    await until(() => current(market).slots[0]?.orderId !== undefined, 5_000, 'the order id of slot 0');
    const first = current(market).slots[0]!;
    expect(first).toMatchObject({ side: 'BUY', price: 300_000n, size: 100n, slot: 0 });
    expect(venueOrderIds(v, market)).toEqual([first.orderId]);

    // Replace slot 0: the engine binds the op to the order it holds.
    const replaced = await engine.submit({ type: 'ReplaceSlots', market, purpose: 'test', ops: [{ slotIdx: 0, kind: 'place', side: 'BUY', postOnly: true, price: 299_000n, size: 200n, minSizeAfterBlock: 0n }] });
    expect(replaced).toMatchObject({ status: 'CONFIRMED' });
    await until(() => {
      const slot = current(market).slots[0];
      return slot?.price === 299_000n && slot.orderId !== undefined;
    }, 5_000, 'the replacement in slot 0');
    const second = current(market).slots[0]!;
    expect(second.orderId).not.toBe(first.orderId);
    expect(venueOrderIds(v, market)).toEqual([second.orderId]);

    // Two more in one batch: the lowest free slots.
    expect(await engine.submit(placeIntent(market, [buy(298_000n), buy(297_000n)]))).toMatchObject({ status: 'CONFIRMED' });
    await until(() => current(market).slots.filter((slot) => slot?.orderId !== undefined).length === 3, 5_000, 'three orders with ids');
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
    await until(() => current(market).orders.length === 0, 5_000, 'no orders in the state');
    // Nothing left to cancel.
    expect(await engine.submit({ type: 'CancelAll', market, purpose: 'test' })).toMatchObject({ status: 'NOTHING_TO_DO' });

    const stats = await engine.stop();
    expect(stats).toMatchObject({ signed: 4, confirmed: 4, refused: 1, unresolved: 0 });
    const audit = auditJournal(setup.journal.lines(), tmp.dir);
    expect(audit.problems).toEqual([]);
    expect(audit.signed).toBe(4);
    // No order was placed twice.
    for (const count of createdByPrice(v, market).values()) expect(count).toBe(1);
  });

  it('expects an empty slot to be empty and an occupied one to hold its order (uint64 max for empty)', async () => {
    v = await startEngineVenue();
    tmp = tempJournalDir();
    setup = engineOn(v, tmp.dir);
    const { engine } = setup;
    const market = v.market.address;
    await engine.start();
    // A cancel of an empty slot binds uint64 max: it executes (nothing to cancel).
    expect(await engine.submit(placeIntent(market, [buy(300_000n)], 'test', [5]))).toMatchObject({ status: 'CONFIRMED' });
    const signed = setup.journal.lines().filter((line) => line.includes('"kind":"signed"'));
    expect(JSON.parse(JSON.parse(signed[0]!).body).payload.expectedOrderIds).toEqual([UINT64_MAX.toString()]);
    await engine.stop();
    expect(auditJournal(setup.journal.lines(), tmp.dir).problems).toEqual([]);
  });

  it('with 100 intents in flight demand keeps the pending count at the cap, and every one resolves', async () => {
    v = await startEngineVenue({ blockMs: 150 });
    tmp = tempJournalDir();
    const cap = 8;
    setup = engineOn(v, tmp.dir, { engine: { maxPendingOutcomes: cap } });
    const { engine } = setup;
    const market = v.market.address;
    await engine.start();
    let maxServerPending = 0;
    const watch = setInterval(() => (maxServerPending = Math.max(maxServerPending, v!.venue.server.relayWs.pendingOutcomeCount())), 2);
    const seen: EngineStats[] = [];
    const sub = engine.stats$.subscribe((stats) => seen.push(stats));
    // IOC buys far below the mid: each executes (created, then cancelled unfilled) and takes no slot.
    const fates = await Promise.all(Array.from({ length: 100 }, (_, i) => engine.submit(placeIntent(market, [buy(200_000n + 10n * BigInt(i), 100n, 'IOC')]))));
    clearInterval(watch);
    sub.unsubscribe();
    expect(fates.every((fate) => fate.status === 'CONFIRMED')).toBe(true);
    expect(Math.max(...seen.map((stats) => stats.pendingOutcomes))).toBeLessThanOrEqual(cap);
    expect(engine.stats().maxPendingOutcomes).toBe(cap);
    expect(maxServerPending).toBeLessThanOrEqual(cap);
    const stats = await engine.stop();
    expect(stats).toMatchObject({ signed: 100, confirmed: 100, reconnects: 0, unresolved: 0 });
    const audit = auditJournal(setup.journal.lines(), tmp.dir);
    expect(audit.problems).toEqual([]);
    const created = createdByPrice(v, market);
    expect(created.size).toBe(100);
    for (const count of created.values()) expect(count).toBe(1);
  });

  it('the kill switch cancels every order and refuses placements from then on', async () => {
    v = await startEngineVenue();
    tmp = tempJournalDir();
    setup = engineOn(v, tmp.dir);
    const { engine } = setup;
    const market = v.market.address;
    await engine.start();
    const fates = await Promise.all([300_000n, 299_000n, 298_000n].map((price) => engine.submit(placeIntent(market, [buy(price)]))));
    expect(fates.map((fate) => fate.status)).toEqual(['CONFIRMED', 'CONFIRMED', 'CONFIRMED']);
    expect(venueOrderIds(v, market)).toHaveLength(3);
    const reports: string[] = [];
    engine.reports$.subscribe((report) => reports.push(`${report.intent.type}:${report.intent.purpose}:${report.fate.status}`));
    engine.kill('test');
    expect(await engine.submit(placeIntent(market, [buy(297_000n)]))).toMatchObject({ status: 'REFUSED', code: 'RISK_KILL_SWITCH' });
    await until(() => venueOrderIds(v!, market).length === 0, 10_000, 'every order cancelled');
    await firstValueFrom(engine.state$(market).pipe(filter((state) => state.orders.length === 0)));
    expect(reports).toContain('CancelAll:kill-switch:CONFIRMED');
    await engine.stop();
    expect(auditJournal(setup.journal.lines(), tmp.dir).problems).toEqual([]);
  });
});
