/** The one reader of the venue's revert reason, `CODE: message` (docs/protocol.md). */
import { describe, expect, it } from 'vitest';
import { parseRevertReason } from '../../src/protocol/revert-reason.ts';

describe('parseRevertReason', () => {
  it('splits a known relay code from its message at the first ": "', () => {
    expect(parseRevertReason('EXPECTED_ORDER_ID_MISMATCH: slot 3: expected 7, holds 9')).toEqual({ code: 'EXPECTED_ORDER_ID_MISMATCH', message: 'slot 3: expected 7, holds 9' });
  });

  it('gives no code for a code-like prefix the relay table does not hold, and keeps the whole text', () => {
    expect(parseRevertReason('OUT_OF_GAS: ran out')).toEqual({ code: null, message: 'OUT_OF_GAS: ran out' });
    expect(parseRevertReason('INVALID_ORDERS: a longer word')).toEqual({ code: null, message: 'INVALID_ORDERS: a longer word' });
  });

  it('gives no code to text without ": ", even when it is a bare code', () => {
    expect(parseRevertReason('the receipt says reverted (the chain keeps no reason)')).toEqual({ code: null, message: 'the receipt says reverted (the chain keeps no reason)' });
    expect(parseRevertReason('INVALID_ORDER')).toEqual({ code: null, message: 'INVALID_ORDER' });
  });

  it('reads no reason as no code and an empty message', () => {
    expect(parseRevertReason(null)).toEqual({ code: null, message: '' });
  });
});
