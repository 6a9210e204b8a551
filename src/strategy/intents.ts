/**
 * What a strategy asks for: imperative, readonly commands, in the market's integer units. The
 * execution engine turns each into one signed relay request (risk checks, nonce, expected order ids
 * from its own slot state, EIP-712 signature) or refuses it with a typed error. Strategies never see
 * keys, nonces, order ids they did not get from the engine, or the wire.
 */
import type { Address, Hex } from '../protocol/encoding.ts';
import type { ExecutionInstruction, OrderSide, TimeInForce } from '../protocol/constants.ts';
import type { PackedOp } from '../protocol/packed-ops.ts';

/** One new order of a place-and-cancel batch. */
export interface OrderRequest {
  readonly side: OrderSide;
  /** Price-precision units, on the market's tick. */
  readonly price: bigint;
  /** Size-precision units. */
  readonly size: bigint;
  readonly tif: TimeInForce;
  readonly executionInstruction: ExecutionInstruction;
  /** Size units; 0 for none (IOC and FOK must use 0). */
  readonly minSizeAfterBlock: bigint;
}

interface IntentBase {
  /**
   * What the intent is for, e.g. `quotes` or `hedge`. A newer queued intent with the same market
   * and purpose supersedes an older one that has not been signed yet (quotes go stale).
   */
  readonly purpose: string;
}

/** `wallet.execute_batch`: cancel these maker slots, then place these orders, atomically. */
export interface PlaceAndCancel extends IntentBase {
  readonly type: 'PlaceAndCancel';
  readonly market: Address;
  /** Maker slots (0..61) to cancel first; the engine binds each to the order id it holds. */
  readonly cancelSlots: readonly number[];
  readonly orders: readonly OrderRequest[];
}

/** `wallet.execute_replace_by_slot_packed`: per slot, cancel, or cancel-and-place in that slot. */
export interface ReplaceSlots extends IntentBase {
  readonly type: 'ReplaceSlots';
  readonly market: Address;
  readonly ops: readonly PackedOp[];
}

/** `wallet.cancel_trigger`: cancel an active conditional order. */
export interface CancelTrigger extends IntentBase {
  readonly type: 'CancelTrigger';
  readonly triggerId: Hex;
}

/** Cancel every open order of the wallet (on one market, or all): what the kill switch sends. */
export interface CancelAll extends IntentBase {
  readonly type: 'CancelAll';
  /** One market, or every market the engine trades when absent. */
  readonly market?: Address;
}

/** Defined by the venue, not supported live: the engine refuses it (INTENT_NOT_SUPPORTED_LIVE). */
export interface CreateBatchTrigger extends IntentBase {
  readonly type: 'CreateBatchTrigger';
  readonly market: Address;
  readonly orders: readonly OrderRequest[];
}

/** Defined by the venue, not supported live: the engine refuses it (INTENT_NOT_SUPPORTED_LIVE). */
export interface CreateReplaceTrigger extends IntentBase {
  readonly type: 'CreateReplaceTrigger';
  readonly market: Address;
  readonly ops: readonly PackedOp[];
}

export type Intent = PlaceAndCancel | ReplaceSlots | CancelTrigger | CancelAll | CreateBatchTrigger | CreateReplaceTrigger;
export type IntentType = Intent['type'];

/** Intents that only remove risk: they pass while placements wait (queue full, reconciling, kill switch). */
export function isRiskReducing(intent: Intent): boolean {
  switch (intent.type) {
    case 'CancelAll':
    case 'CancelTrigger':
      return true;
    case 'PlaceAndCancel':
      return intent.orders.length === 0;
    case 'ReplaceSlots':
      return intent.ops.every((op) => op.kind === 'cancel');
    case 'CreateBatchTrigger':
    case 'CreateReplaceTrigger':
      return false;
  }
}
