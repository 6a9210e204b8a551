import { asyncScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { createNonceSource, DEFAULT_MAX_FUTURE_SKEW_MS } from '../../src/execution/nonce-source.ts';
import { hasCode, T0 } from './execution-support.ts';

function refusal(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

describe('nonce source', () => {
  it('takes the clock in ms, and counts up within one frozen millisecond', () => {
    const clock = new VirtualClock(T0);
    const nonces = createNonceSource({ clock });
    const issued = Array.from({ length: 1000 }, () => nonces.next());
    expect(issued[0]).toBe(BigInt(T0));
    issued.forEach((nonce, index) => expect(nonce).toBe(BigInt(T0 + index)));
    clock.advanceBy(5000);
    expect(nonces.next()).toBe(BigInt(T0 + 5000));
    expect(nonces.last()).toBe(BigInt(T0 + 5000));
  });

  it('never reuses a nonce after a restart with the floor above the clock', () => {
    const clock = new VirtualClock(T0);
    const floor = BigInt(T0 + 30_000); // the wall clock went back 30 s since the last run
    const nonces = createNonceSource({ clock }, { floor });
    expect(nonces.next()).toBe(floor + 1n);
    expect(nonces.next()).toBe(floor + 2n);
    clock.advanceBy(40_000);
    expect(nonces.next()).toBe(BigInt(T0 + 40_000));
  });

  it('refuses a nonce more than maxFutureSkewMs ahead of the clock, and uses nothing', () => {
    const clock = new VirtualClock(T0);
    const nonces = createNonceSource({ clock }, { floor: BigInt(T0 + DEFAULT_MAX_FUTURE_SKEW_MS) });
    const error = refusal(() => nonces.next());
    expect(hasCode(error, 'NONCE_SKEW_EXCEEDED')).toBe(true);
    expect((error as { details: unknown }).details).toMatchObject({ now: String(T0), candidate: String(T0 + 60_001), maxFutureSkewMs: 60_000 });
    expect(nonces.last()).toBe(BigInt(T0 + 60_000));
    clock.advanceBy(1);
    expect(nonces.next()).toBe(BigInt(T0 + 60_001));
  });

  it('refuses after a burst of more than 60 000 nonces within one millisecond', () => {
    const clock = new VirtualClock(T0);
    const nonces = createNonceSource({ clock });
    for (let i = 0; i <= DEFAULT_MAX_FUTURE_SKEW_MS; i++) nonces.next();
    expect(nonces.last()).toBe(BigInt(T0 + 60_000));
    expect(hasCode(refusal(() => nonces.next()), 'NONCE_SKEW_EXCEEDED')).toBe(true);
  });

  it('honours a smaller skew, fractional clocks, raised floors, and never issues 0', () => {
    let now = T0 + 0.75;
    const clock = { now: () => now, scheduler: asyncScheduler };
    const nonces = createNonceSource({ clock }, { maxFutureSkewMs: 2 });
    expect([nonces.next(), nonces.next(), nonces.next()]).toEqual([BigInt(T0), BigInt(T0 + 1), BigInt(T0 + 2)]);
    expect(hasCode(refusal(() => nonces.next()), 'NONCE_SKEW_EXCEEDED')).toBe(true);
    nonces.raiseFloor(BigInt(T0 + 1)); // lower: no change
    expect(nonces.last()).toBe(BigInt(T0 + 2));
    now += 10;
    nonces.raiseFloor(BigInt(T0 + 11));
    expect(nonces.next()).toBe(BigInt(T0 + 12));
    now = 0;
    expect(createNonceSource({ clock }).next()).toBe(1n);
  });
});
