/**
 * The fault model's relay refusals at the HTTP edge (`rate-limit-relay`, `fail-relay`,
 * `relayRateLimitRate`, `relayServerErrorRate`): what the readers decide, the shared queue of
 * refusals before the venue, seeded rates that draw nothing at 0, and the config's validation.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom, type RandomSource } from '../../src/core/random.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { faultActionSchema, faultScriptSchema, faultSettingsPatchSchema, faultSettingsSchema, FAULTS_OFF } from '../../src/config/fault-config.ts';
import { createFaultModel } from '../../src/sim/fault-model.ts';

const T0 = Date.UTC(2026, 0, 1);

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

describe('relay edge faults: config', () => {
  it('fills the actions’ defaults: one request, Retry-After 1 s, status 503', () => {
    expect(faultActionSchema.parse({ action: 'rate-limit-relay' })).toEqual({ action: 'rate-limit-relay', count: 1, retryAfterSec: 1 });
    expect(faultActionSchema.parse({ action: 'fail-relay', count: 4 })).toEqual({ action: 'fail-relay', count: 4, status: 503 });
    expect(faultActionSchema.parse({ action: 'fail-relay', status: 502 })).toEqual({ action: 'fail-relay', count: 1, status: 502 });
  });

  it('refuses statuses, waits and rates out of range, and unknown fields', () => {
    for (const bad of [
      { action: 'fail-relay', status: 504 },
      { action: 'fail-relay', status: 429 },
      { action: 'fail-relay', status: '503' },
      { action: 'rate-limit-relay', retryAfterSec: 0 },
      { action: 'rate-limit-relay', retryAfterSec: 3601 },
      { action: 'rate-limit-relay', retryAfterSec: 1.5 },
      { action: 'rate-limit-relay', count: 0 },
      { action: 'rate-limit-relay', retryAfterMs: 1000 },
    ]) {
      expect(faultActionSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    expect(faultSettingsPatchSchema.safeParse({ relayRateLimitRate: 1.01 }).success).toBe(false);
    expect(faultSettingsPatchSchema.safeParse({ relayServerErrorRate: -0.1 }).success).toBe(false);
    expect(faultSettingsPatchSchema.safeParse({ relayRetryAfterSec: 0 }).success).toBe(false);
  });

  it('leaves the new settings off by default, and a script takes the actions at their times', () => {
    expect(faultSettingsSchema.parse({})).toMatchObject({ relayRateLimitRate: 0, relayServerErrorRate: 0, relayRetryAfterSec: 1 });
    expect(FAULTS_OFF).toMatchObject({ relayRateLimitRate: 0, relayServerErrorRate: 0, relayRetryAfterSec: 1 });
    expect(faultScriptSchema.parse([{ at: '2s', fault: { action: 'fail-relay', status: 500 } }])).toEqual([{ at: 2000, fault: { action: 'fail-relay', count: 1, status: 500 } }]);
  });
});

describe('relay edge faults: the model', () => {
  it('refuses exactly the next N submissions at the edge, in one queue with answer-rejected, in the order applied', () => {
    const faults = createFaultModel({ clock: new VirtualClock(T0), random: seededRandom(1) });
    faults.apply({ action: 'rate-limit-relay', count: 2, retryAfterSec: 3 });
    faults.apply({ action: 'answer-rejected', code: 'RATE_LIMITED', retryAfterMs: 250 });
    faults.apply({ action: 'fail-relay', status: 502 });
    faults.apply({ action: 'fail-relay', status: 500 });
    expect(faults.pending().relayRejections).toBe(5);
    expect(faults.relayRejection()).toEqual({ code: 'RATE_LIMITED', retryAfterMs: 3000, edgeStatus: 429 });
    expect(faults.relayRejection()).toEqual({ code: 'RATE_LIMITED', retryAfterMs: 3000, edgeStatus: 429 });
    // The relay's own refusal carries no edge status.
    expect(faults.relayRejection()).toStrictEqual({ code: 'RATE_LIMITED', retryAfterMs: 250 });
    expect(faults.relayRejection()).toEqual({ code: 'INTERNAL_ERROR', retryAfterMs: null, edgeStatus: 502 });
    expect(faults.relayRejection()).toEqual({ code: 'INTERNAL_ERROR', retryAfterMs: null, edgeStatus: 500 });
    expect(faults.relayRejection()).toBeUndefined();
    expect(faults.pending()).toEqual({ outcomes: 0, relayRejections: 0, unknownAnswers: 0, marketData: 0, orderEvents: 0 });
  });

  it('a queued refusal is taken before any rate is drawn', () => {
    const random = countingRandom(3);
    const faults = createFaultModel({ clock: new VirtualClock(T0), random, settings: { ...FAULTS_OFF, relayServerErrorRate: 1 } });
    faults.apply({ action: 'rate-limit-relay', retryAfterSec: 5 });
    expect(faults.relayRejection()).toEqual({ code: 'RATE_LIMITED', retryAfterMs: 5000, edgeStatus: 429 });
    expect(random.draws).toBe(0);
    expect(faults.relayRejection()?.edgeStatus).toBeOneOf([500, 502, 503]);
    expect(random.draws).toBe(2);
  });

  it('draws nothing while the edge rates are 0 (a run without faults keeps its random sequence)', () => {
    const random = countingRandom(1);
    const faults = createFaultModel({ clock: new VirtualClock(T0), random, settings: { ...FAULTS_OFF, relayRetryAfterSec: 9 } });
    for (let i = 0; i < 20; i++) expect(faults.relayRejection()).toBeUndefined();
    expect(random.draws).toBe(0);
  });

  it('a rate of 1 rate limits every submission with the configured Retry-After', () => {
    const faults = createFaultModel({ clock: new VirtualClock(T0), random: seededRandom(1) });
    faults.apply({ action: 'set', settings: { relayRateLimitRate: 1, relayRetryAfterSec: 7 } });
    for (let i = 0; i < 5; i++) expect(faults.relayRejection()).toEqual({ code: 'RATE_LIMITED', retryAfterMs: 7000, edgeStatus: 429 });
  });

  it('draws the server errors from the seeded source: 500, 502 and 503 about evenly, the same for the same seed', () => {
    const decisions = (seed: number) => {
      const faults = createFaultModel({ clock: new VirtualClock(T0), random: seededRandom(seed), settings: { ...FAULTS_OFF, relayServerErrorRate: 0.5, relayRateLimitRate: 0.2 } });
      return Array.from({ length: 600 }, () => faults.relayRejection()?.edgeStatus ?? 200);
    };
    const first = decisions(7);
    expect(decisions(7)).toEqual(first);
    expect(decisions(8)).not.toEqual(first);
    const count = (status: number) => first.filter((value) => value === status).length;
    // 20 % rate limited; of the rest, half failed, a third of those each status.
    expect(count(429)).toBeGreaterThan(80);
    expect(count(429)).toBeLessThan(160);
    for (const status of [500, 502, 503]) {
      expect(count(status), `status ${status}`).toBeGreaterThan(50);
      expect(count(status), `status ${status}`).toBeLessThan(115);
    }
    // Every refusal says what the WebSocket answers: RATE_LIMITED for a 429, INTERNAL_ERROR for a 5xx.
    const faults = createFaultModel({ clock: new VirtualClock(T0), random: seededRandom(9), settings: { ...FAULTS_OFF, relayServerErrorRate: 0.5, relayRateLimitRate: 0.3 } });
    for (let i = 0; i < 200; i++) {
      const rejection = faults.relayRejection();
      if (rejection === undefined) continue;
      expect(rejection.code).toBe(rejection.edgeStatus === 429 ? 'RATE_LIMITED' : 'INTERNAL_ERROR');
      expect(rejection.retryAfterMs).toBe(rejection.edgeStatus === 429 ? 1000 : null);
    }
  });
});
