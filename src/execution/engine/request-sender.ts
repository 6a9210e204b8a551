/**
 * The send path (docs/execution.md "The pipeline", "The journal"): a ticket the pump took becomes a
 * signed request handed to the transport, or waits, or gets its fate. Risk is checked again, the
 * plan made from the portfolio's slots (a ticket waits while an order id is unknown, or while its
 * market's view is stale), the nonce taken, the `planned` record fsynced while the EIP-712
 * signature is computed; then the request joins the book, which hands it to the transport, and the
 * `signed` record (the exact wire body) is written.
 *
 * This is every intent's latency (`npm run bench execution`): no allocation, closure or await here
 * that the path does not need.
 */
import { BaseError, isBaseError } from '../../core/base-error.ts';
import type { Clock } from '../../core/clock.ts';
import type { IdSource } from '../../core/ids.ts';
import type { Logger } from '../../core/logger.ts';
import { encodeRelayRestRequest, type RelayRestRequest } from '../../protocol/relay-request.ts';
import type { EngineTuning } from '../execution-engine.ts';
import type { InFlightTracker } from '../in-flight-tracker.ts';
import { planIntent, planMarket } from '../intent-plan.ts';
import type { PlanSigner } from '../intent-signer.ts';
import { summarizeIntent } from '../journal-record.ts';
import type { KillSwitch } from '../kill-switch.ts';
import type { NonceSource } from '../nonce-source.ts';
import type { Portfolio } from '../portfolio.ts';
import type { RiskCheck } from '../risk/risk-check.ts';
import type { CancelSweep } from './cancel-sweep.ts';
import type { EngineCounts } from './engine-counts.ts';
import type { EngineJournal } from './engine-journal.ts';
import { expectedOf, type EngineRequest, type RequestBook } from './request-book.ts';
import { signedRequest } from './request-machine.ts';
import { refused, type Ticket, type TicketScheduler } from './ticket-scheduler.ts';
import type { UserDataPoller } from './user-data-poller.ts';

/** What the send path needs of the rest of the engine. */
export interface RequestSenderContext {
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly logger: Logger;
  readonly tuning: Pick<EngineTuning, 'idWaitMs' | 'pollMs'>;
  /** Seconds a signed intent stays valid. */
  readonly deadlineSec: number;
  readonly risk: RiskCheck;
  readonly portfolio: Portfolio;
  readonly poller: Pick<UserDataPoller, 'staleHold' | 'request'>;
  readonly signer: PlanSigner;
  readonly killSwitch: Pick<KillSwitch, 'recordSubmission'>;
  readonly tracker: Pick<InFlightTracker, 'available'>;
  readonly counts: EngineCounts;
  readonly tickets: Pick<TicketScheduler, 'settle' | 'park' | 'putFirst'>;
  readonly sweep: Pick<CancelSweep, 'has'>;
  readonly book: Pick<RequestBook, 'add' | 'dispatch'>;
  readonly journal: Pick<EngineJournal, 'write' | 'append' | 'sync' | 'broken'>;
  /** Why a ticket's placement may no longer be signed (undefined: it may). */
  readonly placementRefusal: (ticket: Ticket) => BaseError | undefined;
  /** Runs the pump at a clock time. */
  readonly wakeAtTime: (at: number) => void;
}

export class RequestSender {
  readonly #ctx: RequestSenderContext;
  /** Made at start from the journal's nonce floor. */
  #nonces: NonceSource | undefined;
  #nonceReadyAt = Number.NEGATIVE_INFINITY;

  constructor(context: RequestSenderContext) {
    this.#ctx = context;
  }

  /** No nonce can be handed out before this clock time (NONCE_SKEW_EXCEEDED). */
  get nonceReadyAt(): number {
    return this.#nonceReadyAt;
  }

  useNonces(nonces: NonceSource): void {
    this.#nonces = nonces;
  }

  /** Takes a ticket the pump chose: signed and handed to the transport, or parked, held, put first again, or settled. */
  async send(ticket: Ticket): Promise<void> {
    if (ticket.settled) return;
    const { intent } = ticket;
    const { clock, tuning, portfolio, poller, tickets, journal } = this.#ctx;
    const stopRefusal = this.#ctx.placementRefusal(ticket);
    if (stopRefusal !== undefined) {
      tickets.settle(ticket, refused(stopRefusal));
      return;
    }
    const verdict = this.#ctx.risk.check(intent);
    if (!verdict.ok) {
      tickets.settle(ticket, refused(verdict.error));
      return;
    }
    const now = clock.now();
    const waitedOut = intent.type === 'CancelAll' && ticket.parkedSince !== undefined && now - ticket.parkedSince >= tuning.idWaitMs;
    // A sweep (kill switch, stop) cancels the slots whose ids it knows at once; the next sweep takes
    // the rest once their ids arrive (order events come seconds after a block).
    const partial = waitedOut || this.#ctx.sweep.has(ticket);
    let planned = planIntent(intent, (market) => portfolio.slotOrderIds(market), { partial });
    // A CancelAll while requests of its market are in flight waits for their outcomes (up to the id
    // wait): a replacement landing first would change a slot it expects, and revert it whole.
    if (planned.status === 'ready' && intent.type === 'CancelAll' && !waitedOut && intent.market !== undefined && portfolio.state(intent.market).pendingRequests > 0) {
      planned = { status: 'wait', slots: [] };
    }
    switch (planned.status) {
      case 'unsupported':
        tickets.settle(ticket, refused(new BaseError('INTENT_NOT_SUPPORTED_LIVE', `${intent.type} is not supported live`)));
        return;
      case 'empty':
        tickets.settle(ticket, { status: 'NOTHING_TO_DO', reason: 'no order rests in a known slot of the market' });
        return;
      case 'wait':
        ticket.parkedSince ??= now;
        // An earlier stale-view hold no longer applies (its end, now past, would make it due at once).
        // A CancelAll past its id wait that knows no slot yet waits for a change or the next poll,
        // not for nothing (it would be taken again at once, forever, without the clock moving).
        ticket.heldUntil = partial ? now + tuning.pollMs : undefined;
        tickets.park(ticket);
        if (intent.type === 'CancelAll') {
          this.#ctx.wakeAtTime(ticket.heldUntil ?? ticket.parkedSince + tuning.idWaitMs);
          // A cancel of everything is urgent (the kill switch, a stop): learn the ids now, not at the next poll.
          poller.request(0);
        }
        this.#ctx.logger.debug({ slots: planned.slots, purpose: intent.purpose }, 'intent waits for the order ids of its slots');
        return;
      case 'ready':
        break;
    }
    // A cancel (risk-reducing: the kill switch's, a stop's, a strategy's) never waits for a fresher
    // view: a revert on a stale slot costs it a block, a hold seconds of an order left resting.
    const heldUntil = ticket.riskReducing ? undefined : poller.staleHold(planned.plan, now);
    ticket.heldUntil = heldUntil;
    if (heldUntil !== undefined) {
      tickets.park(ticket);
      this.#ctx.wakeAtTime(heldUntil);
      this.#ctx.logger.debug({ purpose: intent.purpose }, 'intent waits for a fresh view of its slots');
      return;
    }
    const nonces = this.#nonces!;
    let nonce: bigint;
    try {
      nonce = nonces.next();
    } catch (error) {
      if (!isBaseError(error, 'NONCE_SKEW_EXCEEDED')) throw error;
      // Nothing is signed until the clock catches up with the nonce floor (a clock set back since the journal was written).
      this.#nonceReadyAt = nonces.readyAt();
      this.#ctx.logger.warn({ err: error, readyAt: this.#nonceReadyAt }, 'nonce too far ahead of the clock: waiting');
      tickets.putFirst(ticket);
      this.#ctx.wakeAtTime(this.#nonceReadyAt);
      return;
    }
    const requestId = this.#ctx.ids.next();
    const deadlineSec = Math.floor(now / 1000) + this.#ctx.deadlineSec;
    const prepared = this.#ctx.signer.prepare(planned.plan, { requestId, nonce, deadlineSec: BigInt(deadlineSec) });
    const retryOf = ticket.firstRequestId;
    const stamp = { requestId, nonce: nonce.toString(), method: prepared.unsigned.method, intent: summarizeIntent(intent), ...(retryOf === undefined ? {} : { retryOf }) };
    const notSent = () => tickets.settle(ticket, refused(new BaseError('JOURNAL_UNAVAILABLE', 'the journal failed: the request was not sent')));
    if (!journal.write({ kind: 'planned', ...stamp, unsigned: encodeRelayRestRequest(prepared.unsigned) })) return notSent();
    ticket.firstRequestId ??= requestId;
    // The disk flushes the plan while the signature is computed: the request leaves once both are done.
    const durable = journal.sync();
    let request: RelayRestRequest;
    try {
      request = await prepared.sign();
    } catch (error) {
      this.#ctx.logger.error({ err: error, purpose: intent.purpose }, 'signing failed');
      this.#abandon(requestId, 'the signer failed');
      tickets.settle(ticket, refused(isBaseError(error) ? error : new BaseError('PROTOCOL_SIGNATURE_INVALID', 'the signer failed', { cause: error })));
      return;
    }
    if (!(await durable)) return notSent();
    // The world may have moved while the signer and the disk worked.
    const lateRefusal = this.#ctx.placementRefusal(ticket);
    if (lateRefusal !== undefined) {
      this.#abandon(requestId, lateRefusal.message);
      tickets.settle(ticket, refused(lateRefusal));
      return;
    }
    if (journal.broken !== undefined || this.#ctx.tracker.available() <= 0) {
      this.#abandon(requestId, 'no place under the in-flight cap when it was ready: signed again later');
      tickets.putFirst(ticket);
      return;
    }
    const req: EngineRequest = {
      requestId,
      ticket,
      nonce,
      deadlineMs: deadlineSec * 1000,
      signedAt: clock.now(),
      request,
      plan: planned.plan,
      hasBody: true,
      ordered: planMarket(planned.plan) !== undefined,
      state: signedRequest(),
    };
    this.#ctx.book.add(req);
    this.#ctx.counts.signed += 1;
    ticket.attempts += 1;
    ticket.parkedSince = undefined;
    this.#ctx.risk.record(intent);
    this.#ctx.book.dispatch(req, { type: 'send' });
    // After the hand-over (nothing can come back before this turn ends, so it still precedes the
    // answer's records): the wire body for the record; the planned record lets a restart reconcile
    // the request without it. State is off the wire path too.
    journal.write({ kind: 'signed', ...stamp, body: encodeRelayRestRequest(request) });
    portfolio.markPending(requestId, planned.intent, expectedOf(planned.plan));
    this.#ctx.killSwitch.recordSubmission();
  }

  /** A request journaled but not sent after all: resolved as never sent (its nonce is not used again). */
  #abandon(requestId: string, reason: string): void {
    this.#ctx.journal.append({ kind: 'resolved', requestId, how: 'never-sent', status: 'NOT_SENT', reason: reason.slice(0, 1024) });
  }
}
