/**
 * Intent nonces of one wallet: strictly increasing uint64 values, taken from the clock in
 * milliseconds where possible (as the venue's examples do) and never at or below the floor restored
 * from the journal, so no nonce is reused across restarts even when the wall clock went back.
 *
 * The venue keeps the last nonce it saw and refuses one further ahead of its clock than a maximum
 * skew; a nonce that would be further ahead than `maxFutureSkewMs` is refused here instead of being
 * signed (NONCE_SKEW_EXCEEDED). That happens after more than `maxFutureSkewMs` nonces within one
 * millisecond, or when the clock is far behind the floor (a clock set back after a restart): wait for
 * the clock to catch up.
 *
 * The caller records every nonce in the journal (a `signed` record) before its request leaves.
 */
import { BaseError } from '../core/base-error.ts';
import type { Clock } from '../core/clock.ts';

/** The venue's limit on how far a nonce may lead its clock (venue: contract-side maximum future skew). */
export const DEFAULT_MAX_FUTURE_SKEW_MS = 60_000;

const UINT64_MAX = (1n << 64n) - 1n;

export interface NonceSourceParameters {
  /** The highest nonce ever used by this wallet (the journal's nonce floor); the next one is above it. */
  readonly floor?: bigint;
  /** Refuse a nonce more than this many ms ahead of the clock. Default 60 000. */
  readonly maxFutureSkewMs?: number;
}

export interface NonceSource {
  /**
   * The next nonce: `max(clock.now(), last + 1)`. Throws NONCE_SKEW_EXCEEDED (and uses nothing) when
   * that is more than `maxFutureSkewMs` ahead of the clock.
   */
  next(): bigint;
  /** The last nonce handed out, or the floor when none was yet; 0n for a fresh wallet. */
  last(): bigint;
  /** Raises the floor (e.g. the venue reported a higher nonce); a lower value changes nothing. */
  raiseFloor(nonce: bigint): void;
  /** The clock time (ms) from which `next()` hands out a nonce again. */
  readyAt(): number;
}

/**
 * A nonce source for one wallet.
 *
 * @example
 * const nonces = createNonceSource({ clock }, { floor: journal.nonceFloor() });
 * const nonce = nonces.next(); // record it in the journal before the request is sent
 */
export function createNonceSource(context: { readonly clock: Pick<Clock, 'now'> }, params: NonceSourceParameters = {}): NonceSource {
  const { clock } = context;
  const maxFutureSkewMs = params.maxFutureSkewMs ?? DEFAULT_MAX_FUTURE_SKEW_MS;
  const skew = BigInt(Math.floor(maxFutureSkewMs));
  let last = params.floor !== undefined && params.floor > 0n ? params.floor : 0n;

  return {
    next() {
      const now = BigInt(Math.floor(clock.now()));
      const candidate = now > last ? now : last + 1n;
      if (candidate - now > skew || candidate > UINT64_MAX) {
        throw new BaseError(
          'NONCE_SKEW_EXCEEDED',
          `the next nonce ${candidate} would be ${candidate - now} ms ahead of the clock (at most ${skew}): wait for the clock to catch up`,
          { details: { now: now.toString(), last: last.toString(), candidate: candidate.toString(), maxFutureSkewMs } },
        );
      }
      last = candidate;
      return candidate;
    },
    last: () => last,
    raiseFloor(nonce) {
      if (nonce > last) last = nonce;
    },
    readyAt: () => Number(last + 1n - skew),
  };
}
