/**
 * `position-limit`: after every fill of the run, each market's position stays within the run's
 * `risk.maxPosition` (a human base amount, in size units rounded down as the engine reads it) and
 * within the strategy's own limit when `positionLimitInvariant` gives one. The position starts from the
 * opening fills and moves by each fill in the order they happened. A fill that leaves the position
 * beyond a limit breaks it, unless it only brought back toward zero a position already beyond it
 * (a scenario may open there). Why: the limit is what the operator accepts to hold; the engine's
 * risk check counts every open order as filled so that no sequence of fills passes it.
 */
import { fromUnits, toUnits } from '../../core/units.ts';
import type { RunRecord } from '../run-record.ts';
import { defineInvariant, FirstFinding, type InvariantFinding, type InvariantOptions } from './invariant.ts';
import { describeFill, fillAt, fillsInOrder, signedSize } from './record-queries.ts';

const abs = (value: bigint): bigint => (value < 0n ? -value : value);

/** Beyond `limit` after the fill, and not merely closer to zero on the same side as before. */
function breaks(before: bigint, after: bigint, limit: bigint): boolean {
  if (abs(after) <= limit) return false;
  const sameSide = before > 0n === after > 0n && before !== 0n;
  return !(sameSide && abs(after) < abs(before));
}

function check(record: RunRecord, options: InvariantOptions): InvariantFinding | undefined {
  const first = new FirstFinding();
  for (const spec of record.markets.values()) {
    const ownLimit = options.positionLimit?.(record.params, spec);
    const limits = [{ name: 'risk.maxPosition', units: toUnits(record.risk.maxPosition, spec.sizePrecision, 'down') }];
    if (ownLimit !== undefined) limits.push({ name: 'the strategy’s own limit', units: ownLimit });
    limits.sort((a, b) => (a.units < b.units ? -1 : a.units > b.units ? 1 : 0));
    let position = fillsInOrder(record.openingFills, spec.address).reduce((sum, fill) => sum + signedSize(fill), 0n);
    for (const fill of fillsInOrder(record.fills, spec.address)) {
      const before = position;
      position += signedSize(fill);
      const broken = limits.find((limit) => breaks(before, position, limit.units));
      if (broken === undefined) continue;
      const base = spec.baseToken.symbol;
      first.offer({
        at: fillAt(record, fill),
        message:
          `${spec.symbol}: after ${describeFill(record, fill)} the position is ${position} size units (${fromUnits(position, spec.sizePrecision)} ${base}), ` +
          `beyond ${broken.name} ${broken.units} (${fromUnits(broken.units, spec.sizePrecision)} ${base}); it was ${before}`,
        details: { market: spec.symbol, orderId: fill.orderId.toString(), before: before.toString(), position: position.toString(), limit: broken.name, limitUnits: broken.units.toString() },
      });
      break;
    }
  }
  return first.first;
}

export const positionLimitInvariant = defineInvariant(
  'position-limit',
  'After every fill the position stays within risk.maxPosition and the strategy’s own limit (positionLimitInvariant), except while a position that opened beyond it comes back.',
  check,
);
