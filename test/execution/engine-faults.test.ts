/**
 * The engine against the venue model (in-process, virtual time) with faults on: sockets dropped
 * mid-flight, outcomes withheld and delayed, UNKNOWN and REJECTED answers, JWTs that expire every
 * 2 s, and a fault script at set clock times (rate limits, a 4008 close, every JWT revoked, a burst of
 * withheld outcomes). After the run: every signed request has a final status in the journal, no nonce was used twice, the pending
 * count never exceeded the cap (at the engine and at the relay), no order was placed twice, and what
 * the engine says matches the venue.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { IntentFate } from '../../src/execution/execution-engine.ts';
import { WS_CLOSE_PENDING_OUTCOME_LIMIT } from '../../src/protocol/constants.ts';
import {
  auditJournal,
  buy,
  createdByPrice,
  engineOn,
  placeIntent,
  run,
  setFaults,
  sleep,
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

describe('execution engine under faults', () => {
  it('accounts for every intent through dropped sockets, withheld and delayed outcomes, UNKNOWN and REJECTED answers and expiring JWTs', async () => {
    const world = (v = await startEngineVenue({ blockMs: 50, jwtLifetimeSec: 2 }));
    tmp = tempJournalDir();
    const cap = 12;
    setup = engineOn(world, tmp.dir, { engine: { maxPendingOutcomes: cap }, responseTimeoutMs: 1_500 });
    const { engine } = setup;
    const market = world.market.address;
    let jwts = 0;
    setup.relay.session.renewals$.subscribe(() => (jwts += 1));
    const relayPending = watchRelayPending(world);
    const submitted: { readonly price: bigint; readonly fate: Promise<IntentFate> }[] = [];

    const fates = await run(world, async () => {
      await engine.start();
      setFaults(world, { dropWebSocketsEveryMs: 300, withholdOutcomesRate: 0.25, outcomeDelayMs: 80, unknownResponseRate: 0.2, rejectResponseRate: 0.05 });
      // One-shot faults at set times of the ~3 s of waves.
      world.service.faults.schedule([
        { at: 400, fault: { action: 'answer-rejected', count: 4, code: 'RATE_LIMITED', retryAfterMs: 250 } },
        { at: 900, fault: { action: 'close-pending-outcome-limit' } },
        { at: 1_300, fault: { action: 'expire-tokens' } },
        { at: 1_700, fault: { action: 'withhold-outcomes', count: 6 } },
        { at: 2_200, fault: { action: 'answer-unknown', count: 3 } },
      ]);
      // Waves of IOC buys (take no slot) and resting buys (GTC), each at its own price.
      let price = 250_000n;
      for (let wave = 0; wave < 20; wave++) {
        for (let i = 0; i < 8; i++) {
          price -= 10n;
          const tif = i === 0 ? 'GTC' : 'IOC';
          submitted.push({ price, fate: engine.submit(placeIntent(market, [buy(price, 100n, tif)])) });
        }
        await sleep(world, 150);
      }
      return Promise.all(submitted.map((entry) => entry.fate));
    });
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
    // REJECTED answers (the rate limits among them) were retried, each attempt counted.
    expect(stats.rejected).toBeGreaterThanOrEqual(4);
    expect(world.service.faults.pending()).toEqual({ outcomes: 0, relayRejections: 0, unknownAnswers: 0, marketData: 0, orderEvents: 0 });
    expect(setup.process.closeCodes).toContain(WS_CLOSE_PENDING_OUTCOME_LIMIT);
    expect(stats.maxPendingOutcomes).toBeLessThanOrEqual(cap);

    // What the fates say is what the venue did: a CONFIRMED intent's order exists once, any other none.
    const created = createdByPrice(world, market);
    submitted.forEach((entry, index) => {
      const count = created.get(entry.price) ?? 0;
      expect(count, `intent at ${entry.price}: ${JSON.stringify(fates[index])}`).toBe(fates[index]!.status === 'CONFIRMED' ? 1 : 0);
    });

    // Stop with the faults still on: every resting order is cancelled, every request settles.
    const final = await run(world, () => engine.stop({ timeoutMs: 40_000 }));
    expect(final.unresolved).toBe(0);
    expect(final.maxPendingOutcomes).toBeLessThanOrEqual(cap);
    relayPending.stop();
    expect(relayPending.max()).toBeGreaterThan(0);
    expect(relayPending.max()).toBeLessThanOrEqual(cap);
    setFaults(world, { dropWebSocketsEveryMs: 0, withholdOutcomesRate: 0, outcomeDelayMs: 0, unknownResponseRate: 0, rejectResponseRate: 0 });
    await run(world, () => until(world, () => venueOrderIds(world, market).length === 0, 5_000, 'no open order at the venue'));
    const audit = auditJournal(setup.journal.lines(), tmp.dir);
    expect(audit.problems).toEqual([]);
    expect(audit.signed).toBe(final.signed);
    for (const count of createdByPrice(world, market).values()) expect(count).toBeLessThanOrEqual(1);
  });
});
