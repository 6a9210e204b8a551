import fc from 'fast-check';
import { describe } from 'vitest';
import { uintMax } from '../../src/protocol/encoding.ts';
import { readWsServerMessage } from '../../src/protocol/relay-response-readers.ts';
import { wsServerMessageSchema } from '../../src/protocol/relay-response.ts';
import { itAgreesWithSchema, type Json } from './support/fast-reader-check.ts';

const hex = (length: number, digits = '0123456789abcdef') => fc.string({ unit: fc.constantFrom(...digits), minLength: length, maxLength: length });
const txHash = hex(64).map((h) => `0x${h}`);
const address = hex(40, '0123456789abcdefABCDEF').map((h) => `0x${h}`);
const uint64 = fc.bigInt({ min: 0n, max: uintMax(64) }).map(String);
const extras = fc.dictionary(fc.constantFrom('x', 'extra', '1', 'reason2'), fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxKeys: 2 });
const withExtras = <T extends Record<string, Json>>(record: fc.Arbitrary<T>) => fc.tuple(record, extras).map(([value, extra]) => ({ ...extra, ...value }));

const frame = fc.oneof(
  withExtras(
    fc.record({
      type: fc.constant('response'),
      id: fc.string(),
      status: fc.constant('BROADCAST'),
      txHash,
      sponsorAddress: address,
      sponsorNonce: uint64,
      transactionType: fc.constantFrom('DYNAMIC_FEE', 'SET_CODE'),
    }),
  ),
  withExtras(
    fc.record({
      type: fc.constant('response'),
      id: fc.string(),
      status: fc.constantFrom('REJECTED', 'UNKNOWN'),
      code: fc.string({ minLength: 1 }),
      message: fc.string(),
      retryable: fc.boolean(),
      retryAfterMs: fc.option(fc.nat(), { nil: null }),
      candidateTxHash: fc.option(txHash, { nil: null }),
      sponsorAddress: fc.option(address, { nil: null }),
      sponsorNonce: fc.option(uint64, { nil: null }),
    }),
  ),
  withExtras(
    fc.record({
      type: fc.constant('outcome'),
      id: fc.string(),
      txHash,
      status: fc.constantFrom('CONFIRMED', 'REVERTED', 'DROPPED'),
      blockNumber: fc.option(uint64, { nil: null }),
      reason: fc.option(fc.string(), { nil: null }),
    }),
  ),
  withExtras(fc.record({ type: fc.constant('error'), code: fc.string({ minLength: 1 }), message: fc.string() })),
);

describe('the fast reader of relay WebSocket frames', () => {
  itAgreesWithSchema(readWsServerMessage, wsServerMessageSchema, frame, 40);
});
