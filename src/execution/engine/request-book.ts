/**
 * The engine's signed requests (docs/execution.md "A request's states", "Answers and retries",
 * "Connections"): each from its `planned` record to its `resolved` record. What happens to them
 * (the transport's answers, outcome messages, late responses, connections opening and closing,
 * reconciliation verdicts) becomes events of the pure machine of engine/request-machine.ts, and
 * this book carries out the effects it gives, in order. It keeps what only the requests decide: the
 * places under the in-flight cap kept while an outcome may still come (lingering), the NOT_SENT
 * requests waiting to go again, and the order its CONFIRMED outcomes reach the portfolio in
 * (engine/confirmation-order.ts).
 */
import type { Subscription } from 'rxjs';
import type { BaseError } from '../../core/base-error.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { Address } from '../../protocol/encoding.ts';
import type { RelayRestRequest } from '../../protocol/relay-request.ts';
import type { CarriedOverStats, EngineTuning, IntentFate } from '../execution-engine.ts';
import type { InFlightTracker } from '../in-flight-tracker.ts';
import { planMarket, type RequestPlan } from '../intent-plan.ts';
import type { KillSwitch } from '../kill-switch.ts';
import type { Portfolio } from '../portfolio.ts';
import type { LateResponse, RelayTransport, SubmitAnswer, TransportConnectionEvent, TransportOutcome } from '../relay-transport.ts';
import { ConfirmationOrder } from './confirmation-order.ts';
import type { EngineCounts } from './engine-counts.ts';
import type { EngineJournal } from './engine-journal.ts';
import type { Reconciliation } from './reconciliation.ts';
import { gates, transition, type Gating, type RequestEffect, type RequestEvent, type RequestFacts, type RequestState } from './request-machine.ts';
import type { Ticket, TicketScheduler } from './ticket-scheduler.ts';
import type { UserDataPoller } from './user-data-poller.ts';

/**
 * One signed request, from its `signed` record to its `resolved` record: what never changes about
 * it, and its state, which only `transition` (engine/request-machine.ts) changes.
 */
export interface EngineRequest extends RequestFacts {
  readonly ticket: Ticket | undefined;
  readonly signedAt: number;
  /** The signed request (undefined when a restored body cannot be read). */
  readonly request: RelayRestRequest | undefined;
  readonly plan: RequestPlan | undefined;
  state: RequestState;
}

/** The order ids the portfolio expects a plan's placement to find in its slots. */
export function expectedOf(plan: RequestPlan): { readonly expectedOrderIds?: readonly bigint[] } {
  return plan.kind === 'cancel-trigger' ? {} : { expectedOrderIds: plan.expectedOrderIds };
}

/** What the requests need of the rest of the engine. */
export interface RequestBookContext {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly tuning: Pick<EngineTuning, 'resendDelayMs' | 'outcomeGiveUpMs' | 'pollMs' | 'maxAttempts'>;
  readonly counts: EngineCounts;
  readonly tracker: InFlightTracker;
  readonly transport: Pick<RelayTransport, 'submit'>;
  readonly portfolio: Pick<Portfolio, 'applyOutcome'>;
  readonly reconciliation: Reconciliation<EngineRequest>;
  readonly poller: Pick<UserDataPoller, 'request' | 'onStaleView' | 'readActiveOrdersNext'>;
  readonly killSwitch: Pick<KillSwitch, 'recordFailure'>;
  readonly tickets: Pick<TicketScheduler, 'settle' | 'retryLater'>;
  readonly journal: Pick<EngineJournal, 'append'>;
  /** Running or stopping (not stopped): a resend or a retry may still go. */
  readonly live: () => boolean;
  /** Why a ticket's placement may no longer be signed (undefined: it may). */
  readonly placementRefusal: (ticket: Ticket) => BaseError | undefined;
  /** Runs the pump at a clock time. */
  readonly wakeAtTime: (at: number) => void;
  readonly kick: () => void;
  readonly wake: () => void;
  readonly publish: () => void;
}

export class RequestBook {
  readonly #ctx: RequestBookContext;
  readonly #requests = new Map<string, EngineRequest>();
  /** NOT_SENT requests to send again, in nonce order. */
  readonly #resends: { readonly request: EngineRequest; readonly at: number }[] = [];
  /** The highest nonce handed to the transport. */
  #lastHandedNonce = 0n;
  #connectionId: number | undefined;
  #seenOpen = false;
  /** Settled requests whose outcome message may still come: they keep their place under the cap. */
  readonly #lingering = new Map<string, Subscription>();
  /** Of the counts, the requests an earlier run signed (restored from the journal, no ticket) that this one settled. */
  #carried: CarriedOverStats = Object.freeze({ confirmed: 0, reverted: 0, dropped: 0, reconciled: 0 });

  /** The CONFIRMED outcomes not yet given to the portfolio (the restore holds them until every request is known). */
  readonly confirmations: ConfirmationOrder;

  constructor(context: RequestBookContext) {
    this.#ctx = context;
    this.confirmations = new ConfirmationOrder(context.portfolio, () => this.#requests.values());
  }

  /** Requests without a final status. */
  get size(): number {
    return this.#requests.size;
  }

  get carried(): CarriedOverStats {
    return this.#carried;
  }

  /** When the first request waiting to be sent again may go (they go in nonce order, before anything new). */
  get nextResendAt(): number | undefined {
    return this.#resends[0]?.at;
  }

  values(): IterableIterator<EngineRequest> {
    return this.#requests.values();
  }

  /** A request just signed, or restored from the journal. */
  add(req: EngineRequest): void {
    this.#requests.set(req.requestId, req);
  }

  /** The nonces an earlier run handed out reach up to `nonce`. */
  startAfter(nonce: bigint): void {
    this.#lastHandedNonce = nonce;
  }

  /** True while a request holds back what `kind` says (engine/request-machine.ts `gates`). */
  gated(kind: Gating): boolean {
    for (const req of this.#requests.values()) if (gates(req.state, kind)) return true;
    return false;
  }

  /** Sends the first request waiting to be sent again, unless its placement may no longer go. */
  resendFirst(): void {
    const req = this.#resends.shift()!.request;
    const refusal = req.ticket === undefined ? undefined : this.#ctx.placementRefusal(req.ticket);
    this.dispatch(req, refusal === undefined ? { type: 'send' } : { type: 'resend-refused', error: refusal });
  }

  /** Moves a request by one event (engine/request-machine.ts) and carries out the effects, in order. */
  dispatch(req: EngineRequest, event: RequestEvent): void {
    const { state, effects } = transition(req.state, event, req, {
      now: this.#ctx.clock.now(),
      running: this.#ctx.live(),
      lastHandedNonce: this.#lastHandedNonce,
      connectionId: this.#connectionId,
      holdsPlace: this.#ctx.tracker.has(req.requestId),
      resendDelayMs: this.#ctx.tuning.resendDelayMs,
    });
    req.state = state;
    for (const effect of effects) this.#effect(req, effect);
    this.#ctx.publish();
  }

  onOutcome(outcome: TransportOutcome): void {
    const req = this.#requests.get(outcome.requestId);
    if (req === undefined) {
      this.#stopLingering(outcome.requestId);
      this.#ctx.logger.debug({ requestId: outcome.requestId, status: outcome.status }, 'an outcome of no unresolved request');
      return;
    }
    this.dispatch(req, { type: 'outcome', outcome });
  }

  /** A response after its TIMEOUT answer: as if it had come in time. */
  onLateResponse(response: LateResponse): void {
    const req = this.#requests.get(response.requestId);
    if (req !== undefined) this.dispatch(req, { type: 'late-response', response });
  }

  onConnection(event: TransportConnectionEvent): void {
    const { logger, tracker, reconciliation, poller } = this.#ctx;
    switch (event.type) {
      case 'closed': {
        const { state } = event;
        if (state.kind === 'pending-outcome-limit') {
          logger.warn({ awaiting: state.awaitingOutcome.length }, 'relay closed the socket at its pending-outcome limit (4008): some submissions may be out; reconciling them');
        }
        for (const id of state.awaitingOutcome) {
          this.#stopLingering(id);
          const req = this.#requests.get(id);
          if (req !== undefined) this.dispatch(req, { type: 'connection-closed' });
        }
        break;
      }
      case 'open': {
        if (this.#seenOpen) this.#ctx.counts.reconnects += 1;
        this.#seenOpen = true;
        this.#connectionId = event.connectionId;
        this.forgetLingering();
        const ids = new Set([...tracker.reset(), ...(event.previous?.awaitingOutcome ?? [])]);
        for (const id of ids) {
          const req = this.#requests.get(id);
          if (req !== undefined) this.dispatch(req, { type: 'connection-opened' });
        }
        logger.info({ connectionId: event.connectionId, reconciling: reconciliation.size }, 'relay connection open');
        // After a drop the venue may have lost orders (a restart): its active orders are read at once.
        if (event.previous !== undefined) {
          poller.readActiveOrdersNext();
          poller.request(0);
        }
        this.#ctx.kick();
        break;
      }
      case 'route':
        logger.info({ via: event.via }, 'relay route');
        break;
    }
    this.#ctx.publish();
  }

  /** The engine stopped: nothing is sent again, and every request is left to the journal. Returns how many stay unresolved. */
  leaveToJournal(): number {
    // Those waiting to be sent again never left this process; the others stay unresolved in the journal.
    this.#resends.length = 0;
    for (const req of [...this.#requests.values()]) this.dispatch(req, { type: 'engine-stopped' });
    return this.#requests.size;
  }

  /** No lingering request keeps its place any more (a new connection, or the stop); the places themselves are the tracker's to reset. */
  forgetLingering(): void {
    for (const timer of this.#lingering.values()) timer.unsubscribe();
    this.#lingering.clear();
  }

  #effect(req: EngineRequest, effect: RequestEffect): void {
    const { requestId } = req;
    const { clock, tracker, portfolio, reconciliation, poller } = this.#ctx;
    switch (effect.type) {
      case 'journal':
        this.#ctx.journal.append(effect.record);
        break;
      case 'submit':
        this.#submit(req);
        break;
      case 'release-place':
        tracker.release(requestId);
        break;
      case 'linger':
        this.#linger(requestId);
        break;
      case 'learn-hash':
        reconciliation.evidence.claim(effect.txHash, clock.now());
        if (effect.portfolio) portfolio.applyOutcome(requestId, 'BROADCAST', { txHash: effect.txHash });
        break;
      case 'portfolio':
        portfolio.applyOutcome(requestId, effect.status, effect.txHash === undefined ? {} : { txHash: effect.txHash });
        break;
      case 'queue-confirmation':
        this.confirmations.queue({ requestId, market: planMarket(req.plan!)!.toLowerCase() as Address, nonce: req.nonce, txHash: effect.txHash });
        break;
      case 'confirmed':
        reconciliation.confirmed(req.nonce, effect.txHash);
        if (req.plan !== undefined && req.plan.kind !== 'cancel-trigger') poller.request(this.#ctx.tuning.pollMs);
        break;
      case 'reconcile':
        reconciliation.add(req);
        break;
      case 'read-now':
        poller.request(0);
        break;
      case 'stale-view':
        poller.onStaleView(requestId, req.plan);
        break;
      case 'failure':
        this.#ctx.killSwitch.recordFailure();
        break;
      case 'resend-at':
        this.#resends.push({ request: req, at: effect.at });
        this.#resends.sort((a, b) => (a.request.nonce < b.request.nonce ? -1 : 1));
        this.#ctx.wakeAtTime(effect.at);
        break;
      case 'count': {
        const { counter } = effect;
        this.#ctx.counts[counter] += 1;
        // A request restored from the journal (no ticket) was signed by an earlier run: counted apart too.
        if (req.ticket === undefined && counter !== 'staleSlotReverts' && counter !== 'rejected') this.#carried = Object.freeze({ ...this.#carried, [counter]: this.#carried[counter] + 1 });
        break;
      }
      case 'resolved': {
        const { type: _type, ...resolution } = effect;
        reconciliation.delete(req);
        this.#requests.delete(requestId);
        this.#ctx.journal.append({ kind: 'resolved', requestId, ...resolution });
        this.confirmations.flush();
        this.#ctx.wake();
        break;
      }
      case 'fate':
        this.#onFate(req, effect.fate, effect.retryAfterMs);
        break;
      case 'log':
        this.#ctx.logger[effect.level]({ requestId, ...effect.fields }, effect.message);
        break;
      case 'kick':
        this.#ctx.kick();
        break;
      case 'impossible':
        this.#ctx.logger.error({ requestId, phase: effect.phase, event: effect.event }, 'a request event impossible in its phase (a bug): ignored');
        break;
    }
  }

  /** Hands the signed body to the transport; its answer comes back as an event. */
  #submit(req: EngineRequest): void {
    this.#ctx.tracker.tryAcquire(req.requestId);
    if (req.nonce > this.#lastHandedNonce) this.#lastHandedNonce = req.nonce;
    let answer: Promise<SubmitAnswer>;
    try {
      answer = this.#ctx.transport.submit(req.request!);
    } catch (error) {
      answer = Promise.reject(error);
    }
    answer.then(
      (value) => this.dispatch(req, { type: 'answer', answer: value }),
      (error: unknown) => this.dispatch(req, { type: 'send-threw', error }),
    );
  }

  /** An attempt's fate: the intent's, unless it may be signed again (new nonce) and still may go. */
  #onFate(req: EngineRequest, fate: IntentFate, retryAfterMs: number | undefined): void {
    const ticket = req.ticket;
    if (ticket === undefined || ticket.settled) return;
    const code = 'code' in fate ? fate.code : undefined;
    if (retryAfterMs !== undefined && ticket.attempts < this.#ctx.tuning.maxAttempts && this.#ctx.placementRefusal(ticket) === undefined) {
      this.#ctx.logger.info({ requestId: req.requestId, code, retryInMs: retryAfterMs, attempt: ticket.attempts }, 'not executed: signing the intent again with a new nonce');
      this.#ctx.tickets.retryLater(ticket, retryAfterMs);
      return;
    }
    if (fate.status === 'REJECTED' && code !== 'ENGINE_STOPPED') this.#ctx.logger.warn({ requestId: req.requestId, code, message: fate.message }, 'request rejected');
    this.#ctx.tickets.settle(ticket, fate);
  }

  /**
   * Keeps the place under the cap of a request settled without its outcome message (by receipt or
   * order events) while its connection may still deliver that outcome: the relay counts it as
   * pending until it does. Released by the outcome, a new connection, or `outcomeGiveUpMs`.
   */
  #linger(requestId: string): void {
    const timer = this.#ctx.clock.scheduler.schedule(() => {
      this.#lingering.delete(requestId);
      this.#ctx.tracker.release(requestId);
      this.#ctx.publish();
      this.#ctx.kick();
    }, this.#ctx.tuning.outcomeGiveUpMs);
    this.#lingering.set(requestId, timer);
  }

  #stopLingering(requestId: string): void {
    const timer = this.#lingering.get(requestId);
    if (timer === undefined) return;
    timer.unsubscribe();
    this.#lingering.delete(requestId);
    this.#ctx.tracker.release(requestId);
    this.#ctx.kick();
  }
}
