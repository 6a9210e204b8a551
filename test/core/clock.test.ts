import { interval, take, timer, toArray, firstValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { liveClock } from '../../src/core/clock.ts';

describe('VirtualClock', () => {
  it('moves only when told and runs due work in time order at its due time', () => {
    const clock = new VirtualClock(1_000);
    const seen: [string, number][] = [];
    timer(500, clock.scheduler).subscribe(() => seen.push(['b', clock.now()]));
    timer(100, clock.scheduler).subscribe(() => seen.push(['a', clock.now()]));
    expect(clock.now()).toBe(1_000);
    expect(clock.nextDueTime()).toBe(1_100);
    clock.advanceBy(99);
    expect(seen).toEqual([]);
    clock.advanceTo(1_600);
    expect(seen).toEqual([
      ['a', 1_100],
      ['b', 1_500],
    ]);
    expect(clock.now()).toBe(1_600);
    expect(clock.nextDueTime()).toBeUndefined();
  });

  it('drives periodic operators on virtual time', () => {
    const clock = new VirtualClock(0);
    const ticks: number[] = [];
    interval(1_000, clock.scheduler)
      .pipe(take(3))
      .subscribe(() => ticks.push(clock.now()));
    clock.advanceBy(10_000);
    expect(ticks).toEqual([1_000, 2_000, 3_000]);
  });

  it('refuses to go back in time', () => {
    const clock = new VirtualClock(5_000);
    expect(() => clock.advanceTo(4_999)).toThrowError(expect.objectContaining({ code: 'CLOCK_BACKWARDS' }));
    expect(clock.now()).toBe(5_000);
  });
});

describe('liveClock', () => {
  it('reads wall time and schedules on it', async () => {
    const before = Date.now();
    const values = await firstValueFrom(timer(5, liveClock.scheduler).pipe(toArray()));
    expect(values).toEqual([0]);
    expect(liveClock.now()).toBeGreaterThanOrEqual(before + 4);
  });
});
