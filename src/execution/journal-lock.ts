/**
 * One wallet, one running bot: the journal of (network, wallet) is held by one process at a time
 * through a lock file beside it (`<journal>.lock`, created exclusively, holding its owner's pid, host
 * and start). A second process is refused with JOURNAL_LOCKED naming the owner; two bots on one wallet
 * would replace each other's relay connection, revert each other's requests and overwrite each
 * other's journal records. A lock left by a process of this host that is no longer running is stale
 * and taken over; a lock of another host cannot be checked and is never taken over. A lock of this
 * very process (a journal reopened after an engine of it crashed, as the crash tests do) is taken
 * over too; each lock's token makes sure only its own holder removes it.
 */
import { hostname } from 'node:os';
import { BaseError } from '../core/base-error.ts';
import type { JournalFs } from './journal.ts';

/** Who holds a journal. */
export interface JournalLockOwner {
  readonly pid: number;
  readonly host: string;
  /** ISO time the lock was taken. */
  readonly since: string;
  /** This lock, among the locks one process takes. */
  readonly token: string;
}

let locksTaken = 0;

export interface JournalLockContext {
  readonly fs: JournalFs;
  /** This process: default `process.pid` on `os.hostname()`. */
  readonly self?: { readonly pid: number; readonly host: string };
  /** Whether a process of this host runs: default `process.kill(pid, 0)` (EPERM counts as running). */
  readonly isRunning?: (pid: number) => boolean;
  /** Clock time, for the lock's `since`. */
  readonly now: () => number;
}

export interface JournalLock {
  readonly path: string;
  /** Removes the lock file when it is still this process's. Idempotent. */
  release(): void;
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code;

function readOwner(fs: JournalFs, path: string): JournalLockOwner | undefined {
  try {
    const owner = JSON.parse(new TextDecoder().decode(fs.readFileSync(path))) as Partial<JournalLockOwner>;
    return typeof owner.pid === 'number' && typeof owner.host === 'string' ? { pid: owner.pid, host: owner.host, since: String(owner.since ?? ''), token: String(owner.token ?? '') } : undefined;
  } catch {
    // Unreadable, or being written this instant: treated as held, never taken over.
    return undefined;
  }
}

/**
 * Takes the lock of the journal at `journalPath`, or throws JOURNAL_LOCKED naming its holder.
 *
 * @example
 * const lock = lockJournal({ fs, now: () => clock.now() }, journalPath);
 * try { … } finally { lock.release(); }
 */
export function lockJournal(context: JournalLockContext, journalPath: string): JournalLock {
  const { fs } = context;
  const self = context.self ?? { pid: process.pid, host: hostname() };
  const isRunning = context.isRunning ?? processRuns;
  const path = `${journalPath}.lock`;
  const token = `${self.pid}-${(locksTaken += 1)}`;
  const mine = JSON.stringify({ pid: self.pid, host: self.host, since: new Date(context.now()).toISOString(), token } satisfies JournalLockOwner);
  const take = (mayTakeOver: boolean): JournalLock => {
    let fd: number;
    try {
      fd = fs.openSync(path, 'wx', 0o600);
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw new BaseError('JOURNAL_UNAVAILABLE', `journal ${journalPath}: cannot create its lock ${path}`, { details: { path }, cause: error });
      const owner = readOwner(fs, path);
      if (mayTakeOver && owner !== undefined && owner.host === self.host && (owner.pid === self.pid || !isRunning(owner.pid))) {
        fs.unlinkSync(path);
        return take(false);
      }
      const holder = owner === undefined ? 'another process' : `process ${owner.pid} on ${owner.host}${owner.since === '' ? '' : ` since ${owner.since}`}`;
      throw new BaseError(
        'JOURNAL_LOCKED',
        `journal ${journalPath} is in use by ${holder}: one wallet, one running bot. Stop that bot first; if it is gone and ${path} stays, remove that file.`,
        { details: { path, ...(owner === undefined ? {} : { pid: owner.pid, host: owner.host }) } },
      );
    }
    const bytes = new TextEncoder().encode(mine);
    try {
      fs.writeSync(fd, bytes, 0, bytes.length);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    let released = false;
    return {
      path,
      release() {
        if (released) return;
        released = true;
        // Only this lock: one taken over since must not be undone.
        if (readOwner(fs, path)?.token === token) fs.unlinkSync(path);
      },
    };
  };
  return take(true);
}
