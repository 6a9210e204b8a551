/**
 * hftbacktest's `correct_local_timestamp`: a capture's local clock may run behind the exchange's,
 * so that some messages seem to arrive before they were sent (local − exchange time < 0). No
 * message can, so every local time is moved by the same amount until the fastest-looking message
 * has exactly the base latency. One constant shift keeps the local order and every local interval.
 */
import type { ClockCorrection } from '../feed-header.ts';

/**
 * The latency the fastest-looking message is given: 0. Nothing in a capture measures the true
 * one-way latency (one clock, one direction), so any other value would be invented; 0 is the least
 * shift that makes every message arrive no earlier than it was sent, and a backtest models latency
 * on top of the feed's times anyway.
 */
export const DEFAULT_BASE_LATENCY_NS = 0n;

/**
 * Follows the smallest local − exchange time over the messages seen.
 *
 * @example
 * const tracker = new MinLatencyTracker();
 * tracker.observe(1_723_161_253_937_085_768n, 1_723_161_255_208_000_000n);
 * clockCorrection(tracker.minLatencyNs) // addedNs '1270914232'
 */
export class MinLatencyTracker {
  /** Smallest local − exchange time seen, ns; undefined until a message with an exchange time. */
  minLatencyNs: bigint | undefined;

  /** One message: its local receive time and its exchange time, both ns. */
  observe(localNs: bigint, exchNs: bigint): void {
    const latency = localNs - exchNs;
    if (this.minLatencyNs === undefined || latency < this.minLatencyNs) this.minLatencyNs = latency;
  }
}

/**
 * The correction to record in the feed header, or undefined when none is needed (the local clock is
 * not behind: the smallest latency is already at least the base latency, or nothing had a time).
 *
 * @example
 * clockCorrection(-1_271_000_000n) // { method: 'min-latency', minLatencyNs: '-1271000000', baseLatencyNs: '0', addedNs: '1271000000' }
 * clockCorrection(3_000_000n)      // undefined
 */
export function clockCorrection(minLatencyNs: bigint | undefined, baseLatencyNs: bigint = DEFAULT_BASE_LATENCY_NS): ClockCorrection | undefined {
  if (minLatencyNs === undefined || minLatencyNs >= 0n) return undefined;
  const addedNs = -minLatencyNs + baseLatencyNs;
  return { method: 'min-latency', minLatencyNs: minLatencyNs.toString(), baseLatencyNs: baseLatencyNs.toString(), addedNs: addedNs.toString() };
}
