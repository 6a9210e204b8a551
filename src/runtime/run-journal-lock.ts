/**
 * The run's hold on its wallet's journal, taken before the run touches the venue: a second bot on
 * the same wallet and journal directory is refused (JOURNAL_LOCKED) before it funds, signs in or
 * opens a relay connection, any of which would disturb the running bot (a second relay connection
 * of a wallet replaces the first). The engine's journal takes the same lock when it opens; a lock of
 * this very process is taken over (src/execution/journal-lock.ts), and only the holder's token
 * removes it, so whichever of the two holds it last lets it go.
 */
import { dirname, resolve } from 'node:path';
import { BaseError } from '../core/base-error.ts';
import { lockJournal, type JournalLock } from '../execution/journal-lock.ts';
import { journalPath, type JournalFs } from '../execution/journal.ts';

export interface RunJournalLockParameters {
  readonly dir: string;
  readonly network: string;
  readonly wallet: string;
}

/** Makes `dir` and its missing parents one level at a time (never `recursive`: see JournalFs). */
function makeDirectories(fs: JournalFs, dir: string): void {
  const missing: string[] = [];
  for (let at = resolve(dir); !fs.existsSync(at); at = dirname(at)) {
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  try {
    for (const path of missing) fs.mkdirSync(path, { mode: 0o700 });
  } catch (error) {
    throw new BaseError('JOURNAL_UNAVAILABLE', `journal directory ${dir}: cannot be created`, { details: { path: dir }, cause: error });
  }
}

/**
 * Takes the lock of the journal of (network, wallet) in `dir`, making the directory when missing.
 * Throws JOURNAL_LOCKED naming the holder, or JOURNAL_UNAVAILABLE.
 *
 * @example
 * const lock = lockRunJournal({ fs: nodeJournalFs, now: () => clock.now() }, { dir, network: 'sim', wallet });
 * try { … connect, trade … } finally { lock.release(); }
 */
export function lockRunJournal(context: { readonly fs: JournalFs; readonly now: () => number }, params: RunJournalLockParameters): JournalLock {
  const path = journalPath(params);
  makeDirectories(context.fs, params.dir);
  return lockJournal(context, path);
}
