/**
 * Marble tests of clock-driven streams (docs/testing.md, "Marble tests of strategy streams"): RxJS's
 * `TestScheduler` with vitest's deep equality, and a clobbot `Clock` on its virtual time to inject
 * where the stream takes one (`ctx.clock`, `clock.scheduler`).
 *
 * Unlike `TestScheduler.run`, `runMarbles` does not make RxJS's default schedulers virtual: a stream
 * that times itself on `asyncScheduler` or reads `Date.now` (a forgotten `clock.scheduler`, a clock
 * that was not injected) runs on wall time, and its marbles fail instead of passing by accident.
 */
import { Observable, Subscription } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { expect } from 'vitest';
import type { Clock } from '../core/clock.ts';

/** A Clock on a TestScheduler's virtual time: `now()` is the current frame in ms (frame 0 = 0 ms). */
export interface MarbleClock extends Clock {
  readonly scheduler: TestScheduler;
}

/** The Clock whose time is `scheduler`'s virtual time and whose scheduler is `scheduler`. */
export function marbleClock(scheduler: TestScheduler): MarbleClock {
  return { now: () => scheduler.now(), scheduler };
}

/**
 * A TestScheduler that compares with vitest's `expect(actual).toEqual(expected)`. The actual
 * timeline is copied first: RxJS keeps appending to it, and the report must show it as compared.
 */
export function createMarbleScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => {
    expect(Array.isArray(actual) ? [...actual] : actual).toEqual(expected);
  });
}

export interface MarbleHelpers {
  /** A cold observable from a marble diagram (time progression syntax: `a 999ms b`). */
  readonly cold: TestScheduler['createColdObservable'];
  /** A hot observable from a marble diagram (`^` marks where the test subscribes). */
  readonly hot: TestScheduler['createHotObservable'];
  /** Asserts what `observable` emits, and when, at flush (after `fn` returns, or on `flush()`). */
  readonly expectObservable: TestScheduler['expectObservable'];
  /** Asserts when a cold or hot observable was subscribed and unsubscribed. */
  readonly expectSubscriptions: TestScheduler['expectSubscriptions'];
  /** Runs everything scheduled so far and checks the expectations made so far. */
  readonly flush: () => void;
  /** The duration of a marble diagram in ms: `time('---|')` is 3. */
  readonly time: TestScheduler['createTime'];
  /** The clock to inject: its time is the virtual time. */
  readonly clock: MarbleClock;
  readonly scheduler: TestScheduler;
}

/**
 * Runs `fn` with a fresh TestScheduler in run mode (1 frame = 1 ms, time progression syntax), then
 * flushes it: every `expectObservable` and `expectSubscriptions` is checked with vitest's deep
 * equality and a mismatch throws. RxJS's default schedulers stay on wall time (see the module's
 * comment). Subscriptions that `expectObservable` made are ended when it returns, so nothing keeps
 * running after the test.
 *
 * @example
 * runMarbles(({ cold, expectObservable, clock }) => {
 *   const quotes = cold('a 99ms b', { a: 1, b: 2 }).pipe(debounceTime(50, clock.scheduler));
 *   expectObservable(quotes).toBe('50ms a 99ms b', { a: 1, b: 2 });
 * });
 */
export function runMarbles<T>(fn: (helpers: MarbleHelpers) => T): T {
  const scheduler = createMarbleScheduler();
  const internals = scheduler as unknown as { runMode?: boolean };
  if (typeof internals.runMode !== 'boolean') throw new Error('runMarbles: this RxJS TestScheduler has no run mode flag (runMode); runMarbles needs RxJS 7');
  /** The sources `expectObservable` subscribed to, ended (silently) when the run is over. */
  const watched = new Subscription();
  const watch = <V>(observable: Observable<V>) =>
    new Observable<V>((subscriber) => {
      const subscription = observable.subscribe({ next: (value) => subscriber.next(value), error: (error: unknown) => subscriber.error(error), complete: () => subscriber.complete() });
      watched.add(subscription);
      return subscription;
    });
  const previousFrameTimeFactor = TestScheduler.frameTimeFactor;
  const previousMaxFrames = scheduler.maxFrames;
  // What TestScheduler.run sets, without its delegates, which would put asyncScheduler (and RxJS's own now()) on virtual time.
  TestScheduler.frameTimeFactor = 1;
  scheduler.maxFrames = Number.POSITIVE_INFINITY;
  internals.runMode = true;
  try {
    const result = fn({
      cold: scheduler.createColdObservable.bind(scheduler),
      hot: scheduler.createHotObservable.bind(scheduler),
      expectObservable: <V>(observable: Observable<V>, subscriptionMarbles?: string | null) => scheduler.expectObservable(watch(observable), subscriptionMarbles),
      expectSubscriptions: scheduler.expectSubscriptions.bind(scheduler),
      flush: () => scheduler.flush(),
      time: scheduler.createTime.bind(scheduler),
      clock: marbleClock(scheduler),
      scheduler,
    });
    scheduler.flush();
    return result;
  } finally {
    watched.unsubscribe();
    TestScheduler.frameTimeFactor = previousFrameTimeFactor;
    scheduler.maxFrames = previousMaxFrames;
    internals.runMode = false;
  }
}
