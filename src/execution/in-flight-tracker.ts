/**
 * The in-flight cap of one relay connection: how many transactions await their terminal outcome.
 * The relay closes a WebSocket (4008) when one more transaction needs tracking while 64 are pending,
 * so the engine keeps at most `maxPendingOutcomes` (default 48, always below 64) and queues the rest.
 */
import { BaseError } from '../core/base-error.ts';
import { RELAY_PENDING_OUTCOME_LIMIT } from '../protocol/constants.ts';

/** Default `engine.maxPendingOutcomes` (run config). */
export const DEFAULT_MAX_PENDING_OUTCOMES = 48;

export interface InFlightTrackerParameters {
  /** An integer from 1 to 63. Default 48. */
  readonly maxPendingOutcomes?: number;
}

/**
 * Counts transactions awaiting an outcome on the current connection, never above the cap.
 *
 * @example
 * const inFlight = new InFlightTracker({ maxPendingOutcomes: 48 });
 * if (inFlight.tryAcquire(requestId)) send(request); else queue.push(intent, meta);
 * // on its outcome (or a REJECTED answer): inFlight.release(requestId)
 * // on a new connection: reconcile(inFlight.reset())
 */
export class InFlightTracker {
  readonly capacity: number;
  readonly #pending = new Set<string>();
  #maxSeen = 0;

  constructor(params: InFlightTrackerParameters = {}) {
    const cap = params.maxPendingOutcomes ?? DEFAULT_MAX_PENDING_OUTCOMES;
    if (!Number.isInteger(cap) || cap < 1 || cap >= RELAY_PENDING_OUTCOME_LIMIT) {
      throw new BaseError(
        'IN_FLIGHT_CAP_INVALID',
        `maxPendingOutcomes must be an integer from 1 to ${RELAY_PENDING_OUTCOME_LIMIT - 1}, got ${cap}: the relay closes the connection at ${RELAY_PENDING_OUTCOME_LIMIT} pending outcomes`,
        { details: { maxPendingOutcomes: cap, relayLimit: RELAY_PENDING_OUTCOME_LIMIT } },
      );
    }
    this.capacity = cap;
  }

  /**
   * Takes a place for `requestId`; false when the cap is reached. Acquiring an id that already
   * holds a place returns true and counts it once.
   */
  tryAcquire(requestId: string): boolean {
    if (this.#pending.has(requestId)) return true;
    if (this.#pending.size >= this.capacity) return false;
    this.#pending.add(requestId);
    if (this.#pending.size > this.#maxSeen) this.#maxSeen = this.#pending.size;
    return true;
  }

  /** Frees the place of `requestId`; true when it held one. Releasing twice is harmless. */
  release(requestId: string): boolean {
    return this.#pending.delete(requestId);
  }

  /** How many transactions await an outcome. */
  pending(): number {
    return this.#pending.size;
  }

  /** Places left before the cap. */
  available(): number {
    return this.capacity - this.#pending.size;
  }

  has(requestId: string): boolean {
    return this.#pending.has(requestId);
  }

  /** The request ids holding a place, in the order they acquired it. */
  pendingIds(): readonly string[] {
    return [...this.#pending];
  }

  /** The highest pending count ever reached (across connections). */
  maxSeen(): number {
    return this.#maxSeen;
  }

  /**
   * Empties the tracker for a new connection and returns the ids that were pending: their outcomes
   * will not arrive on the new connection, so the engine must reconcile each one.
   */
  reset(): readonly string[] {
    const ids = [...this.#pending];
    this.#pending.clear();
    return ids;
  }
}
