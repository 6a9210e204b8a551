/**
 * What the engine signed, read from its own journal as it appends it (the journal is in memory in a
 * property run): each request from its `planned` record with its nonce, each resend, and each final status. The
 * journal is the engine's record of what it signed, so the nonce and "none lost" invariants judge
 * the engine on its own word, parsed with the journal's own schema.
 */
import { decodeJournalLine } from '../execution/journal-record.ts';
import type { JournalFs } from '../execution/journal.ts';
import { memoryJournalFs } from './memory-journal-fs.ts';
import type { ResolvedRequest, SignedRequest } from './run-record.ts';

export interface JournalTap {
  /** The journal's file system, for the engine. */
  readonly fs: JournalFs;
  readonly signed: readonly SignedRequest[];
  readonly resolved: readonly ResolvedRequest[];
}

/**
 * @example
 * const tap = journalTap(() => harness.now());
 * createStrategyHarness(definition, { …, journalFs: tap.fs });
 * tap.signed // [{ at: 0, requestId: '…', nonce: 1767225603400n, resend: false }]
 */
export function journalTap(now: () => number): JournalTap {
  const signed: SignedRequest[] = [];
  const resolved: ResolvedRequest[] = [];
  const nonces = new Map<string, bigint>();
  const sends = new Map<string, number>();
  const decoder = new TextDecoder();
  let partial = '';
  const onAppend = (bytes: Uint8Array) => {
    const lines = (partial + decoder.decode(bytes)).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (line === '') continue;
      const record = decodeJournalLine(line, { path: 'journal', lineNumber: 0 });
      // A request is the engine's from its first record (`planned`, or `signed` in a journal without one).
      if ((record.kind === 'planned' || record.kind === 'signed') && !nonces.has(record.requestId)) {
        const nonce = BigInt(record.nonce);
        nonces.set(record.requestId, nonce);
        signed.push({ at: now(), requestId: record.requestId, nonce, resend: false });
      } else if (record.kind === 'sent') {
        // Every attempt leaves a `sent` record: the second and later are resends.
        const count = (sends.get(record.requestId) ?? 0) + 1;
        sends.set(record.requestId, count);
        if (count > 1) signed.push({ at: now(), requestId: record.requestId, nonce: nonces.get(record.requestId) ?? 0n, resend: true });
      } else if (record.kind === 'resolved') {
        resolved.push({ at: now(), requestId: record.requestId, status: record.status });
      }
    }
  };
  return { fs: memoryJournalFs({ onAppend }), signed, resolved };
}
