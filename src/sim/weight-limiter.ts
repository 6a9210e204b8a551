/**
 * Binance's request-weight limit of the market-data host: every request adds its weight to its
 * client IP's count for the current minute, in fixed one-minute windows aligned on the minute
 * (a request at 00:01:23.456 counts towards the 00:01:00 minute; the count restarts at 00:02:00).
 * Over the budget the request is refused (HTTP 429, -1003) with `Retry-After` = seconds until the
 * window resets. Time comes from the clock.
 *
 * A refused request still adds its weight (Binance: "every request has a certain weight, added to
 * your limit as you perform requests"), so `X-MBX-USED-WEIGHT-1M` keeps rising past the budget
 * until the window resets.
 */
import type { Clock } from '../core/clock.ts';

/** The response header carrying the weight an IP used in the current minute (Binance). */
export const USED_WEIGHT_HEADER = 'X-MBX-USED-WEIGHT-1M';

const WINDOW_MS = 60_000;

export interface WeightCharge {
  /** False: over the budget, answer 429. */
  readonly allowed: boolean;
  /** The IP's weight in the current window, this request included. */
  readonly used: number;
  /** Whole seconds until the window resets (at least 1). */
  readonly retryAfterSeconds: number;
}

export interface WeightLimiter {
  /** The budget per IP per minute. */
  readonly weightPerMinute: number;
  /** Adds `weight` to `ip`'s count and says whether the request is within the budget. */
  charge(ip: string, weight: number): WeightCharge;
  /** `ip`'s weight in the current window. */
  used(ip: string): number;
}

export interface CreateWeightLimiterParameters {
  /** Request weight per IP per minute (config `marketData.weightPerMinute`). */
  readonly weightPerMinute: number;
}

/**
 * A per-IP weight counter on `clock`.
 *
 * @example
 * const limiter = createWeightLimiter(clock, { weightPerMinute: 1200 });
 * const charge = limiter.charge(request.ip, RequestWeight.depth(100));
 * if (!charge.allowed) return { status: 429, headers: { 'Retry-After': String(charge.retryAfterSeconds) }, body };
 */
export function createWeightLimiter(clock: Pick<Clock, 'now'>, params: CreateWeightLimiterParameters): WeightLimiter {
  const budget = params.weightPerMinute;
  // Counts of the current window only: a new window starts every IP at zero, so old entries go at once.
  let windowStart = Number.NEGATIVE_INFINITY;
  const counts = new Map<string, number>();

  const roll = (now: number): void => {
    const start = Math.floor(now / WINDOW_MS) * WINDOW_MS;
    if (start !== windowStart) {
      windowStart = start;
      counts.clear();
    }
  };

  return {
    weightPerMinute: budget,
    charge(ip, weight) {
      const now = clock.now();
      roll(now);
      const used = (counts.get(ip) ?? 0) + weight;
      counts.set(ip, used);
      const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
      return { allowed: used <= budget, used, retryAfterSeconds };
    },
    used(ip) {
      roll(clock.now());
      return counts.get(ip) ?? 0;
    },
  };
}
