/**
 * Drives work on a VirtualClock: lets every promise continuation run, then jumps the clock to the
 * next scheduled action, and again, until the work settles. Nothing waits on wall time, so an hour
 * of trading takes as long as its computations.
 *
 * What makes it deterministic: on virtual time nothing on the trading path does real I/O or uses
 * wall-clock timers (the architecture test bans them; the journal writes synchronously), so every
 * continuation is a microtask. One `setImmediate` turn drains them all; then the clock's queue is
 * exactly what is left to happen, in a fixed order. Should something still take event-loop turns
 * (a module a library loads lazily on first use, work of the in-process venue under way that its
 * owner reports as `busy`), the clock does not move until it is done: while a file-system request is
 * in flight, or while `busy()` says so.
 */
import { BaseError } from '../core/base-error.ts';
import type { VirtualClock } from '../core/virtual-clock.ts';

/** True while a file-system request is in flight (a lazily loaded module being read). */
const fileSystemBusy = () => process.getActiveResourcesInfo().some((resource) => resource.startsWith('FSReq') || resource.startsWith('FileHandle'));

/**
 * Runs `work` to completion on `clock`, advancing the clock from one scheduled action to the next
 * while the work waits. Rejects with the work's error, or VIRTUAL_CLOCK_STALLED when the work waits
 * and nothing is scheduled (it could never finish).
 *
 * Each clock step runs in a `setImmediate` callback of its own, and Node runs one only once the
 * microtask and `process.nextTick` queues are empty: every continuation of the previous step has
 * run before the clock moves again. (The step runs in that callback itself rather than in a
 * continuation the callback resumes: the same order of work, without a promise per step.)
 *
 * @example
 * const clock = new VirtualClock(Date.UTC(2026, 0, 1));
 * const summary = await runOnVirtualClock(clock, () => runBot(io, { file, clock }));
 */
export function runOnVirtualClock<T>(clock: VirtualClock, work: () => Promise<T>, options: { readonly busy?: () => boolean } = {}): Promise<T> {
  const busy = options.busy ?? (() => false);
  let settled = false;
  let started: Promise<T>;
  try {
    started = work();
  } catch (error) {
    return Promise.reject(error);
  }
  const done = started.finally(() => {
    settled = true;
  });
  // The outcome is read through `done` below; this keeps an early rejection from being reported unhandled.
  done.catch(() => undefined);
  return new Promise<T>((resolve, reject) => {
    const step = () => {
      try {
        if (fileSystemBusy() || busy()) {
          setImmediate(step);
          return;
        }
        if (settled) {
          resolve(done);
          return;
        }
        const next = clock.nextDueTime();
        if (next === undefined) {
          throw new BaseError('VIRTUAL_CLOCK_STALLED', `the run waits at ${new Date(clock.now()).toISOString()} but nothing is scheduled on the virtual clock`, {
            details: { nowMs: clock.now() },
          });
        }
        clock.advanceTo(Math.max(next, clock.now()));
        setImmediate(step);
      } catch (error) {
        reject(error);
      }
    };
    setImmediate(step);
  });
}
