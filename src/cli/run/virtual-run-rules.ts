/**
 * What a run on virtual time (`clobbot run --virtual`) requires that a live run does not: network sim
 * with the venue in this process and a duration, a journal of its own, and no fsync.
 */
import { existsSync, statSync } from 'node:fs';
import { BaseError } from '../../core/base-error.ts';
import type { NetworkName } from '../../config/network-config.ts';
import type { RunConfig } from '../../config/run-config.ts';
import { journalPath, nodeJournalFs, type JournalFs } from '../../execution/journal.ts';

/** A journal file system without fsync: a virtual run has no crash to survive, and its bytes are the same. */
export const virtualJournalFs: JournalFs = { ...nodeJournalFs, fsyncSync: () => undefined };

/** Why `--virtual` cannot run this file, if it cannot. */
export function virtualRunProblem(config: RunConfig, network: NetworkName, durationMs: number | undefined): string | undefined {
  if (network !== 'sim') return `--virtual runs against the in-process local venue: network ${network} cannot be simulated (use network sim)`;
  if (config.venueUrl !== undefined) return '--virtual runs the venue in this process: remove venueUrl from the run file (it names a running clobbot sim)';
  if (durationMs === undefined) return '--virtual needs a duration (the run file\'s duration or --duration): virtual time would otherwise run forever';
  return undefined;
}

/**
 * A virtual run starts from a fresh journal: restoring one (a live run's, or an earlier virtual run's)
 * would hold every intent behind that run's nonces, which lie ahead of the virtual clock, and would mix
 * virtual records into a real wallet's history.
 */
export function refuseEarlierJournal(dir: string, wallet: string): void {
  const path = journalPath({ dir, network: 'sim', wallet });
  if (!existsSync(path) || statSync(path).size === 0) return;
  throw new BaseError('CLI_USAGE', `run: --virtual starts from a fresh journal, but ${path} holds an earlier run's: remove it or give another --journal-dir`, {
    details: { command: 'run' },
  });
}
