/**
 * The invariants of a property run: each a named, documented, pure check of a RunRecord
 * (docs/testing-invariants.md). `DEFAULT_INVARIANTS` is what every strategy must keep; authors add
 * their own with `defineInvariant`.
 */
import { accountingInvariant } from './accounting.ts';
import type { Invariant } from './invariant.ts';
import { killSwitchInvariant } from './kill-switch.ts';
import { noSelfCrossInvariant } from './no-self-cross.ts';
import { noncesInvariant } from './nonces.ts';
import { nothingAfterStopInvariant } from './nothing-after-stop.ts';
import { orderRateInvariant } from './order-rate.ts';
import { pendingCapInvariant } from './pending-cap.ts';
import { positionLimitInvariant } from './position-limit.ts';
import { staleFeedInvariant } from './stale-feed.ts';
import { terminalFatesInvariant } from './terminal-fates.ts';
import { validIntentsInvariant } from './valid-intents.ts';

export {
  checkInvariants,
  DEFAULT_FAULT_GRACE_MS,
  DEFAULT_KILL_BLOCKS,
  DEFAULT_STALE_BLOCKS,
  defineInvariant,
  type Invariant,
  type InvariantFinding,
  type InvariantOptions,
  type InvariantViolation,
} from './invariant.ts';
export { placementsOf, stateAt, type Placement } from './record-queries.ts';
export {
  accountingInvariant,
  killSwitchInvariant,
  noSelfCrossInvariant,
  noncesInvariant,
  nothingAfterStopInvariant,
  orderRateInvariant,
  pendingCapInvariant,
  positionLimitInvariant,
  staleFeedInvariant,
  terminalFatesInvariant,
  validIntentsInvariant,
};

/** Every invariant of the kit, in the order they are reported. */
export const DEFAULT_INVARIANTS: readonly Invariant[] = Object.freeze([
  validIntentsInvariant,
  noSelfCrossInvariant,
  positionLimitInvariant,
  orderRateInvariant,
  killSwitchInvariant,
  nothingAfterStopInvariant,
  terminalFatesInvariant,
  noncesInvariant,
  pendingCapInvariant,
  staleFeedInvariant,
  accountingInvariant,
]);
