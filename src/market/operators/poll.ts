/**
 * `poll`: calls a source now and again every `everyMs` on a scheduler, forever. A failure never
 * ends the stream: it is emitted as an event, and the next attempt backs off exponentially (with a
 * cap) before the cadence returns to `everyMs` after a success.
 */
import { EmptyError, from, Observable, take, TimeoutError, type ObservableInput, type SchedulerLike, type Subscriber, type Subscription } from 'rxjs';
import { backoffMs, type BackoffPolicy } from '../../core/backoff.ts';
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
  return backoffMs(failures, backoffPolicy(params));
}

/** `backoffDelay`'s numbers as a policy of the shared backoff (src/core/backoff.ts). */
function backoffPolicy(params: { readonly everyMs: number } & BackoffParameters): BackoffPolicy {
  const { everyMs, factor = 2, maxMs = DEFAULT_BACKOFF_MAX_MS } = params;
  return { initialMs: everyMs, factor, maxMs: Math.max(maxMs, everyMs) };
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
  return new Observable<PollEvent<T>>((subscriber) => {
    const polling = new Polling(fetch, params, subscriber);
    polling.attempt(0);
    return () => polling.drop();
  });
}

/**
 * One subscription of `poll`, written out rather than composed of defer, take, timeout,
 * throwIfEmpty, finalize, catchError, expand and timer (a poll is the feed's hottest loop), with
 * their order of effects: an answer cancels the timeout, is emitted, then the next call is
 * scheduled; a failure (an error, no value, a timeout, a throwing fetch) draws its retry wait, drops
 * the call (aborting it unless it settled), is emitted, then the retry is scheduled. Classes, not
 * closures: under tsx a closure made per call is also named per call.
 */
class Polling<T> {
  /** The answer of the call in flight. */
  call: Subscription | undefined;
  /** The call's timeout, or the wait before the next call. */
  timer: Subscription | undefined;
  /** The call in flight until it settles (answers or fails by itself): aborted when dropped. */
  unsettled: AbortController | undefined;
  readonly timeoutMs: number;
  /** `backoffDelay`'s, with the jitter (added, never sooner) when there is one. */
  readonly backoff: BackoffPolicy;

  constructor(
    readonly fetch: (signal: AbortSignal) => ObservableInput<T>,
    readonly params: PollParameters,
    readonly subscriber: Subscriber<PollEvent<T>>,
  ) {
    this.timeoutMs = params.timeoutMs ?? DEFAULT_POLL_TIMEOUT_MS;
    const plain = backoffPolicy({ everyMs: params.everyMs, ...params.backoff });
    this.backoff = params.jitter ? { ...plain, jitter: { up: params.jitter.ratio } } : plain;
  }

  attempt(failures: number): void {
    this.timer = undefined;
    const controller = new AbortController();
    let answer: Observable<T>;
    try {
      answer = from(this.fetch(controller.signal)).pipe(take(1));
    } catch (error) {
      this.failed(error, failures);
      return;
    }
    this.unsettled = controller;
    const observer = new AnswerObserver(this, failures);
    const subscription = answer.subscribe(observer);
    if (observer.done) return;
    this.call = subscription;
    if (Number.isFinite(this.timeoutMs)) {
      this.timer = this.params.scheduler.schedule(() => {
        this.timer = undefined;
        this.call?.unsubscribe();
        this.call = undefined;
        this.failed(new TimeoutError({ meta: null, lastValue: null, seen: 0 }), failures);
      }, this.timeoutMs);
    }
  }

  answered(value: T): void {
    this.unsettled = undefined;
    this.timer?.unsubscribe();
    this.timer = undefined;
    this.subscriber.next({ kind: 'value', value, at: this.params.scheduler.now() });
    this.after(this.params.everyMs, 0);
  }

  failed(error: unknown, failures: number): void {
    const count = failures + 1;
    const event: PollFailure = { kind: 'error', error, at: this.params.scheduler.now(), failures: count, retryInMs: backoffMs(count, this.backoff, this.params.jitter?.random) };
    this.drop();
    this.subscriber.next(event);
    this.after(event.retryInMs, count);
  }

  /** Cancels the timeout or the wait, and aborts the call in flight unless it settled. */
  drop(): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
    this.call?.unsubscribe();
    this.call = undefined;
    const controller = this.unsettled;
    this.unsettled = undefined;
    controller?.abort();
  }

  after(delayMs: number, failures: number): void {
    if (!this.subscriber.closed) this.timer = this.params.scheduler.schedule(() => this.attempt(failures), delayMs);
  }
}

/** The first value, error or empty completion of one call, for its `Polling`. */
class AnswerObserver<T> {
  done = false;

  constructor(
    readonly polling: Polling<T>,
    readonly failures: number,
  ) {}

  next(value: T): void {
    this.done = true;
    this.polling.answered(value);
  }

  error(error: unknown): void {
    this.done = true;
    this.polling.unsettled = undefined;
    this.polling.failed(error, this.failures);
  }

  complete(): void {
    if (this.done) return;
    this.done = true;
    this.polling.unsettled = undefined;
    this.polling.failed(new EmptyError(), this.failures);
  }
}
