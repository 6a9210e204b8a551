import type { SchedulerLike } from 'rxjs';
import { BaseError } from './base-error.ts';
import type { Clock } from './clock.ts';
import { VirtualScheduler } from './virtual-scheduler.ts';

/**
 * A clock whose time moves only when told. Work scheduled on it runs in time order (ties in the
 * order scheduled) as `advanceTo`/`advanceBy` pass its due time; `now()` then reads that due time.
 *
 * @example
 * const clock = new VirtualClock(Date.UTC(2024, 7, 8));
 * timer(1000, clock.scheduler).subscribe(() => console.log(clock.now()));
 * clock.advanceBy(1000); // logs 1723075201000
 */
export class VirtualClock implements Clock {
  readonly #scheduler: VirtualScheduler;

  constructor(startMs = 0) {
    this.#scheduler = new VirtualScheduler(startMs);
  }

  get scheduler(): SchedulerLike {
    return this.#scheduler;
  }

  now(): number {
    return this.#scheduler.now();
  }

  /** Runs every action due at or before `timeMs`, then sets the time to `timeMs`. */
  advanceTo(timeMs: number): void {
    if (timeMs < this.now()) {
      throw new BaseError('CLOCK_BACKWARDS', `cannot move the clock back from ${this.now()} to ${timeMs}`, {
        details: { now: this.now(), target: timeMs },
      });
    }
    this.#scheduler.runUntil(timeMs);
  }

  advanceBy(ms: number): void {
    this.advanceTo(this.now() + ms);
  }

  /** The due time of the next scheduled action, if any: lets a replay jump from event to event. */
  nextDueTime(): number | undefined {
    return this.#scheduler.nextDueTime();
  }
}
