/**
 * The client side of the market-data host's request-weight limit (venue: 1200 weight per minute per
 * IP; Binance: header `X-MBX-USED-WEIGHT-1M`, HTTP 429 with `Retry-After`). Every market-data
 * request waits here, on the clock, until its weight fits; then it is sent.
 *
 * The budget counts weight over a sliding window (the weight sent in the last 60 s), not as a
 * token bucket refilled at 20 per second: the host counts per fixed minute, and a bucket that is
 * full at the start of a minute could spend its 1200 and then 1200 more refilled within the same
 * minute. A sliding window never sends more than the budget in any 60 s, so in no fixed minute
 * either. The server's own count is a floor (other processes on the same IP spend weight too),
 * and a 429's `Retry-After` pauses the host.
 */
import type { Subscription } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import { MARKET_DATA_WEIGHT_PER_MINUTE } from '../protocol/constants.ts';
import { ClientError } from './client-error.ts';

/** The answer header with the weight the IP used in the current minute (Binance). */
export const USED_WEIGHT_HEADER = 'x-mbx-used-weight-1m';

export interface WeightBudget {
  /** The budget per window. */
  readonly weightPerMinute: number;
  readonly windowMs: number;
  /**
   * Waits until `weight` fits in the window (and any pause is over), then records it. Waiters are
   * served in order. Rejects with the signal's reason when it aborts while waiting, and with
   * WEIGHT_BUDGET_EXCEEDED at once when `weight` is above the whole budget.
   */
  acquire(weight: number, options?: { readonly signal?: AbortSignal }): Promise<void>;
  /** The server's count for its current minute: when above ours, ours rises to it (never lowers). */
  syncUsedWeight(used: number): void;
  /** Sends nothing before `untilMs` (a 429's Retry-After). */
  pauseUntil(untilMs: number): void;
  /** Weight counted in the last window. */
  used(): number;
  /** Until when the host is paused, or undefined. */
  pausedUntil(): number | undefined;
  /** Requests waiting for their turn. */
  waiting(): number;
}

export interface CreateWeightBudgetParameters {
  /** Default 1200 (venue). */
  readonly weightPerMinute?: number;
  /** Default 60 000 ms. */
  readonly windowMs?: number;
}

interface Spent {
  readonly at: number;
  readonly weight: number;
}

interface Waiter {
  readonly weight: number;
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
  readonly detach: () => void;
}

/**
 * A weight budget for one host, on `clock`. Share one budget between every client of the same host.
 *
 * @example
 * const budget = createWeightBudget(clock, { weightPerMinute: 1200 });
 * await budget.acquire(RequestWeight.depth(500), { signal });
 */
export function createWeightBudget(clock: Clock, params: CreateWeightBudgetParameters = {}): WeightBudget {
  const capacity = params.weightPerMinute ?? MARKET_DATA_WEIGHT_PER_MINUTE;
  const windowMs = params.windowMs ?? 60_000;
  const spent: Spent[] = [];
  let sum = 0;
  let paused = Number.NEGATIVE_INFINITY;
  const waiters: Waiter[] = [];
  let wakeUp: Subscription | undefined;

  const prune = (now: number) => {
    while (spent.length > 0 && spent[0]!.at + windowMs <= now) sum -= spent.shift()!.weight;
  };

  /** The earliest time `weight` fits, given what is spent now. */
  const fitsAt = (weight: number, now: number): number => {
    let excess = sum + weight - capacity;
    let at = now;
    for (let index = 0; excess > 0 && index < spent.length; index += 1) {
      const entry = spent[index]!;
      excess -= entry.weight;
      at = entry.at + windowMs;
    }
    return Math.max(at, paused);
  };

  const record = (weight: number, now: number) => {
    spent.push({ at: now, weight });
    sum += weight;
  };

  const pump = () => {
    wakeUp?.unsubscribe();
    wakeUp = undefined;
    while (waiters.length > 0) {
      const head = waiters[0]!;
      const now = clock.now();
      prune(now);
      const at = fitsAt(head.weight, now);
      if (at > now) {
        wakeUp = clock.scheduler.schedule(pump, at - now);
        return;
      }
      waiters.shift();
      head.detach();
      record(head.weight, now);
      head.resolve();
    }
  };

  return {
    weightPerMinute: capacity,
    windowMs,
    acquire(weight, options = {}) {
      if (weight > capacity) {
        return Promise.reject(
          new ClientError('WEIGHT_BUDGET_EXCEEDED', `a request of weight ${weight} can never fit a budget of ${capacity} per window`, {
            details: { weight, weightPerMinute: capacity },
          }),
        );
      }
      const { signal } = options;
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (waiters.length === 0) {
        // What `pump` would do at once for a lone waiter that fits now (the usual case), without a
        // listener to add and remove: the same record, and an already resolved promise as before.
        const now = clock.now();
        prune(now);
        const fitting = Math.max(0, weight);
        if (fitsAt(fitting, now) <= now) {
          record(fitting, now);
          return Promise.resolve();
        }
      }
      return new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const index = waiters.indexOf(waiter);
          if (index >= 0) waiters.splice(index, 1);
          reject(signal?.reason);
          pump();
        };
        const waiter: Waiter = {
          weight: Math.max(0, weight),
          resolve,
          reject,
          detach: () => signal?.removeEventListener('abort', onAbort),
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.push(waiter);
        pump();
      });
    },
    syncUsedWeight(used) {
      if (!Number.isFinite(used)) return;
      const now = clock.now();
      prune(now);
      if (used > sum) record(used - sum, now);
    },
    pauseUntil(untilMs) {
      if (untilMs <= paused) return;
      paused = untilMs;
      if (waiters.length > 0) pump();
    },
    used() {
      prune(clock.now());
      return sum;
    },
    pausedUntil() {
      return paused > clock.now() ? paused : undefined;
    },
    waiting: () => waiters.length,
  };
}
