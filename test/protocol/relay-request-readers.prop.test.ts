import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_PACKED_OPS_BYTES, PACKED_OP_BYTES } from '../../src/protocol/constants.ts';
import { uintMax } from '../../src/protocol/encoding.ts';
import { batchPayloadSchema, encodeBatchPayload, encodeReplacePayload, replacePayloadSchema } from '../../src/protocol/relay-payloads.ts';
import { readBatchPayload, readReplacePayload, readWsMessage } from '../../src/protocol/relay-request-readers.ts';
import { wsMessageSchema } from '../../src/protocol/relay-request.ts';
import { batch, header, signature } from '../../src/testing/arbitraries.ts';
import { agrees, itAgreesWithSchema, type Json } from './support/fast-reader-check.ts';

const batchWire = fc.tuple(batch, signature).map(([intent, sig]) => encodeBatchPayload(intent, sig) as unknown as Json);
const replaceWire = fc
  .tuple(header, fc.integer({ min: 1, max: 4 }), signature)
  .chain(([h, ops, sig]) =>
    fc
      .tuple(
        fc.uint8Array({ minLength: ops * PACKED_OP_BYTES, maxLength: ops * PACKED_OP_BYTES }),
        fc.array(fc.bigInt({ min: 0n, max: uintMax(64) }), { minLength: ops, maxLength: ops }),
      )
      .map(([bytes, expectedOrderIds]) => {
        const packedOps = `0x${Buffer.from(bytes).toString('hex')}` as const;
        return encodeReplacePayload({ header: h, packedOps, expectedOrderIds }, sig) as unknown as Json;
      }),
  );
const wsMessage = fc
  .record({ id: fc.string({ minLength: 1, maxLength: 64 }), method: fc.string(), payload: fc.oneof(fc.constant({}), fc.integer(), fc.constant(null)) })
  .chain((message) => fc.constantFrom<Json>(message as Json, { ...message, authorization7702: null } as Json));

const cases = [
  { name: 'executeBatch payloads', reader: readBatchPayload, schema: batchPayloadSchema, wire: batchWire, runs: 6 },
  { name: 'executeReplaceBySlotPacked payloads', reader: readReplacePayload, schema: replacePayloadSchema, wire: replaceWire, runs: 6 },
  { name: 'WebSocket messages', reader: readWsMessage, schema: wsMessageSchema, wire: wsMessage, runs: 60 },
] as const;

describe.each(cases)('the fast reader of $name', ({ reader, schema, wire, runs }) => {
  itAgreesWithSchema(reader, schema, wire, runs);
});

describe('the fast reader of batch payloads', () => {
  it('leaves a cancel slot given twice to the schema', () => {
    const wire = fc.sample(batchWire.filter((value) => (value as { cancelSlotIdxs: string[] }).cancelSlotIdxs.length > 0), 1)[0] as Record<string, Json[]>;
    const slots = wire['cancelSlotIdxs']!;
    const ids = wire['expectedOrderIds']!;
    const doubled = { ...wire, cancelSlotIdxs: [...slots, slots[0]!], expectedOrderIds: [...ids, ids[0]!] };
    expect(agrees(readBatchPayload, batchPayloadSchema, doubled)).toBe('deferred');
    expect(batchPayloadSchema.safeParse(doubled).success).toBe(false);
  });
});

describe('the fast reader of replace payloads', () => {
  it('leaves packed ops of a bad length, or too many, to the schema', () => {
    const wire = fc.sample(replaceWire, 1)[0] as Record<string, Json>;
    for (const packedOps of ['0x', `0x${'00'.repeat(PACKED_OP_BYTES + 1)}`, `0x${'00'.repeat(MAX_PACKED_OPS_BYTES + PACKED_OP_BYTES)}`]) {
      agrees(readReplacePayload, replacePayloadSchema, { ...wire, packedOps });
    }
  });
});
