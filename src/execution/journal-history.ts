/**
 * The history a journal still holds: the requests it resolved CONFIRMED since its last compaction,
 * in the order their outcomes arrived. A restarted engine replays them into its portfolio so that it
 * knows again which maker slot holds which order (neither order events nor active orders name a
 * slot). The engine compacts the journal on stop only when no order is left open, so the confirmed
 * placements behind every open order are still here after a crash or a stop that kept orders.
 */
import { readFileSync } from 'node:fs';
import type { Hex } from '../protocol/encoding.ts';
import { parseRelayRestRequest } from '../protocol/relay-request.ts';
import { decodeJournalLine, type JournalRecord } from './journal-record.ts';
import type { RequestPlan } from './intent-plan.ts';
import { planOfRequest } from './intent-signer.ts';

/** A confirmed request of the journal's history. */
export interface ConfirmedRequest {
  readonly requestId: string;
  readonly plan: RequestPlan;
  readonly purpose: string;
  readonly txHash: Hex;
  readonly signedAt: number;
  readonly nonce: bigint;
}

export interface JournalHistory {
  /** Confirmed requests in nonce order (their transactions' order: outcomes may arrive out of it). */
  readonly confirmed: readonly ConfirmedRequest[];
  /** Clock time of the oldest `planned` or `signed` record (undefined for an empty journal). */
  readonly oldestSignedAt: number | undefined;
  /** Every intent nonce of a `planned` or `signed` record, in file order. */
  readonly nonces: readonly bigint[];
}

/**
 * Reads the complete records of the journal file at `path` (the journal must have been opened, so a
 * torn last line is gone). Throws JOURNAL_CORRUPT like `openJournal` would.
 */
export function readJournalRecords(path: string, read: (path: string) => Uint8Array = readFileSync): JournalRecord[] {
  const text = Buffer.from(read(path)).toString('utf8');
  const end = text.lastIndexOf('\n') + 1;
  return text
    .slice(0, end)
    .split('\n')
    .slice(0, -1)
    .map((line, index) => decodeJournalLine(line, { path, lineNumber: index + 1 }));
}

/**
 * The confirmed history of a journal's records.
 *
 * @example
 * const history = journalHistory(readJournalRecords(journal.path));
 * for (const request of history.confirmed) portfolio.markPending(request.requestId, intentOfPlan(request.plan, request.purpose));
 */
export function journalHistory(records: readonly JournalRecord[]): JournalHistory {
  const signed = new Map<string, { readonly body: string; readonly purpose: string; readonly at: number; readonly nonce: bigint }>();
  const confirmed: ConfirmedRequest[] = [];
  const nonces: bigint[] = [];
  let oldestSignedAt: number | undefined;
  for (const record of records) {
    if (record.kind === 'planned' || record.kind === 'signed') {
      // A `signed` record after its `planned` one: the same plan, now with the wire body.
      const planned = signed.get(record.requestId);
      if (planned !== undefined) {
        if (record.kind === 'signed') signed.set(record.requestId, { ...planned, body: record.body });
        continue;
      }
      const body = record.kind === 'signed' ? record.body : record.unsigned;
      signed.set(record.requestId, { body, purpose: record.intent?.purpose ?? 'restored', at: record.at, nonce: BigInt(record.nonce) });
      nonces.push(BigInt(record.nonce));
      if (oldestSignedAt === undefined || record.at < oldestSignedAt) oldestSignedAt = record.at;
      continue;
    }
    if (record.kind !== 'resolved') continue;
    const origin = signed.get(record.requestId);
    signed.delete(record.requestId);
    if (origin === undefined || record.status !== 'CONFIRMED' || record.txHash === undefined) continue;
    const parsed = parseRelayRestRequest(origin.body);
    if (!parsed.ok) continue;
    const plan = planOfRequest(parsed.value);
    if (plan === undefined) continue;
    confirmed.push({ requestId: record.requestId, plan, purpose: origin.purpose, txHash: record.txHash, signedAt: origin.at, nonce: origin.nonce });
  }
  confirmed.sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0));
  return { confirmed, oldestSignedAt, nonces };
}
