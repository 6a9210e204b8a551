/**
 * The engine against the local venue with faults on: sockets dropped mid-flight, outcomes withheld
 * and delayed, UNKNOWN answers, JWTs that expire every 2 s. After the run: every signed request
 * has a final status in the journal, no nonce was used twice, the pending count never exceeded the
 * cap, no order was placed twice, and what the engine says matches the venue.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { IntentFate } from '../../src/execution/execution-engine.ts';
import {
  auditJournal,
  buy,
  createdByPrice,
  engineOn,
  placeIntent,
  setFaults,
  startEngineVenue,
  tempJournalDir,
  until,
  venueOrderIds,
  type EngineSetup,
  type EngineVenue,
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('execution engine under faults', () => {
  it('accounts for every intent through dropped sockets, withheld and delayed outcomes, UNKNOWN answers and expiring JWTs', { timeout: 90_000 }, async () => {
    v = await startEngineVenue({ blockMs: 50, jwtLifetimeSec: 2 });
    tmp = tempJournalDir();
    const cap = 12;
    setup = engineOn(v, tmp.dir, { engine: { maxPendingOutcomes: cap }, responseTimeoutMs: 1_500 });
    const { engine } = setup;
    const market = v.market.address;
    let jwts = 0;
    setup.relay.session.renewals$.subscribe(() => (jwts += 1));
    await engine.start();
    await setFaults(v.venue, { dropWebSocketsEveryMs: 300, withholdOutcomesRate: 0.25, outcomeDelayMs: 80, unknownResponseRate: 0.2 });
    let maxServerPending = 0;
    const watch = setInterval(() => (maxServerPending = Math.max(maxServerPending, v!.venue.server.relayWs.pendingOutcomeCount())), 2);

    // Waves of IOC buys (take no slot) and resting buys (GTC), each at its own price.
    const submitted: { readonly price: bigint; readonly fate: Promise<IntentFate> }[] = [];
    let price = 250_000n;
    for (let wave = 0; wave < 20; wave++) {
      for (let i = 0; i < 8; i++) {
        price -= 10n;
        const tif = i === 0 ? 'GTC' : 'IOC';
        submitted.push({ price, fate: engine.submit(placeIntent(market, [buy(price, 100n, tif)])) });
      }
      await sleep(150);
    }
    const fates = await Promise.all(submitted.map((entry) => entry.fate));
    clearInterval(watch);
    const statuses = new Map<string, number>();
    for (const fate of fates) statuses.set(fate.status, (statuses.get(fate.status) ?? 0) + 1);
    // Faults cost some, never all; no intent is lost.
    expect(fates).toHaveLength(160);
    expect(statuses.get('CONFIRMED') ?? 0).toBeGreaterThan(80);
    for (const status of statuses.keys()) expect(['CONFIRMED', 'DROPPED', 'REJECTED']).toContain(status);
    const stats = engine.stats();
    // JWTs of 2 s: renewed, and every reconnect signs in with a valid one.
    expect(jwts).toBeGreaterThan(1);
    expect(stats.reconnects).toBeGreaterThan(0);
    expect(stats.reconciled).toBeGreaterThan(0);
    expect(stats.maxPendingOutcomes).toBeLessThanOrEqual(cap);
    expect(maxServerPending).toBeLessThanOrEqual(cap);

    // What the fates say is what the venue did: a CONFIRMED intent's order exists once, any other none.
    const created = createdByPrice(v, market);
    submitted.forEach((entry, index) => {
      const count = created.get(entry.price) ?? 0;
      expect(count, `intent at ${entry.price}: ${JSON.stringify(fates[index])}`).toBe(fates[index]!.status === 'CONFIRMED' ? 1 : 0);
    });

    // Stop with the faults still on: every resting order is cancelled, every request settles.
    const final = await engine.stop({ timeoutMs: 40_000 });
    expect(final.unresolved).toBe(0);
    expect(final.maxPendingOutcomes).toBeLessThanOrEqual(cap);
    await setFaults(v.venue, { dropWebSocketsEveryMs: 0, withholdOutcomesRate: 0, outcomeDelayMs: 0, unknownResponseRate: 0 });
    await until(() => venueOrderIds(v!, market).length === 0, 5_000, 'no open order at the venue');
    const audit = auditJournal(setup.journal.lines(), tmp.dir);
    expect(audit.problems).toEqual([]);
    expect(audit.signed).toBe(final.signed);
    for (const count of createdByPrice(v, market).values()) expect(count).toBeLessThanOrEqual(1);
  });
});
