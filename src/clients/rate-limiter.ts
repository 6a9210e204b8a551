/**
 * A client-side limiter that keeps a sender within a server's token bucket (`rps` per second,
 * `burst` at once) whatever the network latency, so the client never causes a 429 itself.
 *
 * The server counts a request when it arrives, which is some time between our send and our
 * answer. So the limiter runs one request at a time and, GCRA-style, keeps an upper bound of the
 * server's theoretical arrival time: after each answer (or failure) at time r, `tat = max(tat, r) + 1/rps`;
 * the next request is sent no earlier than `tat - (burst - 1)/rps`. Two requests then arrive at
 * least `1/rps` apart for burst 1, whatever their latency. Time and waits come from the clock.
 */
import type { Subscription } from 'rxjs';
import type { Clock } from '../core/clock.ts';

export interface RateLimit {
  /** Requests regained per second. */
  readonly rps: number;
  /** Requests that may be spent at once. */
  readonly burst: number;
}

export interface RateLimiter {
  /**
   * Waits for the turn to send; resolves with `release`, to call once when the request has ended
   * (answered or failed). Rejects with the signal's reason when it aborts while waiting.
   */
  acquire(options?: { readonly signal?: AbortSignal }): Promise<() => void>;
  /** Changes the limit (e.g. a new token's `rate_limit`); the schedule so far is kept. */
  setLimit(limit: RateLimit): void;
  readonly limit: RateLimit;
}

export interface CreateRateLimiterParameters extends RateLimit {
  /** Added to every interval, against rounding in the server's own clock arithmetic. Default 5 ms. */
  readonly safetyMarginMs?: number;
}

interface Waiter {
  readonly resolve: (release: () => void) => void;
  readonly detach: () => void;
}

/**
 * @example
 * const limiter = createRateLimiter(clock, { rps: 1, burst: 1 });
 * const release = await limiter.acquire({ signal });
 * try { await send() } finally { release() }
 */
export function createRateLimiter(clock: Clock, params: CreateRateLimiterParameters): RateLimiter {
  const margin = params.safetyMarginMs ?? 5;
  let limit: RateLimit = { rps: params.rps, burst: params.burst };
  let tat = Number.NEGATIVE_INFINITY;
  let busy = false;
  const waiters: Waiter[] = [];
  let wakeUp: Subscription | undefined;

  const interval = () => 1000 / limit.rps + margin;

  const pump = () => {
    wakeUp?.unsubscribe();
    wakeUp = undefined;
    if (busy || waiters.length === 0) return;
    const now = clock.now();
    const at = tat - (Math.max(1, limit.burst) - 1) * interval();
    if (at > now) {
      wakeUp = clock.scheduler.schedule(pump, at - now);
      return;
    }
    const head = waiters.shift()!;
    head.detach();
    busy = true;
    let released = false;
    head.resolve(() => {
      if (released) return;
      released = true;
      tat = Math.max(tat, clock.now()) + interval();
      busy = false;
      pump();
    });
  };

  return {
    get limit() {
      return limit;
    },
    setLimit(next) {
      limit = { rps: next.rps, burst: next.burst };
      pump();
    },
    acquire(options = {}) {
      const { signal } = options;
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          const index = waiters.indexOf(waiter);
          if (index >= 0) waiters.splice(index, 1);
          reject(signal?.reason);
        };
        const waiter: Waiter = { resolve, detach: () => signal?.removeEventListener('abort', onAbort) };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.push(waiter);
        pump();
      });
    },
  };
}
