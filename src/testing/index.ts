/**
 * `clobbot/testing`: the kit for strategy authors' tests. Needs fast-check installed beside clobbot.
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
  createStrategyHarness,
  DEFAULT_CHECK_BLOCK_MS,
  DEFAULT_CHECK_LATENCY_MS,
  type HarnessMarket,
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
