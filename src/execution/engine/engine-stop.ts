/**
 * The engine's stop (docs/execution.md "Kill switch and stop"): no new intents, placements
 * refused, every order cancelled (unless `cancelAll: false`), then a wait, bounded by the timeout,
 * until every signed request settled and nothing waits; one last read of the order events; then
 * what is left is refused or left to the journal, every part stopped, and the journal compacted
 * (unless orders are open) and closed.
 */
import type { Subscription } from 'rxjs';
import { BaseError } from '../../core/base-error.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { AccountTruth } from '../account-truth.ts';
import type { EngineStats, EngineTuning } from '../execution-engine.ts';
import type { InFlightTracker } from '../in-flight-tracker.ts';
import type { Portfolio } from '../portfolio.ts';
import type { RelayTransport } from '../relay-transport.ts';
import type { CancelSweep } from './cancel-sweep.ts';
import type { EngineJournal } from './engine-journal.ts';
import type { RequestBook } from './request-book.ts';
import type { TicketScheduler } from './ticket-scheduler.ts';
import type { UserDataPoller } from './user-data-poller.ts';

/** How long a stop waits for its last read of the order events (see `stopEngine`). */
const FINAL_READ_MS = 2_000;

export type Lifecycle = 'idle' | 'starting' | 'running' | 'stopping' | 'stopped';

export interface StopOptions {
  readonly cancelAll?: boolean;
  readonly timeoutMs?: number;
}

/** Conditions someone waits for: checked at every change the engine reports (`wake`) and every 100 ms of the clock. */
export class Waiters {
  readonly #clock: Clock;
  readonly #waiters = new Set<() => void>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Resolves once `predicate` holds or at `deadline`. */
  until(predicate: () => boolean, deadline: number): Promise<void> {
    const clock = this.#clock;
    return new Promise<void>((resolve) => {
      let timer: Subscription | undefined;
      let done = false;
      const check = () => {
        if (done) return;
        if (predicate() || clock.now() >= deadline) {
          done = true;
          this.#waiters.delete(check);
          timer?.unsubscribe();
          resolve();
        }
      };
      const tick = () => {
        check();
        if (!done) timer = clock.scheduler.schedule(tick, Math.max(1, Math.min(100, deadline - clock.now())));
      };
      this.#waiters.add(check);
      tick();
    });
  }

  wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}

/** What the stop needs of the rest of the engine: every part, to stop each in its turn. */
export interface EngineStopContext {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly tuning: Pick<EngineTuning, 'stopTimeoutMs'>;
  readonly lifecycle: () => Lifecycle;
  readonly enter: (lifecycle: Lifecycle) => void;
  /** The start under way or done, if one began. */
  readonly started: () => Promise<void> | undefined;
  readonly waiters: Waiters;
  readonly journal: Pick<EngineJournal, 'isOpen' | 'close'>;
  readonly tickets: Pick<TicketScheduler, 'dropPlacements' | 'refuseAll' | 'waiting'>;
  readonly sweep: Pick<CancelSweep, 'forStop' | 'size'>;
  readonly book: Pick<RequestBook, 'size' | 'leaveToJournal' | 'forgetLingering'>;
  readonly poller: Pick<UserDataPoller, 'request' | 'lastOkAt' | 'stop' | 'inFlight'>;
  readonly tracker: Pick<InFlightTracker, 'reset'>;
  readonly portfolio: Pick<Portfolio, 'markets' | 'state'>;
  readonly transport: Pick<RelayTransport, 'stop'>;
  readonly accountTruth: Pick<AccountTruth, 'reading' | 'stop'>;
  /** The engine's subscriptions to the transport, the kill switch and the portfolio. */
  readonly subscriptions: Subscription;
  readonly kick: () => void;
  /** No more wake-ups of the pump. */
  readonly stopPump: () => void;
  /** Stops the kill switch when the engine made it. */
  readonly stopKillSwitch: () => void;
  readonly snapshot: () => EngineStats;
  /** The last stats published, and the engine's streams completed. */
  readonly complete: () => void;
}

export async function stopEngine(context: EngineStopContext, options: StopOptions): Promise<EngineStats> {
  const { clock, logger, journal, tickets, book, poller } = context;
  if (context.lifecycle() === 'idle') {
    context.enter('stopped');
    context.complete();
    return context.snapshot();
  }
  await context.started()?.catch(() => undefined);
  const cancelAll = options.cancelAll ?? true;
  // Without a journal (start failed) nothing can be signed: there is nothing to wait for.
  const deadline = journal.isOpen ? clock.now() + (options.timeoutMs ?? context.tuning.stopTimeoutMs) : clock.now();
  context.enter('stopping');
  logger.info({ cancelAll, unresolved: book.size }, 'execution engine stopping');
  tickets.dropPlacements(new BaseError('ENGINE_STOPPED', 'the execution engine stopped before signing it'));
  if (cancelAll) context.sweep.forStop();
  poller.request(0);
  context.kick();
  await context.waiters.until(() => drained(context, cancelAll), deadline);
  // The blocks of the last requests (the stop's cancels) may hold fills no read has seen yet: an
  // order partly filled in the block of its cancel, ahead of it. One read of the order events that
  // began after everything settled, so the position the engine stops with is the account's.
  // Bounded: a venue that does not answer is not waited for (the run says its orders may be open).
  if (journal.isOpen) {
    const settledAt = clock.now();
    poller.request(0);
    await context.waiters.until(() => poller.lastOkAt >= settledAt, Math.min(deadline, settledAt + FINAL_READ_MS));
  }

  context.enter('stopped');
  tickets.refuseAll(new BaseError('ENGINE_STOPPED', 'the execution engine stopped before signing it'));
  const unresolved = book.leaveToJournal();
  poller.stop();
  context.stopPump();
  book.forgetLingering();
  // Nothing is awaited any more (what is unresolved stays in the journal).
  context.tracker.reset();
  await poller.inFlight?.catch(() => undefined);
  try {
    await context.transport.stop();
  } catch (error) {
    logger.warn({ err: error }, 'relay transport stop failed');
  }
  context.subscriptions.unsubscribe();
  context.stopKillSwitch();
  await context.accountTruth.reading;
  context.accountTruth.stop();
  journal.close(() => context.portfolio.markets().some((market) => context.portfolio.state(market).orders.length > 0));
  const stats = context.snapshot();
  logger.info({ ...stats, unresolved }, 'execution engine stopped');
  context.complete();
  return stats;
}

/** Nothing signed is unresolved and nothing waits to be signed; with `cancelAll`, no order rests in a known slot either. */
function drained(context: EngineStopContext, cancelAll: boolean): boolean {
  if (context.book.size > 0 || context.tickets.waiting > 0) return false;
  if (!cancelAll) return true;
  if (context.sweep.size > 0) return false;
  return context.portfolio.markets().every((market) => context.portfolio.state(market).slots.every((slot) => slot === null));
}
