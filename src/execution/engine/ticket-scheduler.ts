/**
 * The engine's tickets and the order they go in (docs/execution.md "The pipeline", "Expected order
 * ids", "Gates"). A ticket is one intent given to the engine, from submit to its fate; until it is
 * signed it waits in one place: the intent queue (engine.queuePolicy, risk-reducing first), the
 * front (ready to go again: a retry, or one that found no nonce or place when it was ready), the
 * parked list (waiting for order ids, or held for a fresh view of its slots) or the delayed set (a
 * retry's delay). The pump takes the next that may go (`next`); `settle` gives an intent its fate
 * once, and a CancelAll of every market one fate for all its markets.
 */
import type { Subscription } from 'rxjs';
import { BaseError } from '../../core/base-error.ts';
import type { Clock } from '../../core/clock.ts';
import type { QueuePolicy } from '../../config/run-config.ts';
import type { Address } from '../../protocol/encoding.ts';
import { isRiskReducing, type Intent } from '../../strategy/intents.ts';
import type { EngineTuning, IntentFate, IntentReport } from '../execution-engine.ts';
import { IntentQueue } from '../intent-queue.ts';
import type { EngineCounts } from './engine-counts.ts';

/** A CancelAll of every market: one ticket per market, one fate for all. */
interface Aggregate {
  readonly intent: Intent;
  readonly resolve: (fate: IntentFate) => void;
  remaining: number;
  readonly fates: IntentFate[];
}

/** One intent given to the engine, from submit to its fate. */
export interface Ticket {
  readonly seq: number;
  readonly intent: Intent;
  readonly riskReducing: boolean;
  readonly resolve: (fate: IntentFate) => void;
  readonly parent: Aggregate | undefined;
  /** Signed requests made for it so far. */
  attempts: number;
  /** The request id of its first signed attempt (later ones name it in the journal: `retryOf`). */
  firstRequestId: string | undefined;
  /** When it started waiting for order ids, and the portfolio version it waited on. */
  parkedSince: number | undefined;
  parkedVersion: number;
  /**
   * Parked, not taken again before this clock time unless the portfolio changes: held back by a stale
   * view of its market's slots, or a CancelAll past its id wait that knows no slot yet.
   */
  heldUntil: number | undefined;
  settled: boolean;
}

export function refused(error: BaseError): IntentFate {
  return { status: 'REFUSED', code: error.code, message: error.message };
}

/** What the tickets need of the rest of the engine. */
export interface TicketSchedulerContext {
  readonly clock: Pick<Clock, 'scheduler'>;
  readonly tuning: Pick<EngineTuning, 'idWaitMs'>;
  readonly queuePolicy: QueuePolicy;
  readonly counts: EngineCounts;
  /** An intent's fate, for `reports$` (its promise is resolved just before). */
  readonly report: (report: IntentReport) => void;
  /** After a ticket settled, before the stats are published. */
  readonly settled: (ticket: Ticket) => void;
  readonly publish: () => void;
  readonly wake: () => void;
  readonly kick: () => void;
}

export class TicketScheduler {
  readonly #ctx: TicketSchedulerContext;
  readonly #queue: IntentQueue<Ticket>;
  /** Tickets ready to go again (retries), before the queue. */
  readonly #front: Ticket[] = [];
  /** Tickets waiting for order ids, or held for a fresh view. */
  readonly #parked: Ticket[] = [];
  /** Tickets waiting for a retry delay. */
  readonly #delayed = new Map<Ticket, Subscription>();
  #seq = 0;
  /** Moves on every change of the portfolio: a parked ticket is planned again after one. */
  #version = 0;

  constructor(context: TicketSchedulerContext) {
    this.#ctx = context;
    this.#queue = new IntentQueue<Ticket>({ policy: context.queuePolicy });
  }

  /** Tickets waiting to be signed: queued, at the front, parked or delayed. */
  get waiting(): number {
    return this.#queue.size + this.#front.length + this.#parked.length + this.#delayed.size;
  }

  /** Tickets the pump may take at a portfolio change or a poll (queued or parked). */
  get pending(): boolean {
    return this.#parked.length > 0 || this.#queue.size > 0;
  }

  /** The portfolio changed: parked tickets may be planned again. */
  portfolioChanged(): void {
    this.#version += 1;
    if (this.#parked.length > 0) this.#ctx.kick();
  }

  ticket(intent: Intent, resolve: (fate: IntentFate) => void, parent: Aggregate | undefined): Ticket {
    this.#seq += 1;
    return { seq: this.#seq, intent, riskReducing: isRiskReducing(intent), resolve, parent, attempts: 0, firstRequestId: undefined, parkedSince: undefined, parkedVersion: 0, heldUntil: undefined, settled: false };
  }

  /**
   * A CancelAll of every market: one CancelAll per market, one fate for all (`aggregateFate`); the
   * ticket itself is done. False when the engine trades no market: the fate is given at once.
   */
  cancelEveryMarket(ticket: Ticket, markets: readonly Address[]): boolean {
    ticket.settled = true;
    const { intent, resolve } = ticket;
    const aggregate: Aggregate = { intent, resolve, remaining: markets.length, fates: [] };
    if (markets.length === 0) {
      this.#ctx.counts.nothingToDo += 1;
      this.#report(intent, resolve, { status: 'NOTHING_TO_DO', reason: 'the engine trades no market' });
      return false;
    }
    for (const market of markets) this.enqueue(this.ticket({ type: 'CancelAll', market, purpose: intent.purpose }, () => undefined, aggregate));
    return true;
  }

  enqueue(ticket: Ticket): void {
    const { intent } = ticket;
    // A newer placement of a market and purpose supersedes one still waiting for order ids too.
    if (this.#queue.policy === 'coalesce' && !ticket.riskReducing && 'market' in intent) {
      for (let i = this.#parked.length - 1; i >= 0; i--) {
        const parked = this.#parked[i]!;
        if (!parked.riskReducing && 'market' in parked.intent && parked.intent.market?.toLowerCase() === intent.market?.toLowerCase() && parked.intent.purpose === intent.purpose) {
          this.#parked.splice(i, 1);
          this.settle(parked, { status: 'SUPERSEDED' });
        }
      }
    }
    const result = this.#queue.push(intent, ticket);
    if (result.status === 'refused') {
      this.settle(ticket, refused(new BaseError('INTENT_QUEUE_FULL', `${this.#queue.maxQueued} intents are queued (queuePolicy reject): the placement is refused`)));
      return;
    }
    for (const dropped of result.superseded) this.settle(dropped.meta, { status: 'SUPERSEDED' });
    this.#ctx.publish();
  }

  /** The next ticket that may go now: retries first, then parked ones that are due, then the queue; cancels before placements. */
  next(now: number, placements: boolean): Ticket | undefined {
    const pick = (list: Ticket[], eligible: (ticket: Ticket) => boolean): Ticket | undefined => {
      let index = list.findIndex((ticket) => ticket.riskReducing && eligible(ticket));
      if (index < 0 && placements) index = list.findIndex(eligible);
      return index < 0 ? undefined : list.splice(index, 1)[0];
    };
    const retry = pick(this.#front, () => true);
    if (retry !== undefined) return retry;
    // Waiting for order ids: again once the portfolio changed, or (CancelAll) when the wait is over.
    // Held for a fresh view: again once the portfolio changed, or when the hold is over (a CancelAll
    // past its id wait is held too: taking it again at once would spin without time moving).
    const parked = pick(this.#parked, (ticket) => {
      if (ticket.parkedVersion !== this.#version) return true;
      if (ticket.heldUntil !== undefined) return now >= ticket.heldUntil;
      return ticket.intent.type === 'CancelAll' && now - (ticket.parkedSince ?? now) >= this.#ctx.tuning.idWaitMs;
    });
    if (parked !== undefined) return parked;
    return this.#queue.take({ placementsAllowed: placements })?.meta;
  }

  /** Waits for the portfolio to change (or its `heldUntil`, or its id wait). */
  park(ticket: Ticket): void {
    ticket.parkedVersion = this.#version;
    this.#parked.push(ticket);
  }

  /** Goes first when the pump next looks for work (it was ready, but no nonce or place was). */
  putFirst(ticket: Ticket): void {
    this.#front.unshift(ticket);
  }

  retryLater(ticket: Ticket, delayMs: number): void {
    if (delayMs <= 0) {
      this.#front.push(ticket);
      this.#ctx.kick();
      return;
    }
    const timer = this.#ctx.clock.scheduler.schedule(() => {
      this.#delayed.delete(ticket);
      if (ticket.settled) return;
      this.#front.push(ticket);
      this.#ctx.kick();
    }, delayMs);
    this.#delayed.set(ticket, timer);
  }

  settle(ticket: Ticket, fate: IntentFate): void {
    if (ticket.settled) return;
    ticket.settled = true;
    const { counts } = this.#ctx;
    switch (fate.status) {
      case 'REFUSED':
        counts.refused += 1;
        break;
      case 'SUPERSEDED':
        counts.superseded += 1;
        break;
      case 'NOTHING_TO_DO':
        counts.nothingToDo += 1;
        break;
      default:
        break;
    }
    const parent = ticket.parent;
    if (parent === undefined) {
      this.#report(ticket.intent, ticket.resolve, fate);
    } else {
      parent.fates.push(fate);
      parent.remaining -= 1;
      if (parent.remaining === 0) this.#report(parent.intent, parent.resolve, aggregateFate(parent.fates));
    }
    this.#ctx.settled(ticket);
    this.#ctx.publish();
    this.#ctx.wake();
  }

  /** Refuses every placement waiting to be signed (queued, at the front, parked or delayed). */
  dropPlacements(error: BaseError): void {
    for (const dropped of this.#queue.clearPlacements()) this.settle(dropped.meta, refused(error));
    for (const list of [this.#front, this.#parked]) {
      for (let i = list.length - 1; i >= 0; i--) {
        const ticket = list[i]!;
        if (ticket.riskReducing) continue;
        list.splice(i, 1);
        this.settle(ticket, refused(error));
      }
    }
    for (const [ticket, timer] of this.#delayed) {
      if (ticket.riskReducing) continue;
      timer.unsubscribe();
      this.#delayed.delete(ticket);
      this.settle(ticket, refused(error));
    }
  }

  /** The journal failed: every ticket is refused but a cancel waiting for its retry delay. */
  refuseUndelayed(error: BaseError): void {
    this.dropPlacements(error);
    for (const entry of this.#queue.snapshot()) this.settle(entry.meta, refused(error));
    while (this.#queue.take() !== undefined);
    for (const ticket of [...this.#front, ...this.#parked]) this.settle(ticket, refused(error));
    this.#front.length = 0;
    this.#parked.length = 0;
  }

  /** The engine stopped: every ticket still waiting is refused. */
  refuseAll(error: BaseError): void {
    for (const timer of this.#delayed.values()) timer.unsubscribe();
    const waiting = [...this.#front, ...this.#parked, ...this.#delayed.keys(), ...this.#queue.snapshot().map((entry) => entry.meta)];
    this.#front.length = 0;
    this.#parked.length = 0;
    this.#delayed.clear();
    this.#queue.clearPlacements();
    while (this.#queue.take() !== undefined);
    for (const ticket of waiting) this.settle(ticket, refused(error));
  }

  /** No more intents (`dropped$` completes). */
  close(): void {
    this.#queue.close();
  }

  #report(intent: Intent, resolve: (fate: IntentFate) => void, fate: IntentFate): void {
    resolve(fate);
    this.#ctx.report({ intent, fate });
  }
}

/** One fate for a CancelAll of every market: the first that is not success, else the last CONFIRMED. */
function aggregateFate(fates: readonly IntentFate[]): IntentFate {
  const failure = fates.find((fate) => fate.status !== 'CONFIRMED' && fate.status !== 'NOTHING_TO_DO');
  if (failure !== undefined) return failure;
  const confirmed = fates.filter((fate) => fate.status === 'CONFIRMED');
  return confirmed.at(-1) ?? { status: 'NOTHING_TO_DO', reason: 'no order rests in a known slot of any market' };
}
