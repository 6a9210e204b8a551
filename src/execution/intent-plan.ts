/**
 * From a strategy's intent to the request the engine signs: the relay method, the slots it
 * touches and the expected order id bound to each, taken from the portfolio's slots at signing time.
 *
 * Rules (docs/execution.md, "Expected order ids"):
 * - PlaceAndCancel: `wallet.execute_batch`, one expected id per cancel slot (uint64 max: the slot
 *   is empty), in the order of `cancelSlots`.
 * - ReplaceSlots: `wallet.execute_replace_by_slot_packed`, one expected id per op (uint64 max for
 *   an empty slot).
 * - CancelAll of one market: a ReplaceSlots of cancel ops over every slot that holds an order whose
 *   id is known; nothing to cancel is `empty` (nothing is signed).
 * - CancelTrigger: `wallet.cancel_trigger` (no slots).
 * - A slot whose order is live but whose id is not known yet (the portfolio's `undefined`): the
 *   intent `wait`s until the id is known; a cancel never guesses which order it removes. A CancelAll
 *   told `partial` cancels the slots it knows and leaves the others (the kill switch's sweep
 *   comes back for them).
 * - Trigger creation is not planned here: the engine refuses it before (INTENT_NOT_SUPPORTED_LIVE).
 */
import { UINT64_MAX } from '../core/units.ts';
import { MAKER_SLOTS } from '../protocol/constants.ts';
import type { Address, Hex } from '../protocol/encoding.ts';
import type { PackedOp } from '../protocol/packed-ops.ts';
import type { CancelTrigger, Intent, OrderRequest, PlaceAndCancel, ReplaceSlots } from '../strategy/intents.ts';

/** What one signed request does, with the expected order ids bound. */
export type RequestPlan =
  | {
      readonly kind: 'batch';
      readonly market: Address;
      readonly cancelSlots: readonly number[];
      /** One per cancel slot. */
      readonly expectedOrderIds: readonly bigint[];
      readonly orders: readonly OrderRequest[];
    }
  | {
      readonly kind: 'replace';
      readonly market: Address;
      readonly ops: readonly PackedOp[];
      /** One per op. */
      readonly expectedOrderIds: readonly bigint[];
    }
  | { readonly kind: 'cancel-trigger'; readonly triggerId: Hex };

/** The outcome of planning one intent against the current slots. */
export type PlanResult =
  /** Sign `plan`; tell the portfolio `intent` (a CancelAll becomes its ReplaceSlots of cancels). */
  | { readonly status: 'ready'; readonly plan: RequestPlan; readonly intent: PlaceAndCancel | ReplaceSlots | CancelTrigger }
  /** Some slot's order id is not known yet: plan again when it is. */
  | { readonly status: 'wait'; readonly slots: readonly number[] }
  /** Nothing to do (a CancelAll of a market without orders). */
  | { readonly status: 'empty' }
  /** Not a request this planner makes (trigger creation, a CancelAll without a market). */
  | { readonly status: 'unsupported' };

export interface PlanOptions {
  /** CancelAll only: cancel the slots whose ids are known even when others are not. Default false. */
  readonly partial?: boolean;
}

/**
 * Plans `intent` against `slotOrderIds(market)` (the portfolio's: uint64 max for empty, undefined
 * for an order whose id is not known yet).
 *
 * @example
 * const result = planIntent(intent, (market) => portfolio.slotOrderIds(market));
 * if (result.status === 'ready') sign(result.plan);
 */
export function planIntent(
  intent: Intent,
  slotOrderIds: (market: Address) => readonly (bigint | undefined)[],
  options: PlanOptions = {},
): PlanResult {
  switch (intent.type) {
    case 'PlaceAndCancel': {
      const ids = slotOrderIds(intent.market);
      const expected: bigint[] = [];
      const unknown: number[] = [];
      for (const slot of intent.cancelSlots) {
        const id = ids[slot];
        if (id === undefined) unknown.push(slot);
        else expected.push(id);
      }
      if (unknown.length > 0) return { status: 'wait', slots: unknown };
      return {
        status: 'ready',
        plan: { kind: 'batch', market: intent.market, cancelSlots: intent.cancelSlots, expectedOrderIds: expected, orders: intent.orders },
        intent,
      };
    }
    case 'ReplaceSlots': {
      const ids = slotOrderIds(intent.market);
      const expected: bigint[] = [];
      const unknown: number[] = [];
      for (const op of intent.ops) {
        const id = ids[op.slotIdx];
        if (id === undefined) unknown.push(op.slotIdx);
        else expected.push(id);
      }
      if (unknown.length > 0) return { status: 'wait', slots: unknown };
      return { status: 'ready', plan: { kind: 'replace', market: intent.market, ops: intent.ops, expectedOrderIds: expected }, intent };
    }
    case 'CancelAll': {
      if (intent.market === undefined) return { status: 'unsupported' };
      const ids = slotOrderIds(intent.market);
      const ops: PackedOp[] = [];
      const expected: bigint[] = [];
      const unknown: number[] = [];
      for (let slot = 0; slot < MAKER_SLOTS; slot++) {
        const id = ids[slot];
        if (id === undefined) {
          // An index past the table is an empty slot; a live order without an id is unknown.
          if (slot < ids.length) unknown.push(slot);
          continue;
        }
        if (id === UINT64_MAX) continue;
        ops.push({ slotIdx: slot, kind: 'cancel' });
        expected.push(id);
      }
      if (unknown.length > 0 && options.partial !== true) return { status: 'wait', slots: unknown };
      if (ops.length === 0) return unknown.length > 0 ? { status: 'wait', slots: unknown } : { status: 'empty' };
      const replace: ReplaceSlots = { type: 'ReplaceSlots', market: intent.market, purpose: intent.purpose, ops };
      return { status: 'ready', plan: { kind: 'replace', market: intent.market, ops, expectedOrderIds: expected }, intent: replace };
    }
    case 'CancelTrigger':
      return { status: 'ready', plan: { kind: 'cancel-trigger', triggerId: intent.triggerId }, intent };
    case 'CreateBatchTrigger':
    case 'CreateReplaceTrigger':
      return { status: 'unsupported' };
  }
}

/** The market a plan trades on (undefined for a trigger cancel). */
export function planMarket(plan: RequestPlan): Address | undefined {
  return plan.kind === 'cancel-trigger' ? undefined : plan.market;
}

/** The new orders a plan places, as (side, price, size). */
export function planNewOrders(plan: RequestPlan): readonly { readonly side: 'BUY' | 'SELL'; readonly price: bigint; readonly size: bigint }[] {
  switch (plan.kind) {
    case 'batch':
      return plan.orders.map((order) => ({ side: order.side, price: order.price, size: order.size }));
    case 'replace':
      return plan.ops.flatMap((op) => (op.kind === 'place' ? [{ side: op.side, price: op.price, size: op.size }] : []));
    case 'cancel-trigger':
      return [];
  }
}

/** The order ids a plan cancels (its expected ids that name an order). */
export function planCancelledIds(plan: RequestPlan): readonly bigint[] {
  return plan.kind === 'cancel-trigger' ? [] : plan.expectedOrderIds.filter((id) => id !== UINT64_MAX);
}
