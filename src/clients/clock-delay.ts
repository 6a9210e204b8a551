/**
 * Waiting on the clock: every pause of the clients (backoff, budgets, polling) is scheduled on the
 * clock's scheduler, so it passes in virtual time in tests and backtests.
 */
import type { Clock } from '../core/clock.ts';

export interface DelayParameters {
  readonly ms: number;
  /** Rejects with the signal's reason when it aborts first. */
  readonly signal?: AbortSignal;
}

/**
 * Resolves after `ms` on `clock` (at once, on the next scheduler turn, for `ms <= 0`).
 *
 * @example await clockDelay(clock, { ms: 250, signal })
 */
export function clockDelay(clock: Clock, params: DelayParameters): Promise<void> {
  const { signal } = params;
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      scheduled.unsubscribe();
      reject(signal?.reason);
    };
    const scheduled = clock.scheduler.schedule(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, params.ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
