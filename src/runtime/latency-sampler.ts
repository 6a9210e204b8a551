/**
 * Draws one-way delays of the in-process connection from a LatencyConfig with a seeded source, so a
 * virtual run with the same seed sees the same delays.
 */
import type { RandomSource } from '../core/random.ts';
import type { LatencyConfig } from '../config/virtual-config.ts';

/** A function giving the next delay, whole milliseconds >= 0. */
export type LatencySampler = () => number;

/** A standard normal draw (Box–Muller; 1 - u keeps the logarithm finite). */
function standardNormal(random: RandomSource): number {
  const u = 1 - random.next();
  const v = random.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/**
 * @example const relayDelay = latencySampler({ kind: 'uniform', minMs: 5, maxMs: 40 }, seededRandom(1)); relayDelay() // 17
 */
export function latencySampler(config: LatencyConfig, random: RandomSource): LatencySampler {
  switch (config.kind) {
    case 'constant': {
      const ms = Math.round(config.ms);
      return () => ms;
    }
    case 'uniform':
      return () => Math.round(config.minMs + (config.maxMs - config.minMs) * random.next());
    case 'lognormal':
      return () => Math.min(config.maxMs, Math.round(config.medianMs * Math.exp(config.sigma * standardNormal(random))));
  }
}
