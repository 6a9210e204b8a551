/**
 * The figures of a chaos run (`clobbot chaos`), computed from what the venue recorded (its relay
 * submissions and their outcomes, its orders, balances and connections) and, for what only the bot
 * can know (that it signed something it never sent), from every journal record the run saw.
 *
 * - A signed request is **accounted for** when the venue answered it REJECTED, or when its
 *   transaction reached a terminal outcome (CONFIRMED, REVERTED, DROPPED), or when it never reached
 *   the venue and the bot's journal settled it as not sent (`NOT_SENT`, or REJECTED before
 *   reaching the venue). Otherwise it is **lost**.
 * - A **duplicate placement** is a second CONFIRMED attempt of one intent (the journal's `retryOf`
 *   links the attempts; the venue says which executed).
 * - A **nonce reuse** is a nonce carried by two different signed requests (in the journals, or in
 *   what the venue received).
 * - **Recovery**: from each fault to the first placement the venue accepted after it.
 */
import { OUTCOME_STATUSES, RelayMethod, type OutcomeStatus } from '../../protocol/constants.ts';
import type { Hex } from '../../protocol/encoding.ts';
import type { JournalRecord } from '../../execution/journal-record.ts';
import { clientOrderIdOf } from '../../execution/intent-signer.ts';
import type { RelaySubmission } from '../../venue/sim-venue.ts';

/** The figures, named as `clobbot chaos --json` prints them. */
export interface ChaosFigures {
  readonly intents_signed: number;
  readonly intents_with_terminal_state: number;
  readonly lost: number;
  readonly duplicate_placements: number;
  readonly nonce_reuses: number;
  readonly max_pending_outcomes: number;
  readonly cap: number;
  readonly reconnects: number;
  readonly restarts: number;
  readonly rate_limit_violations: number;
  readonly orders_left_open_after_stop: number;
  readonly position_mismatch: number;
  readonly recovery_ms_p50: number | null;
  readonly recovery_ms_p99: number | null;
}

/** What the run observed. */
export interface ChaosObservations {
  /** Every journal record seen, from every process (duplicates across reads are fine). */
  readonly journal: readonly JournalRecord[];
  /** The venue's record of the bot wallet's relay submissions. */
  readonly submissions: readonly RelaySubmission[];
  /** Terminal outcomes of the venue's relayed transactions, by hash. */
  readonly outcomes: ReadonlyMap<Hex, OutcomeStatus>;
  /** Clock times of the faults injected (bot restarts included). */
  readonly faultTimes: readonly number[];
  /** Highest number of outcomes pending on one relay connection of the bot. */
  readonly maxPendingOutcomes: number;
  /** The relay's limit. */
  readonly cap: number;
  /** Relay WebSocket connections the bot opened beyond the first of each process. */
  readonly reconnects: number;
  /** Bot processes started after the first. */
  readonly restarts: number;
  /** 429 answers the venue gave the bot that no fault injected (the bot went over a limit). */
  readonly rateLimitViolations: number;
  /** The account's open orders on the venue after the last stop. */
  readonly openOrdersAfterStop: number;
  /** Markets where the bot's final position differs from the venue's. */
  readonly positionMismatches: number;
}

const TERMINAL = new Set<string>(OUTCOME_STATUSES);
/** The relay methods that place orders. */
export const PLACING = new Set<string>([RelayMethod.executeBatch, RelayMethod.executeReplaceBySlotPacked]);

/** The `q` quantile (0..1) of sorted values, nearest rank; null for none. */
export function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/**
 * @example chaosFigures(observations).lost // 0 when every signed request is accounted for
 */
export function chaosFigures(seen: ChaosObservations): ChaosFigures {
  const signed = new Map<string, { nonce: string; retryOf: string | undefined }>();
  const settledUnsent = new Set<string>();
  for (const record of seen.journal) {
    if (record.kind === 'planned' || record.kind === 'signed') signed.set(record.requestId, { nonce: record.nonce, retryOf: record.retryOf });
    else if (record.kind === 'resolved' && (record.status === 'NOT_SENT' || record.status === 'REJECTED')) settledUnsent.add(record.requestId);
  }
  const byClientOrderId = new Map<string, RelaySubmission[]>();
  for (const submission of seen.submissions) {
    if (submission.clientOrderId === undefined) continue;
    const key = submission.clientOrderId.toLowerCase();
    const list = byClientOrderId.get(key);
    if (list === undefined) byClientOrderId.set(key, [submission]);
    else list.push(submission);
  }

  /** The venue's fate of a request: CONFIRMED and the others, REJECTED, or undefined (never seen, or no outcome). */
  const fateOf = (requestId: string): string | undefined => {
    const answers = byClientOrderId.get(clientOrderIdOf(requestId)) ?? [];
    let fate: string | undefined;
    for (const { result } of answers) {
      if (result.status === 'BROADCAST') {
        const outcome = seen.outcomes.get(result.txHash);
        if (outcome !== undefined && TERMINAL.has(outcome)) return outcome;
      } else if (result.status === 'REJECTED') {
        fate ??= 'REJECTED';
      } else if (result.candidateTxHash !== null) {
        const outcome = seen.outcomes.get(result.candidateTxHash);
        if (outcome !== undefined) return outcome;
      }
    }
    return fate;
  };

  let lost = 0;
  const confirmedPerIntent = new Map<string, number>();
  for (const [requestId, { retryOf }] of signed) {
    const fate = fateOf(requestId);
    if (fate === undefined && !settledUnsent.has(requestId)) lost++;
    if (fate === 'CONFIRMED') {
      const intent = retryOf ?? requestId;
      confirmedPerIntent.set(intent, (confirmedPerIntent.get(intent) ?? 0) + 1);
    }
  }
  let duplicates = 0;
  for (const count of confirmedPerIntent.values()) duplicates += Math.max(0, count - 1);

  const requestsByNonce = new Map<string, Set<string>>();
  const addNonce = (nonce: string, who: string) => {
    const set = requestsByNonce.get(nonce);
    if (set === undefined) requestsByNonce.set(nonce, new Set([who]));
    else set.add(who);
  };
  for (const [requestId, { nonce }] of signed) addNonce(nonce, clientOrderIdOf(requestId));
  for (const submission of seen.submissions) {
    if (submission.nonce !== undefined && submission.clientOrderId !== undefined) addNonce(submission.nonce.toString(), submission.clientOrderId.toLowerCase());
  }
  let nonceReuses = 0;
  for (const set of requestsByNonce.values()) if (set.size > 1) nonceReuses += set.size - 1;

  const placements = seen.submissions
    .filter((submission) => submission.result.status === 'BROADCAST' && PLACING.has(submission.method))
    .map((submission) => submission.atMs)
    .sort((a, b) => a - b);
  const recoveries: number[] = [];
  for (const at of seen.faultTimes) {
    const next = placements.find((time) => time > at);
    if (next !== undefined) recoveries.push(next - at);
  }
  recoveries.sort((a, b) => a - b);

  return {
    intents_signed: signed.size,
    intents_with_terminal_state: signed.size - lost,
    lost,
    duplicate_placements: duplicates,
    nonce_reuses: nonceReuses,
    max_pending_outcomes: seen.maxPendingOutcomes,
    cap: seen.cap,
    reconnects: seen.reconnects,
    restarts: seen.restarts,
    rate_limit_violations: seen.rateLimitViolations,
    orders_left_open_after_stop: seen.openOrdersAfterStop,
    position_mismatch: seen.positionMismatches,
    recovery_ms_p50: quantile(recoveries, 0.5),
    recovery_ms_p99: quantile(recoveries, 0.99),
  };
}

/** Whether the run passes: nothing lost, duplicated, reused, over a limit, left open or mismatched, and the pending outcomes under the cap. */
export function chaosPassed(figures: ChaosFigures): boolean {
  return (
    figures.lost === 0 &&
    figures.duplicate_placements === 0 &&
    figures.nonce_reuses === 0 &&
    figures.rate_limit_violations === 0 &&
    figures.orders_left_open_after_stop === 0 &&
    figures.position_mismatch === 0 &&
    figures.max_pending_outcomes < figures.cap
  );
}
