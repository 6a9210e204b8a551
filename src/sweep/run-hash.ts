/**
 * The address of one run of a sweep (its directory `runs/<hash>/`): a hash of everything its result
 * depends on, so a run done once is never done again, by this sweep resumed, by a repeat, or by a
 * larger sweep that contains it. What goes in: the run file's content, the params and their values,
 * the files the run file names (strategy modules given as files, the sim config) by content, the
 * feed's SHA-256, the code version (package version and git commit), the seed, the queue model and
 * the time range.
 */
import { createHash } from 'node:crypto';
import type { QueueModelConfigInput } from '../backtest/queue-model.ts';

export interface RunHashInputs {
  readonly runFileSha256: string;
  /** `[name, value]` of each swept param, in the order given. */
  readonly params: readonly (readonly [string, string])[];
  /** SHA-256 of each file the run file names, by the name it gives. */
  readonly namedFiles: Readonly<Record<string, string>>;
  readonly feedSha256: string;
  readonly code: { readonly version: string | null; readonly commit: string | null };
  readonly seed: number;
  readonly queue: QueueModelConfigInput | null;
  readonly fromMs: number | null;
  readonly toMs: number | null;
}

/** Hex characters of a run's hash: 64 bits, no collision in any sweep a machine can run. */
const HASH_LENGTH = 16;

/** The SHA-256 of a text, hex. */
export const textSha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * @example runHash({ runFileSha256, params: [['spreadBps', '4']], namedFiles: {}, feedSha256, code, seed: 1, queue: null, fromMs: null, toMs: null }) // '3f9a0c…' (16 hex)
 */
export function runHash(inputs: RunHashInputs): string {
  const files = Object.keys(inputs.namedFiles)
    .sort()
    .map((name) => [name, inputs.namedFiles[name]]);
  // An array in a fixed order: the same inputs give the same bytes whatever the objects' key order.
  const canonical = [1, inputs.runFileSha256, inputs.params, files, inputs.feedSha256, inputs.code.version, inputs.code.commit, inputs.seed, inputs.queue, inputs.fromMs, inputs.toMs];
  return textSha256(JSON.stringify(canonical)).slice(0, HASH_LENGTH);
}
