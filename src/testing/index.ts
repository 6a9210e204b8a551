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
