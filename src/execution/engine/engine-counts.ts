/**
 * The engine's counters (EngineStats), one object shared by the parts that see what they count:
 * the tickets (refused, superseded, nothing to do), the sender (signed) and the requests (outcomes,
 * rejections, reconnects). The engine's stats snapshot copies them.
 */
import type { EngineStats } from '../execution-engine.ts';

type Counted = Omit<EngineStats, 'maxPendingOutcomes' | 'pendingOutcomes' | 'unresolved' | 'queued' | 'carriedOver'>;

export type EngineCounts = { -readonly [K in keyof Counted]: number };

export function newEngineCounts(): EngineCounts {
  return {
    signed: 0,
    confirmed: 0,
    reverted: 0,
    staleSlotReverts: 0,
    dropped: 0,
    rejected: 0,
    refused: 0,
    superseded: 0,
    nothingToDo: 0,
    reconnects: 0,
    reconciled: 0,
  };
}
