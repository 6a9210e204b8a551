/**
 * The engine's reconciliation (docs/execution.md "Reconciliation"): the requests whose fate is
 * unknown, the transaction evidence the order events bring, the nonce fence and the chain witness.
 * After each user-data read a pass asks reconciler.ts about the requests reconciling and those
 * BROADCAST long ago without an outcome; then evidence no request can need any more is forgotten.
 * Settling a request stays the request book's (request-book.ts).
 */
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { Hex } from '../../protocol/encoding.ts';
import type { RequestState } from './request-machine.ts';
import type { EngineTuning } from '../execution-engine.ts';
import type { RequestPlan } from '../intent-plan.ts';
import { reconcilePass, TxEvidence, type NonceFence, type ReconcileContext, type ReconcileSubject, type Verdict } from '../reconciler.ts';

/** Order events older than this are dropped from the evidence (unless a request reconciling needs them). */
const EVIDENCE_KEEP_MS = 10 * 60_000;

export type ReconcileTuning = Pick<EngineTuning, 'outcomeWaitMs' | 'reconcileGraceMs' | 'reconcileQuietMs' | 'eventLagMs'>;

/** What reconciliation reads of a request. */
export interface ReconcilableRequest {
  readonly requestId: string;
  readonly nonce: bigint;
  readonly deadlineMs: number;
  readonly signedAt: number;
  readonly plan: RequestPlan | undefined;
  readonly state: RequestState;
}

/** A verdict that settles its request. */
export type SettlingVerdict = Exclude<Verdict, { readonly kind: 'unknown' }>;

/** What reconciliation needs of the rest of the engine. */
export interface ReconciliationContext<R extends ReconcilableRequest> {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly tuning: ReconcileTuning;
  readonly receipts: ReconcileContext['receipts'];
  /** Every unresolved request (those BROADCAST long ago are read too). */
  readonly requests: () => Iterable<R>;
  /** Settles a request by a pass's verdict. */
  readonly settle: (req: R, verdict: SettlingVerdict) => void;
  /** A pass long enough after the request began reconciling found nothing. */
  readonly quiet: (req: R) => void;
  /** After a pass that had requests to reconcile. */
  readonly passed: () => void;
}

export class Reconciliation<R extends ReconcilableRequest> {
  /** What the order events and the requests' own hashes say of transactions. */
  readonly evidence = new TxEvidence();
  readonly #ctx: ReconciliationContext<R>;
  readonly #reconciling = new Set<R>();
  #fence: NonceFence | undefined;
  /** The newest CONFIRMED transaction: when its receipt is gone, the venue's chain was reset (reconciler.ts). */
  #witness: Hex | undefined;

  constructor(context: ReconciliationContext<R>) {
    this.#ctx = context;
  }

  /** How many requests are reconciling. */
  get size(): number {
    return this.#reconciling.size;
  }

  add(req: R): void {
    this.#reconciling.add(req);
  }

  delete(req: R): void {
    this.#reconciling.delete(req);
  }

  /** A request CONFIRMED: its nonce fences the lower ones, its transaction witnesses the chain. */
  confirmed(nonce: bigint, txHash: Hex | undefined): void {
    if (this.#fence === undefined || nonce > this.#fence.nonce) this.#fence = { nonce, atMs: this.#ctx.clock.now() };
    if (txHash !== undefined) this.#witness = txHash;
  }

  /** The pass after a user-data read begun at `passStartedAt`, then the evidence pruned. */
  async pass(passStartedAt: number): Promise<void> {
    await this.#reconcile(passStartedAt);
    const keepFrom = [...this.#reconciling].reduce((from, req) => Math.min(from, req.signedAt), this.#ctx.clock.now()) - EVIDENCE_KEEP_MS;
    this.evidence.prune(keepFrom);
  }

  async #reconcile(passStartedAt: number): Promise<void> {
    const { clock, tuning } = this.#ctx;
    const overdue = passStartedAt - tuning.outcomeWaitMs;
    const subjects = [
      ...[...this.#reconciling].filter((req) => req.state.phase === 'reconciling'),
      // BROADCAST long ago and no outcome yet (withheld, or lost): read its receipt too.
      ...[...this.#ctx.requests()].filter((req) => req.state.phase === 'broadcast' && req.state.broadcastAt <= overdue),
    ];
    if (subjects.length === 0) return;
    // Lowest nonce first: of two requests that could own one transaction, the earlier one does.
    subjects.sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0));
    const verdicts = await reconcilePass(subjects.map(subjectOf), {
      receipts: this.#ctx.receipts,
      evidence: this.evidence,
      fence: this.#fence,
      passStartedAt,
      now: clock.now(),
      rules: { graceMs: tuning.reconcileGraceMs, eventLagMs: tuning.eventLagMs },
      ...(this.#witness === undefined ? {} : { witness: this.#witness }),
    }).catch((error: unknown) => {
      this.#ctx.logger.warn({ err: error }, 'reconciliation pass failed; trying again');
      return new Map<string, Verdict>();
    });
    for (const req of subjects) {
      const verdict: Verdict = verdicts.get(req.requestId) ?? { kind: 'unknown' };
      // The pass read while requests moved on: only those still in the phase it read them in are settled.
      const { state } = req;
      if (verdict.kind !== 'unknown') {
        if (state.phase === 'reconciling' || state.phase === 'broadcast') this.#ctx.settle(req, verdict);
      } else if (state.phase === 'reconciling' && !state.quiet && passStartedAt >= state.since + tuning.reconcileQuietMs) {
        this.#ctx.quiet(req);
      }
    }
    this.#ctx.passed();
  }
}

function subjectOf(req: ReconcilableRequest): ReconcileSubject {
  return { requestId: req.requestId, nonce: req.nonce, plan: req.plan, signedAt: req.signedAt, deadlineMs: req.deadlineMs, txHash: req.state.txHash, sentOnClosedConnection: req.state.gating === 'reconnect' };
}
