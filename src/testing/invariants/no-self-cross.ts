/**
 * `no-self-cross`: no order the strategy places meets its own resting orders on the other side: a
 * buy at or above its own ask, a sell at or below its own bid. Each intent is judged against the own
 * state in force when it was emitted (the last at or before its time), less the orders in the slots
 * it cancels or replaces, plus the GTC orders it placed before (an intent's own buy and sell must
 * not cross either). Why: a post-only order that crosses is refused by the venue, and one that may
 * take trades against the strategy itself, paying fees for nothing.
 */
import type { OrderSide } from '../../protocol/constants.ts';
import type { RunRecord } from '../run-record.ts';
import { defineInvariant, type InvariantFinding } from './invariant.ts';
import { clearedSlots, describeIntent, describeOrder, intentLedger, placementsOf, restingOrders, specOf, stateAt } from './record-queries.ts';

interface Resting {
  readonly side: OrderSide;
  readonly price: bigint;
  readonly what: string;
}

const crosses = (side: OrderSide, price: bigint, other: Resting): boolean =>
  other.side !== side && (side === 'BUY' ? price >= other.price : price <= other.price);

function check(record: RunRecord): InvariantFinding | undefined {
  for (const emission of intentLedger(record).emissions) {
    const { intent, at } = emission;
    const placements = placementsOf(intent);
    if (emission.invalid || placements.length === 0 || !('market' in intent)) continue;
    const spec = specOf(record, intent.market);
    if (spec === undefined) continue;
    const cleared = clearedSlots(intent);
    const resting: Resting[] = restingOrders(stateAt(record, spec.symbol, at))
      .filter((order) => cleared !== 'all' && (order.slot === undefined || !cleared.has(order.slot)))
      .map((order) => ({ side: order.side, price: order.price, what: `the own ${describeOrder(order)}` }));
    for (const placement of placements) {
      const crossed = resting.find((other) => crosses(placement.side, placement.price, other));
      if (crossed !== undefined) {
        return {
          at,
          message: `${describeIntent(record, emission)}: ${placement.where} ${placement.side} ${placement.size} @ ${placement.price} crosses ${crossed.what}`,
          details: { index: emission.index, where: placement.where, side: placement.side, price: placement.price.toString(), crossedPrice: crossed.price.toString() },
        };
      }
      if (placement.rests) resting.push({ side: placement.side, price: placement.price, what: `its own ${placement.where} ${placement.side} ${placement.size} @ ${placement.price}` });
    }
  }
  return undefined;
}

export const noSelfCrossInvariant = defineInvariant(
  'no-self-cross',
  'No placement crosses the strategy’s own resting orders on the other side (a buy at or above its own ask, a sell at or below its own bid), after the intent’s own cancels and replacements.',
  check,
);
