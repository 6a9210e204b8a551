/**
 * One property run: a strategy through the real engine on the venue model (the strategy harness) over
 * a scenario's market, on a VirtualClock, recorded whole in a RunRecord for the invariants.
 *
 * The scenario's steps are put on the venue at their times whether or not the strategy's feed keeps
 * up (a stale feed is part of the scenario); the engine's journal is read as it is appended
 * (journal-tap.ts); the engine's counters and the venue's own book are sampled at every block.
 */
import { Subscription } from 'rxjs';
import type { z } from 'zod';
import type { RiskConfig } from '../config/run-config.ts';
import { DEFAULT_ENGINE_TUNING } from '../execution/create-execution-engine.ts';
import { ORDER_EVENTS_CACHE_MS, RELAY_PENDING_OUTCOME_LIMIT } from '../protocol/constants.ts';
import type { StrategyDefinition } from '../strategy/define-strategy.ts';
import type { Intent } from '../strategy/intents.ts';
import type { OwnFill, OwnMarketState } from '../strategy/strategy-context.ts';
import { journalTap } from './journal-tap.ts';
import type { BlockMark, EngineSample, FeedHealthChange, RunRecord, TimedFate } from './run-record.ts';
import { expandScenario, scenarioDurationMs, startBook, type Scenario } from './scenario.ts';
import { createStrategyHarness, DEFAULT_CHECK_BLOCK_MS } from './strategy-harness.ts';
import type { FeedHealth } from '../market/feed-health.ts';

export interface RunScenarioOptions<S extends z.ZodType> {
  readonly params: z.input<S>;
  /** The run's risk limits (run-file form); default open. */
  readonly risk?: Partial<RiskConfig>;
  /** Seeds the run (wallet, venue secrets, the connection's delays); default 1. */
  readonly seed?: number;
  /** A block every this many ms; default 400. */
  readonly blockMs?: number;
}

/**
 * How long the stop of a property run waits for every signed request: past the intents' deadline
 * (60 s) and the engine's reconciliation grace, so that a request lost to a fault is proven dropped
 * within the run rather than left to the next start.
 */
const SETTLE_AFTER_STOP_MS = 90_000;

/**
 * A fill that reaches the engine later than this after its block came late: the venue's order-events
 * cache, plus the engine's poll period between reads.
 */
const LATE_EVENT_MS = ORDER_EVENTS_CACHE_MS + DEFAULT_ENGINE_TUNING.pollMs;

/** The risk limits of a property run when none are given: wide enough never to refuse a sane intent. */
export const OPEN_RUN_RISK: RiskConfig = {
  maxPosition: '1000000000000',
  maxOrderSize: '1000000000000',
  maxNotional: '1000000000000000',
  priceBandBps: 10_000,
  maxOrdersPerSecond: 10_000,
  maxOpenOrders: 100_000,
};

/** The book is what a quote stands on: the feed counts as stale while its depth source is. */
const staleOf = (health: FeedHealth) => health.depth.status === 'stale';

/**
 * @example
 * const record = await runScenario(marketMaker, scenario, { params });
 * for (const invariant of DEFAULT_INVARIANTS) invariant.check(record, {});
 */
export async function runScenario<S extends z.ZodType>(definition: StrategyDefinition<S>, scenario: Scenario, options: RunScenarioOptions<S>): Promise<RunRecord> {
  const spec = scenario.market;
  const symbol = spec.symbol;
  const steps = expandScenario(scenario);
  const durationMs = scenarioDurationMs(scenario);
  const blockMs = options.blockMs ?? DEFAULT_CHECK_BLOCK_MS;
  const risk: RiskConfig = { ...OPEN_RUN_RISK, ...options.risk };

  let now = () => 0;
  const journal = journalTap(() => now());

  const harness = createStrategyHarness(definition, {
    params: options.params,
    markets: [{ spec, book: startBook(scenario) }],
    seed: options.seed ?? 1,
    blockMs,
    risk,
    journalFs: journal.fs,
    // An invalid intent is recorded (and never sent) for the valid-intents invariant to name, not thrown.
    strict: false,
    stopTimeoutMs: SETTLE_AFTER_STOP_MS,
  });

  const fates: TimedFate[] = [];
  const engine: EngineSample[] = [];
  const blocks: BlockMark[] = [];
  const feedHealth: FeedHealthChange[] = [];
  const venueGone = new Map<bigint, number>();
  const lateEvents: number[] = [];
  let killSwitch: RunRecord['killSwitch'];
  let stoppedAt: number | undefined;
  let error: string | undefined;
  let lastMid: bigint | undefined;
  const subscriptions = new Subscription();
  let finalStates = new Map<string, OwnMarketState>();
  let fillsAtEnd: OwnFill[] | undefined;

  const recordOf = (): RunRecord => ({
    markets: new Map([[symbol, spec]]),
    risk,
    params: options.params,
    durationMs,
    blockMs,
    intents: [...harness.intents],
    invalid: [...harness.invalid],
    fates,
    signed: journal.signed,
    fills: fillsAtEnd ?? [...harness.fills],
    states: new Map([[symbol, [...harness.history(symbol)]]]),
    engine,
    killSwitch,
    stoppedAt,
    blocks,
    feedHealth,
    venueGone,
    lateEvents,
    maxPendingOutcomes: RELAY_PENDING_OUTCOME_LIMIT,
    finalMark: new Map([[symbol, lastMid]]),
    finalStates,
    completed: harness.completed || error !== undefined,
    error,
    startMs: harness.startMs,
    // A scenario starts flat: no fill before the strategy starts.
    openingFills: [],
    resolved: journal.resolved,
  });

  try {
    try {
      await harness.start();
    } catch (failure) {
      // The strategy cannot start on this market (its params do not fit it, it throws): the run's failure.
      error = failure instanceof Error ? failure.message : String(failure);
      return recordOf();
    }
    now = () => harness.now();
    const { engine: theEngine, model, markets, accountId } = harness.parts();
    // The strategy's intents so far (a fate of any other request, the stop's cancels, is not the strategy's).
    const mine = new Set<Intent>();
    let seen = 0;
    const sample = () => {
      const stats = theEngine.stats();
      engine.push({ at: harness.now(), pendingOutcomes: stats.pendingOutcomes, unresolved: stats.unresolved });
    };
    subscriptions.add(
      theEngine.reports$.subscribe(({ intent, fate }) => {
        for (; seen < harness.intents.length; seen += 1) mine.add(harness.intents[seen]!.intent);
        if (!mine.has(intent)) return;
        fates.push({ at: harness.now(), intent, fate });
        sample();
      }),
    );
    let resting = new Set<bigint>();
    subscriptions.add(
      model.blocks$.subscribe((block) => {
        const at = block.timestamp - harness.startMs;
        blocks.push({ at, number: block.number });
        const open = new Set(model.openOrders(accountId, spec.address).map((order) => order.id));
        for (const id of resting) if (!open.has(id)) venueGone.set(id, at);
        resting = open;
        sample();
      }),
    );
    subscriptions.add(
      theEngine.killSwitch.tripped$.subscribe((trip) => {
        killSwitch = { at: trip.atMs - harness.startMs, trip };
      }),
    );
    for (const [name, market] of markets) {
      let stale: boolean | undefined;
      subscriptions.add(
        market.feed.health$.subscribe((health) => {
          const isStale = staleOf(health);
          if (isStale === stale) return;
          stale = isStale;
          feedHealth.push({ at: harness.now(), symbol: name, stale: isStale });
        }),
      );
      subscriptions.add(
        market.fills$.subscribe((fill) => {
          if (harness.now() - (fill.timeMs - harness.startMs) > LATE_EVENT_MS) lateEvents.push(harness.now());
        }),
      );
      // The mid in price units (a Decimal: half of bid + ask), floored for the mark.
      subscriptions.add(market.feed.mid$.subscribe((mid) => (lastMid = BigInt(mid.floor().toFixed(0)))));
    }
    if (scenario.killAt !== undefined) {
      harness.clock.scheduler.schedule(() => theEngine.kill('the scenario trips the kill switch'), Math.max(0, harness.startMs + scenario.killAt - harness.clock.now()));
    }
    for (const step of steps) {
      harness.clock.scheduler.schedule(() => harness.post(step), Math.max(0, harness.startMs + step.at - harness.clock.now()));
    }
    try {
      await harness.advanceTo(durationMs);
    } catch (failure) {
      error = failure instanceof Error ? failure.message : String(failure);
    }
    stoppedAt = harness.now();
    // The final state and the fills that made it, taken together (the stop's cancels come after).
    finalStates = new Map([[symbol, harness.state(symbol)]]);
    fillsAtEnd = [...harness.fills];
  } finally {
    try {
      await harness.stop();
    } finally {
      subscriptions.unsubscribe();
    }
  }
  return recordOf();
}
