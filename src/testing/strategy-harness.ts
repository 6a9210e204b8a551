/**
 * A strategy under test, step by step: a StrategyContext over scripted markets, a VirtualClock and
 * a simulated own state that applies each emitted intent as if confirmed (see
 * `simulated-account.ts` for what it models and what needs the venue). `checkStrategy` runs a whole
 * script through it; use the harness directly to push books and look at the state between steps.
 */
import type { Subscription } from 'rxjs';
import type { z } from 'zod';
import { BaseError, isBaseError } from '../core/base-error.ts';
import { createLogger, type Logger } from '../core/logger.ts';
import { seededRandom } from '../core/random.ts';
import { VirtualClock } from '../core/virtual-clock.ts';
import type { Address } from '../protocol/encoding.ts';
import type { StrategyDefinition } from '../strategy/define-strategy.ts';
import type { Intent } from '../strategy/intents.ts';
import type { OwnFill, OwnMarketState, StrategyContext, StrategyMarket } from '../strategy/strategy-context.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import { boundSlots, intentMarket, intentProblems } from '../strategy/intent-problems.ts';
import { ScriptedMarketFeed, sizeUnits, type ScriptedAmount, type ScriptedBook, type ScriptedTrade } from './scripted-market.ts';
import {
  SimulatedMarketAccount,
  type InitialOrder,
  type InvalidIntent,
  type RevertedIntent,
  type TimedIntent,
  type TimedState,
} from './simulated-account.ts';

/** A market of the strategy under test, with its own state at the start. */
export interface HarnessMarket {
  readonly spec: MarketSpec;
  /** Size units, signed. Default 0. */
  readonly position?: bigint;
  /** Orders already resting at the start. */
  readonly orders?: readonly InitialOrder[];
}

export interface StrategyHarnessOptions<S extends z.ZodType = z.ZodType> {
  /** Params as a run file would give them; validated with the strategy's schema. Default `{}`. */
  readonly params?: z.input<S>;
  /** The strategy's markets, in run-file order. */
  readonly markets: readonly (MarketSpec | HarnessMarket)[];
  /** Default: a new VirtualClock at 0. */
  readonly clock?: VirtualClock;
  /** Seed of `ctx.random`. Default 1. */
  readonly seed?: number;
  /** Default: silent. */
  readonly logger?: Logger;
  /** How long an intent stays pending before it is applied. Default 0 (the same instant, after the emission). */
  readonly confirmAfterMs?: number;
  /**
   * Default true: an invalid intent (slot >= 62 or twice, off-tick price, size out of range, empty,
   * trigger creation) fails the run with STRATEGY_INTENT_INVALID. False: it is only recorded in `invalid`.
   */
  readonly strict?: boolean;
}

export interface StrategyHarness {
  readonly clock: VirtualClock;
  /** Every intent emitted, with its time. */
  readonly intents: readonly TimedIntent[];
  /** Intents the simulated venue reverted (an expected order id changed, post-only would cross, no free slot, FOK unfilled). */
  readonly reverted: readonly RevertedIntent[];
  /** Intents refused as malformed (see `strict`). */
  readonly invalid: readonly InvalidIntent[];
  /** Own fills, in order. */
  readonly fills: readonly OwnFill[];
  /** True once the strategy's intent stream completed. */
  readonly completed: boolean;
  /** Subscribes to the strategy (call after scheduling same-time market data that it should see first). */
  start(): StrategyHarness;
  /** The current own state of a market (symbol optional with one market). */
  state(symbol?: string): OwnMarketState;
  /** Every state the market went through, with times. */
  history(symbol?: string): readonly TimedState[];
  /** Pushes a book now. */
  book(book: ScriptedBook, symbol?: string): void;
  /** Pushes a public trade now. */
  trade(trade: ScriptedTrade, symbol?: string): void;
  /** Fills the own order in `slot` as maker (default: all that remains). */
  fill(slot: number, size?: ScriptedAmount, symbol?: string): void;
  advanceTo(timeMs: number): void;
  advanceBy(ms: number): void;
  /** Unsubscribes from the strategy. */
  stop(): void;
  /**
   * Schedules a market event at `timeMs`. Scheduled before `start`, it reaches the strategy before
   * the strategy's own timers due at the same time.
   */
  schedule(timeMs: number, step: HarnessStep, symbol?: string): void;
}

/** A maker fill of the own order in `slot` (default: all that remains). */
export interface ScriptedFill {
  readonly slot: number;
  readonly size?: ScriptedAmount;
}

/** One market event of a script. */
export type HarnessStep = { readonly book: ScriptedBook } | { readonly trade: ScriptedTrade } | { readonly fill: ScriptedFill };

interface MarketRig {
  readonly feed: ScriptedMarketFeed;
  readonly account: SimulatedMarketAccount;
}

/**
 * A harness for one strategy. Params that fail the schema throw STRATEGY_CHECK_INVALID with the
 * issues; `start()` runs `create(ctx)`.
 *
 * @example
 * const run = createStrategyHarness(marketMaker, { params, markets: [monUsdc] }).start();
 * run.book({ bids: [['0.0349', '5000']], asks: [['0.0351', '5000']] });
 * expect(run.state().orders).toHaveLength(6);
 */
export function createStrategyHarness<S extends z.ZodType>(definition: StrategyDefinition<S>, options: StrategyHarnessOptions<S>): StrategyHarness {
  const clock = options.clock ?? new VirtualClock(0);
  const strict = options.strict ?? true;
  const confirmAfterMs = options.confirmAfterMs ?? 0;
  const parsed = definition.params.safeParse(options.params ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(params)'}: ${issue.message}`);
    throw new BaseError('STRATEGY_CHECK_INVALID', `params of ${definition.name} do not match its schema: ${issues.join('; ')}`, { details: { issues } });
  }
  if (options.markets.length === 0) throw new BaseError('STRATEGY_CHECK_INVALID', 'a strategy needs at least one market');

  const ids = { order: 1n, tx: 1n };
  const rigs = new Map<string, MarketRig>();
  const byAddress = new Map<Address, MarketRig>();
  const fills: OwnFill[] = [];
  for (const entry of options.markets) {
    const market: HarnessMarket = 'spec' in entry ? entry : { spec: entry };
    const { spec } = market;
    if (rigs.has(spec.symbol)) throw new BaseError('STRATEGY_CHECK_INVALID', `market ${spec.symbol} is given twice`);
    const account = new SimulatedMarketAccount(spec, { position: market.position, orders: market.orders, ids, now: () => clock.now() });
    account.fills$.subscribe((fill) => fills.push(fill));
    const rig = { feed: new ScriptedMarketFeed(spec), account };
    rigs.set(spec.symbol, rig);
    byAddress.set(spec.address, rig);
  }

  const markets = new Map<string, StrategyMarket>();
  for (const [symbol, rig] of rigs) markets.set(symbol, { spec: rig.feed.spec, feed: rig.feed.feed, state$: rig.account.state$, fills$: rig.account.fills$ });
  const ctx: StrategyContext<z.output<S>> = {
    params: parsed.data,
    markets,
    clock,
    random: seededRandom(options.seed ?? 1),
    logger: (options.logger ?? createLogger({ level: 'silent' })).child({ strategy: definition.name }),
  };

  const intents: TimedIntent[] = [];
  const reverted: RevertedIntent[] = [];
  const invalid: InvalidIntent[] = [];
  let completed = false;
  let started = false;
  let failure: BaseError | undefined;
  let subscription: Subscription | undefined;

  const fail = (error: BaseError) => {
    failure ??= error;
  };
  const throwIfFailed = () => {
    if (failure) throw failure;
  };
  const flush = () => {
    clock.advanceTo(clock.now());
    throwIfFailed();
  };
  const rigOf = (symbol: string | undefined): MarketRig => {
    if (symbol === undefined) {
      if (rigs.size !== 1) throw new BaseError('STRATEGY_CHECK_INVALID', `name the market: the strategy has ${rigs.size} markets`);
      return [...rigs.values()][0]!;
    }
    const rig = rigs.get(symbol);
    if (!rig) throw new BaseError('STRATEGY_CHECK_INVALID', `${symbol} is not a market of the strategy (${[...rigs.keys()].join(', ')})`);
    return rig;
  };

  const onIntent = (intent: Intent) => {
    const at = clock.now();
    intents.push({ at, intent });
    const address = intentMarket(intent);
    const rig = address === undefined ? undefined : byAddress.get(address);
    const problems = intentProblems(intent, rig?.account.spec);
    if (problems.length > 0) {
      invalid.push({ at, intent, problems });
      if (strict) {
        fail(new BaseError('STRATEGY_INTENT_INVALID', `${definition.name} emitted an invalid ${intent.type} at ${at}: ${problems.join('; ')}`, { details: { at, problems } }));
      }
      return;
    }
    if (intent.type === 'CancelTrigger') {
      clock.scheduler.schedule(() => reverted.push({ at, intent, reason: 'UNKNOWN_TRIGGER: no trigger is active' }), confirmAfterMs);
      return;
    }
    const targets = rig ? [rig.account] : [...rigs.values()].map((r) => r.account);
    const expected = rig ? rig.account.expectedIds(boundSlots(intent)) : [];
    clock.scheduler.schedule(() => {
      for (const account of targets) account.markPending();
    }, 0);
    clock.scheduler.schedule(() => {
      for (const account of targets) {
        const reason = account.settle(intent, expected, []);
        if (reason !== undefined) reverted.push({ at, intent, reason });
      }
    }, confirmAfterMs);
  };

  /** A market event now, without flushing the clock (safe inside a scheduled action). */
  const apply = (step: HarnessStep, symbol: string | undefined) => {
    const rig = rigOf(symbol);
    if ('book' in step) rig.feed.pushBook(step.book, clock.now(), (view) => rig.account.setBook(view));
    else if ('trade' in step) rig.feed.pushTrade(step.trade, clock.now());
    else {
      const { slot, size } = step.fill;
      const problem = rig.account.fillSlot(slot, size === undefined ? undefined : sizeUnits(size, rig.account.spec));
      if (problem !== undefined) fail(new BaseError('STRATEGY_CHECK_INVALID', `at ${clock.now()}: ${problem}`));
    }
  };

  const harness: StrategyHarness = {
    clock,
    intents,
    reverted,
    invalid,
    fills,
    get completed() {
      return completed;
    },
    start() {
      if (started) throw new BaseError('STRATEGY_CHECK_INVALID', 'the harness is already started');
      started = true;
      try {
        const intents$ = definition.create(ctx);
        subscription = intents$.subscribe({
          next: onIntent,
          error: (error: unknown) => fail(new BaseError('STRATEGY_FAILED', `${definition.name} failed: ${messageOf(error)}`, { cause: error })),
          complete: () => {
            completed = true;
          },
        });
      } catch (error) {
        fail(new BaseError('STRATEGY_FAILED', `${definition.name} failed to start: ${messageOf(error)}`, { cause: error }));
      }
      flush();
      return harness;
    },
    state: (symbol) => rigOf(symbol).account.state,
    history: (symbol) => rigOf(symbol).account.history,
    book(book, symbol) {
      apply({ book }, symbol);
      flush();
    },
    trade(trade, symbol) {
      apply({ trade }, symbol);
      flush();
    },
    fill(slot, size, symbol) {
      apply({ fill: size === undefined ? { slot } : { slot, size } }, symbol);
      flush();
    },
    advanceTo(timeMs) {
      clock.advanceTo(timeMs);
      throwIfFailed();
    },
    advanceBy(ms) {
      harness.advanceTo(clock.now() + ms);
    },
    stop() {
      subscription?.unsubscribe();
      subscription = undefined;
    },
    schedule(timeMs, step, symbol) {
      if (!Number.isFinite(timeMs) || timeMs < clock.now()) {
        throw new BaseError('STRATEGY_CHECK_INVALID', `a step at ${timeMs} is before the clock's ${clock.now()}`);
      }
      const rig = rigOf(symbol);
      clock.scheduler.schedule(() => {
        try {
          apply(step, rig.account.spec.symbol);
        } catch (error) {
          fail(isBaseError(error) ? error : new BaseError('STRATEGY_CHECK_INVALID', `step at ${timeMs}: ${messageOf(error)}`, { cause: error }));
        }
      }, timeMs - clock.now());
    },
  };
  return harness;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

