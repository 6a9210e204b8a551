/**
 * The kinds of config file clobbot reads, and how to tell them apart when the user does not say.
 */
import { runConfigSchema } from './run-config.ts';
import { simConfigSchema } from './sim-config.ts';

export const CONFIG_KINDS = ['run', 'sim'] as const;
export type ConfigKind = (typeof CONFIG_KINDS)[number];

/** The schema of each kind. */
export const configSchemas = { run: runConfigSchema, sim: simConfigSchema } as const;

/**
 * The kind of a parsed config document: a top-level `strategies` key makes a run file, `markets`
 * with `tokens` a sim config; anything else is undefined.
 *
 * @example inferConfigKind({ strategies: [] }) // 'run'
 */
export function inferConfigKind(data: unknown): ConfigKind | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  if ('strategies' in data) return 'run';
  if ('markets' in data && 'tokens' in data) return 'sim';
  return undefined;
}
