/**
 * The engine's start from its journal (docs/execution.md "Restart"): the journal opened, the nonce
 * floor raised past every nonce it holds, the confirmed placements since the last compaction
 * replayed into the portfolio (the slots of the orders still open), and every request it left
 * unresolved tracked again and reconciled: never sent again. Confirmations reach the portfolio in
 * nonce order once every restored request is known; the order events are read from the oldest
 * request's signing (or the ledger's horizon, if older) on.
 */
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { Address } from '../../protocol/encoding.ts';
import { parseRelayRestRequest } from '../../protocol/relay-request.ts';
import type { AccountTruth } from '../account-truth.ts';
import type { EngineTuning } from '../execution-engine.ts';
import { planMarket, type RequestPlan } from '../intent-plan.ts';
import { intentOfPlan, planOfRequest, requestStampOf } from '../intent-signer.ts';
import { journalHistory, readJournalRecords } from '../journal-history.ts';
import { liveJournalFs, type JournalFs, type UnresolvedRequest } from '../journal.ts';
import { createNonceSource, DEFAULT_MAX_FUTURE_SKEW_MS, type NonceSource } from '../nonce-source.ts';
import type { Portfolio } from '../portfolio.ts';
import type { EngineJournal } from './engine-journal.ts';
import type { Reconciliation } from './reconciliation.ts';
import { expectedOf, type EngineRequest, type RequestBook } from './request-book.ts';
import { restoredRequest } from './request-machine.ts';
import type { UserDataPoller } from './user-data-poller.ts';

/** What the restore needs of the rest of the engine. */
export interface JournalRestoreContext {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly tuning: Pick<EngineTuning, 'eventsOverlapMs'>;
  /** Seconds a signed intent stays valid (the deadline of a request whose body cannot be read). */
  readonly deadlineSec: number;
  readonly journal: Pick<EngineJournal, 'open'>;
  readonly book: Pick<RequestBook, 'add' | 'dispatch' | 'startAfter' | 'confirmations' | 'size'>;
  readonly portfolio: Pick<Portfolio, 'markets' | 'markPending' | 'applyOutcome'>;
  readonly reconciliation: Pick<Reconciliation<EngineRequest>, 'evidence' | 'add'>;
  readonly accountTruth: Pick<AccountTruth, 'restore'>;
  readonly poller: Pick<UserDataPoller, 'startFrom'>;
}

export interface JournalRestoreParameters {
  readonly journalDir: string;
  /** The network's name and the trading wallet: they name the journal file. */
  readonly network: string;
  readonly wallet: string;
  /** Default: node:fs with an fsync on the thread pool. */
  readonly journalFs?: JournalFs;
  readonly maxFutureSkewMs?: number;
}

/** Opens the journal and restores from it what an earlier run left; returns the nonce source, above every nonce it holds. */
export function restoreFromJournal(context: JournalRestoreContext, params: JournalRestoreParameters): NonceSource {
  const { clock, book, portfolio, reconciliation } = context;
  const fs = params.journalFs ?? liveJournalFs;
  const journal = context.journal.open({ clock, fs }, { dir: params.journalDir, network: params.network, wallet: params.wallet });
  const history = journalHistory(readJournalRecords(journal.path, (path) => fs.readFileSync(path)));
  const nonces = createNonceSource({ clock }, { floor: journal.restored.nonceFloor, maxFutureSkewMs: params.maxFutureSkewMs ?? DEFAULT_MAX_FUTURE_SKEW_MS });
  for (const nonce of history.nonces) nonces.raiseFloor(nonce);
  book.startAfter(nonces.last());

  // The confirmed placements since the last compaction: the slots of the orders still open. They
  // reach the portfolio in nonce order with the unresolved ones (engine/confirmation-order.ts).
  book.confirmations.hold();
  for (const confirmed of history.confirmed) {
    reconciliation.evidence.claim(confirmed.txHash, confirmed.signedAt);
    if (!tracks(portfolio, confirmed.plan)) continue;
    try {
      portfolio.markPending(confirmed.requestId, intentOfPlan(confirmed.plan, confirmed.purpose), expectedOf(confirmed.plan));
      portfolio.applyOutcome(confirmed.requestId, 'BROADCAST', { txHash: confirmed.txHash });
      const market = planMarket(confirmed.plan);
      if (market === undefined) portfolio.applyOutcome(confirmed.requestId, 'CONFIRMED', { txHash: confirmed.txHash });
      else book.confirmations.replay({ requestId: confirmed.requestId, market: market.toLowerCase() as Address, nonce: confirmed.nonce, txHash: confirmed.txHash });
    } catch (error) {
      context.logger.warn({ err: error, requestId: confirmed.requestId }, 'a confirmed request of the journal cannot be replayed');
    }
  }
  let oldest = history.oldestSignedAt;
  const settles = journal.restored.unresolved.map((unresolved) => {
    oldest = oldest === undefined ? unresolved.signedAt : Math.min(oldest, unresolved.signedAt);
    return restoreRequest(context, unresolved);
  });
  // Settled from the journal alone once every restored request is known.
  for (const settle of settles) settle?.();
  book.confirmations.release();
  const now = clock.now();
  // From the ledger's horizon too: fills made while the bot was down are counted, once.
  const ledgerFrom = context.accountTruth.restore(journal.restored.ledger);
  context.poller.startFrom(Math.min(oldest ?? now, ledgerFrom ?? now) - context.tuning.eventsOverlapMs);
  context.logger.info(
    {
      journal: journal.path,
      nonceFloor: nonces.last().toString(),
      records: journal.restored.records,
      replayed: history.confirmed.length,
      unresolved: book.size,
      truncatedBytes: journal.restored.truncatedBytes,
    },
    'journal opened',
  );
  return nonces;
}

/** Whether the portfolio tracks a plan's placement (a market this engine trades, or a trigger's cancel). */
function tracks(portfolio: Pick<Portfolio, 'markets'>, plan: RequestPlan): boolean {
  if (plan.kind === 'cancel-trigger') return true;
  return portfolio.markets().includes(plan.market.toLowerCase() as Address);
}

/**
 * A request the journal left unresolved: tracked again, and reconciled; returns how to settle it
 * when the journal alone says enough (an outcome, or a rejection), to call once all are restored.
 */
function restoreRequest(context: JournalRestoreContext, unresolved: UnresolvedRequest): (() => void) | undefined {
  const { book, portfolio, reconciliation } = context;
  // The signed body, or the `planned` record's (signed with zeros): either tells the plan and deadline.
  const text = unresolved.body ?? unresolved.unsigned;
  const parsed = text === undefined ? undefined : parseRelayRestRequest(text);
  const request = parsed?.ok === true ? parsed.value : undefined;
  const plan = request === undefined ? undefined : planOfRequest(request);
  const stamp = request === undefined ? undefined : requestStampOf(request);
  const deadlineMs = stamp === undefined ? unresolved.signedAt + context.deadlineSec * 1000 : Number(stamp.deadlineSec) * 1000;
  const req: EngineRequest = {
    requestId: unresolved.requestId,
    ticket: undefined,
    nonce: unresolved.nonce,
    deadlineMs,
    signedAt: unresolved.signedAt,
    request: unresolved.body === undefined ? undefined : request,
    plan,
    hasBody: unresolved.body !== undefined && request !== undefined,
    ordered: plan !== undefined && planMarket(plan) !== undefined,
    state: restoredRequest({ txHash: unresolved.txHash, via: unresolved.sends.at(-1), now: context.clock.now() }),
  };
  book.add(req);
  if (plan !== undefined && tracks(portfolio, plan)) {
    try {
      portfolio.markPending(req.requestId, intentOfPlan(plan, unresolved.intent?.purpose ?? 'restored'), expectedOf(plan));
      if (unresolved.txHash !== undefined) portfolio.applyOutcome(req.requestId, 'BROADCAST', { txHash: unresolved.txHash });
    } catch (error) {
      context.logger.warn({ err: error, requestId: req.requestId }, 'a restored request cannot be tracked by the portfolio');
    }
  }
  if (unresolved.txHash !== undefined) reconciliation.evidence.claim(unresolved.txHash, req.signedAt);
  reconciliation.add(req);
  const outcome = unresolved.outcome;
  if (outcome !== undefined) return () => book.dispatch(req, { type: 'journal-outcome', status: outcome.status, txHash: outcome.txHash, reason: outcome.reason ?? null });
  const response = unresolved.response;
  if (response?.status === 'REJECTED') return () => book.dispatch(req, { type: 'journal-rejection', code: response.code });
  return undefined;
}
