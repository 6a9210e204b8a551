/**
 * `poll`: calls a source now and again every `everyMs` on a scheduler, forever. A failure never
 * ends the stream: it is emitted as an event, and the next attempt backs off exponentially (with a
 * cap) before the cadence returns to `everyMs` after a success.
 */
import {
  catchError,
  concatMap,
  defer,
  expand,
  finalize,
  from,
  map,
  of,
  take,
  tap,
  throwIfEmpty,
  timeout,
  timer,
  type Observable,
  type ObservableInput,
  type SchedulerLike,
} from 'rxjs';
import type { RandomSource } from '../../core/random.ts';

export interface BackoffParameters {
  /** Growth per consecutive failure (default 2). */
  readonly factor?: number;
  /** Longest wait between attempts (default 30 000 ms; never below `everyMs`). */
  readonly maxMs?: number;
}

export interface PollParameters {
  /** Wait between the end of one successful call and the start of the next, ms. */
  readonly everyMs: number;
  /** Where the waits run: `clock.scheduler`. */
  readonly scheduler: SchedulerLike;
  /** A call without an answer after this long fails (default 30 000 ms; `Infinity`: never). */
  readonly timeoutMs?: number;
  readonly backoff?: BackoffParameters;
  /** Spreads retries: each backoff wait grows by up to `ratio` of itself, drawn from `random`. */
  readonly jitter?: { readonly random: RandomSource; readonly ratio: number };
}

export interface PollValue<T> {
  readonly kind: 'value';
  readonly value: T;
  /** Scheduler time of the answer. */
  readonly at: number;
}

export interface PollFailure {
  readonly kind: 'error';
  readonly error: unknown;
  /** Scheduler time of the failure. */
  readonly at: number;
  /** Consecutive failures so far, 1 for the first. */
  readonly failures: number;
  /** Wait before the next attempt. */
  readonly retryInMs: number;
}

export type PollEvent<T> = PollValue<T> | PollFailure;

/** Generous: the whole call, including the retries a client makes inside it. */
export const DEFAULT_POLL_TIMEOUT_MS = 30_000;
export const DEFAULT_BACKOFF_MAX_MS = 30_000;

/**
 * Wait after `failures` consecutive failures: `everyMs * factor^(failures - 1)`, capped at
 * `max(maxMs, everyMs)`. The first retry keeps the normal cadence, and no retry comes sooner than
 * a normal poll would, so a failing source never costs more request weight than the plan.
 *
 * @example backoffDelay(3, { everyMs: 1000 }) // 4000
 */
export function backoffDelay(failures: number, params: { readonly everyMs: number } & BackoffParameters): number {
  const { everyMs, factor = 2, maxMs = DEFAULT_BACKOFF_MAX_MS } = params;
  return Math.min(Math.max(maxMs, everyMs), everyMs * factor ** Math.max(0, failures - 1));
}

/**
 * Polls `fetch` at once on subscription, then `everyMs` after each answer; after a failure, after
 * `backoffDelay`. Unsubscribing aborts the call in flight (its `AbortSignal`). Never errors, never
 * completes: failures are `PollFailure` events.
 *
 * @example
 * poll((signal) => source.ticker24hr({ symbol }, { signal }), { everyMs: 5_000, scheduler: clock.scheduler })
 *   .subscribe((event) => event.kind === 'value' && show(event.value));
 */
export function poll<T>(fetch: (signal: AbortSignal) => ObservableInput<T>, params: PollParameters): Observable<PollEvent<T>> {
  const { everyMs, scheduler, timeoutMs = DEFAULT_POLL_TIMEOUT_MS, jitter } = params;
  const retryDelay = (failures: number) => {
    const base = backoffDelay(failures, { everyMs, ...params.backoff });
    return jitter ? base + Math.floor(base * jitter.ratio * jitter.random.next()) : base;
  };

  const attempt = (failures: number): Observable<PollEvent<T>> =>
    defer(() => {
      const controller = new AbortController();
      let settled = false;
      // Settled: the call answered or failed by itself; otherwise (timeout, unsubscribe) it is aborted.
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
      expand((event) =>
        timer(event.kind === 'value' ? everyMs : event.retryInMs, scheduler).pipe(
          concatMap(() => attempt(event.kind === 'value' ? 0 : event.failures)),
        ),
      ),
    ),
  );
}
