/** The orders an intent places, as the risk rules count them (a slot placement rests: GTC). */
import type { OrderSide, TimeInForce } from '../../protocol/constants.ts';
import type { Intent } from '../../strategy/intents.ts';

export interface IntentOrder {
  readonly side: OrderSide;
  readonly price: bigint;
  readonly size: bigint;
  readonly tif: TimeInForce;
}

/**
 * The new orders of `intent`, in its order (none for cancels).
 *
 * @example newOrders({ type: 'ReplaceSlots', purpose: 'q', market, ops: [{ slotIdx: 0, kind: 'place', side: 'BUY', price: 99n, size: 10n }] }) // [{ side: 'BUY', price: 99n, size: 10n, tif: 'GTC' }]
 */
export function newOrders(intent: Intent): readonly IntentOrder[] {
  switch (intent.type) {
    case 'PlaceAndCancel':
    case 'CreateBatchTrigger':
      return intent.orders;
    case 'ReplaceSlots':
    case 'CreateReplaceTrigger': {
      const orders: IntentOrder[] = [];
      for (const op of intent.ops) if (op.kind === 'place') orders.push({ side: op.side, price: op.price, size: op.size, tif: 'GTC' });
      return orders;
    }
    case 'CancelAll':
    case 'CancelTrigger':
      return [];
  }
}
