/**
 * `pending-cap`: in every sample of the engine's counters, the outcomes awaited on the connection
 * stay below `maxPendingOutcomes`, the most the relay lets one connection await. Why: the relay
 * closes a WebSocket that would await one more, and every request in flight then needs
 * reconciling.
 */
import type { RunRecord } from '../run-record.ts';
import { defineInvariant, type InvariantFinding } from './invariant.ts';

function check(record: RunRecord): InvariantFinding | undefined {
  const over = record.engine.find((sample) => sample.pendingOutcomes >= record.maxPendingOutcomes);
  if (over === undefined) return undefined;
  return {
    at: over.at,
    message: `${over.pendingOutcomes} outcomes were pending at ${over.at} ms: not below the relay's limit of ${record.maxPendingOutcomes}`,
    details: { pendingOutcomes: over.pendingOutcomes, maxPendingOutcomes: record.maxPendingOutcomes },
  };
}

export const pendingCapInvariant = defineInvariant('pending-cap', 'Outcomes awaited on the relay connection stay below maxPendingOutcomes in every engine sample.', check);
