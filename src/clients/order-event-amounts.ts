/**
 * The amounts of an order event in human units, by the spec's denomination rules
 * (src/core/denomination.ts): sizes by `sizePrecision`, prices of created/canceled orders by
 * `pricePrecision`, `fillPrice` and `*InUsd` by 1e18, base-token amounts by 10^decimals of the base token.
 */
import type { Decimal } from '../core/decimal.ts';
import { baseTokenToHuman, fixed18ToHuman, priceToHuman, sizeToHuman } from '../core/denomination.ts';
import type { OrderEvent } from '../protocol/user-data.ts';

export type OrderEventAmounts =
  | {
      readonly eventType: 'order-created';
      readonly size: Decimal;
      readonly price: Decimal;
      readonly baseDeposited: Decimal;
      readonly baseDepositedInUsd: Decimal;
    }
  | {
      readonly eventType: 'order-canceled';
      readonly size: Decimal;
      readonly remainingSize: Decimal;
      readonly price: Decimal;
      readonly basePositionValue: Decimal;
      readonly basePositionValueInUsd: Decimal;
    }
  | {
      readonly eventType: 'trade';
      readonly orderSize: Decimal;
      readonly filledSize: Decimal;
      readonly updatedSize: Decimal;
      readonly fillPrice: Decimal;
      readonly baseFilled: Decimal;
      readonly baseFilledInUsd: Decimal;
    };

/**
 * @example orderEventAmounts(tradeEvent).fillPrice.toFixed() // '1.2345'
 */
export function orderEventAmounts(event: OrderEvent): OrderEventAmounts {
  // No closures here: under tsx every closure made per call is also named per call (`__name`).
  const data = event.eventData;
  const sizePrecision = data.sizePrecision;
  const decimals = data.baseToken.decimal;
  switch (event.eventType) {
    case 'order-created': {
      const created = event.eventData;
      return {
        eventType: 'order-created',
        size: sizeToHuman(created.size, sizePrecision),
        price: priceToHuman(created.price, created.pricePrecision),
        baseDeposited: baseTokenToHuman(created.baseDeposited, decimals),
        baseDepositedInUsd: fixed18ToHuman(created.baseDepositedInUsd),
      };
    }
    case 'order-canceled': {
      const canceled = event.eventData;
      return {
        eventType: 'order-canceled',
        size: sizeToHuman(canceled.size, sizePrecision),
        remainingSize: sizeToHuman(canceled.remainingSize, sizePrecision),
        price: priceToHuman(canceled.price, canceled.pricePrecision),
        basePositionValue: baseTokenToHuman(canceled.basePositionValue, decimals),
        basePositionValueInUsd: fixed18ToHuman(canceled.basePositionValueInUsd),
      };
    }
    case 'trade': {
      const trade = event.eventData;
      return {
        eventType: 'trade',
        orderSize: sizeToHuman(trade.orderSize, sizePrecision),
        filledSize: sizeToHuman(trade.filledSize, sizePrecision),
        updatedSize: sizeToHuman(trade.updatedSize, sizePrecision),
        fillPrice: fixed18ToHuman(trade.fillPrice),
        baseFilled: baseTokenToHuman(trade.baseFilled, decimals),
        baseFilledInUsd: fixed18ToHuman(trade.baseFilledInUsd),
      };
    }
  }
}
