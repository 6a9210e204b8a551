/**
 * A fast reader (fast-reader.ts) of the relay's WebSocket frames, two per signed intent (the
 * response, then the outcome). It mirrors `wsServerMessageSchema` (relay-response.ts) field for
 * field; test/protocol/relay-response-readers.prop.test.ts holds it to the schema. The schema's
 * three options differ in `type`, so at most one can match and the reader picks it by `type`.
 */
import { OUTCOME_STATUSES } from './constants.ts';
import { ANY_CASE_ADDRESS, isCanonicalUint, isHexBytes, type Address, type Hex } from './encoding.ts';
import {
  anyBoolean,
  anyString,
  byDiscriminator,
  intIn,
  literal,
  matching,
  nonEmptyString,
  nullable,
  oneOf,
  stringWhere,
  strippedObject,
  type FastReader,
} from './fast-reader.ts';
import type { WsServerMessage } from './relay-response.ts';

const txHash = stringWhere((text) => isHexBytes(text, 32)) as FastReader<Hex>;
const address = () => matching<Address>(ANY_CASE_ADDRESS, true);
const uint64 = stringWhere((text) => isCanonicalUint(text, 64));

const broadcast = strippedObject<WsServerMessage>({
  type: literal('response'),
  id: anyString,
  status: literal('BROADCAST'),
  txHash,
  sponsorAddress: address(),
  sponsorNonce: uint64,
  transactionType: oneOf(['DYNAMIC_FEE', 'SET_CODE']),
});

const failed = strippedObject<WsServerMessage>({
  type: literal('response'),
  id: anyString,
  status: oneOf(['REJECTED', 'UNKNOWN']),
  code: nonEmptyString,
  message: anyString,
  retryable: anyBoolean,
  retryAfterMs: nullable(intIn(0)),
  candidateTxHash: nullable(txHash),
  sponsorAddress: nullable(address()),
  sponsorNonce: nullable(uint64),
});

/** `wsServerMessageSchema`'s output, or NO_MATCH. */
export const readWsServerMessage: FastReader<WsServerMessage> = byDiscriminator<WsServerMessage>('type', {
  response: byDiscriminator('status', { BROADCAST: broadcast, REJECTED: failed, UNKNOWN: failed }),
  outcome: strippedObject({
    type: literal('outcome'),
    id: anyString,
    txHash,
    status: oneOf(OUTCOME_STATUSES),
    blockNumber: nullable(uint64),
    reason: nullable(anyString),
  }),
  error: strippedObject({ type: literal('error'), code: nonEmptyString, message: anyString }),
});
