/**
 * The execution engine against the venue model (in-process connection, virtual time) while the
 * edge in front of the relay refuses submissions: rate limits (HTTP 429 -1003 with `Retry-After` on
 * `POST /relay`, REJECTED RATE_LIMITED with `retryAfterMs` on the WebSocket) and server errors
 * (500/502/503 on REST, REJECTED INTERNAL_ERROR on the WebSocket), counted and at standing rates.
 *
 * Every signed request reaches one final status and every intent one fate; no intent executes twice
 * (the venue holds each CONFIRMED intent's order once, any other's none); a rate-limited intent is
 * signed again only once its `Retry-After` has passed; a REST 5xx, which cannot say whether the relay
 * broadcast the request, is reconciled (never sent again blindly) and found not executed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientContext } from '../../src/clients/send-request.ts';
import { seededRandom } from '../../src/core/random.ts';
import type { IntentFate } from '../../src/execution/execution-engine.ts';
import type { JournalRecord } from '../../src/execution/journal-record.ts';
import { createRelaySession } from '../../src/execution/relay-session.ts';
import { createRestRelayTransport, type RelayTransport } from '../../src/execution/relay-transport.ts';
import {
  auditJournal,
  buy,
  createdByPrice,
  engineOn,
  placeIntent,
  run,
  sleep,
  startEngineVenue,
  tearDownEngineWorld,
  tempJournalDir,
  venueOrderIds,
  WALLET,
  TEST_RISK,
  type EngineSetup,
  type EngineVenue,
} from './engine-support.ts';
import type { FaultActionInput } from '../../src/config/fault-config.ts';

let v: EngineVenue | undefined;
let setup: EngineSetup | undefined;
let tmp: ReturnType<typeof tempJournalDir> | undefined;

afterEach(() => {
  tearDownEngineWorld({ setup, v, tmp });
  v = undefined;
  setup = undefined;
  tmp = undefined;
});

/** A refused attempt of an intent and when the intent was signed again. */
interface Retry {
  readonly purpose: string;
  readonly code: string;
  readonly refusedAt: number;
  readonly retryAfterMs: number | undefined;
  /** When the intent's next request was signed; undefined when there was none. */
  readonly signedAgainAt: number | undefined;
}

/** From the journal: every REJECTED answer, and when its intent (by purpose: one per intent here) was signed next. */
function retries(records: readonly JournalRecord[]): Retry[] {
  const purposeOf = new Map<string, string>();
  const signedAt = new Map<string, number[]>();
  for (const record of records) {
    if (record.kind !== 'signed' || record.intent === null) continue;
    purposeOf.set(record.requestId, record.intent.purpose);
    signedAt.set(record.intent.purpose, [...(signedAt.get(record.intent.purpose) ?? []), record.at]);
  }
  const found: Retry[] = [];
  for (const record of records) {
    if (record.kind !== 'response' || record.status !== 'REJECTED') continue;
    const purpose = purposeOf.get(record.requestId)!;
    found.push({
      purpose,
      code: record.code ?? '',
      refusedAt: record.at,
      retryAfterMs: record.retryAfterMs,
      signedAgainAt: signedAt.get(purpose)!.find((at) => at > record.at),
    });
  }
  return found;
}

/** Requests per final status, from the journal. */
function finalStatuses(records: readonly JournalRecord[]): Map<string, string> {
  const statuses = new Map<string, string>();
  for (const record of records) if (record.kind === 'resolved') statuses.set(record.requestId, `${record.status}/${record.how}`);
  return statuses;
}

describe('execution engine under relay edge faults', () => {
  it('over the WebSocket: every intent one fate, none executed twice, each rate-limited intent signed again only after its retryAfterMs', async () => {
    const world = (v = await startEngineVenue({ blockMs: 50 }));
    tmp = tempJournalDir();
    setup = engineOn(world, tmp.dir, { engine: { maxPendingOutcomes: 12 } });
    const { engine } = setup;
    const market = world.market.address;
    const submitted: { readonly price: bigint; readonly fate: Promise<IntentFate> }[] = [];

    const fates = await run(world, async () => {
      await engine.start();
      world.service.faults.schedule([
        { at: 100, fault: { action: 'rate-limit-relay', count: 4, retryAfterSec: 2 } },
        { at: 700, fault: { action: 'fail-relay', count: 2, status: 502 } },
        { at: 700, fault: { action: 'fail-relay', status: 500 } },
        { at: 1_200, fault: { action: 'set', settings: { relayRateLimitRate: 0.15, relayServerErrorRate: 0.1, relayRetryAfterSec: 1 } } },
        { at: 2_400, fault: { action: 'set', settings: { relayRateLimitRate: 0, relayServerErrorRate: 0 } } },
      ]);
      let price = 250_000n;
      for (let wave = 0; wave < 16; wave++) {
        for (let i = 0; i < 4; i++) {
          price -= 10n;
          // One resting buy a wave (the slots are 62), the others IOC.
          submitted.push({ price, fate: engine.submit(placeIntent(market, [buy(price, 100n, i === 0 ? 'GTC' : 'IOC')], `bid-${price}`)) });
        }
        await sleep(world, 150);
      }
      return Promise.all(submitted.map((entry) => entry.fate));
    });

    expect(fates).toHaveLength(64);
    // Refused on the WebSocket means never executed: REJECTED answers are retried, nothing is reconciled.
    for (const fate of fates) expect(['CONFIRMED', 'REJECTED']).toContain(fate.status);
    expect(fates.filter((fate) => fate.status === 'CONFIRMED').length).toBeGreaterThan(56);
    const created = createdByPrice(world, market);
    submitted.forEach((entry, index) => expect(created.get(entry.price) ?? 0, `intent at ${entry.price}`).toBe(fates[index]!.status === 'CONFIRMED' ? 1 : 0));
    expect(world.service.faults.pending().relayRejections).toBe(0);

    const final = await run(world, () => engine.stop({ timeoutMs: 30_000 }));
    expect(final.unresolved).toBe(0);
    const audit = auditJournal(setup.journal.lines(), tmp.dir);
    expect(audit.problems).toEqual([]);
    expect(audit.signed).toBe(final.signed);
    expect(audit.records.filter((record) => record.kind === 'sent').every((record) => record.kind === 'sent' && record.transport === 'ws')).toBe(true);

    // The faults happened: the four counted rate limits, the three counted failures, and some drawn by the rates.
    const refused = retries(audit.records);
    const rateLimited = refused.filter((retry) => retry.code === 'RATE_LIMITED');
    expect(rateLimited.filter((retry) => retry.retryAfterMs === 2000)).toHaveLength(4);
    expect(rateLimited.filter((retry) => retry.retryAfterMs === 1000).length).toBeGreaterThan(0);
    expect(refused.filter((retry) => retry.code === 'INTERNAL_ERROR').length).toBeGreaterThan(3);
    expect(final.rejected).toBe(refused.length);
    // Retry-After honoured: each rate-limited intent was signed again, and not before its wait.
    for (const retry of rateLimited) {
      expect(retry.signedAgainAt, retry.purpose).toBeDefined();
      expect(retry.signedAgainAt! - retry.refusedAt, retry.purpose).toBeGreaterThanOrEqual(retry.retryAfterMs!);
    }
    await run(world, async () => expect(venueOrderIds(world, market)).toEqual([]));
  });

  it('a rate limit with its wait paces the bot: it does not count toward the error-rate kill switch, a server error does', async () => {
    const world = (v = await startEngineVenue({ blockMs: 50 }));
    tmp = tempJournalDir();
    const trips = (faults: FaultActionInput, count: number) => {
      setup = engineOn(world, tmp!.dir, { overrides: { risk: { ...TEST_RISK, killSwitch: { maxErrorRate: 0.2 } } } });
      const { engine } = setup;
      return run(world, async () => {
        await engine.start();
        world.service.faults.apply(faults);
        let price = 240_000n;
        const fates: Promise<IntentFate>[] = [];
        for (let i = 0; i < count; i++) fates.push(engine.submit(placeIntent(world.market.address, [buy((price -= 10n), 100n, 'IOC')], `ioc-${price}`)));
        await Promise.all(fates);
        const tripped = engine.killSwitch.isTripped();
        await engine.stop({ timeoutMs: 10_000 });
        return tripped;
      });
    };
    // 12 of 30 submissions refused: 40 % of the window, twice the 20 % error rate.
    expect(await trips({ action: 'rate-limit-relay', count: 12, retryAfterSec: 1 }, 30)).toBe(false);
    expect(await trips({ action: 'answer-rejected', count: 12 }, 30)).toBe(true);
  });

  it('over REST: a 429 is signed again after its Retry-After and confirmed once; a 5xx is reconciled and found not executed', async () => {
    const world = (v = await startEngineVenue({ blockMs: 50 }));
    tmp = tempJournalDir();
    const context: ClientContext = { transport: world.venue.transport, clock: world.clock, random: seededRandom(5) };
    const { hosts } = world.network;
    const session = createRelaySession(context, { network: 'sim', relayUrl: hosts.relayUrl!, signer: WALLET });
    const rest: RelayTransport = createRestRelayTransport(context, { network: 'sim', relayUrl: hosts.relayUrl!, rpcUrl: hosts.rpcUrl!, session, receiptPollMs: 50, receiptDeadlineMs: 20_000 });
    setup = engineOn(world, tmp.dir, { overrides: { transport: rest } });
    const { engine } = setup;
    const market = world.market.address;
    const faults = world.service.faults;
    const place = (price: bigint) => engine.submit(placeIntent(market, [buy(price)], `bid-${price}`));

    const fates = await run(world, async () => {
      await engine.start();
      faults.apply({ action: 'rate-limit-relay', retryAfterSec: 3 });
      const edge429 = await place(249_000n);
      faults.apply({ action: 'fail-relay', status: 502 });
      const edge502 = place(248_000n);
      await sleep(world, 100);
      faults.apply({ action: 'answer-rejected', code: 'RATE_LIMITED', retryAfterMs: 1500 });
      const relay429 = await place(247_000n);
      faults.set({ ...faults.get(), relayServerErrorRate: 1 });
      const edge5xx = place(246_000n);
      await sleep(world, 100);
      faults.set({ ...faults.get(), relayServerErrorRate: 0 });
      const plain = await place(245_000n);
      return { edge429, edge502: await edge502, relay429, edge5xx: await edge5xx, plain };
    });

    expect(fates.edge429.status).toBe('CONFIRMED');
    expect(fates.relay429.status).toBe('CONFIRMED');
    expect(fates.plain.status).toBe('CONFIRMED');
    // The relay may have broadcast a request answered 5xx by its edge: not sent again, reconciled, found not executed.
    expect(fates.edge502).toMatchObject({ status: 'DROPPED' });
    expect(fates.edge5xx).toMatchObject({ status: 'DROPPED' });
    const created = createdByPrice(world, market);
    expect([249_000n, 248_000n, 247_000n, 246_000n, 245_000n].map((price) => created.get(price) ?? 0)).toEqual([1, 0, 1, 0, 1]);

    const final = await run(world, () => engine.stop({ timeoutMs: 30_000 }));
    expect(final.unresolved).toBe(0);
    const audit = auditJournal(setup.journal.lines(), tmp.dir);
    expect(audit.problems).toEqual([]);
    expect(audit.records.filter((record) => record.kind === 'sent').every((record) => record.kind === 'sent' && record.transport === 'rest')).toBe(true);

    // 429s: REJECTED RATE_LIMITED with the wait of Retry-After (the edge's) or retryAfterMs (the relay's); signed again after it, promptly.
    const refused = retries(audit.records);
    expect(refused.map(({ purpose, code, retryAfterMs }) => ({ purpose, code, retryAfterMs }))).toEqual([
      { purpose: 'bid-249000', code: 'RATE_LIMITED', retryAfterMs: 3000 },
      { purpose: 'bid-247000', code: 'RATE_LIMITED', retryAfterMs: 1500 },
    ]);
    for (const retry of refused) {
      const waited = retry.signedAgainAt! - retry.refusedAt;
      expect(waited).toBeGreaterThanOrEqual(retry.retryAfterMs!);
      expect(waited).toBeLessThan(retry.retryAfterMs! + 500);
    }
    // Each 5xx: one request, answered UNKNOWN, resolved by reconciliation as DROPPED; the intent never signed again.
    const statuses = finalStatuses(audit.records);
    for (const purpose of ['bid-248000', 'bid-246000']) {
      const requests = audit.records.filter((record): record is Extract<JournalRecord, { kind: 'signed' }> => record.kind === 'signed' && record.intent?.purpose === purpose);
      expect(requests, purpose).toHaveLength(1);
      const id = requests[0]!.requestId;
      expect(audit.records.find((record) => record.kind === 'response' && record.requestId === id)).toMatchObject({ status: 'UNKNOWN', code: 'BROADCAST_RESULT_UNKNOWN' });
      expect(statuses.get(id), purpose).toMatch(/^DROPPED\//);
    }
  });
});
