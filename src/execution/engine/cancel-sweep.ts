/**
 * The sweep (docs/execution.md "Kill switch and stop"): while the kill switch is tripped, or once a
 * stop cancels every order, a CancelAll for each market with orders in known slots. One sweep at a
 * time: the next goes as soon as the last of its cancels settled, or when the portfolio changes (the
 * ids of orders it could not cancel yet arrive with the order events).
 */
import type { Intent } from '../../strategy/intents.ts';
import type { KillSwitch } from '../kill-switch.ts';
import type { Portfolio } from '../portfolio.ts';
import type { Ticket, TicketScheduler } from './ticket-scheduler.ts';

/** What the sweep needs of the rest of the engine. */
export interface CancelSweepContext {
  readonly killSwitch: Pick<KillSwitch, 'isTripped'>;
  readonly portfolio: Pick<Portfolio, 'markets' | 'state'>;
  readonly tickets: Pick<TicketScheduler, 'ticket' | 'enqueue'>;
  /** The engine is running or stopping, and its journal has not failed. */
  readonly mayCancel: () => boolean;
  readonly kick: () => void;
}

export class CancelSweep {
  readonly #ctx: CancelSweepContext;
  /** The CancelAll tickets of the sweep under way. */
  readonly #tickets = new Set<Ticket>();
  #forStop = false;

  constructor(context: CancelSweepContext) {
    this.#ctx = context;
  }

  /** The sweep's cancels not settled yet. */
  get size(): number {
    return this.#tickets.size;
  }

  /** Whether `ticket` is one of the sweep's cancels: it cancels the slots whose ids it knows at once. */
  has(ticket: Ticket): boolean {
    return this.#tickets.has(ticket);
  }

  /** The stop cancels every order: sweeps from now on. */
  forStop(): void {
    this.#forStop = true;
    this.run();
  }

  /** A ticket settled: when it was the sweep's last, the next sweep goes at once. */
  settled(ticket: Ticket): void {
    // One reverted on a stale view (a requote landed first) or one that left orders learnt since must
    // not wait for a poll while orders rest.
    if (this.#tickets.delete(ticket)) this.run();
  }

  /** While the kill switch is tripped (or stop cancels): a CancelAll for each market with orders in known slots. */
  run(): void {
    const { killSwitch, portfolio, tickets } = this.#ctx;
    if (!(killSwitch.isTripped() || this.#forStop)) return;
    if (!this.#ctx.mayCancel()) return;
    if (this.#tickets.size > 0) return;
    const markets = portfolio.markets().filter((market) => portfolio.state(market).slots.some((slot) => slot !== null));
    if (markets.length === 0) return;
    const purpose = killSwitch.isTripped() ? 'kill-switch' : 'stop';
    for (const market of markets) {
      const intent: Intent = { type: 'CancelAll', market, purpose };
      const ticket = tickets.ticket(intent, () => undefined, undefined);
      this.#tickets.add(ticket);
      tickets.enqueue(ticket);
    }
    this.#ctx.kick();
  }
}
