/**
 * `terminal-fates`: every intent the strategy emitted that was not malformed got exactly one fate
 * (a malformed one, never sent, none); every request a fate names was signed; and every signed
 * request got exactly one final status (none lost, none resolved twice). A retried intent signs
 * several requests and its fate names the last, so the requests are judged on their final statuses
 * (`record.resolved`), not on the fates. Why: the engine promises that every intent and every
 * signed request is accounted for; a lost one is an order the bot may not know it has.
 */
import type { RunRecord } from '../run-record.ts';
import { defineInvariant, FirstFinding, type InvariantFinding } from './invariant.ts';
import { describeIntent, firstSends, intentLedger, requestIdOf } from './record-queries.ts';

function check(record: RunRecord): InvariantFinding | undefined {
  const first = new FirstFinding();
  const ledger = intentLedger(record);
  const sends = firstSends(record);

  for (const emission of ledger.emissions) {
    const what = describeIntent(record, emission);
    const [fate, second] = emission.fates;
    if (emission.invalid && fate !== undefined) {
      first.offer({ at: fate.at, message: `${what} was invalid and never sent, yet got the fate ${fate.fate.status} at ${fate.at} ms`, details: { index: emission.index } });
    } else if (!emission.invalid && fate === undefined) {
      first.offer({ at: emission.at, message: `${what} got no fate`, details: { index: emission.index } });
    }
    if (fate !== undefined && second !== undefined) {
      first.offer({
        at: second.at,
        message: `${what} got a second fate: ${fate.fate.status} at ${fate.at} ms, then ${second.fate.status} at ${second.at} ms`,
        details: { index: emission.index, fates: emission.fates.map(({ fate: each }) => each.status) },
      });
    }
  }

  for (const { at, intent, fate } of [...ledger.emissions.flatMap((emission) => emission.fates), ...ledger.foreignFates]) {
    const requestId = requestIdOf(fate);
    if (requestId !== undefined && !sends.has(requestId)) {
      first.offer({ at, message: `the ${fate.status} fate of a ${intent.type} ${intent.purpose} at ${at} ms names request ${requestId}, which was never signed`, details: { requestId } });
    }
  }

  const resolved = new Map<string, number>();
  for (const { at, requestId, status } of record.resolved) {
    const earlier = resolved.get(requestId);
    if (earlier !== undefined) first.offer({ at, message: `request ${requestId} was resolved twice: at ${earlier} ms, then ${status} at ${at} ms`, details: { requestId } });
    else if (!sends.has(requestId)) first.offer({ at, message: `request ${requestId} was resolved (${status}) at ${at} ms but never signed`, details: { requestId } });
    else resolved.set(requestId, at);
  }
  for (const send of sends.values()) {
    if (!resolved.has(send.requestId)) {
      first.offer({ at: send.at, message: `request ${send.requestId} (nonce ${send.nonce}) signed at ${send.at} ms never got a final status: it is lost`, details: { requestId: send.requestId, nonce: send.nonce.toString() } });
    }
  }
  return first.first;
}

export const terminalFatesInvariant = defineInvariant(
  'terminal-fates',
  'Every valid intent gets exactly one fate, and every signed request exactly one final status: none lost, none twice.',
  check,
);
