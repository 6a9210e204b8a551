/**
 * `nothing-after-stop`: the strategy emits no intent after the run was asked to stop (`stoppedAt`;
 * one emitted at that very ms still counts as before). Why: stopping unsubscribes the strategy and
 * cancels its orders; an intent after that would race the stop's own cancels.
 */
import type { RunRecord } from '../run-record.ts';
import { defineInvariant, type InvariantFinding } from './invariant.ts';
import { describeIntent } from './record-queries.ts';

function check(record: RunRecord): InvariantFinding | undefined {
  const stoppedAt = record.stoppedAt;
  if (stoppedAt === undefined) return undefined;
  const index = record.intents.findIndex(({ at }) => at > stoppedAt);
  if (index < 0) return undefined;
  const { at, intent } = record.intents[index]!;
  return {
    at,
    message: `${describeIntent(record, { index, at, intent })} was emitted ${at - stoppedAt} ms after the stop at ${stoppedAt} ms`,
    details: { index, stoppedAt },
  };
}

export const nothingAfterStopInvariant = defineInvariant('nothing-after-stop', 'No intent is emitted after the run was asked to stop.', check);
