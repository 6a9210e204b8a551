/**
 * The fast path of appending a journal record (journal-record.ts has the schemas): a hand-written
 * check of each field against the rule its schema states, so that the schema's parse runs only for
 * a record that may be refused.
 */
import { OUTCOME_STATUSES } from '../protocol/constants.ts';
import { isHexBytes } from '../protocol/encoding.ts';
import { FINAL_STATUSES, INTENT_TYPES, JOURNAL_TRANSPORTS, RELAY_METHODS, RESOLVED_HOW, type IntentSummary, type JournalRecord } from './journal-record.ts';

/**
 * The fast path of appending: `{ seq, at, ...input }` as `journalRecordSchema` outputs it (keys in
 * schema order, `signed.txHash` defaulted), when it certainly passes the schema; undefined when it
 * may not, and the schema then decides (and words the refusal). In a running engine the schema's
 * parse took ~25 µs a record (its code is shared by every other schema), and each request appends
 * five. It accepts nothing the schema refuses (test/execution/journal-record.prop.test.ts).
 */
export function fastJournalRecord(seq: number, at: number, input: Readonly<Record<string, unknown>>): JournalRecord | undefined {
  const fields = typeof input.kind === 'string' && Object.hasOwn(FAST_FIELDS, input.kind) ? FAST_FIELDS[input.kind]! : undefined;
  if (fields === undefined || Object.getPrototypeOf(input) !== Object.prototype || !FAST_HEADER.seq.valid(seq) || !FAST_HEADER.at.valid(at)) return undefined;
  for (const key in input) {
    // `seq` and `at` in the input would override the header: the schema judges that.
    const field = key !== 'seq' && key !== 'at' && Object.hasOwn(fields, key) ? fields[key]! : undefined;
    if (field === undefined || !Object.hasOwn(input, key)) return undefined;
    const value = input[key];
    if (!(value === undefined ? field.optional : field.valid(value))) return undefined;
  }
  const out: Record<string, unknown> = { seq, at };
  for (const key in fields) {
    if (key === 'seq' || key === 'at') continue;
    if (Object.hasOwn(input, key)) out[key] = input[key];
    else if (!fields[key]!.optional) return undefined;
  }
  if (input.kind === 'signed' || input.kind === 'planned') {
    const intent = input.intent as IntentSummary | null;
    // A new object in schema order, as the schema outputs it.
    out.intent = intent === null ? null : { type: intent.type, market: intent.market, purpose: intent.purpose };
    if (input.kind === 'signed') out.txHash = null; // z.null().default(null)
  }
  return out as JournalRecord;
}

type FastField = { readonly valid: (value: unknown) => boolean; readonly optional: boolean };
// The patterns of `uuidv7Schema` and `uintText` (protocol), which do not export them.
const UUIDV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UINT64_MAX = (1n << 64n) - 1n;
const CANONICAL = /^(?:0|[1-9][0-9]*)$/;
const oneOf = (values: readonly string[]) => {
  const set = new Set(values);
  return (value: unknown) => typeof value === 'string' && set.has(value);
};
const text = (min: number, max: number) => (value: unknown) => typeof value === 'string' && value.length >= min && value.length <= max;
const int = (min: number) => (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value) && value >= min;
const hex = (bytes: number) => (value: unknown) => typeof value === 'string' && isHexBytes(value, bytes);
const uint64 = (value: unknown) => typeof value === 'string' && value.length <= 78 && CANONICAL.test(value) && BigInt(value) <= UINT64_MAX;
const uuid = (value: unknown) => typeof value === 'string' && UUIDV7.test(value);
const intentType = oneOf(INTENT_TYPES);
const address = hex(20);
const purpose = text(0, 256);
const intentValid = (value: unknown): boolean => {
  if (value === null) return true;
  if (typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return false;
  const keys = Object.keys(value);
  if (keys.length !== 3 || !keys.includes('type') || !keys.includes('market') || !keys.includes('purpose')) return false;
  const intent = value as Record<string, unknown>;
  return intentType(intent.type) && (intent.market === null || address(intent.market)) && purpose(intent.purpose);
};
const need = (valid: FastField['valid']): FastField => ({ valid, optional: false });
const maybe = (valid: FastField['valid']): FastField => ({ valid, optional: true });
const FAST_HEADER = { seq: need(int(1)), at: need(int(0)) };
/** Per kind, the schema's fields in its order (mirrors the schemas above). */
const FAST_FIELDS: Record<string, Record<string, FastField>> = {
  planned: {
    ...FAST_HEADER,
    kind: need(oneOf(['planned'])),
    requestId: need(uuid),
    nonce: need(uint64),
    method: need(oneOf(RELAY_METHODS)),
    intent: need(intentValid),
    unsigned: need(text(2, Number.POSITIVE_INFINITY)),
    retryOf: maybe(uuid),
  },
  signed: {
    ...FAST_HEADER,
    kind: need(oneOf(['signed'])),
    requestId: need(uuid),
    nonce: need(uint64),
    method: need(oneOf(RELAY_METHODS)),
    intent: need(intentValid),
    body: need(text(2, Number.POSITIVE_INFINITY)),
    retryOf: maybe(uuid),
    txHash: maybe((value) => value === null),
  },
  sent: { ...FAST_HEADER, kind: need(oneOf(['sent'])), requestId: need(uuid), transport: need(oneOf(JOURNAL_TRANSPORTS)) },
  response: {
    ...FAST_HEADER,
    kind: need(oneOf(['response'])),
    requestId: need(uuid),
    status: need(oneOf(['BROADCAST', 'REJECTED', 'UNKNOWN'])),
    txHash: maybe(hex(32)),
    code: maybe(text(1, 128)),
    retryable: maybe((value) => typeof value === 'boolean'),
    retryAfterMs: maybe(int(0)),
  },
  outcome: {
    ...FAST_HEADER,
    kind: need(oneOf(['outcome'])),
    requestId: need(uuid),
    txHash: need(hex(32)),
    status: need(oneOf(OUTCOME_STATUSES)),
    blockNumber: maybe(uint64),
    reason: maybe(text(0, 1024)),
  },
  resolved: {
    ...FAST_HEADER,
    kind: need(oneOf(['resolved'])),
    requestId: need(uuid),
    how: need(oneOf(RESOLVED_HOW)),
    status: need(oneOf(FINAL_STATUSES)),
    txHash: maybe(hex(32)),
    reason: maybe(text(0, 1024)),
  },
  'nonce-floor': { ...FAST_HEADER, kind: need(oneOf(['nonce-floor'])), nonce: need(uint64) },
};
