/**
 * What makes a quote manager's call a repeat of its last one: the same levels (kept flat, so a
 * comparison allocates nothing) and the same intent, field by field. Strategies re-plan on every
 * book, and most books change nothing of their quotes.
 */
import type { PackedOp } from '../protocol/packed-ops.ts';
import type { PlaceAndCancel, ReplaceSlots } from './intents.ts';
import type { DesiredQuotes } from './quote-manager.ts';

/** `levels` holds the bids' count, then each bid's price and size, then the asks' likewise. */
export function sameLevels(levels: readonly (number | bigint)[], desired: DesiredQuotes): boolean {
  let i = 0;
  for (const side of [desired.bids, desired.asks]) {
    if (levels[i++] !== side.length) return false;
    for (const level of side) if (levels[i++] !== level.price || levels[i++] !== level.size) return false;
  }
  return i === levels.length;
}

/** Keeps `desired` in `levels` (the flat form `sameLevels` reads). */
export function rememberLevels(levels: (number | bigint)[], desired: DesiredQuotes): void {
  levels.length = 0;
  for (const side of [desired.bids, desired.asks]) {
    levels.push(side.length);
    for (const level of side) levels.push(level.price, level.size);
  }
}

/** Field by field: the same intent (the plan builds both, so the same fields). */
export function sameIntent(a: ReplaceSlots | PlaceAndCancel, b: ReplaceSlots | PlaceAndCancel): boolean {
  if (a.purpose !== b.purpose || a.market !== b.market) return false;
  if (a.type === 'ReplaceSlots' || b.type === 'ReplaceSlots') {
    if (a.type !== 'ReplaceSlots' || b.type !== 'ReplaceSlots' || a.ops.length !== b.ops.length) return false;
    return a.ops.every((op, i) => samePackedOp(op, b.ops[i]!));
  }
  if (a.cancelSlots.length !== b.cancelSlots.length || a.orders.length !== b.orders.length) return false;
  if (!a.cancelSlots.every((slot, i) => slot === b.cancelSlots[i])) return false;
  return a.orders.every((order, i) => {
    const other = b.orders[i]!;
    return (
      order.side === other.side &&
      order.price === other.price &&
      order.size === other.size &&
      order.tif === other.tif &&
      order.executionInstruction === other.executionInstruction &&
      order.minSizeAfterBlock === other.minSizeAfterBlock
    );
  });
}

function samePackedOp(a: PackedOp, b: PackedOp): boolean {
  if (a.slotIdx !== b.slotIdx || a.kind !== b.kind) return false;
  if (a.kind === 'cancel' || b.kind === 'cancel') return true;
  return a.side === b.side && a.postOnly === b.postOnly && a.price === b.price && a.size === b.size && a.minSizeAfterBlock === b.minSizeAfterBlock;
}
