/**
 * The execution journal: an append-only file per (network, wallet) of every signed request, the
 * relay's immediate answer, the terminal outcome and the reconciliation result, so a restart restores
 * the nonce floor and reconciles whatever was unresolved. "A crash between signing and sending loses
 * nothing and duplicates nothing": the engine writes the `planned` record (nonce and plan) and has it
 * fsynced while the signature is computed (`write`, then `sync`: journal-sync.ts), writes the
 * `signed` record, and sends only once the fsync is done; it never signs a nonce at or below the floor.
 * `append` writes and fsyncs before it returns.
 *
 * File: `<dir>/<network>-<wallet>.journal.jsonl`, mode 0600, one record per line (journal-record.ts).
 *
 * Reading (`openJournal`):
 * - bytes after the last newline are a torn write (a crash inside `append`, which had not returned):
 *   they are ignored and truncated away, unless a whole record is among them with more after it (a
 *   damaged line end, JOURNAL_CORRUPT: an acknowledged record is never dropped);
 * - any complete line that fails its checksum or schema, whose `seq` does not increase, or that
 *   does not name the checksum of the line before it (a line between them was deleted), is
 *   corruption: JOURNAL_CORRUPT naming the line (nothing is guessed);
 * - a compaction temp file left behind is deleted: the journal file itself is always complete
 *   (the temp file replaces it only by an atomic rename after being fsynced).
 *
 * The journal holds signed bodies (public once sent), never a key or a JWT: records are strict
 * (no field beyond the schema) and `append` refuses any record that carries a JWT
 * (JOURNAL_RECORD_INVALID). Keys never reach the engine's records: signing happens behind a signer.
 *
 * Why one file of this size: opening (replay and truncation of a torn tail), appending and compaction
 * share the file descriptor and the crash-safety rules; split, each part would have to re-state them.
 */
import * as nodeFs from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { BaseError, isBaseError } from '../core/base-error.ts';
import type { Clock } from '../core/clock.ts';
import { lockJournal, type JournalLock } from './journal-lock.ts';
import type { RelayMethodName } from '../protocol/constants.ts';
import type { Hex } from '../protocol/encoding.ts';
import {
  decodeJournalLine,
  encodeJournalLine,
  FIRST_LINE_PREV,
  journalLineCrc,
  readJournalLine,
  journalRecordSchema,
  type IntentSummary,
  type JournalRecord,
  type JournalRecordInput,
  type JournalTransport,
  type LedgerRecord,
  type OutcomeRecord,
  type PlannedRecord,
  type ResponseRecord,
  type SignedRecord,
} from './journal-record.ts';
import { fastJournalRecord } from './journal-fast-record.ts';
import { JournalSync, type Flush } from './journal-sync.ts';

/** The file-system calls the journal makes: node:fs by default; tests inject failures and spies. */
export interface JournalFs {
  /** `wx`: create, failing with EEXIST when the file exists (the journal's lock). */
  openSync(path: string, flags: 'a' | 'r' | 'r+' | 'w' | 'wx', mode?: number): number;
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number): number;
  fsyncSync(fd: number): void;
  /** fsync off the main thread (libuv's thread pool); without it `Journal.sync` fsyncs synchronously. */
  fsync?(fd: number, done: (error: unknown) => void): void;
  ftruncateSync(fd: number, length: number): void;
  closeSync(fd: number): void;
  readFileSync(path: string): Uint8Array;
  renameSync(from: string, to: string): void;
  unlinkSync(path: string): void;
  existsSync(path: string): boolean;
  /** One directory, its parent existing (never `recursive`: Node's recursive mkdir spins forever under /proc). */
  mkdirSync(path: string, options: { mode?: number }): void;
}

/**
 * The real file system, fsyncing on the main thread (what tests and virtual runs build on: no
 * callback from the thread pool can come at an unknown point of virtual time).
 */
export const nodeJournalFs: JournalFs = {
  openSync: (path, flags, mode) => nodeFs.openSync(path, flags, mode),
  writeSync: (fd, buffer, offset, length) => nodeFs.writeSync(fd, buffer, offset, length),
  fsyncSync: (fd) => nodeFs.fsyncSync(fd),
  ftruncateSync: (fd, length) => nodeFs.ftruncateSync(fd, length),
  closeSync: (fd) => nodeFs.closeSync(fd),
  readFileSync: (path) => nodeFs.readFileSync(path),
  renameSync: (from, to) => nodeFs.renameSync(from, to),
  unlinkSync: (path) => nodeFs.unlinkSync(path),
  existsSync: (path) => nodeFs.existsSync(path),
  mkdirSync: (path, options) => {
    nodeFs.mkdirSync(path, options);
  },
};

/** The real file system with fsync on the thread pool: the engine's default. */
export const liveJournalFs: JournalFs = { ...nodeJournalFs, fsync: (fd, done) => nodeFs.fsync(fd, done) };

/** A planned or signed request without a `resolved` record, with everything the journal knows of it. */
export interface UnresolvedRequest {
  readonly requestId: string;
  readonly nonce: bigint;
  readonly method: RelayMethodName;
  readonly intent: IntentSummary | null;
  /** The exact wire JSON text that was (or was about to be) sent; undefined when only its `planned` record was written. */
  readonly body: string | undefined;
  /** Its wire JSON text with an all-zero signature, from its `planned` record (undefined for requests signed without one). */
  readonly unsigned: string | undefined;
  /** Clock time of its first record (`planned`, or `signed`). */
  readonly signedAt: number;
  /** Each transport it left on, in order; empty: it was signed but maybe never sent. */
  readonly sends: readonly JournalTransport[];
  /** The last immediate answer, if any arrived. */
  readonly response: ResponseRecord | undefined;
  /** Its terminal outcome, if one arrived (then only the `resolved` record is missing). */
  readonly outcome: OutcomeRecord | undefined;
  /** The outcome's transaction hash, else the answer's (txHash or candidateTxHash). */
  readonly txHash: Hex | undefined;
}

/** What `openJournal` found in the file. */
export interface RestoredJournal {
  /** The highest nonce ever signed or recorded; 0n for a new journal. */
  readonly nonceFloor: bigint;
  /** Signed requests without a `resolved` record, in signing order: reconcile each. */
  readonly unresolved: readonly UnresolvedRequest[];
  /** Complete records read. */
  readonly records: number;
  /** Bytes of a torn last line that were truncated away (0 when none). */
  readonly truncatedBytes: number;
  /** True when a compaction temp file was left behind and deleted. */
  readonly removedTempFile: boolean;
  /** The newest ledger checkpoint, if any. */
  readonly ledger: LedgerRecord | undefined;
}

export interface JournalContext {
  readonly clock: Pick<Clock, 'now'>;
  /** Default: node:fs. */
  readonly fs?: JournalFs;
  /** Whether a process of this host runs (a stale lock's test). Default `process.kill(pid, 0)`. */
  readonly isRunning?: (pid: number) => boolean;
}

export interface OpenJournalParameters {
  /** Directory of the journals; created when missing. */
  readonly dir: string;
  /** Network name: lowercase letters, digits and `-` (mainnet, testnet, sim). */
  readonly network: string;
  /** The trading wallet address. */
  readonly wallet: string;
}

interface Entry {
  readonly first: PlannedRecord | SignedRecord;
  readonly nonce: bigint;
  body: string | undefined;
  readonly records: JournalRecord[];
  readonly sends: JournalTransport[];
  response: ResponseRecord | undefined;
  outcome: OutcomeRecord | undefined;
}

/** The journal's running state, built by applying records in order (on reading and on appending). */
class JournalState {
  readonly entries = new Map<string, Entry>();
  nonceFloor = 0n;
  ledger: LedgerRecord | undefined;
  lastSeq = 0;
  records = 0;
  /** The checksum of the file's last line: the `prev` of the next. */
  lastCrc = FIRST_LINE_PREV;

  apply(record: JournalRecord): void {
    this.lastSeq = record.seq;
    this.records += 1;
    switch (record.kind) {
      case 'planned':
      case 'signed': {
        const planned = this.entries.get(record.requestId);
        if (planned !== undefined && record.kind === 'signed') {
          planned.body = record.body;
          planned.records.push(record);
          return;
        }
        const nonce = BigInt(record.nonce);
        if (nonce > this.nonceFloor) this.nonceFloor = nonce;
        const body = record.kind === 'signed' ? record.body : undefined;
        this.entries.set(record.requestId, { first: record, nonce, body, records: [record], sends: [], response: undefined, outcome: undefined });
        return;
      }
      case 'nonce-floor': {
        const nonce = BigInt(record.nonce);
        if (nonce > this.nonceFloor) this.nonceFloor = nonce;
        return;
      }
      case 'resolved':
        this.entries.delete(record.requestId);
        return;
      case 'ledger':
        this.ledger = record;
        return;
      default: {
        // Records of a request that is resolved already (a late answer) change nothing.
        const entry = this.entries.get(record.requestId);
        if (entry === undefined) return;
        entry.records.push(record);
        if (record.kind === 'sent') entry.sends.push(record.transport);
        else if (record.kind === 'response') entry.response = record;
        else entry.outcome = record;
      }
    }
  }

  view(entry: Entry): UnresolvedRequest {
    const { first } = entry;
    return {
      requestId: first.requestId,
      nonce: entry.nonce,
      method: first.method as RelayMethodName,
      intent: first.intent,
      body: entry.body,
      unsigned: first.kind === 'planned' ? first.unsigned : undefined,
      signedAt: first.at,
      sends: [...entry.sends],
      response: entry.response,
      outcome: entry.outcome,
      txHash: entry.outcome?.txHash ?? entry.response?.txHash,
    };
  }

  unresolved(): UnresolvedRequest[] {
    return [...this.entries.values()].map((entry) => this.view(entry));
  }
}

const NETWORK_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;
const WALLET = /^0x[0-9a-fA-F]{40}$/;

/** Where the journal of (network, wallet) lives: `<dir>/<network>-<wallet lowercase>.journal.jsonl`. */
export function journalPath(params: OpenJournalParameters): string {
  if (!NETWORK_NAME.test(params.network)) {
    throw new BaseError('JOURNAL_UNAVAILABLE', `cannot name a journal for network ${JSON.stringify(params.network)}`, {
      details: { network: params.network },
    });
  }
  if (!WALLET.test(params.wallet)) {
    throw new BaseError('JOURNAL_UNAVAILABLE', 'cannot name a journal for a wallet that is not a 20-byte hex address', {
      details: { wallet: params.wallet },
    });
  }
  return join(params.dir, `${params.network}-${params.wallet.toLowerCase()}.journal.jsonl`);
}

/** The compaction temp file beside the journal at `path`. */
export function compactionTempPath(path: string): string {
  return `${path}.compact-tmp`;
}

const NEWLINE = 0x0a;
/** Three base64url segments, the first starting like a JSON object (`{"` = `eyJ`): a JWT. */
const JWT_SHAPE = /eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/;
const FILE_MODE = 0o600;

function unavailable(message: string, path: string, cause: unknown): BaseError {
  return new BaseError('JOURNAL_UNAVAILABLE', `journal ${path}: ${message}`, { details: { path }, cause });
}

/** Creates `dir` and its missing parents one at a time, so that an unusable path fails at once. */
function makeDirectories(fs: JournalFs, dir: string): void {
  const missing: string[] = [];
  for (let at = resolve(dir); !fs.existsSync(at); at = dirname(at)) {
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const path of missing) fs.mkdirSync(path, { mode: 0o700 });
}

function writeAll(fs: JournalFs, fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += fs.writeSync(fd, bytes, offset, bytes.length - offset);
}

function fsyncDirectory(fs: JournalFs, dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads the complete lines of `bytes` into `state`; returns the length of the complete prefix. */
function readRecords(bytes: Uint8Array, path: string, state: JournalState): number {
  const end = bytes.lastIndexOf(NEWLINE) + 1;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, end).toString('utf8');
  const lines = text.split('\n');
  lines.pop(); // the empty string after the last newline
  let linked = true;
  lines.forEach((line, index) => {
    const lineNumber = index + 1;
    const { record, prev, crc } = readJournalLine(line, { path, lineNumber });
    // Lines written before links existed have none; a link after them names the last one's checksum.
    if (prev === undefined ? index > 0 && linked : prev !== state.lastCrc) {
      const why = prev === undefined ? 'has no link to the line before it, as every line after the first linked one must' : `names ${prev} as the checksum of the line before it, which is ${state.lastCrc}`;
      throw new BaseError('JOURNAL_CORRUPT', `journal ${path} line ${lineNumber}: it ${why}: a line between them was deleted, or one of them altered`, {
        details: { path, line: lineNumber, problem: 'link-broken' },
      });
    }
    linked = prev !== undefined;
    if (record.seq <= state.lastSeq) {
      throw new BaseError('JOURNAL_CORRUPT', `journal ${path} line ${lineNumber}: seq ${record.seq} does not follow ${state.lastSeq}`, {
        details: { path, line: lineNumber, problem: 'seq-not-increasing' },
      });
    }
    state.apply(record);
    state.lastCrc = crc;
  });
  checkTail(Buffer.from(bytes.buffer, bytes.byteOffset + end, bytes.length - end).toString('utf8'), path, lines.length + 1);
  return end;
}

/** A record's end: its checksum and closing brace. */
const RECORD_END = /,"crc":"[0-9a-f]{8}"\}/g;

/**
 * The bytes after the last newline are a torn write (a prefix of one line, its newline last) unless
 * a whole record is among them with more after it: then a written record's newline was damaged (a
 * flipped bit), and dropping the tail would drop an acknowledged record. That is corruption.
 */
function checkTail(tail: string, path: string, lineNumber: number): void {
  for (const match of tail.matchAll(RECORD_END)) {
    const recordEnd = match.index + match[0].length;
    if (recordEnd >= tail.length) continue;
    try {
      decodeJournalLine(tail.slice(0, recordEnd), { path, lineNumber });
    } catch {
      continue;
    }
    throw new BaseError('JOURNAL_CORRUPT', `journal ${path} line ${lineNumber}: a complete record is followed by ${JSON.stringify(tail.slice(recordEnd, recordEnd + 8))} instead of a newline (a damaged line end, not a torn write): nothing is dropped; repair the line end by hand`, {
      details: { path, line: lineNumber, problem: 'damaged-line-end' },
    });
  }
}

/**
 * Opens (or creates) the journal of (network, wallet), restoring its state. Throws JOURNAL_CORRUPT
 * when a complete line is damaged, JOURNAL_UNAVAILABLE when the file cannot be read or written.
 *
 * @example
 * const journal = openJournal({ clock }, { dir: 'state', network: 'testnet', wallet });
 * const nonces = createNonceSource({ clock }, { floor: journal.restored.nonceFloor });
 * for (const request of journal.restored.unresolved) reconcile(request);
 */
export function openJournal(context: JournalContext, params: OpenJournalParameters): Journal {
  const fs = context.fs ?? nodeJournalFs;
  const path = journalPath(params);
  const temp = compactionTempPath(path);
  const state = new JournalState();
  let truncatedBytes = 0;
  let removedTempFile = false;
  let lock: JournalLock | undefined;
  try {
    if (!fs.existsSync(params.dir)) {
      makeDirectories(fs, params.dir);
      fsyncDirectory(fs, dirname(resolve(params.dir)));
    }
    lock = lockJournal({ fs, now: () => context.clock.now(), ...(context.isRunning === undefined ? {} : { isRunning: context.isRunning }) }, path);
    if (fs.existsSync(temp)) {
      // The journal itself is complete at every step of a compaction; the temp file is surplus.
      fs.unlinkSync(temp);
      fsyncDirectory(fs, params.dir);
      removedTempFile = true;
    }
    const existed = fs.existsSync(path);
    if (existed) {
      const bytes = fs.readFileSync(path);
      const complete = readRecords(bytes, path, state);
      if (complete < bytes.length) {
        truncatedBytes = bytes.length - complete;
        const fd = fs.openSync(path, 'r+');
        try {
          fs.ftruncateSync(fd, complete);
          fs.fsyncSync(fd);
        } finally {
          fs.closeSync(fd);
        }
      }
    }
    const fd = fs.openSync(path, 'a', FILE_MODE);
    if (!existed) {
      fs.fsyncSync(fd);
      fsyncDirectory(fs, params.dir);
    }
    const restored: RestoredJournal = {
      nonceFloor: state.nonceFloor,
      unresolved: state.unresolved(),
      records: state.records,
      truncatedBytes,
      removedTempFile,
      ledger: state.ledger,
    };
    return new Journal({ fs, clock: context.clock, path, dir: params.dir, fd, state, restored, lock });
  } catch (error) {
    lock?.release();
    if (isBaseError(error)) throw error;
    throw unavailable(`cannot open (${error instanceof Error ? error.message : String(error)})`, path, error);
  }
}

interface JournalInit {
  readonly fs: JournalFs;
  readonly clock: Pick<Clock, 'now'>;
  readonly path: string;
  readonly dir: string;
  readonly fd: number;
  readonly state: JournalState;
  readonly restored: RestoredJournal;
  /** Held from the open to the close. */
  readonly lock: JournalLock;
}

/** Result of `compact()`: record counts of the file before and after. */
export interface CompactionResult {
  readonly before: number;
  readonly after: number;
}

/** An open journal. Made by `openJournal`; one per (network, wallet), used by one process. */
export class Journal {
  readonly path: string;
  /** The state found on opening. */
  readonly restored: RestoredJournal;
  readonly #fs: JournalFs;
  readonly #clock: Pick<Clock, 'now'>;
  readonly #dir: string;
  readonly #state: JournalState;
  readonly #lock: JournalLock;
  #fd: number | undefined;
  /** Set when a write failed: the file may end in a partial line, so nothing more is appended. */
  #failure: unknown;
  readonly #sync: JournalSync;

  constructor(init: JournalInit) {
    this.path = init.path;
    this.restored = init.restored;
    this.#fs = init.fs;
    this.#clock = init.clock;
    this.#dir = init.dir;
    this.#state = init.state;
    this.#lock = init.lock;
    this.#fd = init.fd;
    this.#sync = new JournalSync(
      () => this.#flush(),
      (error) => {
        this.#failure ??= error;
        return unavailable('fsync failed; reopen the journal to recover', this.path, error);
      },
    );
  }

  /** The highest nonce ever signed or recorded (0n when none): the next nonce must be above it. */
  nonceFloor(): bigint {
    return this.#state.nonceFloor;
  }

  /** Signed requests without a `resolved` record, in signing order. */
  unresolved(): readonly UnresolvedRequest[] {
    return this.#state.unresolved();
  }

  /** The unresolved request `requestId`, if it is one. */
  get(requestId: string): UnresolvedRequest | undefined {
    const entry = this.#state.entries.get(requestId);
    return entry === undefined ? undefined : this.#state.view(entry);
  }

  /** Records in the file. */
  recordCount(): number {
    return this.#state.records;
  }

  /**
   * Appends one record, durably: written and fsynced before this returns (with every record written
   * before it). Assigns `seq` and `at`. Throws JOURNAL_RECORD_INVALID (nothing written) when the
   * record breaks its schema or a rule: a `planned` nonce must be above the floor and its requestId
   * new; a `signed` one too, unless it completes the `planned` record of the same request and nonce;
   * `sent` and `resolved` need an unresolved request; no JWT anywhere. Throws JOURNAL_UNAVAILABLE
   * when the journal is closed or a write fails (then on every later call too).
   *
   * @example
   * journal.append({ kind: 'signed', requestId, nonce: nonce.toString(), method, intent: summarizeIntent(intent), body });
   * send(body);
   */
  append(input: JournalRecordInput): JournalRecord {
    const record = this.write(input);
    try {
      this.#fs.fsyncSync(this.#fd!);
    } catch (error) {
      // Never retry a failed fsync: the kernel may have dropped the dirty pages (PostgreSQL's fsyncgate).
      this.#failure = error;
      const failure = unavailable('fsync failed; reopen the journal to recover', this.path, error);
      this.#sync.fail(failure);
      throw failure;
    }
    this.#sync.synced();
    return record;
  }

  /**
   * Writes one record (the checks and errors of `append`) without waiting for the disk: a crash of
   * this process keeps it (the kernel has it), a crash of the machine may not until `sync()` resolves.
   *
   * @example
   * journal.write({ kind: 'planned', requestId, nonce, method, intent, unsigned });
   * const durable = journal.sync(); // the disk flushes while the signature is computed
   */
  write(input: JournalRecordInput): JournalRecord {
    const fd = this.#writable();
    const record = this.#check(input);
    const line = encodeJournalLine(record, this.#state.lastCrc);
    if (JWT_SHAPE.test(line)) {
      throw invalid('the record carries a JWT: the journal never holds one', record);
    }
    try {
      writeAll(this.#fs, fd, Buffer.from(line, 'utf8'));
    } catch (error) {
      this.#failure = error;
      const failure = unavailable('write failed; reopen the journal to recover', this.path, error);
      this.#sync.fail(failure);
      throw failure;
    }
    this.#state.apply(record);
    this.#state.lastCrc = journalLineCrc(line);
    this.#sync.wrote();
    return record;
  }

  /**
   * Resolves once every record written before the call is durable: one fsync, on the thread pool
   * when the file system offers it, shared with every other caller waiting. Rejects with
   * JOURNAL_UNAVAILABLE when the fsync fails (then the journal is failed) or the journal closes first.
   */
  sync(): Promise<void> {
    if (this.#failure !== undefined && this.#sync.pending) return Promise.reject(unavailable('closed, or an earlier write failed; reopen the journal', this.path, this.#failure));
    return this.#sync.sync();
  }

  /** An fsync of the file as it is now. */
  #flush(): Flush {
    const fd = this.#fd;
    const fs = this.#fs;
    return (done) => {
      if (fd === undefined) return done(new Error('closed'));
      if (fs.fsync !== undefined) return fs.fsync(fd, done);
      try {
        fs.fsyncSync(fd);
      } catch (error) {
        return done(error);
      }
      done(null);
    };
  }

  /**
   * Rewrites the journal with only what a restart needs: every record of each unresolved request and
   * the newest `ledger` record, then one `nonce-floor` record. Safe at every step: the new file is written and fsynced under a
   * temp name, renamed over the journal (atomic), then the directory is fsynced; a crash before the
   * rename leaves the old journal whole (the temp file is deleted on reopening), after it the new one.
   */
  compact(): CompactionResult {
    const oldFd = this.#writable();
    const before = this.#state.records;
    const ledger = this.#state.ledger;
    const kept = [...this.#state.entries.values()].flatMap((entry) => entry.records);
    if (ledger !== undefined) kept.push(ledger);
    kept.sort((a, b) => a.seq - b.seq);
    const records: JournalRecord[] = [...kept];
    if (this.#state.nonceFloor > 0n) {
      records.push(this.#check({ kind: 'nonce-floor', nonce: this.#state.nonceFloor.toString() }));
    }

    let prev = FIRST_LINE_PREV;
    const lines = records.map((record) => {
      const line = encodeJournalLine(record, prev);
      prev = journalLineCrc(line);
      return line;
    });

    const temp = compactionTempPath(this.path);
    let renamed = false;
    try {
      const fd = this.#fs.openSync(temp, 'w', FILE_MODE);
      try {
        writeAll(this.#fs, fd, Buffer.from(lines.join(''), 'utf8'));
        this.#fs.fsyncSync(fd);
      } finally {
        this.#fs.closeSync(fd);
      }
      this.#fs.renameSync(temp, this.path);
      renamed = true;
      fsyncDirectory(this.#fs, this.#dir);
      this.#fd = undefined;
      this.#fs.closeSync(oldFd);
      this.#fd = this.#fs.openSync(this.path, 'a', FILE_MODE);
      // The new file holds every record, fsynced.
      this.#sync.synced();
    } catch (error) {
      this.#failure = error;
      if (!renamed) {
        try {
          this.#fs.unlinkSync(temp);
        } catch {
          // Reopening deletes it.
        }
      }
      throw unavailable('compaction failed; reopen the journal to recover', this.path, error);
    }
    const state = this.#state;
    state.records = 0;
    state.lastSeq = 0;
    const nonceFloor = state.nonceFloor;
    state.entries.clear();
    for (const record of records) state.apply(record);
    state.lastCrc = prev;
    state.nonceFloor = nonceFloor;
    return { before, after: records.length };
  }

  /** Closes the file and lets go of its lock; later appends throw JOURNAL_UNAVAILABLE. Idempotent. */
  close(): void {
    const fd = this.#fd;
    const failed = this.#failure !== undefined;
    this.#fd = undefined;
    this.#failure ??= new Error('closed');
    if (fd === undefined) return;
    if (failed) this.#sync.fail(unavailable('closed after a failed write', this.path, this.#failure));
    try {
      // What was written without waiting is made durable before the file closes.
      if (!failed && this.#sync.pending) {
        this.#fs.fsyncSync(fd);
        this.#sync.synced();
      }
      this.#fs.closeSync(fd);
    } catch (error) {
      // After a failed write the descriptor is beyond help; otherwise say so.
      if (!failed) throw unavailable('cannot close', this.path, error);
    } finally {
      this.#lock.release();
    }
  }

  #writable(): number {
    if (this.#failure !== undefined || this.#fd === undefined) {
      throw unavailable('closed, or an earlier write failed; reopen the journal', this.path, this.#failure);
    }
    return this.#fd;
  }

  /** The full record for `input` (next seq, clock time), validated against the schema and the rules. */
  #check(input: JournalRecordInput): JournalRecord {
    const seq = this.#state.lastSeq + 1;
    const at = Math.max(0, Math.floor(this.#clock.now()));
    let record = fastJournalRecord(seq, at, input);
    if (record === undefined) {
      const parsed = journalRecordSchema.safeParse({ seq, at, ...input });
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw invalid(`${issue.path.join('.') || '(root)'}: ${issue.message}`, input);
      }
      record = parsed.data;
    }
    const entries = this.#state.entries;
    switch (record.kind) {
      case 'planned':
      case 'signed': {
        const entry = entries.get(record.requestId);
        if (entry !== undefined) {
          // A `signed` record completes its `planned` one: same request, same nonce, once.
          if (record.kind === 'planned' || entry.first.kind !== 'planned' || entry.body !== undefined || entry.nonce !== BigInt(record.nonce)) {
            throw invalid(`request ${record.requestId} is ${entry.body === undefined ? 'planned' : 'signed'} and unresolved already`, record);
          }
          break;
        }
        if (BigInt(record.nonce) <= this.#state.nonceFloor) {
          throw invalid(`nonce ${record.nonce} is not above the floor ${this.#state.nonceFloor}: a nonce is never reused`, record);
        }
        break;
      }
      case 'sent':
      case 'resolved':
        if (!entries.has(record.requestId)) throw invalid(`request ${record.requestId} is not an unresolved request of this journal`, record);
        break;
      default:
        break;
    }
    return record;
  }
}

function invalid(message: string, record: { readonly kind: string; readonly requestId?: string }): BaseError {
  return new BaseError('JOURNAL_RECORD_INVALID', `journal record refused: ${message}`, {
    details: { kind: record.kind, ...(record.requestId === undefined ? {} : { requestId: record.requestId }) },
  });
}
