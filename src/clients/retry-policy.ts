/**
 * When a client tries a request again: only idempotent reads, only after no answer, a 5xx or a 429,
 * after an exponential backoff with jitter from a seeded random source (never a 4xx: the same
 * request would be refused again). A 429's `Retry-After` is a floor under the backoff.
 */
import { backoffMs } from '../core/backoff.ts';
import type { RandomSource } from '../core/random.ts';

export interface RetryPolicy {
  /** Tries in all, the first included; 1 means no retry. */
  readonly maxAttempts: number;
  /** Backoff before the first retry, before jitter. */
  readonly baseDelayMs: number;
  /** Cap of any backoff, before jitter. */
  readonly maxDelayMs: number;
  /**
   * Share of each backoff that is random, 0..1: the wait is `backoff * (1 - jitter + jitter * r)`
   * with r in [0, 1). 0.5 ("equal jitter") keeps clients apart yet never retries at once.
   */
  readonly jitter: number;
  /**
   * Longest `Retry-After` of a 429 that a call waits out itself; a longer one ends the call with a
   * rate-limited error carrying `retryAfterMs`, so a poller can report it instead of hanging.
   */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  maxAttempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  jitter: 0.5,
  maxRetryAfterMs: 10_000,
});

/** No retries: for writes (a relay submission, a token issue) and one-shot command-line reads. */
export const NO_RETRY: RetryPolicy = Object.freeze({ ...DEFAULT_RETRY_POLICY, maxAttempts: 1 });

/**
 * The wait before retry number `retry` (1 for the first retry): `min(max, base * 2^(retry-1))`
 * with `jitter` taken off (`backoffMs`, src/core/backoff.ts).
 *
 * @example backoffDelayMs(DEFAULT_RETRY_POLICY, { retry: 2, random }) // 500 jittered: in [250, 500)
 */
export function backoffDelayMs(policy: RetryPolicy, params: { readonly retry: number; readonly random: RandomSource }): number {
  return backoffMs(params.retry, { initialMs: policy.baseDelayMs, factor: 2, maxMs: policy.maxDelayMs, jitter: { down: policy.jitter } }, params.random);
}

/**
 * `Retry-After` in ms from `nowMs`: delta seconds (`"3"`) or an HTTP date; undefined when absent or
 * unreadable. A date in the past is 0.
 *
 * @example parseRetryAfterMs('2', clock.now()) // 2000
 */
export function parseRetryAfterMs(header: string | undefined, nowMs: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (/^[0-9]{1,9}$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
