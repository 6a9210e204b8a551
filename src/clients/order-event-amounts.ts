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
  const data = event.eventData;
  const size = (value: string) => sizeToHuman(value, data.sizePrecision);
  const base = (value: string) => baseTokenToHuman(value, data.baseToken.decimal);
  switch (event.eventType) {
    case 'order-created': {
      const created = event.eventData;
      return {
        eventType: 'order-created',
        size: size(created.size),
        price: priceToHuman(created.price, created.pricePrecision),
        baseDeposited: base(created.baseDeposited),
        baseDepositedInUsd: fixed18ToHuman(created.baseDepositedInUsd),
      };
    }
    case 'order-canceled': {
      const canceled = event.eventData;
      return {
        eventType: 'order-canceled',
        size: size(canceled.size),
        remainingSize: size(canceled.remainingSize),
        price: priceToHuman(canceled.price, canceled.pricePrecision),
        basePositionValue: base(canceled.basePositionValue),
        basePositionValueInUsd: fixed18ToHuman(canceled.basePositionValueInUsd),
      };
    }
    case 'trade': {
      const trade = event.eventData;
      return {
        eventType: 'trade',
        orderSize: size(trade.orderSize),
        filledSize: size(trade.filledSize),
        updatedSize: size(trade.updatedSize),
        fillPrice: fixed18ToHuman(trade.fillPrice),
        baseFilled: base(trade.baseFilled),
        baseFilledInUsd: fixed18ToHuman(trade.baseFilledInUsd),
      };
    }
  }
}
