import { describe, expect, it } from 'vitest';
import { encodeJournalLine, journalRecordSchema, journalLineCrc, FIRST_LINE_PREV } from '../../src/execution/journal-record.ts';
import { journalTap } from '../../src/testing/journal-tap.ts';

const A = '0191f3c4-5b6a-7c8d-9e0f-a1b2c3d4e5f6';
const B = '0191f3c4-5b6a-7c8d-8e0f-a1b2c3d4e5f7';
const C = '0191f3c4-5b6a-7c8d-ae0f-a1b2c3d4e5f8';
const TX = `0x${'ab'.repeat(32)}`;
const intent = { type: 'ReplaceSlots', market: `0x${'b1'.padStart(40, '0')}`, purpose: 'quote' } as const;

/** Journal lines of `inputs`, chained and encoded as the journal writes them. */
function journalLines(inputs: readonly Record<string, unknown>[]): string {
  let prev = FIRST_LINE_PREV;
  let text = '';
  inputs.forEach((input, index) => {
    const line = encodeJournalLine(journalRecordSchema.parse({ seq: index + 1, at: 1_767_225_600_000 + index, ...input }), prev);
    prev = journalLineCrc(line);
    text += line;
  });
  return text;
}

function tapOf(text: string, chunk = text.length) {
  let at = 0;
  const tap = journalTap(() => at);
  const fd = tap.fs.openSync('/j', 'a');
  const bytes = new TextEncoder().encode(text);
  for (let offset = 0; offset < bytes.length; offset += chunk) {
    at += 1;
    tap.fs.writeSync(fd, bytes, offset, Math.min(chunk, bytes.length - offset));
  }
  return tap;
}

describe('journalTap', () => {
  const text = journalLines([
    { kind: 'planned', requestId: A, nonce: '1767225603400', method: 'wallet.execute_replace_by_slot_packed', intent, unsigned: '{"a":1}' },
    { kind: 'signed', requestId: A, nonce: '1767225603400', method: 'wallet.execute_replace_by_slot_packed', intent, body: '{"a":2}' },
    { kind: 'sent', requestId: A, transport: 'ws' },
    { kind: 'response', requestId: A, status: 'BROADCAST', txHash: TX },
    { kind: 'sent', requestId: A, transport: 'rest' },
    { kind: 'outcome', requestId: A, txHash: TX, status: 'CONFIRMED', blockNumber: '7' },
    { kind: 'resolved', requestId: A, how: 'outcome', status: 'CONFIRMED', txHash: TX },
    // A request without a `planned` record: its `signed` one counts.
    { kind: 'signed', requestId: B, nonce: '0', method: 'account_core.authorize_account_signer_by_sig', intent: null, body: '{"b":1}' },
    { kind: 'sent', requestId: B, transport: 'rest' },
    { kind: 'resolved', requestId: B, how: 'never-sent', status: 'NOT_SENT', reason: 'stopped' },
    { kind: 'nonce-floor', nonce: '1767225603400' },
    { kind: 'planned', requestId: C, nonce: '18446744073709551615', method: 'wallet.execute_batch', intent: null, unsigned: '{"c":1}' },
  ]);

  it('reads each request, resend and final status the engine journaled, whatever the chunks', () => {
    for (const chunk of [text.length, 97, 1]) {
      const tap = tapOf(text, chunk);
      expect(tap.signed.map(({ requestId, nonce, resend }) => ({ requestId, nonce, resend }))).toEqual([
        { requestId: A, nonce: 1767225603400n, resend: false },
        { requestId: A, nonce: 1767225603400n, resend: true },
        { requestId: B, nonce: 0n, resend: false },
        { requestId: C, nonce: 18446744073709551615n, resend: false },
      ]);
      expect(tap.resolved.map(({ requestId, status }) => ({ requestId, status }))).toEqual([
        { requestId: A, status: 'CONFIRMED' },
        { requestId: B, status: 'NOT_SENT' },
      ]);
    }
  });

  it('still refuses a corrupt line of a record it reads', () => {
    const corrupt = text.replace('"kind":"resolved","requestId":"' + A + '","how":"outcome"', '"kind":"resolved","requestId":"' + A + '","how":"receipt"');
    expect(() => tapOf(corrupt)).toThrow(/checksum/);
  });
});
