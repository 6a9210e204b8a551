/**
 * `noncesInvariant`: the nonce of each request's first send is above every earlier request's, and a resend
 * carries its own request's nonce (so no other request's). Why: the relay refuses a nonce that does
 * not increase within a connection, and the contract keeps only the last one: a reused or falling
 * nonce is a request that cannot execute, or one that executes twice.
 */
import type { RunRecord, SignedRequest } from '../run-record.ts';
import { defineInvariant, type InvariantFinding } from './invariant.ts';

function check(record: RunRecord): InvariantFinding | undefined {
  const sent = new Map<string, SignedRequest>();
  const owner = new Map<bigint, string>();
  let last: SignedRequest | undefined;
  for (const request of record.signed) {
    const { at, requestId, nonce } = request;
    const original = sent.get(requestId);
    if (request.resend) {
      if (original === undefined) {
        return { at, message: `request ${requestId} was resent at ${at} ms with nonce ${nonce} but never sent before`, details: { requestId, nonce: nonce.toString() } };
      }
      if (nonce !== original.nonce) {
        const other = owner.get(nonce);
        return {
          at,
          message: `the resend of request ${requestId} at ${at} ms carries nonce ${nonce}, not its own ${original.nonce}${other === undefined ? '' : ` (${nonce} is request ${other}'s)`}`,
          details: { requestId, nonce: nonce.toString(), ownNonce: original.nonce.toString(), ...(other === undefined ? {} : { otherRequestId: other }) },
        };
      }
      continue;
    }
    if (original !== undefined) {
      return { at, message: `request ${requestId} was sent as new again at ${at} ms (first at ${original.at} ms): a resend must be marked as one`, details: { requestId } };
    }
    if (last !== undefined && nonce <= last.nonce) {
      return {
        at,
        message: `request ${requestId} signed at ${at} ms has nonce ${nonce}, not above ${last.nonce} of the previous request ${last.requestId} (at ${last.at} ms)`,
        details: { requestId, nonce: nonce.toString(), previousRequestId: last.requestId, previousNonce: last.nonce.toString() },
      };
    }
    sent.set(requestId, request);
    owner.set(nonce, requestId);
    last = request;
  }
  return undefined;
}

export const noncesInvariant = defineInvariant('nonces', 'Nonces of first sends strictly increase; a resend reuses its own request’s nonce and no other.', check);
