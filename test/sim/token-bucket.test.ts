import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { createTokenBuckets } from '../../src/sim/token-bucket.ts';

describe('createTokenBuckets', () => {
  it('allows one request per second with burst 1, per key, on the clock', () => {
    const clock = new VirtualClock(1_000_000);
    const buckets = createTokenBuckets(clock, { ratePerSecond: 1, burst: 1 });
    expect(buckets.take('a')).toEqual({ allowed: true });
    expect(buckets.take('a')).toEqual({ allowed: false, retryAfterMs: 1000 });
    expect(buckets.take('b')).toEqual({ allowed: true });
    clock.advanceBy(400);
    expect(buckets.take('a')).toEqual({ allowed: false, retryAfterMs: 600 });
    clock.advanceBy(600);
    expect(buckets.take('a')).toEqual({ allowed: true });
    // A long pause does not save up more than the burst.
    clock.advanceBy(10_000);
    expect(buckets.take('a')).toEqual({ allowed: true });
    expect(buckets.take('a')).toMatchObject({ allowed: false });
  });

  it('allows a burst, then the rate', () => {
    const clock = new VirtualClock(0);
    const buckets = createTokenBuckets(clock, { ratePerSecond: 2, burst: 3 });
    expect([1, 2, 3, 4].map(() => buckets.take('k').allowed)).toEqual([true, true, true, false]);
    clock.advanceBy(500);
    expect(buckets.take('k').allowed).toBe(true);
    expect(buckets.take('k')).toEqual({ allowed: false, retryAfterMs: 500 });
  });

  it('forgets full buckets when it holds too many keys, but never a spent one', () => {
    const clock = new VirtualClock(0);
    const buckets = createTokenBuckets(clock, { ratePerSecond: 1, burst: 1, maxKeys: 2 });
    buckets.take('a');
    buckets.take('b');
    buckets.take('c'); // a and b are spent: kept
    expect(buckets.take('a').allowed).toBe(false);
    clock.advanceBy(1000);
    buckets.take('d'); // every bucket is full again: pruned
    expect(buckets.take('c').allowed).toBe(true);
    expect(buckets.take('c').allowed).toBe(false);
  });
});
