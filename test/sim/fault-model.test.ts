/**
 * The venue's one fault model on a VirtualClock: each action's effect on the readers' decisions, the
 * script firing at its exact clock time, periodic drops, and seeded rates that repeat.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom, type RandomSource } from '../../src/core/random.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { faultActionSchema, faultScriptSchema, faultSettingsSchema, FAULTS_OFF, type FaultActionInput } from '../../src/config/fault-config.ts';
import { createFaultModel, type FaultEvent, type FaultModel } from '../../src/sim/fault-model.ts';

const T0 = Date.UTC(2026, 0, 1);

/** A seeded source that counts its draws. */
function countingRandom(seed: number): RandomSource & { draws: number } {
  const inner = seededRandom(seed);
  const source = {
    draws: 0,
    next() {
      source.draws += 1;
      return inner.next();
    },
    fill: (bytes: Uint8Array) => inner.fill(bytes),
  };
  return source;
}

function model(seed = 1): { clock: VirtualClock; faults: FaultModel; events: { at: number; event: FaultEvent }[] } {
  const clock = new VirtualClock(T0);
  const faults = createFaultModel({ clock, random: seededRandom(seed) });
  const events: { at: number; event: FaultEvent }[] = [];
  faults.events$.subscribe((event) => events.push({ at: clock.now() - T0, event }));
  return { clock, faults, events };
}

describe('fault model: standing settings', () => {
  it('starts with every fault off and draws nothing while the rates are 0', () => {
    const clock = new VirtualClock(T0);
    const random = countingRandom(1);
    const faults = createFaultModel({ clock, random });
    expect(faults.get()).toEqual(FAULTS_OFF);
    for (let i = 0; i < 50; i++) {
      expect(faults.outcome()).toStrictEqual({ withhold: false, delayMs: 0 });
      expect(faults.orderEventsDelayMs()).toBe(0);
      expect(faults.orderEventDelaysFromMs()).toBeUndefined();
      expect(faults.relayRejection()).toBeUndefined();
      expect(faults.relayUnknown()).toBe(false);
      expect(faults.marketData()).toEqual({ delayMs: 0, failure: undefined });
    }
    expect(random.draws).toBe(0);
  });

  it('draws each rate from the seeded source: the same seed gives the same faults, another seed others', () => {
    const decisions = (seed: number) => {
      const { faults } = model(seed);
      faults.set({ ...FAULTS_OFF, withholdOutcomesRate: 0.3, unknownResponseRate: 0.3, rejectResponseRate: 0.3, marketDataErrorRate: 0.2, marketDataRateLimitRate: 0.2, marketDataRetryAfterSec: 4 });
      return Array.from({ length: 200 }, () => [faults.outcome().withhold, faults.relayUnknown(), faults.relayRejection()?.code ?? null, faults.marketData().failure?.status ?? 200]);
    };
    const first = decisions(7);
    expect(decisions(7)).toEqual(first);
    expect(decisions(8)).not.toEqual(first);
    const withheld = first.filter(([withhold]) => withhold === true).length;
    expect(withheld).toBeGreaterThan(30);
    expect(withheld).toBeLessThan(90);
    const statuses = new Set(first.map((decision) => decision[3]));
    expect([...statuses].sort()).toEqual([200, 429, 500, 503]);
    expect(first.every(([, , code]) => code === null || code === 'INTERNAL_ERROR')).toBe(true);
  });

  it('a rate of 1 always hits, and the 429 carries the configured Retry-After', () => {
    const { faults } = model();
    faults.apply({ action: 'set', settings: { marketDataRateLimitRate: 1, marketDataRetryAfterSec: 9, marketDataDelayMs: 250, outcomeDelayMs: 40 } });
    expect(faults.marketData()).toEqual({ delayMs: 250, failure: { status: 429, retryAfterSec: 9 } });
    expect(faults.outcome()).toEqual({ withhold: false, delayMs: 40 });
    expect(faults.get()).toMatchObject({ marketDataRateLimitRate: 1, marketDataRetryAfterSec: 9, marketDataErrorRate: 0 });
  });
});

describe('fault model: one-shot actions', () => {
  it('answers exactly the next N submissions UNKNOWN or REJECTED, in the order applied, then none', () => {
    const { faults } = model();
    faults.apply(faultActionSchema.parse({ action: 'answer-unknown', count: 2 }));
    faults.apply(faultActionSchema.parse({ action: 'answer-rejected' }));
    faults.apply(faultActionSchema.parse({ action: 'answer-rejected', code: 'RATE_LIMITED', retryAfterMs: 2500 }));
    expect(faults.pending()).toEqual({ outcomes: 0, relayRejections: 2, unknownAnswers: 2, marketData: 0, orderEvents: 0 });
    expect([faults.relayUnknown(), faults.relayUnknown(), faults.relayUnknown()]).toEqual([true, true, false]);
    expect(faults.relayRejection()).toEqual({ code: 'INTERNAL_ERROR', retryAfterMs: null });
    expect(faults.relayRejection()).toEqual({ code: 'RATE_LIMITED', retryAfterMs: 2500 });
    expect(faults.relayRejection()).toBeUndefined();
    expect(faults.pending()).toEqual({ outcomes: 0, relayRejections: 0, unknownAnswers: 0, marketData: 0, orderEvents: 0 });
  });

  it('withholds or delays the next outcomes, a one-shot delay on top of the standing one', () => {
    const { faults } = model();
    faults.apply({ action: 'set', settings: { outcomeDelayMs: 100 } });
    faults.apply({ action: 'withhold-outcomes', count: 1 });
    faults.apply({ action: 'delay-outcomes', count: 2, delayMs: 5000 });
    expect(faults.outcome()).toEqual({ withhold: true });
    expect(faults.outcome()).toEqual({ withhold: false, delayMs: 5100 });
    expect(faults.outcome()).toEqual({ withhold: false, delayMs: 5100 });
    expect(faults.outcome()).toEqual({ withhold: false, delayMs: 100 });
  });

  it('duplicates or reorders the next outcomes, sharing one queue with withhold and delay in the order applied', () => {
    const { faults } = model();
    faults.apply({ action: 'set', settings: { outcomeDelayMs: 20 } });
    faults.apply({ action: 'duplicate-outcomes', count: 2 });
    faults.apply({ action: 'withhold-outcomes' });
    faults.apply({ action: 'reorder-outcomes' });
    faults.apply({ action: 'delay-outcomes', delayMs: 300 });
    expect(faults.pending().outcomes).toBe(5);
    expect(Array.from({ length: 6 }, () => faults.outcome())).toEqual([
      { withhold: false, delayMs: 20, duplicate: true },
      { withhold: false, delayMs: 20, duplicate: true },
      { withhold: true },
      { withhold: false, delayMs: 20, reorder: true },
      { withhold: false, delayMs: 320 },
      { withhold: false, delayMs: 20 },
    ]);
    expect(faults.pending().outcomes).toBe(0);
  });

  it('draws the duplicate and reorder rates from the seeded source, only when above 0', () => {
    const clock = new VirtualClock(T0);
    const random = countingRandom(3);
    const faults = createFaultModel({ clock, random });
    faults.set({ ...FAULTS_OFF, duplicateOutcomesRate: 1 });
    expect(faults.outcome()).toEqual({ withhold: false, delayMs: 0, duplicate: true });
    expect(random.draws).toBe(1);
    faults.set({ ...FAULTS_OFF, duplicateOutcomesRate: 0.5, reorderOutcomesRate: 0.5 });
    const drawn = Array.from({ length: 400 }, () => faults.outcome()) as { duplicate?: true; reorder?: true }[];
    expect(random.draws).toBe(1 + 800);
    const duplicated = drawn.filter((fault) => fault.duplicate === true).length;
    const reordered = drawn.filter((fault) => fault.reorder === true).length;
    expect(duplicated).toBeGreaterThan(150);
    expect(duplicated).toBeLessThan(250);
    expect(reordered).toBeGreaterThan(150);
    expect(reordered).toBeLessThan(250);
    // A queued action stands in for its own rate: nothing is drawn for it.
    faults.set({ ...FAULTS_OFF, duplicateOutcomesRate: 0.5 });
    faults.apply({ action: 'duplicate-outcomes' });
    const before = random.draws;
    expect(faults.outcome()).toEqual({ withhold: false, delayMs: 0, duplicate: true });
    expect(random.draws).toBe(before);
  });

  it('delays the next order events of blocks at or after the moment the action was applied, in the order applied', () => {
    const { clock, faults } = model();
    clock.advanceBy(1000);
    expect(faults.orderEventDelaysFromMs()).toBeUndefined();
    expect(faults.orderEventDelay(T0 + 5000)).toBeUndefined();
    faults.apply({ action: 'set', settings: { orderEventsDelayMs: 250 } });
    faults.apply({ action: 'delay-order-events', count: 2, delayMs: 4000 });
    clock.advanceBy(500);
    faults.apply({ action: 'delay-order-events', delayMs: 9000 });
    expect(faults.pending().orderEvents).toBe(3);
    expect(faults.orderEventDelaysFromMs()).toBe(T0 + 1000);
    expect(faults.orderEventsDelayMs()).toBe(250);
    // An event of a block before the action takes nothing and uses nothing up.
    expect(faults.orderEventDelay(T0 + 999)).toBeUndefined();
    expect(faults.orderEventDelay(T0 + 1000)).toBe(4000);
    expect(faults.orderEventDelay(T0 + 1200)).toBe(4000);
    expect(faults.orderEventDelaysFromMs()).toBe(T0 + 1500);
    expect(faults.orderEventDelay(T0 + 1400)).toBeUndefined();
    expect(faults.orderEventDelay(T0 + 1500)).toBe(9000);
    expect(faults.orderEventDelay(T0 + 1600)).toBeUndefined();
    expect(faults.orderEventDelaysFromMs()).toBeUndefined();
    expect(faults.pending().orderEvents).toBe(0);
  });

  it('fails the next market-data requests with the given 5xx or a 429, keeping the standing delay', () => {
    const { faults } = model();
    faults.apply({ action: 'set', settings: { marketDataDelayMs: 30 } });
    faults.apply(faultActionSchema.parse({ action: 'fail-market-data', count: 2, status: 500 }));
    faults.apply(faultActionSchema.parse({ action: 'rate-limit-market-data', retryAfterSec: 3 }));
    expect(faults.pending().marketData).toBe(3);
    expect(faults.marketData()).toEqual({ delayMs: 30, failure: { status: 500 } });
    expect(faults.marketData()).toEqual({ delayMs: 30, failure: { status: 500 } });
    expect(faults.marketData()).toEqual({ delayMs: 30, failure: { status: 429, retryAfterSec: 3 } });
    expect(faults.marketData()).toEqual({ delayMs: 30, failure: undefined });
  });

  it('refuses an action or script that does not parse with SIM_FAULT_INVALID, applying none of it', () => {
    const { clock, faults, events } = model();
    // A caller outside TypeScript (a chaos script's JSON) can hand anything.
    const bad: unknown = { action: 'withhold-outcomes', count: 0 };
    expect(() => faults.apply(bad as FaultActionInput)).toThrow(expect.objectContaining({ code: 'SIM_FAULT_INVALID', message: expect.stringContaining('count') }));
    expect(() => faults.schedule([{ at: 10, fault: { action: 'drop-connections' } }, { at: 'later', fault: { action: 'drop-connections' } }])).toThrow(
      expect.objectContaining({ code: 'SIM_FAULT_INVALID', message: expect.stringContaining('1.at') }),
    );
    clock.advanceBy(100);
    expect(events).toEqual([]);
    expect(faults.pending().outcomes).toBe(0);
  });

  it('announces connection faults at once, in order', () => {
    const { faults, events } = model();
    faults.apply({ action: 'drop-connections' });
    faults.apply({ action: 'expire-tokens' });
    faults.apply({ action: 'close-pending-outcome-limit' });
    expect(events).toEqual([
      { at: 0, event: 'drop-connections' },
      { at: 0, event: 'expire-tokens' },
      { at: 0, event: 'close-pending-outcome-limit' },
    ]);
  });
});

describe('fault model: scripts and periodic drops on the clock', () => {
  it('applies each entry exactly at its time after the start, ties in the order written', () => {
    const { clock, faults, events } = model();
    clock.advanceBy(1000);
    const script = faultScriptSchema.parse([
      { at: '12.4s', fault: { action: 'drop-connections' } },
      { at: 3000, fault: { action: 'expire-tokens' } },
      { at: 3000, fault: { action: 'close-pending-outcome-limit' } },
      { at: '20s', fault: { action: 'set', settings: { unknownResponseRate: 1 } } },
    ]);
    faults.schedule(script, { startMs: T0 });
    clock.advanceTo(T0 + 2999);
    expect(events).toEqual([]);
    clock.advanceTo(T0 + 3000);
    expect(events).toEqual([
      { at: 3000, event: 'expire-tokens' },
      { at: 3000, event: 'close-pending-outcome-limit' },
    ]);
    clock.advanceTo(T0 + 12_399);
    expect(events).toHaveLength(2);
    clock.advanceTo(T0 + 12_400);
    expect(events[2]).toEqual({ at: 12_400, event: 'drop-connections' });
    clock.advanceTo(T0 + 19_999);
    expect(faults.get().unknownResponseRate).toBe(0);
    clock.advanceTo(T0 + 20_000);
    expect(faults.get().unknownResponseRate).toBe(1);
  });

  it('counts from now by default, and a cancelled script applies nothing more', () => {
    const { clock, faults, events } = model();
    clock.advanceBy(500);
    const scheduled = faults.schedule([
      { at: 100, fault: { action: 'drop-connections' } },
      { at: 200, fault: { action: 'drop-connections' } },
    ]);
    clock.advanceBy(150);
    scheduled.unsubscribe();
    clock.advanceBy(1000);
    expect(events).toEqual([{ at: 600, event: 'drop-connections' }]);
  });

  it('drops every dropWebSocketsEveryMs while set, from the time it was set', () => {
    const { clock, faults, events } = model();
    clock.advanceBy(250);
    faults.apply({ action: 'set', settings: { dropWebSocketsEveryMs: 1000 } });
    clock.advanceBy(2500);
    faults.apply({ action: 'set', settings: { dropWebSocketsEveryMs: 0 } });
    clock.advanceBy(5000);
    expect(events).toEqual([
      { at: 1250, event: 'drop-connections' },
      { at: 2250, event: 'drop-connections' },
    ]);
  });

  it('stops: scheduled entries never run', () => {
    const { clock, faults, events } = model();
    faults.schedule([{ at: 10, fault: { action: 'drop-connections' } }]);
    faults.stop();
    clock.advanceBy(100);
    expect(events).toEqual([]);
  });
});

describe('fault config schemas', () => {
  it('fills settings left out with FAULTS_OFF and refuses unknown keys and out-of-range values at their key', () => {
    expect(faultSettingsSchema.parse({ relayDelayMs: 20 })).toEqual({ ...FAULTS_OFF, relayDelayMs: 20 });
    const unknown = faultSettingsSchema.safeParse({ bogus: 1 });
    expect(unknown.success).toBe(false);
    expect(unknown.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['bogus'] });
    expect(faultSettingsSchema.safeParse({ rejectResponseRate: 1.5 }).error?.issues[0]?.path).toEqual(['rejectResponseRate']);
    expect(faultSettingsSchema.safeParse({ marketDataRetryAfterSec: 0 }).success).toBe(false);
  });

  it('reads actions with their defaults and refuses unknown actions and fields', () => {
    expect(faultActionSchema.parse({ action: 'withhold-outcomes' })).toEqual({ action: 'withhold-outcomes', count: 1 });
    expect(faultActionSchema.parse({ action: 'answer-rejected', count: 3 })).toEqual({ action: 'answer-rejected', count: 3, code: 'INTERNAL_ERROR', retryAfterMs: 1000 });
    expect(faultActionSchema.parse({ action: 'fail-market-data' })).toEqual({ action: 'fail-market-data', count: 1, status: 503 });
    expect(faultActionSchema.parse({ action: 'duplicate-outcomes' })).toEqual({ action: 'duplicate-outcomes', count: 1 });
    expect(faultActionSchema.parse({ action: 'reorder-outcomes', count: 4 })).toEqual({ action: 'reorder-outcomes', count: 4 });
    expect(faultActionSchema.parse({ action: 'delay-order-events', delayMs: 7000 })).toEqual({ action: 'delay-order-events', count: 1, delayMs: 7000 });
    expect(faultActionSchema.safeParse({ action: 'delay-order-events' }).success).toBe(false);
    expect(faultActionSchema.safeParse({ action: 'duplicate-outcomes', delayMs: 5 }).success).toBe(false);
    expect(faultActionSchema.safeParse({ action: 'explode' }).success).toBe(false);
    expect(faultActionSchema.safeParse({ action: 'drop-connections', count: 2 }).success).toBe(false);
    expect(faultActionSchema.safeParse({ action: 'answer-rejected', code: 'INVALID_SIGNATURE' }).success).toBe(false);
    expect(faultActionSchema.safeParse({ action: 'set', settings: { nope: 1 } }).success).toBe(false);
  });

  it('reads script times as milliseconds or durations, and refuses the rest at the entry', () => {
    expect(faultScriptSchema.parse([{ at: '12.4s', fault: { action: 'drop-connections' } }, { at: 0, fault: { action: 'expire-tokens' } }]).map((entry) => entry.at)).toEqual([12_400, 0]);
    expect(faultScriptSchema.parse([{ at: '2m', fault: { action: 'drop-connections' } }])[0]!.at).toBe(120_000);
    for (const at of [-1, 1.5, 'soon', '31d']) {
      const parsed = faultScriptSchema.safeParse([{ at, fault: { action: 'drop-connections' } }]);
      expect(parsed.success, String(at)).toBe(false);
      expect(parsed.error?.issues[0]?.path.slice(0, 2), String(at)).toEqual([0, 'at']);
    }
  });
});
