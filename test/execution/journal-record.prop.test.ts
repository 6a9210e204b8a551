/**
 * The journal's fast record check (`fastJournalRecord`) against its schema: whatever it accepts,
 * the schema accepts with the same output (values and key order); every well-formed record of
 * each kind takes the fast path. Candidates are valid records with fields dropped, added, unset
 * or replaced by awkward values. fast-check prints the seed and path of a failure.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastJournalRecord } from '../../src/execution/journal-fast-record.ts';
import { journalRecordSchema } from '../../src/execution/journal-record.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const REQUEST_ID = '01a20495-16f1-7326-bcbd-f8bef37ae634';
const TX = `0x${'ab'.repeat(32)}`;
const MARKET = `0x${'e7'.repeat(20)}`;

const VALID: readonly Record<string, unknown>[] = [
  { seq: 1, at: 0, kind: 'planned', requestId: REQUEST_ID, nonce: '1767229201303', method: 'wallet.execute_batch', intent: { type: 'PlaceAndCancel', market: MARKET, purpose: 'quotes' }, unsigned: '{"id":1}' },
  { seq: 4, at: 2, kind: 'planned', requestId: REQUEST_ID, nonce: '3', method: 'wallet.cancel_trigger', intent: null, unsigned: '{}', retryOf: REQUEST_ID },
  { seq: 1, at: 0, kind: 'signed', requestId: REQUEST_ID, nonce: '1767229201303', method: 'wallet.execute_batch', intent: { type: 'PlaceAndCancel', market: MARKET, purpose: 'quotes' }, body: '{"id":1}' },
  { seq: 3, at: 0, kind: 'signed', requestId: REQUEST_ID, nonce: '17', method: 'wallet.execute_batch', intent: { type: 'PlaceAndCancel', market: MARKET, purpose: 'quotes' }, body: '{"id":2}', retryOf: REQUEST_ID },
  { seq: 9, at: 7, kind: 'signed', requestId: REQUEST_ID, nonce: '2', method: 'wallet.execute_replace_by_slot_packed', intent: { type: 'ReplaceSlots', market: MARKET, purpose: '' }, body: '[]' },
  { seq: 2, at: 5, kind: 'signed', requestId: REQUEST_ID, nonce: '18446744073709551615', method: 'wallet.cancel_trigger', intent: null, body: '{}', txHash: null },
  { seq: 3, at: 5, kind: 'sent', requestId: REQUEST_ID, transport: 'ws' },
  { seq: 4, at: 5, kind: 'response', requestId: REQUEST_ID, status: 'BROADCAST', txHash: TX },
  { seq: 5, at: 5, kind: 'response', requestId: REQUEST_ID, status: 'REJECTED', code: 'RATE_LIMITED', retryable: true, retryAfterMs: 250 },
  { seq: 6, at: 5, kind: 'outcome', requestId: REQUEST_ID, txHash: TX, status: 'CONFIRMED', blockNumber: '12', reason: 'ok' },
  { seq: 7, at: 5, kind: 'resolved', requestId: REQUEST_ID, how: 'outcome', status: 'NOT_SENT', txHash: TX, reason: '' },
  { seq: 8, at: 5, kind: 'nonce-floor', nonce: '0' },
];

const KEYS = ['seq', 'at', 'kind', 'requestId', 'nonce', 'method', 'intent', 'body', 'retryOf', 'txHash', 'transport', 'status', 'code', 'retryable', 'retryAfterMs', 'blockNumber', 'reason', 'how', 'type', 'market', 'purpose', 'extra'];

const awkward = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom<unknown>(
    undefined, null, 0, -0, 1, -1, 1.5, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY, true, false, '', 'x', '01', '-1', '1e3', ' 1',
    '18446744073709551616', '18446744073709551615', TX, TX.toUpperCase(), `${TX}00`, MARKET, MARKET.toUpperCase().replace('0X', '0x'),
    REQUEST_ID, REQUEST_ID.toUpperCase(), '01a20495-16f1-4326-bcbd-f8bef37ae634', 'ws', 'rest', 'BROADCAST', 'CONFIRMED', 'REJECTED', 'NOT_SENT',
    'outcome', 'quotes', 'CancelAll', 'wallet.execute_batch', '{}', 'a'.repeat(129), 'a'.repeat(257), 'a'.repeat(1025), [], {},
    { type: 'CancelAll', market: null, purpose: 'p' }, { purpose: 'p', market: MARKET, type: 'ReplaceSlots' },
    { type: 'CancelAll', market: null, purpose: 'p', extra: 1 }, { type: 'CancelAll', purpose: 'p' }, { type: 'Nope', market: null, purpose: 'p' },
    '0', '9', 'DROPPED', 'UNKNOWN', 'receipt', 'order-events', 'wallet.nope', 'a'.repeat(128), 'a'.repeat(256), 'a'.repeat(1024),
  ) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
);

const STATUSES = ['BROADCAST', 'REJECTED', 'UNKNOWN', 'CONFIRMED', 'REVERTED', 'DROPPED', 'NOT_SENT', 'confirmed'];
const UINTS = ['0', '1', '01', '-1', '1.0', '', '18446744073709551615', '18446744073709551616', '9'.repeat(79)];
const HASHES = [TX, TX.toUpperCase().replace('0X', '0x'), `${TX}00`, TX.slice(0, -2), MARKET, null, ''];
const sized = (n: number) => ['', 'a'.repeat(n - 1), 'a'.repeat(n), 'a'.repeat(n + 1)];
/** Values at the edges of each field's rule. */
const EDGES: Record<string, readonly unknown[]> = {
  seq: [0, 1, -1, 1.5, 2 ** 53 - 1, 2 ** 53, '1'],
  at: [0, -1, 0.5, 2 ** 53, '0'],
  requestId: [REQUEST_ID, REQUEST_ID.toUpperCase(), '01a20495-16f1-4326-bcbd-f8bef37ae634', `${REQUEST_ID} `, ''],
  retryOf: [REQUEST_ID, REQUEST_ID.toUpperCase(), '01a20495-16f1-4326-bcbd-f8bef37ae634', undefined],
  nonce: UINTS,
  blockNumber: UINTS,
  method: ['wallet.execute_batch', 'account_core.authorize_account_signer_by_sig', 'wallet.nope', ''],
  body: ['', '{', '{}'],
  unsigned: ['', '{', '{}'],
  txHash: HASHES,
  transport: ['ws', 'rest', 'WS'],
  status: STATUSES,
  code: sized(128),
  retryable: [true, false, 'true', 0],
  retryAfterMs: [0, -1, 1.5, 2 ** 53],
  reason: sized(1024),
  how: ['outcome', 'receipt', 'order-events', 'never-sent', 'rejected', 'nope'],
  kind: ['planned', 'signed', 'sent', 'response', 'outcome', 'resolved', 'nonce-floor', 'nope'],
  type: ['PlaceAndCancel', 'ReplaceSlots', 'CancelTrigger', 'CancelAll', 'CreateBatchTrigger', 'CreateReplaceTrigger', 'nope'],
  market: [null, MARKET, MARKET.toUpperCase().replace('0X', '0x'), TX, ''],
  purpose: sized(256),
};
const value = (key: string) => fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...(EDGES[key] ?? [undefined])) }, { weight: 1, arbitrary: awkward });

/** Edits of `base`: mostly of its own fields, mostly to the edges of their rules. */
const edits = (base: Record<string, unknown>) => {
  const key = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...Object.keys(base)) }, { weight: 1, arbitrary: fc.constantFrom(...KEYS) });
  const intentKey = fc.constantFrom('type', 'market', 'purpose', 'extra');
  const edit = fc.oneof(
    fc.record({ kind: fc.constant('drop' as const), key }),
    { weight: 4, arbitrary: key.chain((k) => fc.record({ kind: fc.constant('set' as const), key: fc.constant(k), value: value(k) })) },
    { weight: 2, arbitrary: intentKey.chain((k) => fc.record({ kind: fc.constant('intent' as const), key: fc.constant(k), value: value(k) })) },
  );
  return fc.array(edit, { maxLength: 3 });
};

function applyEdits(base: Record<string, unknown>, edits: readonly { readonly kind: string; readonly key: string; readonly value?: unknown }[]): Record<string, unknown> {
  const candidate: Record<string, unknown> = { ...base };
  for (const change of edits) {
    if (change.kind === 'drop') delete candidate[change.key];
    else if (change.kind === 'set') candidate[change.key] = change.value;
    else if (typeof candidate.intent === 'object' && candidate.intent !== null) candidate.intent = { ...(candidate.intent as object), [change.key]: change.value };
  }
  return candidate;
}

/** Equal values with keys in the same order, nested objects included. */
function sameOutput(a: unknown, b: unknown): boolean {
  if (!isDeepStrictEqual(a, b)) return false;
  if (typeof a !== 'object' || a === null) return true;
  const keys = Object.keys(a);
  return isDeepStrictEqual(keys, Object.keys(b as object)) && keys.every((key) => sameOutput((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

describe('fastJournalRecord', () => {
  it('takes the fast path for well-formed records, with the schema output', () => {
    for (const record of VALID) {
      const { seq, at, ...input } = record;
      const fast = fastJournalRecord(seq as number, at as number, input);
      const parsed = journalRecordSchema.safeParse({ ...record });
      expect(parsed.success).toBe(true);
      expect(fast).toBeDefined();
      expect(sameOutput(fast, parsed.data)).toBe(true);
    }
  });

  it('agrees with the schema on every single edge edit of every field', () => {
    const check = (candidate: Record<string, unknown>) => {
      const { seq, at, ...input } = candidate;
      const fast = fastJournalRecord(seq as number, at as number, input);
      const parsed = journalRecordSchema.safeParse(candidate);
      if (fast !== undefined) expect(parsed.success && sameOutput(fast, parsed.data), JSON.stringify(candidate)).toBe(true);
    };
    for (const base of VALID) {
      for (const [key, values] of Object.entries(EDGES)) {
        for (const edge of [...values, undefined]) {
          check({ ...base, [key]: edge });
          if (typeof base.intent === 'object' && base.intent !== null) check({ ...base, intent: { ...base.intent, [key]: edge } });
        }
      }
    }
  });

  it('accepts only what the schema accepts, with the same output', () => {
    let fastCount = 0;
    const injected = fc.option(fc.record({ key: fc.constantFrom('seq', 'at'), value: awkward }), { freq: 10 });
    fc.assert(
      fc.property(fc.constantFrom(...VALID).chain((base) => fc.tuple(fc.constant(base), edits(base))), injected, ([base, changes], inject) => {
        const { seq, at, ...input } = applyEdits(base, changes);
        // An input naming `seq` or `at` overrides the header, as in the journal's `{ seq, at, ...input }`.
        if (inject !== null) input[inject.key] = inject.value;
        const fast = fastJournalRecord(seq as number, at as number, input);
        if (fast === undefined) return;
        fastCount++;
        const parsed = journalRecordSchema.safeParse({ seq, at, ...input });
        expect(parsed.success).toBe(true);
        expect(sameOutput(fast, parsed.data)).toBe(true);
      }),
      fuzzSettings({ numRuns: 20_000 }),
    );
    expect(fastCount).toBeGreaterThan(100);
  });
});
