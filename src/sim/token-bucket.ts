/**
 * Token buckets by key on the clock: each key may spend `burst` requests at once and regains
 * `ratePerSecond` of them per second. The quote endpoint keeps one per issued token (1 rps, burst 1).
 */
import type { Clock } from '../core/clock.ts';

export type BucketTake = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterMs: number };

export interface TokenBuckets {
  /** Spends one request of `key`'s bucket, or says how long until one is available. */
  take(key: string): BucketTake;
}

export interface CreateTokenBucketsParameters {
  readonly ratePerSecond: number;
  readonly burst: number;
  /** Past this many keys, full buckets are forgotten (a full bucket is the same as a new one). Default 10 000. */
  readonly maxKeys?: number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/**
 * @example
 * const buckets = createTokenBuckets(clock, { ratePerSecond: 1, burst: 1 });
 * buckets.take(tokenId) // { allowed: true }, then { allowed: false, retryAfterMs: 1000 }
 */
export function createTokenBuckets(clock: Pick<Clock, 'now'>, params: CreateTokenBucketsParameters): TokenBuckets {
  const { ratePerSecond, burst } = params;
  const maxKeys = params.maxKeys ?? 10_000;
  const buckets = new Map<string, Bucket>();

  const refill = (bucket: Bucket, now: number): void => {
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.updatedMs) / 1000) * ratePerSecond);
    bucket.updatedMs = now;
  };

  const prune = (now: number): void => {
    for (const [key, bucket] of buckets) {
      refill(bucket, now);
      if (bucket.tokens >= burst) buckets.delete(key);
    }
  };

  return {
    take(key) {
      const now = clock.now();
      let bucket = buckets.get(key);
      if (bucket === undefined) {
        if (buckets.size >= maxKeys) prune(now);
        bucket = { tokens: burst, updatedMs: now };
        buckets.set(key, bucket);
      } else {
        refill(bucket, now);
      }
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { allowed: true };
      }
      return { allowed: false, retryAfterMs: Math.ceil(((1 - bucket.tokens) / ratePerSecond) * 1000) };
    },
  };
}
