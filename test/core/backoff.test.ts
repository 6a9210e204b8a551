import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffMs, type BackoffPolicy } from '../../src/core/backoff.ts';
import { seededRandom, type RandomSource } from '../../src/core/random.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

/** Always draws `value`, and counts its draws. */
function fixedRandom(value: number): RandomSource & { draws: number } {
  const source = {
    draws: 0,
    next: () => {
      source.draws += 1;
      return value;
    },
    fill: (bytes: Uint8Array) => bytes,
  };
  return source;
}

const waits = (policy: BackoffPolicy, retries: number, random?: RandomSource) => Array.from({ length: retries }, (_, i) => backoffMs(i + 1, policy, random));

describe('backoffMs', () => {
  it('grows by the factor from the first wait up to the cap', () => {
    expect(waits({ initialMs: 1_000, factor: 2, maxMs: 30_000 }, 7)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    expect(waits({ initialMs: 250, factor: 2, maxMs: 2_000 }, 6)).toEqual([250, 500, 1_000, 2_000, 2_000, 2_000]);
    expect(waits({ initialMs: 100, factor: 3, maxMs: 10_000 }, 6)).toEqual([100, 300, 900, 2_700, 8_100, 10_000]);
    expect(waits({ initialMs: 40, factor: 1, maxMs: 1_000 }, 3)).toEqual([40, 40, 40]);
  });

  it('counts retry 0 as the first, and lets a cap below the first wait win', () => {
    expect(backoffMs(0, { initialMs: 250, factor: 2, maxMs: 8_000 })).toBe(250);
    expect(backoffMs(1, { initialMs: 250, factor: 2, maxMs: 100 })).toBe(100);
  });

  it('takes off up to `down` of the capped wait, rounded', () => {
    const policy: BackoffPolicy = { initialMs: 250, factor: 2, maxMs: 8_000, jitter: { down: 0.5 } };
    expect(backoffMs(1, policy, fixedRandom(0))).toBe(125);
    expect(backoffMs(3, policy, fixedRandom(0.5))).toBe(750);
    expect(backoffMs(10, policy, fixedRandom(0.999999))).toBe(8_000);
    expect(backoffMs(10, { ...policy, jitter: { down: 1 } }, fixedRandom(0))).toBe(0);
  });

  it('clamps `down` to 0..1, so a wait is never negative nor longer than the plain one', () => {
    const plain: BackoffPolicy = { initialMs: 1_000, factor: 2, maxMs: 8_000 };
    expect(backoffMs(2, { ...plain, jitter: { down: 3 } }, fixedRandom(0))).toBe(0);
    expect(backoffMs(2, { ...plain, jitter: { down: -1 } }, fixedRandom(0))).toBe(2_000);
  });

  it('adds up to `up` of the capped wait, floored: never sooner than the plain wait', () => {
    const policy: BackoffPolicy = { initialMs: 100, factor: 2, maxMs: 400, jitter: { up: 0.5 } };
    expect(backoffMs(1, policy, fixedRandom(0))).toBe(100);
    expect(backoffMs(2, policy, fixedRandom(0.5))).toBe(250);
    expect(backoffMs(9, policy, fixedRandom(0.999999))).toBe(599);
  });

  it('draws once per jittered wait, even at ratio 0, and never without jitter', () => {
    const random = fixedRandom(0.7);
    expect(backoffMs(2, { initialMs: 100, factor: 2, maxMs: 1_000, jitter: { down: 0 } }, random)).toBe(200);
    expect(backoffMs(2, { initialMs: 100, factor: 2, maxMs: 1_000, jitter: { up: 0 } }, random)).toBe(200);
    expect(random.draws).toBe(2);
    expect(backoffMs(2, { initialMs: 100, factor: 2, maxMs: 1_000 }, random)).toBe(200);
    expect(random.draws).toBe(2);
  });

  it('does not spread a wait without a random source', () => {
    expect(backoffMs(3, { initialMs: 100, factor: 2, maxMs: 1_000, jitter: { down: 0.5 } })).toBe(400);
    expect(backoffMs(3, { initialMs: 100, factor: 2, maxMs: 1_000, jitter: { up: 0.5 } })).toBe(400);
  });

  it('gives the same waits for the same seed', () => {
    const policy: BackoffPolicy = { initialMs: 250, factor: 2, maxMs: 30_000, jitter: { down: 0.5 } };
    const first = waits(policy, 20, seededRandom(11));
    expect(waits(policy, 20, seededRandom(11))).toEqual(first);
    expect(waits(policy, 20, seededRandom(12))).not.toEqual(first);
  });

  const policies = fc.record({
    initialMs: fc.integer({ min: 0, max: 10_000 }),
    factor: fc.double({ min: 1, max: 4, noNaN: true }),
    extraMs: fc.integer({ min: 0, max: 100_000 }),
  });

  it('stays within [initialMs, maxMs] and never shrinks without jitter', () => {
    fc.assert(
      fc.property(policies, fc.integer({ min: 1, max: 60 }), ({ initialMs, factor, extraMs }, retries) => {
        const maxMs = initialMs + extraMs;
        const plain = waits({ initialMs, factor, maxMs }, retries);
        plain.forEach((wait, i) => {
          expect(wait).toBeGreaterThanOrEqual(initialMs);
          expect(wait).toBeLessThanOrEqual(maxMs);
          if (i > 0) expect(wait).toBeGreaterThanOrEqual(plain[i - 1]!);
        });
      }),
      fuzzSettings({ numRuns: 200, seed: 20_250_417 }),
    );
  });

  it('keeps a jittered wait within its bounds around the plain wait', () => {
    fc.assert(
      fc.property(policies, fc.integer({ min: 1, max: 60 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.integer(), ({ initialMs, factor, extraMs }, retry, ratio, seed) => {
        const policy: BackoffPolicy = { initialMs, factor, maxMs: initialMs + extraMs };
        const plain = backoffMs(retry, policy);
        const down = backoffMs(retry, { ...policy, jitter: { down: ratio } }, seededRandom(seed));
        expect(down).toBeGreaterThanOrEqual(Math.floor(plain * (1 - ratio)));
        expect(down).toBeLessThanOrEqual(Math.ceil(plain));
        const up = backoffMs(retry, { ...policy, jitter: { up: ratio } }, seededRandom(seed));
        expect(up).toBeGreaterThanOrEqual(plain);
        expect(up).toBeLessThanOrEqual(plain + plain * ratio);
      }),
      fuzzSettings({ numRuns: 200, seed: 20_250_418 }),
    );
  });
});
