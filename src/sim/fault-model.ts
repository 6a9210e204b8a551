/**
 * The one place the local venue's faults live (docs/protocol.md "Faults"). Both faces of the venue
 * (`clobbot sim` on the network, the in-process connection) answer through the readers that consult
 * it, so an injected fault looks the same on either:
 *
 * - Standing settings (`SimFaults`: rates and delays), from the sim config's `faults`, changed by
 *   `set` (`POST /sim/faults`). Rates are drawn from the service's seeded random source, and only
 *   when they are above 0, so a run without faults draws nothing.
 * - One-shot actions (`apply`, `POST /sim/faults/actions`): connection events (drop every relay
 *   WebSocket, close them with 4008, expire the JWTs issued so far) go out at once on `events$`;
 *   counted actions (withhold, delay, duplicate or reorder the next N outcomes, answer the next N
 *   submissions UNKNOWN or REJECTED, or refuse them at the HTTP edge with 429 or 5xx, fail the next
 *   N market-data requests with 5xx or 429, show the next N order events late) wait in queues, taken
 *   in the order applied and before any rate is drawn.
 * - A fault script (`schedule`): actions at times after a start, on the clock's scheduler, so on a
 *   VirtualClock "drop the connection at t = 12.4 s" happens exactly then.
 */
import type { z } from 'zod';
import { BehaviorSubject, distinctUntilChanged, EMPTY, interval, map, merge, Subject, Subscription, switchMap, type Observable } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { RandomSource } from '../core/random.ts';
import { BaseError } from '../core/base-error.ts';
import {
  faultActionSchema,
  faultScriptSchema,
  faultSettingsSchema,
  type FaultAction,
  type FaultActionInput,
  type FaultScriptInput,
  type SimFaults,
} from '../config/fault-config.ts';

/** A connection-level fault for the relay hub and auth to carry out. */
export type FaultEvent = 'drop-connections' | 'close-pending-outcome-limit' | 'expire-tokens';

/**
 * What happens to one terminal outcome: withheld (never sent), or sent after `delayMs` more; and
 * when sent, `duplicate`: the identical frame again `DUPLICATE_OUTCOME_GAP_MS` later; `reorder`:
 * held back until the connection's next outcome is sent (at most `REORDER_MAX_HOLD_MS`), then sent
 * right behind it. The flags are present only when set.
 */
export type OutcomeFault =
  | { readonly withhold: true }
  | { readonly withhold: false; readonly delayMs: number; readonly duplicate?: true; readonly reorder?: true };

/** How long after the first copy a duplicated outcome's second copy leaves (ms on the clock). */
export const DUPLICATE_OUTCOME_GAP_MS = 1;

/** The longest a reordered outcome waits for the connection's next outcome before it goes out alone (ms on the clock). */
export const REORDER_MAX_HOLD_MS = 1000;

/** A counted outcome action waiting for its outcome. */
type QueuedOutcomeFault =
  | { readonly kind: 'withhold' }
  | { readonly kind: 'delay'; readonly delayMs: number }
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'reorder' };

/** A `delay-order-events` action waiting for its events. */
interface QueuedOrderEventDelay {
  readonly delayMs: number;
  /** When it was applied: only events of blocks at or after this time take it. */
  readonly appliedAtMs: number;
}

/**
 * A relay submission refused before it reaches the venue (nothing executed, no nonce used). `code`
 * and `retryAfterMs` are the relay's REJECTED answer, which a WebSocket request always gets; with
 * `edgeStatus` the refusal comes from the HTTP edge in front of the relay, and `POST /relay` gets
 * that bare status instead (429 -1003 with `Retry-After`, or 500/502/503 with Binance's body).
 */
export interface RelayRejection {
  readonly code: 'INTERNAL_ERROR' | 'RATE_LIMITED';
  /** For RATE_LIMITED: when to try again; null otherwise. */
  readonly retryAfterMs: number | null;
  /** Present only for an edge refusal: 429 (with `code` RATE_LIMITED) or 500, 502, 503 (INTERNAL_ERROR). */
  readonly edgeStatus?: RelayEdgeStatus;
}

/** The HTTP statuses the edge in front of the relay answers with. */
export type RelayEdgeStatus = 429 | 500 | 502 | 503;

/** The server errors `relayServerErrorRate` draws from, evenly. */
const RELAY_EDGE_ERRORS = [500, 502, 503] as const;

/** A market-data request answered with a server failure or a rate limit instead of its data. */
export type MarketDataFailure = { readonly status: 500 | 503 } | { readonly status: 429; readonly retryAfterSec: number };

/** What happens to one market-data request. */
export interface MarketDataFault {
  /** Extra time before the answer is sent (ms on the clock). */
  readonly delayMs: number;
  readonly failure: MarketDataFailure | undefined;
}

/** One-shot faults still waiting for their requests or outcomes. */
export interface PendingFaults {
  /** withhold-, delay-, duplicate- and reorder-outcomes (one queue). */
  readonly outcomes: number;
  readonly relayRejections: number;
  readonly unknownAnswers: number;
  readonly marketData: number;
  /** delay-order-events. */
  readonly orderEvents: number;
}

/** What `POST /relay` asks of the faults. */
export interface RelayRestFaultReader {
  /** Whether a submission is refused before it reaches the venue (by the relay, or by the edge in front of it), and how. */
  relayRejection(): RelayRejection | undefined;
  /** Whether a BROADCAST submission is answered UNKNOWN. */
  relayUnknown(): boolean;
  /** Extra delay of the answer to a submission (ms). */
  relayDelayMs(): number;
}

/** What the relay WebSocket hub asks of the faults. */
export interface RelayFaultReader extends RelayRestFaultReader {
  outcome(): OutcomeFault;
}

/** What the market-data routes ask of the faults. */
export interface MarketDataFaultReader {
  marketData(): MarketDataFault;
}

/** What the user-data routes ask of the faults: when each order event may be shown. */
export interface OrderEventFaultReader {
  /** The standing delay of every order event after its block (ms, `orderEventsDelayMs`). */
  orderEventsDelayMs(): number;
  /**
   * When the oldest `delay-order-events` still waiting for events was applied (ms): only events of
   * blocks at or after it can take one; undefined when none waits (readers need not look).
   */
  orderEventDelaysFromMs(): number | undefined;
  /**
   * The one-shot delay of an order event of a block at `blockTimeMs` that a reader comes upon for
   * the first time (an account's events oldest first): the `delayMs` of the next waiting
   * `delay-order-events`, used up, when that one was applied at or before the block; otherwise
   * undefined and nothing is used up.
   */
  orderEventDelay(blockTimeMs: number): number | undefined;
}

export interface FaultModel extends RelayFaultReader, MarketDataFaultReader, OrderEventFaultReader {
  /** The standing settings (`GET /sim/faults`). */
  get(): SimFaults;
  /** Replaces the standing settings (validated by the caller, e.g. with `faultSettingsSchema`). */
  set(settings: SimFaults): void;
  /** Applies one action at once (defaults filled in). Throws SIM_FAULT_INVALID for an action that does not parse. */
  apply(action: FaultActionInput): void;
  /**
   * Applies each entry's fault at `startMs + at` on the clock (default start: now; an entry already
   * due runs on the scheduler's next turn). Unsubscribe to cancel what has not run. Throws
   * SIM_FAULT_INVALID for a script that does not parse, scheduling none of it.
   */
  schedule(script: FaultScriptInput, options?: { readonly startMs?: number }): Subscription;
  /** One-shot faults not yet used up. */
  pending(): PendingFaults;
  /** Connection events: applied actions, and the periodic drops of `dropWebSocketsEveryMs` while subscribed. */
  readonly events$: Observable<FaultEvent>;
  /** Cancels scheduled scripts and completes `events$`. Idempotent. */
  stop(): void;
}

export interface CreateFaultModelParameters {
  readonly clock: Clock;
  /** Seeded: which requests and outcomes the rates pick. */
  readonly random: RandomSource;
  /** The starting settings (the sim config's `faults`). Default: every fault off. */
  readonly settings?: SimFaults;
  readonly logger?: Logger;
}

/** `value` parsed with `schema`, or SIM_FAULT_INVALID naming the first issue. */
function parseFault<S extends typeof faultActionSchema | typeof faultScriptSchema>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data as z.output<S>;
  const issue = parsed.error.issues[0]!;
  throw new BaseError('SIM_FAULT_INVALID', `${what}: ${issue.path.join('.') || '(root)'}: ${issue.message}`, { details: { path: issue.path.map(String) } });
}

/** Counted faults of one kind, used up in the order applied. */
class FaultQueue<T> {
  readonly #batches: { remaining: number; readonly value: T }[] = [];

  push(count: number, value: T): void {
    this.#batches.push({ remaining: count, value });
  }

  /** The next fault without using it up, if any is left. */
  peek(): T | undefined {
    return this.#batches[0]?.value;
  }

  /** The next fault, if any is left. */
  take(): T | undefined {
    const batch = this.#batches[0];
    if (batch === undefined) return undefined;
    batch.remaining -= 1;
    if (batch.remaining === 0) this.#batches.shift();
    return batch.value;
  }

  size(): number {
    return this.#batches.reduce((sum, batch) => sum + batch.remaining, 0);
  }
}

/**
 * @example
 * const faults = createFaultModel({ clock, random: seededRandom(1), settings: config.faults, logger });
 * faults.schedule([{ at: 12_400, fault: { action: 'drop-connections' } }]);
 * faults.apply({ action: 'answer-unknown', count: 2 });
 */
export function createFaultModel(params: CreateFaultModelParameters): FaultModel {
  const { clock, random, logger } = params;
  const settings$ = new BehaviorSubject<SimFaults>({ ...(params.settings ?? faultSettingsSchema.parse({})) });
  const applied$ = new Subject<FaultEvent>();
  const outcomes = new FaultQueue<QueuedOutcomeFault>();
  const rejections = new FaultQueue<RelayRejection>();
  const unknowns = new FaultQueue<true>();
  const marketData = new FaultQueue<MarketDataFailure>();
  const orderEvents = new FaultQueue<QueuedOrderEventDelay>();
  const scripts = new Subscription();
  const chance = (rate: number) => rate > 0 && random.next() < rate;
  const current = () => settings$.getValue();

  const periodicDrops$ = settings$.pipe(
    map((settings) => settings.dropWebSocketsEveryMs),
    distinctUntilChanged(),
    switchMap((every) => (every > 0 ? interval(every, clock.scheduler) : EMPTY)),
    map((): FaultEvent => 'drop-connections'),
  );

  const set = (settings: SimFaults) => {
    logger?.info({ faults: settings }, 'sim faults changed');
    settings$.next({ ...settings });
  };

  const applyParsed = (action: FaultAction) => {
    logger?.info({ fault: action }, 'sim fault applied');
    switch (action.action) {
      case 'drop-connections':
      case 'close-pending-outcome-limit':
      case 'expire-tokens':
        applied$.next(action.action);
        return;
      case 'withhold-outcomes':
        outcomes.push(action.count, { kind: 'withhold' });
        return;
      case 'delay-outcomes':
        outcomes.push(action.count, { kind: 'delay', delayMs: action.delayMs });
        return;
      case 'duplicate-outcomes':
        outcomes.push(action.count, { kind: 'duplicate' });
        return;
      case 'reorder-outcomes':
        outcomes.push(action.count, { kind: 'reorder' });
        return;
      case 'delay-order-events':
        orderEvents.push(action.count, { delayMs: action.delayMs, appliedAtMs: clock.now() });
        return;
      case 'answer-unknown':
        unknowns.push(action.count, true);
        return;
      case 'answer-rejected':
        rejections.push(action.count, { code: action.code, retryAfterMs: action.code === 'RATE_LIMITED' ? action.retryAfterMs : null });
        return;
      case 'rate-limit-relay':
        rejections.push(action.count, { code: 'RATE_LIMITED', retryAfterMs: action.retryAfterSec * 1000, edgeStatus: 429 });
        return;
      case 'fail-relay':
        rejections.push(action.count, { code: 'INTERNAL_ERROR', retryAfterMs: null, edgeStatus: action.status });
        return;
      case 'fail-market-data':
        marketData.push(action.count, { status: action.status });
        return;
      case 'rate-limit-market-data':
        marketData.push(action.count, { status: 429, retryAfterSec: action.retryAfterSec });
        return;
      case 'set':
        set({ ...current(), ...action.settings });
        return;
    }
  };

  return {
    get: () => ({ ...current() }),
    set,
    apply: (action) => applyParsed(parseFault(faultActionSchema, action, 'fault action')),

    schedule(script, options = {}) {
      const entries = parseFault(faultScriptSchema, script, 'fault script');
      const startMs = options.startMs ?? clock.now();
      const batch = new Subscription();
      // Ties run in the order written: the scheduler keeps the order of equal due times.
      for (const entry of entries) {
        batch.add(clock.scheduler.schedule(() => applyParsed(entry.fault), Math.max(0, startMs + entry.at - clock.now())));
      }
      scripts.add(batch);
      return batch;
    },

    pending: () => ({
      outcomes: outcomes.size(),
      relayRejections: rejections.size(),
      unknownAnswers: unknowns.size(),
      marketData: marketData.size(),
      orderEvents: orderEvents.size(),
    }),

    events$: merge(applied$, periodicDrops$),

    outcome() {
      const queued = outcomes.take();
      const settings = current();
      if (queued?.kind === 'withhold' || chance(settings.withholdOutcomesRate)) return { withhold: true };
      const delayMs = settings.outcomeDelayMs + (queued?.kind === 'delay' ? queued.delayMs : 0);
      // A queued action stands in for its own rate (nothing drawn for it); rates at 0 draw nothing.
      const duplicate = queued?.kind === 'duplicate' || chance(settings.duplicateOutcomesRate);
      const reorder = queued?.kind === 'reorder' || chance(settings.reorderOutcomesRate);
      return { withhold: false, delayMs, ...(duplicate ? { duplicate: true } : {}), ...(reorder ? { reorder: true } : {}) };
    },

    orderEventsDelayMs: () => current().orderEventsDelayMs,

    orderEventDelaysFromMs: () => orderEvents.peek()?.appliedAtMs,

    orderEventDelay(blockTimeMs) {
      const next = orderEvents.peek();
      if (next === undefined || blockTimeMs < next.appliedAtMs) return undefined;
      orderEvents.take();
      return next.delayMs;
    },

    relayRejection() {
      const queued = rejections.take();
      if (queued !== undefined) return queued;
      const settings = current();
      // The edge stands in front of the relay: its refusals are drawn first.
      if (chance(settings.relayRateLimitRate)) return { code: 'RATE_LIMITED', retryAfterMs: settings.relayRetryAfterSec * 1000, edgeStatus: 429 };
      if (chance(settings.relayServerErrorRate)) {
        return { code: 'INTERNAL_ERROR', retryAfterMs: null, edgeStatus: RELAY_EDGE_ERRORS[Math.min(2, Math.floor(random.next() * 3))]! };
      }
      return chance(settings.rejectResponseRate) ? { code: 'INTERNAL_ERROR', retryAfterMs: null } : undefined;
    },

    relayUnknown: () => unknowns.take() === true || chance(current().unknownResponseRate),

    relayDelayMs: () => current().relayDelayMs,

    marketData() {
      const settings = current();
      const delayMs = settings.marketDataDelayMs;
      const queued = marketData.take();
      if (queued !== undefined) return { delayMs, failure: queued };
      if (chance(settings.marketDataErrorRate)) return { delayMs, failure: { status: random.next() < 0.5 ? 500 : 503 } };
      if (chance(settings.marketDataRateLimitRate)) return { delayMs, failure: { status: 429, retryAfterSec: settings.marketDataRetryAfterSec } };
      return { delayMs, failure: undefined };
    },

    stop() {
      scripts.unsubscribe();
      applied$.complete();
      settings$.complete();
    },
  };
}
