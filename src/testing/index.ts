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
export { checkStrategy, type At, type CheckMarket, type CheckStrategyOptions, type CheckStrategyResult } from './check-strategy.ts';
export {
  createStrategyHarness,
  type HarnessMarket,
  type HarnessStep,
  type ScriptedFill,
  type StrategyHarness,
  type StrategyHarnessOptions,
} from './strategy-harness.ts';
export type { ScriptedAmount, ScriptedBook, ScriptedLevel, ScriptedTrade } from './scripted-market.ts';
export type { InitialOrder, InvalidIntent, RevertedIntent, TimedIntent, TimedState } from './simulated-account.ts';
