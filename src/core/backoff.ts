/**
 * The one exponential backoff: the wait before retry n is `min(maxMs, initialMs · factor^(n-1))`,
 * spread by jitter drawn from a seeded RandomSource (never `Math.random`), so the same seed gives
 * the same waits. Client retries, relay WebSocket reconnects, failed polls, relay session renewals
 * and the engine's resends all wait this way, each with its own policy.
 */
import type { RandomSource } from './random.ts';

/**
 * How a wait `d` (already capped) is spread, with one draw r in [0, 1) per wait, even at ratio 0, so
 * a source's sequence does not depend on the ratio.
 * - `down`: `round(d · (1 - down + down · r))`, up to `down` (0..1, clamped) of the wait taken off:
 *   0.5 is "equal jitter" (apart, yet never at once), 1 "full jitter".
 * - `up`: `d + floor(d · up · r)`, up to `up` of the wait added: never sooner than `d`.
 */
export type BackoffJitter = { readonly down: number } | { readonly up: number };

export interface BackoffPolicy {
  /** Wait before the first retry, before jitter. */
  readonly initialMs: number;
  /** Growth per retry: 2 doubles. */
  readonly factor: number;
  /** Cap of any wait, before jitter. */
  readonly maxMs: number;
  /** Applied only with a `random` source; without one the wait is the plain one. */
  readonly jitter?: BackoffJitter;
}

/**
 * The wait before retry number `retry` (1 for the first; 0 counts as 1).
 *
 * @example backoffMs(3, { initialMs: 1_000, factor: 2, maxMs: 30_000 }) // 4000
 * @example backoffMs(2, { initialMs: 250, factor: 2, maxMs: 8_000, jitter: { down: 0.5 } }, random) // in [250, 500]
 */
export function backoffMs(retry: number, policy: BackoffPolicy, random?: RandomSource): number {
  const plain = Math.min(policy.maxMs, policy.initialMs * policy.factor ** Math.max(0, retry - 1));
  const { jitter } = policy;
  if (jitter === undefined || random === undefined) return plain;
  if ('up' in jitter) return plain + Math.floor(plain * jitter.up * random.next());
  const share = Math.min(1, Math.max(0, jitter.down));
  return Math.round(plain * (1 - share + share * random.next()));
}
