import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { createWeightLimiter } from '../../src/sim/weight-limiter.ts';

const MINUTE = 60_000;
// 2024-08-08T00:01:23.456Z: 23.456 s into its minute.
const T0 = Date.UTC(2024, 7, 8, 0, 1, 23, 456);

describe('createWeightLimiter', () => {
  it('counts weight per IP up to the budget, then refuses with the seconds left in the minute', () => {
    const clock = new VirtualClock(T0);
    const limiter = createWeightLimiter(clock, { weightPerMinute: 10 });
    expect(limiter.charge('1.1.1.1', 5)).toEqual({ allowed: true, used: 5, retryAfterSeconds: 37 });
    expect(limiter.charge('1.1.1.1', 5)).toMatchObject({ allowed: true, used: 10 });
    expect(limiter.charge('2.2.2.2', 10)).toMatchObject({ allowed: true, used: 10 });
    // Over: refused, and the refused weight still counts.
    expect(limiter.charge('1.1.1.1', 1)).toEqual({ allowed: false, used: 11, retryAfterSeconds: 37 });
    expect(limiter.charge('1.1.1.1', 1)).toMatchObject({ allowed: false, used: 12 });
    expect(limiter.used('1.1.1.1')).toBe(12);
    expect(limiter.used('3.3.3.3')).toBe(0);
  });

  it('uses fixed windows aligned on the minute, not a sliding window', () => {
    const clock = new VirtualClock(T0);
    const limiter = createWeightLimiter(clock, { weightPerMinute: 10 });
    limiter.charge('ip', 10);
    clock.advanceTo(T0 - 456 - 23_000 + MINUTE - 1); // 00:01:59.999
    expect(limiter.charge('ip', 1)).toEqual({ allowed: false, used: 11, retryAfterSeconds: 1 });
    clock.advanceBy(1); // 00:02:00.000: a new window, 36.5 s after the first charge
    expect(limiter.used('ip')).toBe(0);
    expect(limiter.charge('ip', 10)).toEqual({ allowed: true, used: 10, retryAfterSeconds: 60 });
  });

  it('refuses a single request heavier than the whole budget', () => {
    const limiter = createWeightLimiter(new VirtualClock(0), { weightPerMinute: 5 });
    expect(limiter.charge('ip', 10)).toMatchObject({ allowed: false, used: 10 });
    expect(limiter.weightPerMinute).toBe(5);
  });
});
