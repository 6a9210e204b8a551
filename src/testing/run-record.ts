/**
 * What a property run of a strategy recorded: everything the invariants look at, in one plain value.
 * The scenario runner fills it while the strategy runs through the real engine on the venue model;
 * invariants (src/testing/invariants/) are pure functions of it, so each can be tested on a record
 * made by hand and a failure can be explained from the record alone.
 *
 * Times are ms after the strategy started (`at`), as everywhere in the kit.
 */
import type { RiskConfig } from '../config/run-config.ts';
import type { IntentFate } from '../execution/execution-engine.ts';
import type { FinalStatus } from '../execution/journal-record.ts';
import type { KillSwitchTrip } from '../execution/kill-switch.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import type { Intent } from '../strategy/intents.ts';
import type { OwnFill, OwnMarketState } from '../strategy/strategy-context.ts';
import type { InvalidIntent, TimedIntent, TimedState } from './scripted-market.ts';

/** The fate of one intent the strategy emitted, when it came. */
export interface TimedFate {
  readonly at: number;
  readonly intent: Intent;
  readonly fate: IntentFate;
}

/** One request the engine signed and handed to the relay (each attempt of a resend included). */
export interface SignedRequest {
  readonly at: number;
  readonly requestId: string;
  /** The request's nonce (the wallet's, strictly increasing across requests). */
  readonly nonce: bigint;
  /** True for a resend of a request already sent (same request id and nonce). */
  readonly resend: boolean;
}

/**
 * The final status of one signed request, as the engine's journal resolves it (`resolved`). A
 * retried intent has several requests and its fate names only the last, so "no request lost" is
 * judged on these: every signed request gets exactly one.
 */
export interface ResolvedRequest {
  readonly at: number;
  readonly requestId: string;
  readonly status: FinalStatus;
}

/** A sample of the engine's counters. */
export interface EngineSample {
  readonly at: number;
  /** Outcomes awaited on the connection at that moment. */
  readonly pendingOutcomes: number;
  /** Signed requests without a final status. */
  readonly unresolved: number;
}

/** A change of what the market feed says of its own health, as the strategy saw it. */
export interface FeedHealthChange {
  readonly at: number;
  readonly symbol: string;
  /** True while the book is stale: its depth polls fail (no fresh snapshot since). */
  readonly stale: boolean;
}

/** A venue block: when it executed and its number. */
export interface BlockMark {
  readonly at: number;
  readonly number: bigint;
}

export interface RunRecord {
  /** The market(s) of the run, by symbol. */
  readonly markets: ReadonlyMap<string, MarketSpec>;
  /** The run's risk limits (run-file form). */
  readonly risk: RiskConfig;
  /** The strategy's params after its schema. */
  readonly params: unknown;
  /** ms of the run (the scenario's length). */
  readonly durationMs: number;
  /** The venue's block interval, ms. */
  readonly blockMs: number;
  /** Every intent the strategy emitted, in order. */
  readonly intents: readonly TimedIntent[];
  /** Intents the kit found malformed (never sent). */
  readonly invalid: readonly InvalidIntent[];
  /** The fate of each intent that got one. */
  readonly fates: readonly TimedFate[];
  /** Every request signed, in order. */
  readonly signed: readonly SignedRequest[];
  /** Own fills, in order. */
  readonly fills: readonly OwnFill[];
  /** Every own state each market went through, by symbol. */
  readonly states: ReadonlyMap<string, readonly TimedState[]>;
  /** Engine counters, sampled at every block and every fate. */
  readonly engine: readonly EngineSample[];
  /** The kill switch's trip, if it tripped (its `atMs` is clock time; `at` is after the start). */
  readonly killSwitch: { readonly at: number; readonly trip: KillSwitchTrip } | undefined;
  /** When the run was asked to stop (ms after the start); the stop's own cancels follow. */
  readonly stoppedAt: number | undefined;
  /** Blocks the venue executed during the run. */
  readonly blocks: readonly BlockMark[];
  /**
   * The venue's truth: for each own order that left the venue's book during the run (cancelled or
   * filled), the time of the block it left in. The engine's view learns it a round trip later, or
   * much later when a fault withholds the outcome; deadlines are judged on this when it is known.
   */
  readonly venueGone?: ReadonlyMap<bigint, number>;
  /**
   * When the engine learnt of fills much later than their block (order events shown late: a lagging
   * index, a fault): its view of the orders was behind in those moments. ms after the start.
   */
  readonly lateEvents?: readonly number[];
  /** Feed health as the strategy saw it. */
  readonly feedHealth: readonly FeedHealthChange[];
  /** The maximum outcomes the relay lets one connection await (the engine keeps below it). */
  readonly maxPendingOutcomes: number;
  /** Mark price per market at the end (price units), for equity; undefined when the book was empty. */
  readonly finalMark: ReadonlyMap<string, bigint | undefined>;
  /** The strategy's own final state per market. */
  readonly finalStates: ReadonlyMap<string, OwnMarketState>;
  /** True when the strategy's intent stream completed (or errored) before the end. */
  readonly completed: boolean;
  /** The strategy's error, when its stream errored. */
  readonly error: string | undefined;
  /**
   * Clock time (ms) at which the strategy started, the origin of every `at`: an own fill's
   * `timeMs` (its block's time, clock ms) is `startMs + at`.
   */
  readonly startMs: number;
  /**
   * Own fills before the strategy started (the scenario's opening position), in order; empty when
   * it starts flat. The position limit and the accounting start from them: the engine's position,
   * realized PnL and fees count them too, and an opening position's cost basis is only in them.
   */
  readonly openingFills: readonly OwnFill[];
  /** The final status of every signed request, in order (the journal's `resolved` records). */
  readonly resolved: readonly ResolvedRequest[];
}
