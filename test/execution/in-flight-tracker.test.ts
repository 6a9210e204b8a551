import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_PENDING_OUTCOMES, InFlightTracker } from '../../src/execution/in-flight-tracker.ts';
import { RELAY_PENDING_OUTCOME_LIMIT } from '../../src/protocol/constants.ts';
import { hasCode } from './execution-support.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

describe('InFlightTracker', () => {
  it('defaults to 48 and refuses caps the relay would not survive', () => {
    expect(new InFlightTracker().capacity).toBe(DEFAULT_MAX_PENDING_OUTCOMES);
    expect(new InFlightTracker({ maxPendingOutcomes: RELAY_PENDING_OUTCOME_LIMIT - 1 }).capacity).toBe(63);
    for (const cap of [RELAY_PENDING_OUTCOME_LIMIT, 100, 0, -1, 1.5, Number.NaN]) {
      let error: unknown;
      try {
        new InFlightTracker({ maxPendingOutcomes: cap });
      } catch (caught) {
        error = caught;
      }
      expect(hasCode(error, 'IN_FLIGHT_CAP_INVALID'), String(cap)).toBe(true);
    }
  });

  it('acquires up to the cap, releases idempotently, and hands back the pending ids on reset', () => {
    const inFlight = new InFlightTracker({ maxPendingOutcomes: 3 });
    expect(['a', 'b', 'c'].map((id) => inFlight.tryAcquire(id))).toEqual([true, true, true]);
    expect(inFlight.tryAcquire('d')).toBe(false);
    expect(inFlight.tryAcquire('b')).toBe(true); // holds a place already: counted once
    expect(inFlight.pending()).toBe(3);
    expect(inFlight.available()).toBe(0);
    expect(inFlight.release('b')).toBe(true);
    expect(inFlight.release('b')).toBe(false);
    expect(inFlight.release('zzz')).toBe(false);
    expect(inFlight.tryAcquire('d')).toBe(true);
    expect(inFlight.has('d')).toBe(true);
    expect(inFlight.pendingIds()).toEqual(['a', 'c', 'd']);
    expect(inFlight.reset()).toEqual(['a', 'c', 'd']);
    expect(inFlight.pending()).toBe(0);
    expect(inFlight.maxSeen()).toBe(3);
    expect(inFlight.reset()).toEqual([]);
  });

  it('is never above the cap under random acquire, release and reset sequences', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('acquire' as const), id: fc.integer({ min: 0, max: 80 }) }),
      fc.record({ kind: fc.constant('release' as const), id: fc.integer({ min: 0, max: 80 }) }),
      fc.record({ kind: fc.constant('reset' as const), id: fc.constant(0) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 63 }), fc.array(op, { maxLength: 400 }), (cap, ops) => {
        const inFlight = new InFlightTracker({ maxPendingOutcomes: cap });
        const model = new Set<string>();
        let maxSeen = 0;
        for (const { kind, id } of ops) {
          const key = `r${id}`;
          if (kind === 'acquire') {
            const expected = model.has(key) || model.size < cap;
            expect(inFlight.tryAcquire(key)).toBe(expected);
            if (expected) model.add(key);
          } else if (kind === 'release') {
            expect(inFlight.release(key)).toBe(model.delete(key));
          } else {
            expect([...inFlight.reset()].sort()).toEqual([...model].sort());
            model.clear();
          }
          maxSeen = Math.max(maxSeen, model.size);
          expect(inFlight.pending()).toBe(model.size);
          expect(inFlight.pending()).toBeLessThanOrEqual(cap);
          expect(inFlight.maxSeen()).toBe(maxSeen);
        }
        expect(inFlight.maxSeen()).toBeLessThan(RELAY_PENDING_OUTCOME_LIMIT);
      }),
      fuzzSettings({ numRuns: 300 }),
    );
  });
});
