/**
 * Why a run stops, and the words for it: one text for the run's summary, its log and what the
 * strategies' HALTED state says.
 */

/** Why a run stopped. */
export type StopReason =
  | { readonly kind: 'duration'; readonly ms: number }
  /** SIGINT or SIGTERM; no signal: the caller's AbortSignal. */
  | { readonly kind: 'signal'; readonly signal: string | undefined }
  | { readonly kind: 'completed' }
  | { readonly kind: 'failed'; readonly strategy: string; readonly code: string }
  /** The engine's kill switch tripped (file, drawdown, error rate): it places nothing more. */
  | { readonly kind: 'killed'; readonly trigger: string; readonly message: string };

/** `1.5 s`, `60 s`: a duration in seconds, one decimal only when it has one. */
export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
}

/**
 * @example describeStop({ kind: 'duration', ms: 60_000 }) // 'the duration (60 s) ended'
 */
export function describeStop(reason: StopReason): string {
  switch (reason.kind) {
    case 'duration':
      return `the duration (${formatSeconds(reason.ms)}) ended`;
    case 'signal':
      return reason.signal === undefined ? 'it was asked to stop' : `${reason.signal} received`;
    case 'completed':
      return 'every strategy completed';
    case 'failed':
      return `strategy ${reason.strategy} failed (${reason.code})`;
    case 'killed':
      return `the kill switch tripped (${reason.trigger})`;
  }
}
