/**
 * `clobbot/testing`: the kit for strategy authors' tests (docs/testing-strategies.md): property runs
 * of a strategy over generated scenarios held to invariants, the scripted harness, arbitraries,
 * marble helpers and the one replay convention. Needs fast-check and vitest installed beside clobbot.
 *
 * @module clobbot/testing
 */
export {
  address as addressArbitrary,
  batch as batchIntentArbitrary,
  bytes32 as bytes32Arbitrary,
  header as intentHeaderArbitrary,
  order as orderIntentArbitrary,
  signature as signatureArbitrary,
} from './arbitraries.ts';
export { VirtualClock } from '../core/virtual-clock.ts';
export { seededRandom } from '../core/random.ts';
export { checkStrategy, DEFAULT_SETTLE_MS, type At, type CheckMarket, type CheckStrategyOptions, type CheckStrategyResult } from './check-strategy.ts';
export {
  firstViolation,
  RUN_COMPLETES,
  type PropertyCheckOptions,
  type PropertyCheckResult,
  type PropertyFailure,
  type ViolationContext,
} from './property-check.ts';
export { assertStrategy, describeScenario, formatPropertyFailure } from './assert-strategy.ts';
export {
  bookArbitrary,
  faultArbitrary,
  marketSpecArbitrary,
  midArbitrary,
  paramsArbitrary,
  regimeArbitrary,
  scenarioArbitrary,
  tapeArbitrary,
  type ParamBound,
  type ScenarioArbitraryOptions,
} from './scenario-arbitraries.ts';
export { expandScenario, scenarioDurationMs, startBook, STEP_MS, type Regime, type RegimeKind, type Scenario, type ScenarioFault, type ScenarioSegment, type ScenarioStep } from './scenario.ts';
export { OPEN_RUN_RISK, runScenario, type RunScenarioOptions } from './run-scenario.ts';
export { writeScenarioReplay, type ScenarioReplayOptions } from './scenario-replay.ts';
export type { BlockMark, EngineSample, FeedHealthChange, ResolvedRequest, RunRecord, SignedRequest, TimedFate } from './run-record.ts';
export {
  checkInvariants,
  DEFAULT_FAULT_GRACE_MS,
  DEFAULT_INVARIANTS,
  DEFAULT_KILL_BLOCKS,
  DEFAULT_STALE_BLOCKS,
  defineInvariant,
  type Invariant,
  type InvariantFinding,
  type InvariantOptions,
  type InvariantViolation,
  placementsOf,
  stateAt,
  type Placement,
} from './invariants/index.ts';
export { fuzzSettings, replayLine, FUZZ_PATH_VAR, FUZZ_RUNS_VAR, FUZZ_SEED_VAR, type FuzzDefaults, type FuzzEnv } from './fuzz-settings.ts';
export { createMarbleScheduler, marbleClock, runMarbles, type MarbleClock, type MarbleHelpers } from './marbles.ts';
export {
  createStrategyHarness,
  DEFAULT_CHECK_BLOCK_MS,
  DEFAULT_CHECK_LATENCY_MS,
  type HarnessMarket,
  type HarnessParts,
  type HarnessStep,
  type StrategyHarness,
  type StrategyHarnessOptions,
} from './strategy-harness.ts';
export type {
  InitialOrder,
  InvalidIntent,
  RefusedIntent,
  RevertedIntent,
  ScriptedAmount,
  ScriptedBook,
  ScriptedFill,
  ScriptedLevel,
  ScriptedTrade,
  TimedIntent,
  TimedState,
} from './scripted-market.ts';
