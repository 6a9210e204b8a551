/**
 * `poll` is written out by hand for speed; it must do what its first definition, composed of RxJS
 * operators (kept below), did: the same calls at the same times, the same events, the same aborts,
 * the same jitter draws, whatever each call does (answers at once or later, fails, answers nothing,
 * never answers) and whenever the subscriber leaves.
 */
import fc from 'fast-check';
import { catchError, concatMap, defer, expand, finalize, from, map, of, take, tap, throwIfEmpty, timeout, timer, type Observable, type ObservableInput } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { seededRandom, type RandomSource } from '../../../src/core/random.ts';
import { backoffDelay, DEFAULT_POLL_TIMEOUT_MS, poll, type PollEvent, type PollParameters } from '../../../src/market/operators/poll.ts';
import { fuzzSettings } from '../../../src/testing/fuzz-settings.ts';

function composedPoll<T>(fetch: (signal: AbortSignal) => ObservableInput<T>, params: PollParameters): Observable<PollEvent<T>> {
  const { everyMs, scheduler, timeoutMs = DEFAULT_POLL_TIMEOUT_MS, jitter } = params;
  const retryDelay = (failures: number) => {
    const base = backoffDelay(failures, { everyMs, ...params.backoff });
    return jitter ? base + Math.floor(base * jitter.ratio * jitter.random.next()) : base;
  };
  const attempt = (failures: number): Observable<PollEvent<T>> =>
    defer(() => {
      const controller = new AbortController();
      let settled = false;
      const answer = from(fetch(controller.signal)).pipe(
        take(1),
        tap({ next: () => (settled = true), error: () => (settled = true), complete: () => (settled = true) }),
      );
      return (Number.isFinite(timeoutMs) ? answer.pipe(timeout({ first: timeoutMs, scheduler })) : answer).pipe(
        throwIfEmpty(),
        finalize(() => {
          if (!settled) controller.abort();
        }),
      );
    }).pipe(
      map((value): PollEvent<T> => ({ kind: 'value', value, at: scheduler.now() })),
      catchError((error: unknown) => {
        const count = failures + 1;
        return of<PollEvent<T>>({ kind: 'error', error, at: scheduler.now(), failures: count, retryInMs: retryDelay(count) });
      }),
    );
  return defer(() =>
    attempt(0).pipe(
      expand((event) => timer(event.kind === 'value' ? everyMs : event.retryInMs, scheduler).pipe(concatMap(() => attempt(event.kind === 'value' ? 0 : event.failures)))),
    ),
  );
}

/** What a call does: answer at once or after frames, fail, complete empty, never answer, or throw. */
const scripts = ['a|', '-a|', '---a|', 'ab|', '-a-b|', '#', '--#', '|', '--|', '-', 'throw'] as const;

describe('poll (written out) against its composed definition', () => {
  it('makes the same calls, events, aborts and jitter draws', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...scripts), { minLength: 1, maxLength: 12 }),
        fc.record({ everyMs: fc.integer({ min: 1, max: 20 }), timeoutMs: fc.constantFrom(5, 15, Number.POSITIVE_INFINITY), jitter: fc.boolean(), stopAt: fc.integer({ min: 0, max: 300 }) }),
        (script, { everyMs, timeoutMs, jitter, stopAt }) => {
          const record = (make: typeof poll) => {
            const log: string[] = [];
            const scheduler = new TestScheduler(() => undefined);
            scheduler.run(({ cold }) => {
              const random = seededRandom(7);
              const draws: RandomSource = { next: () => (log.push(`draw@${scheduler.now()}`), random.next()), fill: (bytes) => random.fill(bytes) };
              let call = 0;
              const polled = make(
                (signal) => {
                  const n = call++;
                  const kind = script[n % script.length]!;
                  log.push(`call${n}@${scheduler.now()}`);
                  signal.addEventListener('abort', () => log.push(`abort${n}@${scheduler.now()}`));
                  if (kind === 'throw') throw new Error(`thrown ${n}`);
                  return cold(kind, { a: `A${n}`, b: `B${n}` }, new Error(`failed ${n}`));
                },
                { everyMs, scheduler, timeoutMs, backoff: { factor: 2, maxMs: 40 }, ...(jitter ? { jitter: { random: draws, ratio: 0.5 } } : {}) },
              );
              const subscription = polled.subscribe({
                next: (event) =>
                  log.push(
                    event.kind === 'value'
                      ? `value ${String(event.value)}@${event.at}`
                      : `error ${(event.error as Error).name}:${(event.error as Error).message} ${event.failures} ${event.retryInMs}@${event.at}`,
                  ),
                error: () => log.push('ERRORED'),
                complete: () => log.push('COMPLETED'),
              });
              scheduler.schedule(() => {
                log.push(`stop@${scheduler.now()}`);
                subscription.unsubscribe();
              }, stopAt);
            });
            return log;
          };
          expect(record(poll)).toEqual(record(composedPoll));
        },
      ),
      fuzzSettings({ numRuns: 500 }),
    );
  });
});
