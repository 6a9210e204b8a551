import { map, take, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/core/random.ts';
import { backoffDelay, poll, type PollEvent } from '../../../src/market/operators/poll.ts';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

/** 'v' for an answer, 'e' for a failure: the timing is what most of these tests read. */
const kinds = <T>(events: Observable<PollEvent<T>>) => events.pipe(map((event) => (event.kind === 'value' ? 'v' : 'e')));

describe('poll', () => {
  it('polls at once, then everyMs after each answer, with the answer time', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const polled = poll(() => cold('-a|', { a: 'A' }), { everyMs: 10, scheduler });
      // answers take 1 frame: 1, then 1 + 10 + 1 = 12, then 23
      expectObservable(polled, '^ 25ms !').toBe('-a 10ms b 10ms c', {
        a: { kind: 'value', value: 'A', at: 1 },
        b: { kind: 'value', value: 'A', at: 12 },
        c: { kind: 'value', value: 'A', at: 23 },
      });
    });
  });

  it('backs off exponentially after failures, capped, and returns to the cadence after an answer', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const script = ['#', '#', '#', '#', 'a|', 'a|'];
      let call = 0;
      const polled = poll(() => cold(script[Math.min(call++, script.length - 1)]!, { a: 'A' }, new Error('down')), {
        everyMs: 10,
        scheduler,
        backoff: { factor: 2, maxMs: 40 },
      });
      // failures at 0, 10 (+10), 30 (+20), 70 (+40), then 110 (+40, capped) answers; 120 again.
      expectObservable(kinds(polled), '^ 125ms !').toBe('e 9ms e 19ms e 39ms e 39ms v 9ms v');
    });
  });

  it('reports each failure with its count, time and wait', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const error = new Error('down');
      const polled = poll(() => cold('--#', {}, error), { everyMs: 5, scheduler, backoff: { maxMs: 100 } });
      expectObservable(polled, '^ 25ms !').toBe('--a 6ms b 11ms c', {
        a: { kind: 'error', error, at: 2, failures: 1, retryInMs: 5 },
        b: { kind: 'error', error, at: 9, failures: 2, retryInMs: 10 },
        c: { kind: 'error', error, at: 21, failures: 3, retryInMs: 20 },
      });
    });
  });

  it('fails a call that does not answer within timeoutMs, and aborts it', () => {
    const scheduler = newScheduler();
    const signals: AbortSignal[] = [];
    scheduler.run(({ cold, expectObservable }) => {
      const polled = poll(
        (signal) => {
          signals.push(signal);
          return cold('-');
        },
        { everyMs: 10, scheduler, timeoutMs: 3 },
      );
      expectObservable(kinds(polled), '^ 20ms !').toBe('---e 12ms e');
    });
    expect(signals.map((signal) => signal.aborted)).toEqual([true, true]);
  });

  it('aborts the call in flight when unsubscribed, never a finished one', () => {
    const scheduler = newScheduler();
    const signals: AbortSignal[] = [];
    scheduler.run(({ cold, expectObservable }) => {
      const polled = poll(
        (signal) => {
          signals.push(signal);
          return cold('---a|', { a: 1 });
        },
        { everyMs: 2, scheduler },
      );
      // calls at 0 (answers at 3) and 5 (would answer at 8): unsubscribed at 6.
      expectObservable(kinds(polled), '^-----!').toBe('---v');
    });
    expect(signals.map((signal) => signal.aborted)).toEqual([false, true]);
  });

  it('never errors or completes, whatever the source does', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const script = ['|', '#', 'a|'];
      let call = 0;
      const polled = poll(() => cold(script[Math.min(call++, 2)]!, { a: 'A' }), { everyMs: 4, scheduler });
      // an empty answer is a failure (EmptyError) like an error
      expectObservable(kinds(polled), '^ 12ms !').toBe('e 3ms e 7ms v');
    });
  });

  it('spreads retries with seeded jitter, never below the plain backoff', () => {
    const waits = (seed: number) => {
      const scheduler = newScheduler();
      const out: number[] = [];
      scheduler.run(({ cold }) => {
        poll(() => cold('#'), { everyMs: 100, scheduler, jitter: { random: seededRandom(seed), ratio: 0.5 } })
          .pipe(take(5))
          .subscribe((event) => {
            if (event.kind === 'error') out.push(event.retryInMs);
          });
      });
      return out;
    };
    const first = waits(7);
    expect(waits(7)).toEqual(first);
    first.forEach((wait, i) => {
      const plain = backoffDelay(i + 1, { everyMs: 100 });
      expect(wait).toBeGreaterThanOrEqual(plain);
      expect(wait).toBeLessThanOrEqual(plain * 1.5);
    });
  });
});

describe('backoffDelay', () => {
  it('keeps the cadence on the first failure, doubles, and caps at max(maxMs, everyMs)', () => {
    expect([1, 2, 3, 4, 5, 10].map((n) => backoffDelay(n, { everyMs: 1_000 }))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000]);
    expect(backoffDelay(3, { everyMs: 60_000, maxMs: 1_000 })).toBe(60_000);
    expect(backoffDelay(3, { everyMs: 100, factor: 3, maxMs: 10_000 })).toBe(900);
  });
});
