import { randomFillSync } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { Clock } from './clock.ts';
import type { RandomSource } from './random.ts';

/** The id seam: request ids and client ids come from here, never from `uuid` directly. */
export interface IdSource {
  /** A new lowercase UUIDv7, its time from the clock. */
  next(): string;
}

/**
 * UUIDv7 ids whose timestamp comes from `clock` and whose random bits come from `random`
 * (seeded in tests and backtests; the OS's CSPRNG when omitted). Ids from one source are strictly
 * increasing, even within one millisecond or when the clock steps back: a 31-bit counter seeded
 * from the random bits orders them (RFC 9562 §6.2, method 1).
 *
 * @example createIdSource({ clock: liveClock }).next() // '019a…-7…'
 */
export function createIdSource(context: { clock: Clock; random?: RandomSource }): IdSource {
  const { clock, random } = context;
  const bytes = new Uint8Array(16);
  let msecs = Number.NEGATIVE_INFINITY;
  let seq = 0;
  return {
    next() {
      if (random) random.fill(bytes);
      else randomFillSync(bytes);
      const now = clock.now();
      if (now > msecs) {
        msecs = now;
        seq = ((bytes[6]! & 0x7f) << 24) | (bytes[7]! << 16) | (bytes[8]! << 8) | bytes[9]!;
      } else {
        seq = (seq + 1) | 0;
        if (seq === 0) msecs += 1;
      }
      return uuidv7({ msecs, seq, random: bytes });
    },
  };
}
