/**
 * The engine tests' journal pieces: a journal file system that remembers every line ever written
 * (compaction removes history from the file), temp journal directories, and the audit every run must
 * pass.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJournalLine, type JournalRecord } from '../../src/execution/journal-record.ts';
import { nodeJournalFs, openJournal, type JournalFs } from '../../src/execution/journal.ts';
import type { Address } from '../../src/protocol/encoding.ts';
import { lower, WALLET } from '../sim/relay-harness.ts';

/** A journal file system remembering every complete line appended to the journal file. */
export function recordingJournalFs(base: JournalFs = nodeJournalFs): { readonly fs: JournalFs; lines(): string[] } {
  const paths = new Map<number, string>();
  let text = '';
  const fs: JournalFs = {
    ...base,
    openSync(path, flags, mode) {
      const fd = base.openSync(path, flags, mode);
      paths.set(fd, path);
      return fd;
    },
    writeSync(fd, buffer, offset, length) {
      const written = base.writeSync(fd, buffer, offset, length);
      const path = paths.get(fd) ?? '';
      if (path.endsWith('.journal.jsonl')) text += Buffer.from(buffer.subarray(offset, offset + written)).toString('utf8');
      return written;
    },
    closeSync(fd) {
      paths.delete(fd);
      base.closeSync(fd);
    },
  };
  return { fs, lines: () => text.split('\n').filter((line) => line.length > 0) };
}

export function tempJournalDir(): { readonly dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'clobbot-engine-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface JournalAudit {
  readonly records: readonly JournalRecord[];
  readonly signed: number;
  readonly nonces: readonly bigint[];
}

/**
 * Every line the journal file ever received: each planned or signed request resolved exactly once, nonces
 * strictly increasing (none used twice), a later attempt of an intent naming an earlier signed
 * request (`retryOf`) and at most one attempt of an intent CONFIRMED, and the reopened journal
 * holds nothing unresolved.
 */
export function auditJournal(lines: readonly string[], dir: string, wallet: Address = lower(WALLET)): JournalAudit & { readonly problems: readonly string[] } {
  const problems: string[] = [];
  const records = lines.map((line, index) => decodeJournalLine(line, { path: 'recorded', lineNumber: index + 1 }));
  const nonces: bigint[] = [];
  const signed = new Set<string>();
  /** Request id -> the nonce of its `planned` record. */
  const planned = new Map<string, string>();
  const resolved = new Map<string, number>();
  /** Request id -> the first attempt of its intent. */
  const intentOf = new Map<string, string>();
  const confirmedIntents = new Set<string>();
  for (const record of records) {
    // A `signed` record completes its request's `planned` one: the request counts once.
    if (record.kind === 'signed' && planned.get(record.requestId) === record.nonce) continue;
    if (record.kind === 'planned') planned.set(record.requestId, record.nonce);
    if (record.kind === 'planned' || record.kind === 'signed') {
      const nonce = BigInt(record.nonce);
      if (nonces.length > 0 && nonce <= nonces.at(-1)!) problems.push(`nonce ${nonce} after ${nonces.at(-1)}`);
      nonces.push(nonce);
      if (signed.has(record.requestId)) problems.push(`request ${record.requestId} signed twice`);
      if (record.retryOf !== undefined && !signed.has(record.retryOf)) problems.push(`request ${record.requestId} retries ${record.retryOf}, never signed before it`);
      signed.add(record.requestId);
      intentOf.set(record.requestId, record.retryOf ?? record.requestId);
    } else if (record.kind === 'resolved') {
      resolved.set(record.requestId, (resolved.get(record.requestId) ?? 0) + 1);
      if (record.status === 'CONFIRMED') {
        const intent = intentOf.get(record.requestId) ?? record.requestId;
        if (confirmedIntents.has(intent)) problems.push(`intent ${intent} confirmed twice (request ${record.requestId}): a duplicate placement`);
        confirmedIntents.add(intent);
      }
    }
  }
  for (const id of signed) if (resolved.get(id) !== 1) problems.push(`request ${id} resolved ${resolved.get(id) ?? 0} times`);
  if (new Set(nonces.map(String)).size !== nonces.length) problems.push('a nonce was used twice');
  // Opened only to read what it restores: no record is written, no time is read.
  const journal = openJournal({ clock: { now: () => 0 } }, { dir, network: 'sim', wallet });
  if (journal.restored.unresolved.length > 0) problems.push(`${journal.restored.unresolved.length} unresolved after the run`);
  journal.close();
  return { records, signed: signed.size, nonces, problems };
}
