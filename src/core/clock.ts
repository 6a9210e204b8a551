import { asyncScheduler, type SchedulerLike } from 'rxjs';

/**
 * The time seam. Everything on the trading path reads time and schedules work through a Clock,
 * so the same code runs on wall time (live, local venue) and on virtual time (backtests, tests).
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** The RxJS scheduler for every time-based operator (`timer`, `interval`, `delay`, …). */
  readonly scheduler: SchedulerLike;
}

/** Wall time: `Date.now` and RxJS's async scheduler. The only place clobbot reads the wall clock. */
export const liveClock: Clock = {
  now: () => Date.now(),
  scheduler: asyncScheduler,
};
