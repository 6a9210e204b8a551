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

/** The kinds of record the tap reads; the others (responses, outcomes, ledger checkpoints) it passes by. */
const TAPPED_KINDS = new Set(['planned', 'signed', 'sent', 'resolved']);
/**
 * How a record line begins: the header, the kind, then the request id and the nonce where the record
 * has them, in schema order (journal-record.ts encodes the schema's output).
 */
const LINE_START = /^\{"seq":\d+,"at":\d+,"kind":"([a-z-]+)"(?:,"requestId":"([0-9a-f-]{36})"(?:,"nonce":"(0|[1-9][0-9]{0,19})")?)?/;

/** What the tap takes from one record. */
type TappedLine =
  | { readonly kind: 'planned' | 'signed'; readonly requestId: string; readonly nonce: string }
  | { readonly kind: 'sent'; readonly requestId: string }
  | { readonly kind: 'resolved'; readonly requestId: string; readonly status: ResolvedRequest['status'] };

/**
 * What the tap needs of a line: read from the line's start when that holds it (most lines: the
 * engine appends five or six a request, and decoding them — checksum, JSON, schema — was most of
 * the tap's time), else from the line decoded with the journal's own schema (a `resolved` record,
 * a line of another shape); undefined for a record the tap passes by.
 */
function tappedLine(line: string): TappedLine | undefined {
  const start = LINE_START.exec(line);
  if (start !== null) {
    const [, kind, requestId, nonce] = start;
    if (!TAPPED_KINDS.has(kind!)) return undefined;
    if (kind === 'sent' && requestId !== undefined) return { kind, requestId };
    if ((kind === 'planned' || kind === 'signed') && requestId !== undefined && nonce !== undefined) return { kind, requestId, nonce };
  }
  const record = decodeJournalLine(line, { path: 'journal', lineNumber: 0 });
  switch (record.kind) {
    case 'planned':
    case 'signed':
      return { kind: record.kind, requestId: record.requestId, nonce: record.nonce };
    case 'sent':
      return { kind: record.kind, requestId: record.requestId };
    case 'resolved':
      return { kind: record.kind, requestId: record.requestId, status: record.status };
    default:
      return undefined;
  }
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
      const record = tappedLine(line);
      if (record === undefined) continue;
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
