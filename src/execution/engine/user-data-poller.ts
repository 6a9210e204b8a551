/**
 * The engine's user-data polling and stale views (docs/execution.md "Expected order ids",
 * "Reconciliation"). Each poll reads the order events since its cursor (only new ones reach the
 * portfolio and the transaction evidence), every `activeOrdersEveryMs` the active orders of every
 * market, and those of a market whose slot view proved stale; then the engine's reconciliation pass
 * runs (engine/reconciliation.ts). Polls come every `pollMs` while the
 * engine is busy, `idlePollMs` otherwise, and at once when asked; one runs at a time.
 */
import type { Subscription } from 'rxjs';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { orderEventKey } from '../../clients/order-events.ts';
import type { Address } from '../../protocol/encoding.ts';
import type { EngineTuning, UserDataReader } from '../execution-engine.ts';
import { planCancelledIds, type RequestPlan } from '../intent-plan.ts';
import type { Portfolio } from '../portfolio.ts';
import type { TxEvidence } from '../reconciler.ts';
import { SeenKeys } from './seen-keys.ts';

export type PollTuning = Pick<
  EngineTuning,
  'pollMs' | 'idlePollMs' | 'activeOrdersEveryMs' | 'eventsOverlapMs' | 'eventsLookbackMs' | 'eventLagMs' | 'staleViewHoldMs'
>;

/** What the poller needs of the rest of the engine. */
export interface UserDataPollerContext {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly tuning: PollTuning;
  readonly userData: UserDataReader;
  readonly portfolio: Portfolio;
  readonly evidence: TxEvidence;
  /** Whether polls may run (the engine is running or stopping). */
  readonly live: () => boolean;
  /** Whether the engine has work in hand: the next poll comes after `pollMs`, not `idlePollMs`. */
  readonly busy: () => boolean;
  /** After each read (the portfolio has what it brought), given when the read began: the reconciliation pass. */
  readonly afterRead: (startedAt: number) => Promise<void>;
  /** After each poll settled, the next one scheduled. */
  readonly settled: () => void;
}

/**
 * A market whose slot view proved stale (an intent expected an order its slot no longer held):
 * its slot-bound intents wait until an active-orders read after `since` changed the view, or
 * `staleViewHoldMs` passed.
 */
interface StaleView {
  readonly since: number;
  /** The slots' order ids when it was found stale (viewKey). */
  readonly view: string;
  /** An active-orders read started after `since` was applied. */
  refreshed: boolean;
}

/** Whether a plan names slots by the orders they hold, so a stale view of them makes it revert. */
function bindsSlots(plan: RequestPlan): plan is Exclude<RequestPlan, { readonly kind: 'cancel-trigger' }> {
  return plan.kind === 'replace' || (plan.kind === 'batch' && plan.cancelSlots.length > 0);
}

export class UserDataPoller {
  readonly #ctx: UserDataPollerContext;
  readonly #seenEvents = new SeenKeys();
  #timer: Subscription | undefined;
  #due = Number.POSITIVE_INFINITY;
  #polling: Promise<void> | undefined;
  #again = false;
  #eventsCursorMs = 0;
  /** When the last poll that read the order events began (every event older than its lag was seen). */
  #lastOkAt = 0;
  /** Where the first order-events read started: no read goes back further (older events are not this run's). */
  #eventsFloorMs = 0;
  #nextActiveAt = 0;
  /** Markets whose slot view proved stale; those not yet `refreshed` get their active orders read at the next poll. */
  readonly #staleViews = new Map<Address, StaleView>();

  constructor(context: UserDataPollerContext) {
    this.#ctx = context;
  }

  /** When the last poll that read the order events began. */
  get lastOkAt(): number {
    return this.#lastOkAt;
  }

  /** The poll running now, if any (the stop waits for it). */
  get inFlight(): Promise<void> | undefined {
    return this.#polling;
  }

  /** The time before which every order event has been seen (the ledger's horizon). */
  eventsSeenBefore(): number {
    return Math.max(this.#eventsCursorMs, this.#lastOkAt - this.#ctx.tuning.eventLagMs);
  }

  /** The first read starts at `fromMs`, and none goes back further. */
  startFrom(fromMs: number): void {
    this.#eventsCursorMs = fromMs;
    this.#eventsFloorMs = fromMs;
  }

  /** The next poll reads the active orders of every market too. */
  readActiveOrdersNext(): void {
    this.#nextActiveAt = 0;
  }

  request(delayMs: number): void {
    if (!this.#ctx.live()) return;
    const due = this.#ctx.clock.now() + delayMs;
    if (this.#timer !== undefined && this.#due <= due) return;
    this.#timer?.unsubscribe();
    this.#due = due;
    this.#timer = this.#ctx.clock.scheduler.schedule(() => {
      this.#timer = undefined;
      this.#due = Number.POSITIVE_INFINITY;
      void this.poll();
    }, Math.max(0, delayMs));
  }

  /** No poll comes any more on its own. */
  stop(): void {
    this.#timer?.unsubscribe();
  }

  /** One pass: order events (and now and then active orders) into the portfolio, then reconciliation. */
  poll(): Promise<void> {
    if (this.#polling !== undefined) {
      this.#again = true;
      return this.#polling;
    }
    this.#polling = this.#pollOnce().finally(() => {
      this.#polling = undefined;
      if (this.#ctx.live()) {
        const { tuning } = this.#ctx;
        this.request(this.#again ? 0 : this.#ctx.busy() ? tuning.pollMs : tuning.idlePollMs);
      }
      this.#again = false;
      this.#ctx.settled();
    });
    return this.#polling;
  }

  /**
   * An intent of `plan`'s market expected an order that its slot no longer held: a fill or cancel
   * the order events have not brought yet (the API caches them). Not a failure: the orders it
   * expected are doubted (an active-orders read without them proves them ended), the market's
   * active orders are read at once, and its slot-bound intents wait for that fresher view.
   */
  onStaleView(requestId: string, plan: RequestPlan | undefined): void {
    if (plan === undefined || plan.kind === 'cancel-trigger') return;
    const market = plan.market.toLowerCase() as Address;
    const now = this.#ctx.clock.now();
    this.#ctx.portfolio.doubtOrders(market, planCancelledIds(plan), now);
    this.#staleViews.set(market, { since: now, view: this.#viewKey(market), refreshed: false });
    this.#ctx.logger.debug({ requestId, market }, 'a slot no longer held the expected order: reading the active orders before the next slot-bound intent');
    this.request(0);
  }

  /** Until when a plan waits for a fresh view of its market's slots (undefined: it may go now). */
  staleHold(plan: RequestPlan, now: number): number | undefined {
    if (!bindsSlots(plan)) return undefined;
    const market = plan.market.toLowerCase() as Address;
    const stale = this.#staleViews.get(market);
    if (stale === undefined) return undefined;
    const until = stale.since + this.#ctx.tuning.staleViewHoldMs;
    if (now < until && !(stale.refreshed && this.#viewKey(market) !== stale.view)) return until;
    this.#staleViews.delete(market);
    return undefined;
  }

  /** The market's slots as the order ids they hold, comparable. */
  #viewKey(market: Address): string {
    return this.#ctx.portfolio.slotOrderIds(market).join(',');
  }

  async #pollOnce(): Promise<void> {
    const { clock, tuning, userData, portfolio, evidence } = this.#ctx;
    const startedAt = clock.now();
    try {
      const everyMarket = startedAt >= this.#nextActiveAt;
      // With the active orders, the read goes back eventsLookbackMs: an event the index shows late,
      // behind newer ones (before the cursor by then), is still found.
      const lookbackFrom = startedAt - tuning.eventsLookbackMs;
      const fromMs = everyMarket ? Math.max(this.#eventsFloorMs, Math.min(this.#eventsCursorMs, lookbackFrom)) : this.#eventsCursorMs;
      const read = await userData.orderEventsSince(fromMs);
      this.#lastOkAt = startedAt;
      // Each read overlaps the last: only new events go on (the portfolio would recompute for nothing),
      // and only theirs are dated.
      let newest = Number.NEGATIVE_INFINITY;
      const events = read.filter((event) => {
        const key = orderEventKey(event);
        if (this.#seenEvents.has(key)) return false;
        const at = Date.parse(event.blockTimestamp);
        this.#seenEvents.add(key, at);
        if (at > newest) newest = at;
        return true;
      });
      evidence.add(events);
      if (events.length > 0) portfolio.applyOrderEvents(events);
      // Kept for the next lookback too, so that it hands on only what is new.
      this.#seenEvents.prune(Math.min(this.#eventsCursorMs - tuning.eventsOverlapMs, lookbackFrom));
      if (Number.isFinite(newest)) this.#eventsCursorMs = Math.max(this.#eventsCursorMs, newest - tuning.eventsOverlapMs);
      if (everyMarket) this.#nextActiveAt = startedAt + tuning.activeOrdersEveryMs;
      const unrefreshed: Address[] = [];
      for (const [market, stale] of this.#staleViews) if (!stale.refreshed) unrefreshed.push(market);
      for (const market of everyMarket ? portfolio.markets() : unrefreshed) {
        const orders = await userData.activeOrders(market);
        const stale = this.#staleViews.get(market);
        // Before applying: the state change it causes wakes the intents the stale view holds. A read
        // that started before the view proved stale may miss what made it so: the next poll reads again.
        if (stale !== undefined && startedAt >= stale.since) stale.refreshed = true;
        portfolio.applyActiveOrders(market, orders, { asOfMs: startedAt });
      }
    } catch (error) {
      this.#ctx.logger.warn({ err: error }, 'user data poll failed');
    }
    await this.#ctx.afterRead(startedAt);
  }
}
