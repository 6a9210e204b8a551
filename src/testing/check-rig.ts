/**
 * The machinery under the strategy harness: a strategy run through the composition root of every run
 * (src/runtime/trading-runtime.ts: feeds, relay session and transports, the real execution engine,
 * the strategy host) against the check's venue (check-venue.ts) on a VirtualClock, driven from event
 * to event (src/runtime/virtual-driver.ts). It records what the strategy did — intents with times,
 * their fates, invalid intents, fills, states — and lets the harness wait for an event on virtual time.
 *
 * The strategy's `create` is called by the host when the runtime starts, but the strategy itself is
 * created only when the rig opens its gate: after the books of the start are on its feeds and its
 * initial position and orders are in place.
 */
import { AsyncSubject, Observable, Subscription, type Subscriber } from 'rxjs';
import type { z } from 'zod';
import { BaseError, isBaseError } from '../core/base-error.ts';
import type { VirtualClock } from '../core/virtual-clock.ts';
import type { Address } from '../protocol/encoding.ts';
import type { StrategyDefinition } from '../strategy/define-strategy.ts';
import type { Intent } from '../strategy/intents.ts';
import type { LoadedStrategy } from '../strategy/load-strategy.ts';
import type { OwnFill, StrategyContext, StrategyMarket } from '../strategy/strategy-context.ts';
import type { IntentFate } from '../execution/execution-engine.ts';
import { intentShapeProblems } from '../runtime/strategy-host.ts';
import type { InvalidIntent, RefusedIntent, RevertedIntent, TimedIntent, TimedState } from './scripted-market.ts';

/** The strategy's module name in logs and errors. */
export const CHECK_MODULE = 'checkStrategy';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}

/** What the strategy did, as the rig records it; times are ms after the strategy started. */
export class CheckRecord {
  readonly intents: TimedIntent[] = [];
  readonly reverted: RevertedIntent[] = [];
  readonly refused: RefusedIntent[] = [];
  readonly invalid: InvalidIntent[] = [];
  /** Own fills after the start. */
  readonly fills: OwnFill[] = [];
  /** Every own fill, the setup's included (for waits). */
  readonly allFills: OwnFill[] = [];
  readonly histories = new Map<string, TimedState[]>();
  /** When each intent was emitted. */
  readonly emittedAt = new Map<Intent, number>();
  completed = false;
  /** Clock time of the start; undefined before it. */
  startMs: number | undefined;

  constructor(readonly clock: VirtualClock) {}

  /** ms after the start (0 before it). */
  now(): number {
    return this.startMs === undefined ? 0 : this.clock.now() - this.startMs;
  }

  onFate(intent: Intent, fate: IntentFate): void {
    const at = this.emittedAt.get(intent);
    if (at === undefined) return;
    if (fate.status === 'REVERTED' || fate.status === 'DROPPED') {
      this.reverted.push({ at, intent, status: fate.status, reason: fate.reason ?? fate.status, code: fate.code ?? fate.status });
    } else if (fate.status === 'REFUSED' || fate.status === 'REJECTED') {
      this.refused.push({ at, intent, status: fate.status, code: fate.code, message: fate.message });
    }
  }
}

export interface GatedStrategy {
  readonly loaded: LoadedStrategy;
  /** The context the host gave the strategy (set when the runtime starts). */
  context(): StrategyContext<unknown> | undefined;
  /** Creates the strategy now; its intents flow from here on. */
  open(): void;
  /** The kit's own account of a failure (a clearer message than the host's), if any. */
  failure(): BaseError | undefined;
}

/**
 * Wraps `definition` for the strategy host: records every intent with its time, checks it as the host
 * does (strict: an invalid one fails the run; otherwise it is recorded and dropped), and holds the
 * strategy back until `open`.
 *
 * @example
 * const gated = gatedStrategy(definition, { params, symbols: ['MON_USDC'], strict: true, record });
 * createTradingRuntime({ …, strategies: [gated.loaded] }); // … then, once the market is ready:
 * gated.open();
 */
export function gatedStrategy<S extends z.ZodType>(
  definition: StrategyDefinition<S>,
  params: { readonly params: z.output<S>; readonly symbols: readonly string[]; readonly strict: boolean; readonly record: CheckRecord },
): GatedStrategy {
  const { record, strict } = params;
  const gate = new AsyncSubject<void>();
  let ctx: StrategyContext<unknown> | undefined;
  let failure: BaseError | undefined;
  const markets = (): ReadonlyMap<Address, StrategyMarket> => new Map([...ctx!.markets.values()].map((market) => [market.spec.address, market]));

  const run = (subscriber: Subscriber<Intent>): Subscription | undefined => {
    let intents$: Observable<Intent>;
    try {
      intents$ = definition.create(ctx as StrategyContext<z.output<S>>);
    } catch (error) {
      failure ??= new BaseError('STRATEGY_FAILED', `${definition.name} failed to start: ${messageOf(error)}`, { cause: error });
      subscriber.error(error);
      return undefined;
    }
    const byAddress = markets();
    return intents$.subscribe({
      next: (intent) => {
        const at = record.now();
        record.intents.push({ at, intent });
        record.emittedAt.set(intent, at);
        const problems = intentShapeProblems(intent, byAddress);
        if (problems.length === 0) return subscriber.next(intent);
        record.invalid.push({ at, intent, problems });
        if (!strict) return;
        // As the strategy host: anything may arrive here (undefined, null, a number), never read it blindly.
        const type = typeof intent === 'object' && intent !== null && typeof (intent as { type?: unknown }).type === 'string' ? `${intent.type} ` : '';
        failure ??= new BaseError('STRATEGY_INTENT_INVALID', `${definition.name} emitted an invalid ${type}intent at ${at}: ${problems.join('; ')}`, { details: { at, problems } });
        subscriber.next(intent);
      },
      error: (error: unknown) => {
        failure ??= new BaseError('STRATEGY_FAILED', `${definition.name} failed: ${messageOf(error)}`, { cause: error });
        subscriber.error(error);
      },
      complete: () => {
        record.completed = true;
        subscriber.complete();
      },
    });
  };

  const wrapped: StrategyDefinition = {
    name: definition.name,
    params: definition.params,
    create: (context) => {
      ctx = context;
      return new Observable<Intent>((subscriber) => {
        let inner: Subscription | undefined;
        const waiting = gate.subscribe(() => {
          inner = run(subscriber);
        });
        return () => {
          waiting.unsubscribe();
          inner?.unsubscribe();
        };
      });
    },
  };
  return {
    loaded: { name: definition.name, module: CHECK_MODULE, resolved: CHECK_MODULE, definition: wrapped, markets: params.symbols, params: params.params },
    context: () => ctx,
    open() {
      gate.next();
      gate.complete();
    },
    failure: () => failure,
  };
}

interface Waiter {
  readonly ready: () => boolean;
  readonly resolve: () => void;
}

/**
 * Waits on virtual time: each wait resolves once its condition holds, checked whenever the rig sees
 * an event (`poke`), or fails with STRATEGY_CHECK_INVALID after `timeoutMs` of clock time.
 *
 * @example
 * const waits = new Waits(clock);
 * feed.book$.subscribe(() => waits.poke());
 * await waits.until(() => seen >= block, 'the book on the feed', 30_000);
 */
export class Waits {
  readonly #waiters = new Set<Waiter>();
  constructor(readonly clock: VirtualClock) {}

  until(ready: () => boolean, what: string, timeoutMs: number): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timeout = this.clock.scheduler.schedule(() => {
        this.#waiters.delete(waiter);
        reject(new BaseError('STRATEGY_CHECK_INVALID', `${what} did not happen within ${timeoutMs} ms of clock time`));
      }, timeoutMs);
      const waiter: Waiter = {
        ready,
        resolve: () => {
          timeout.unsubscribe();
          resolve();
        },
      };
      this.#waiters.add(waiter);
    });
  }

  /** Something happened: resolves the waits whose condition now holds. */
  poke(): void {
    for (const waiter of this.#waiters) {
      if (!waiter.ready()) continue;
      this.#waiters.delete(waiter);
      waiter.resolve();
    }
  }
}

/**
 * A failure of a check as a BaseError (anything else is wrapped as STRATEGY_CHECK_INVALID).
 *
 * @example promise.catch((error: unknown) => fail(asCheckError(error)));
 */
export function asCheckError(error: unknown): BaseError {
  return isBaseError(error) ? error : new BaseError('STRATEGY_CHECK_INVALID', messageOf(error), { cause: error });
}
