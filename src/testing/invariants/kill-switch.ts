/**
 * `kill-switch`: once the kill switch trips, nothing places a new order (no request of an intent
 * with placements is signed after the trip) and every own order is gone by `killBlocks` blocks
 * after it (default 1): the venue executed the cancels within that many blocks, so the own state
 * (the engine learns an outcome a relay round trip after its block) shows no resting order from
 * the next block on. Why: the kill switch is the operator's last word; an order that outlives it
 * is risk nobody wants.
 */
import type { RunRecord } from '../run-record.ts';
import { DEFAULT_KILL_BLOCKS, defineInvariant, FirstFinding, type InvariantFinding, type InvariantOptions } from './invariant.ts';
import { describeIntent, describeOrder, firstSends, intentLedger, lateOrders, placementsOf, requestIdOf } from './record-queries.ts';

function check(record: RunRecord, options: InvariantOptions): InvariantFinding | undefined {
  const kill = record.killSwitch;
  if (kill === undefined) return undefined;
  const tripped = `the kill switch tripped at ${kill.at} ms (${kill.trip.trigger}: ${kill.trip.reason})`;
  const first = new FirstFinding();

  const sends = firstSends(record);
  const ledger = intentLedger(record);
  for (const emission of ledger.emissions) {
    if (placementsOf(emission.intent).length === 0) continue;
    // Emitted after the trip: the strategy kept placing (the engine refuses it, the strategy should not ask).
    if (emission.at > kill.at) {
      first.offer({
        at: emission.at,
        message: `${tripped}, yet ${describeIntent(record, emission)} places ${placementsOf(emission.intent).length} order(s)`,
        details: { index: emission.index, trippedAt: kill.at },
      });
      continue;
    }
    for (const { fate } of emission.fates) {
      const requestId = requestIdOf(fate);
      const send = requestId === undefined ? undefined : sends.get(requestId);
      if (send === undefined || send.at <= kill.at) continue;
      first.offer({
        at: send.at,
        message: `${tripped}, yet ${describeIntent(record, emission)} was signed at ${send.at} ms (request ${send.requestId}) and places ${placementsOf(emission.intent).length} order(s)`,
        details: { index: emission.index, requestId: send.requestId, trippedAt: kill.at },
      });
    }
  }

  const blocks = options.killBlocks ?? DEFAULT_KILL_BLOCKS;
  for (const symbol of record.markets.keys()) {
    const late = lateOrders(record, symbol, kill.at, blocks + 1, Infinity, options.faultGraceMs);
    if (late === undefined) continue;
    const { at, deadline, orders } = late;
    first.offer({
      at,
      message: `${tripped}; ${blocks} block(s) later (from ${deadline} ms) no order may rest, yet at ${at} ms ${symbol} still has ${orders.length}: ${orders.map(describeOrder).join(', ')}`,
      details: { market: symbol, trippedAt: kill.at, deadline, orders: orders.length },
    });
  }
  return first.first;
}

export const killSwitchInvariant = defineInvariant(
  'kill-switch',
  'After the kill switch trips no intent places a new order, and by killBlocks blocks after the trip no own order rests.',
  check,
);
