/**
 * Runs one strategy of a run: builds its StrategyContext, calls `create` once, checks every intent
 * it emits before the engine sees it, and hands the valid ones to `submit`.
 *
 * - `create` throwing, or its stream erroring, is STRATEGY_FAILED; an intent that breaks a slot or
 *   market rule (slot >= 62 or twice, price off the tick, size out of range, empty, a market that is
 *   not the strategy's) is STRATEGY_INTENT_INVALID. Either is reported once through `onFailure` and
 *   the strategy is stopped: the run then stops, cancelling its orders.
 * - A strategy that has emitted nothing after `idleWarnMs` gets one warning (a grid may wait for a
 *   mid); one that has emitted nothing after `idleTimeoutMs` is STRATEGY_IDLE, reported through
 *   `onFailure` like a failure: a strategy that never trades is a broken one. `idleError` says the
 *   same of a run that ended before that time. Quiet after a first intent is never an error (a
 *   TWAP between slices).
 * - Completing is the strategy saying it is done (`onComplete`); its orders stay until the run stops.
 * - The context's `tradingState$` follows the run's (`tradingState$`: ACTIVE, then HALTED when the
 *   kill switch trips) and turns HALTED ("the run is stopping") when the host stops, just before it
 *   unsubscribes; it emits only changes, and once HALTED it stays. Its `fates$` is the engine's
 *   `reports$` narrowed to the intents this host submitted, matched by identity.
 * - The callback given to `ctx.reportFigures` is called once, when the host stops (after the
 *   strategy was unsubscribed, so its figures are final): `figures()` holds what it returned, or a
 *   located STRATEGY_REPORT_INVALID when it threw or returned no flat figures. That never fails the
 *   run: the strategy's trading is over by then, only its summary lacks the figures.
 */
import { BehaviorSubject, Subject, Subscription, timer, type Observable } from 'rxjs';
import { BaseError } from '../core/base-error.ts';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { RandomSource } from '../core/random.ts';
import type { Address } from '../protocol/encoding.ts';
import type { IntentFate, IntentReport } from '../execution/execution-engine.ts';
import type { Intent } from '../strategy/intents.ts';
import type { LoadedStrategy } from '../strategy/load-strategy.ts';
import type {
  IntentFateReport,
  StrategyContext,
  StrategyMarket,
  TradingState,
} from '../strategy/strategy-context.ts';
import { intentProblems } from '../strategy/intent-problems.ts';
import { figuresProblems, type StrategyFigures } from '../strategy/strategy-figures.ts';

const INTENT_TYPES = new Set<string>(['PlaceAndCancel', 'ReplaceSlots', 'CancelTrigger', 'CancelAll', 'CreateBatchTrigger', 'CreateReplaceTrigger']);

/** What a strategy's intents came to, for the summary. */
export interface StrategyTally {
  emitted: number;
  submitted: number;
  readonly fates: Map<IntentFate['status'], number>;
  /** Codes of REJECTED and REFUSED fates, with counts. */
  readonly codes: Map<string, number>;
}

/** What the strategy's `ctx.reportFigures` callback gave at the end: its figures, or why there are none. */
export type StrategyFiguresOutcome = { readonly figures: StrategyFigures } | { readonly error: BaseError };

export interface StrategyHostParameters {
  readonly strategy: LoadedStrategy;
  /** The strategy's markets by symbol, in run-file order. */
  readonly markets: ReadonlyMap<string, StrategyMarket>;
  readonly clock: Clock;
  readonly random: RandomSource;
  /** The run's logger; the strategy gets a child bound to its name. */
  readonly logger: Logger;
  readonly submit: (intent: Intent) => Promise<IntentFate>;
  /** The engine's fate of every intent (`engine.reports$`): the host passes on those it submitted. */
  readonly reports$: Observable<IntentReport>;
  /** The run's trading state: the current one at once, then changes (the host adds HALTED when it stops). */
  readonly tradingState$: Observable<TradingState>;
  /** Warn once when nothing was emitted this long after the start. */
  readonly idleWarnMs: number;
  /** Fail (STRATEGY_IDLE) when nothing was emitted this long after the start; undefined: never. */
  readonly idleTimeoutMs?: number;
  readonly onFailure: (error: BaseError) => void;
  readonly onComplete: () => void;
}

export interface StrategyHost {
  readonly name: string;
  readonly tally: StrategyTally;
  /** Whether the intent stream completed. */
  completed(): boolean;
  /** The failure that stopped it, if any. */
  failure(): BaseError | undefined;
  /** STRATEGY_IDLE when it started, emitted nothing in `afterMs` and did not complete; else undefined. */
  idleError(afterMs: number): BaseError | undefined;
  /** Its figures for the summary, once stopped; undefined before, or when it gave `ctx.reportFigures` no callback. */
  figures(): StrategyFiguresOutcome | undefined;
  /** Calls create and subscribes. */
  start(): void;
  /**
   * Tells the strategy HALTED (`the run is stopping`, with `reason` when given) and unsubscribes;
   * nothing it emits from then on is submitted. Idempotent.
   */
  stop(reason?: string): void;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message.split('\n')[0] ?? '';
  return String(error);
}

/** What is wrong with a value a strategy emitted as an intent, for the strategy's markets (empty: nothing). */
export function intentShapeProblems(intent: unknown, markets: ReadonlyMap<Address, StrategyMarket>): string[] {
  if (typeof intent !== 'object' || intent === null) return [`expected an intent object, got ${intent === null ? 'null' : typeof intent}`];
  const candidate = intent as { type?: unknown; purpose?: unknown; market?: unknown };
  if (typeof candidate.type !== 'string' || !INTENT_TYPES.has(candidate.type)) {
    return [`type must be one of ${[...INTENT_TYPES].join(', ')}`];
  }
  if (typeof candidate.purpose !== 'string' || candidate.purpose.length === 0) return ['purpose must be a non-empty string'];
  const typed = intent as Intent;
  // Trigger creation is well formed: the engine refuses it (INTENT_NOT_SUPPORTED_LIVE) with a fate.
  if (typed.type === 'CreateBatchTrigger' || typed.type === 'CreateReplaceTrigger') return [];
  if (typed.type === 'CancelTrigger') return typeof typed.triggerId === 'string' ? [] : ['triggerId must be a hex string'];
  if ('market' in typed && typed.market !== undefined && typeof typed.market !== 'string') return ['market must be an address'];
  const spec = 'market' in typed && typed.market !== undefined ? markets.get(typed.market.toLowerCase() as Address)?.spec : undefined;
  if (typed.type === 'ReplaceSlots' && !Array.isArray(typed.ops)) return ['ops must be an array'];
  if (typed.type === 'PlaceAndCancel' && (!Array.isArray(typed.cancelSlots) || !Array.isArray(typed.orders))) return ['cancelSlots and orders must be arrays'];
  try {
    return intentProblems(typed, spec).map((problem) =>
      problem.startsWith('market ') && problem.endsWith('is not a market of the strategy') ? `${problem} (its markets: ${[...markets.values()].map((m) => m.spec.symbol).join(', ')})` : problem,
    );
  } catch (error) {
    return [messageOf(error)];
  }
}

const ACTIVE: TradingState = Object.freeze({ state: 'ACTIVE' });

function sameTradingState(a: TradingState, b: TradingState): boolean {
  if (a.state !== b.state) return false;
  if (a.state === 'ACTIVE' || b.state === 'ACTIVE') return true;
  if (a.reason !== b.reason) return false;
  return a.state !== 'HALTED' || b.state !== 'HALTED' || a.trigger === b.trigger;
}

/** A short description of an intent for logs. */
function describeIntent(intent: Intent): Record<string, unknown> {
  switch (intent.type) {
    case 'ReplaceSlots':
      return { type: intent.type, market: intent.market, purpose: intent.purpose, ops: intent.ops.length };
    case 'PlaceAndCancel':
      return { type: intent.type, market: intent.market, purpose: intent.purpose, cancels: intent.cancelSlots.length, orders: intent.orders.length };
    default:
      return { type: intent.type, purpose: intent.purpose };
  }
}

/**
 * @example
 * const host = createStrategyHost({ strategy, markets, clock, random, logger, submit: (intent) => engine.submit(intent), reports$: engine.reports$, tradingState$, idleWarnMs: 30_000, onFailure, onComplete });
 * host.start();
 */
export function createStrategyHost(params: StrategyHostParameters): StrategyHost {
  const { strategy, clock } = params;
  const log = params.logger.child({ strategy: strategy.name });
  const where = `strategy ${strategy.name} (${strategy.module})`;
  const byAddress = new Map<Address, StrategyMarket>();
  for (const market of params.markets.values()) byAddress.set(market.spec.address, market);
  const tally: StrategyTally = { emitted: 0, submitted: 0, fates: new Map(), codes: new Map() };
  const subscription = new Subscription();
  let failed: BaseError | undefined;
  let completed = false;
  let stopped = false;
  let started = false;
  /** What the strategy gave `ctx.reportFigures` (anything may come from a plain-JS strategy), and what it gave back at the stop. */
  let reporter: unknown;
  let figures: StrategyFiguresOutcome | undefined;
  /** The strategy's trading state: the run's, until the host stops (then HALTED, for good). */
  const tradingState = new BehaviorSubject<TradingState>(ACTIVE);
  const setTradingState = (next: TradingState) => {
    const current = tradingState.value;
    if (current.state === 'HALTED' || sameTradingState(current, next)) return;
    // The kill switch and the stop log themselves; this ties the change to the strategy.
    log.debug({ tradingState: next }, 'trading state changed');
    tradingState.next(next);
  };
  const fates = new Subject<IntentFateReport>();
  /** Intents submitted and not yet settled, with how many times each (the same object may be emitted twice). */
  const unsettled = new Map<Intent, number>();
  const settled = (intent: Intent): boolean => {
    const count = unsettled.get(intent);
    if (count === undefined) return false;
    if (count <= 1) unsettled.delete(intent);
    else unsettled.set(intent, count - 1);
    return true;
  };

  const fail = (error: BaseError) => {
    if (failed !== undefined || stopped) return;
    failed = error;
    log.error({ code: error.code }, error.message);
    subscription.unsubscribe();
    params.onFailure(error);
  };

  const idleError = (afterMs: number): BaseError | undefined => {
    if (!started || tally.emitted > 0 || completed || failed !== undefined) return undefined;
    return new BaseError('STRATEGY_IDLE', `${where} emitted no intent in ${Math.round(afterMs / 1000)} s`, {
      details: { strategy: strategy.name, module: strategy.module, afterMs },
    });
  };

  /** Calls the figures callback once; whatever goes wrong is a located STRATEGY_REPORT_INVALID, never a throw. */
  const collectFigures = (callback: unknown): StrategyFiguresOutcome => {
    const invalid = (problem: string, options: { problems?: string[]; cause?: unknown } = {}): StrategyFiguresOutcome => {
      const details = { strategy: strategy.name, module: strategy.module, ...(options.problems === undefined ? {} : { problems: options.problems }) };
      const error = new BaseError('STRATEGY_REPORT_INVALID', `${where}: ${problem}`, { details, ...(options.cause === undefined ? {} : { cause: options.cause }) });
      log.error({ code: error.code }, error.message);
      return { error };
    };
    if (typeof callback !== 'function') return invalid(`ctx.reportFigures was given a value of type ${callback === null ? 'null' : typeof callback}, not a function`);
    try {
      const value: unknown = callback();
      const problems = figuresProblems(value);
      if (problems.length > 0) return invalid(`its reportFigures callback returned no flat figures: ${problems.join('; ')}`, { problems });
      // A copy: the strategy's object may change after the stop.
      return { figures: Object.freeze(Object.fromEntries(Object.entries(value as StrategyFigures))) };
    } catch (error) {
      return invalid(`its reportFigures callback threw: ${messageOf(error)}`, { cause: error });
    }
  };

  const onFate = (intent: Intent, fate: IntentFate) => {
    tally.fates.set(fate.status, (tally.fates.get(fate.status) ?? 0) + 1);
    if (fate.status === 'REJECTED' || fate.status === 'REFUSED') {
      tally.codes.set(fate.code, (tally.codes.get(fate.code) ?? 0) + 1);
      log.warn({ ...describeIntent(intent), status: fate.status, code: fate.code, reason: fate.message }, 'intent not executed');
    } else if (fate.status === 'REVERTED' || fate.status === 'DROPPED') {
      // The engine logs the request's outcome with its reason; here it is tied to the strategy.
      log.debug({ ...describeIntent(intent), status: fate.status, txHash: fate.txHash, code: fate.code, reason: fate.reason }, 'intent did not execute');
    } else {
      log.debug({ ...describeIntent(intent), status: fate.status }, 'intent done');
    }
  };

  const onIntent = (intent: Intent) => {
    if (failed !== undefined || stopped) return;
    tally.emitted += 1;
    const problems = intentShapeProblems(intent, byAddress);
    if (problems.length > 0) {
      const type = typeof intent === 'object' && intent !== null && typeof (intent as { type?: unknown }).type === 'string' ? `${(intent as { type: string }).type} ` : '';
      fail(
        new BaseError('STRATEGY_INTENT_INVALID', `${where} emitted an invalid ${type}intent: ${problems.join('; ')}`, {
          details: { strategy: strategy.name, module: strategy.module, problems },
        }),
      );
      return;
    }
    tally.submitted += 1;
    // Counted before submitting: an intent refused at once is reported during `submit`.
    unsettled.set(intent, (unsettled.get(intent) ?? 0) + 1);
    params.submit(intent).then(
      (fate) => onFate(intent, fate),
      (error: unknown) => {
        settled(intent);
        log.error({ err: error, ...describeIntent(intent) }, 'the engine failed to take an intent');
      },
    );
  };

  return {
    name: strategy.name,
    tally,
    completed: () => completed,
    failure: () => failed,
    idleError,
    figures: () => figures,
    start() {
      started = true;
      // Both before `create`: the strategy sees the current state at once, and the fate of its first intent.
      subscription.add(params.tradingState$.subscribe((next) => setTradingState(next)));
      subscription.add(
        params.reports$.subscribe((report) => {
          if (settled(report.intent)) fates.next({ intent: report.intent, fate: report.fate });
        }),
      );
      const context: StrategyContext<unknown> = {
        params: strategy.params,
        markets: params.markets,
        clock,
        random: params.random,
        logger: log,
        tradingState$: tradingState.asObservable(),
        fates$: fates.asObservable(),
        reportFigures: (callback) => {
          reporter = callback;
        },
      };
      let intents$: Observable<Intent>;
      try {
        intents$ = strategy.definition.create(context);
        if (typeof (intents$ as { subscribe?: unknown } | undefined)?.subscribe !== 'function') {
          throw new TypeError(`create returned ${intents$ === null ? 'null' : typeof intents$}, not an Observable of intents`);
        }
      } catch (error) {
        fail(new BaseError('STRATEGY_FAILED', `${where} failed to start: ${messageOf(error)}`, { details: { strategy: strategy.name, module: strategy.module }, cause: error }));
        return;
      }
      subscription.add(
        timer(params.idleWarnMs, clock.scheduler).subscribe(() => {
          if (tally.emitted === 0 && !completed) {
            log.warn({ afterMs: params.idleWarnMs }, `${where} has emitted no intent in ${Math.round(params.idleWarnMs / 1000)} s`);
          }
        }),
      );
      const { idleTimeoutMs } = params;
      if (idleTimeoutMs !== undefined) {
        subscription.add(
          timer(idleTimeoutMs, clock.scheduler).subscribe(() => {
            const error = idleError(idleTimeoutMs);
            if (error !== undefined) fail(error);
          }),
        );
      }
      log.info({ module: strategy.module, markets: [...params.markets.keys()] }, 'strategy started');
      subscription.add(
        intents$.subscribe({
          next: onIntent,
          error: (error: unknown) =>
            fail(new BaseError('STRATEGY_FAILED', `${where} failed: ${messageOf(error)}`, { details: { strategy: strategy.name, module: strategy.module }, cause: error })),
          complete: () => {
            if (failed !== undefined || stopped) return;
            completed = true;
            log.info({ intents: tally.emitted }, 'strategy completed');
            params.onComplete();
          },
        }),
      );
    },
    stop(reason) {
      if (stopped) return;
      stopped = true;
      // The strategy hears it while still subscribed; what it emits now is not submitted (the engine cancels every order).
      if (started && failed === undefined && !completed) setTradingState({ state: 'HALTED', reason: reason === undefined ? 'the run is stopping' : `the run is stopping: ${reason}` });
      subscription.unsubscribe();
      unsettled.clear();
      if (reporter !== undefined) figures = collectFigures(reporter);
    },
  };
}
