/**
 * Seeded randomness for the trading path, the simulated venue and backtests: same seed, same run.
 * sfc32 (Chris Doty-Humphrey's Small Fast Counter): 128-bit state, passes PractRand, allocation-free.
 */
export interface RandomSource {
  /** A float in [0, 1). */
  next(): number;
  /** Fills `bytes` with random bytes and returns it. */
  fill(bytes: Uint8Array): Uint8Array;
}

/** A seeded sfc32 generator. The seed is any 32-bit integer. */
export function seededRandom(seed: number): RandomSource {
  let a = 0x9e3779b9 ^ seed;
  let b = 0x243f6a88;
  let c = 0xb7e15162 ^ Math.imul(seed, 0x85ebca6b);
  let d = 1;
  const nextUint32 = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  // Discard the first outputs so close seeds diverge.
  for (let i = 0; i < 15; i++) nextUint32();
  return {
    next: () => nextUint32() / 4294967296,
    fill(bytes) {
      for (let i = 0; i < bytes.length; i += 4) {
        let word = nextUint32();
        for (let j = i; j < Math.min(i + 4, bytes.length); j++) {
          bytes[j] = word & 0xff;
          word >>>= 8;
        }
      }
      return bytes;
    },
  };
}
