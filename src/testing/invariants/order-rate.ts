/**
 * `order-rate`: the orders placed never exceed `risk.maxOrdersPerSecond` in any rolling window. The
 * window is the engine's documented rule (`rateWindow`): with rate r, at most max(1, floor(r))
 * orders in any window of max(1, floor(r)) / r seconds (20/s: 20 per 1000 ms; 0.5/s: 1 per
 * 2000 ms), a window holding the orders of the last `windowMs` up to and including its end. An
 * order counts when its request is first signed; the request of an intent is the one its fate
 * names (an intent signed again after a rejection counts once, at its last signing). Why: the venue
 * and the operator bound the order rate; a strategy in a loop must not reach the relay at its pace.
 */
import { rateWindow } from '../../execution/risk/order-rate.ts';
import type { RunRecord } from '../run-record.ts';
import { defineInvariant, type InvariantFinding } from './invariant.ts';
import { firstSends, intentLedger, placementsOf, requestIdOf } from './record-queries.ts';

interface Signing {
  readonly at: number;
  readonly requestId: string;
  readonly orders: number;
}

function check(record: RunRecord): InvariantFinding | undefined {
  const sends = firstSends(record);
  const ledger = intentLedger(record);
  const signings: Signing[] = [];
  for (const { intent, fate } of [...ledger.emissions.flatMap((emission) => emission.fates), ...ledger.foreignFates]) {
    const requestId = requestIdOf(fate);
    const send = requestId === undefined ? undefined : sends.get(requestId);
    const orders = placementsOf(intent).length;
    if (send !== undefined && orders > 0) signings.push({ at: send.at, requestId: send.requestId, orders });
  }
  signings.sort((a, b) => a.at - b.at);
  const { capacity, windowMs } = rateWindow(record.risk.maxOrdersPerSecond);
  let start = 0;
  let inWindow = 0;
  for (const signing of signings) {
    inWindow += signing.orders;
    while (signings[start]!.at <= signing.at - windowMs) inWindow -= signings[start++]!.orders;
    if (inWindow > capacity) {
      return {
        at: signing.at,
        message:
          `${inWindow} orders were signed in the ${windowMs} ms up to ${signing.at} ms, above ${capacity} (risk.maxOrdersPerSecond ${record.risk.maxOrdersPerSecond}); ` +
          `the last, request ${signing.requestId}, placed ${signing.orders}`,
        details: { orders: inWindow, capacity, windowMs, requestId: signing.requestId },
      };
    }
  }
  return undefined;
}

export const orderRateInvariant = defineInvariant('order-rate', 'Orders placed per rolling second (the engine’s rate window) never exceed risk.maxOrdersPerSecond.', check);
