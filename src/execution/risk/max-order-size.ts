/** `max-order-size`: no single order larger than `maxOrderSize` (size units); exactly at it passes. */
import type { RiskRule } from './risk-rule.ts';

export const maxOrderSize: RiskRule = {
  name: 'max-order-size',
  reads: ['maxOrderSize'],
  codes: ['RISK_MAX_ORDER_SIZE'],
  check({ orders, limits }) {
    const index = orders.findIndex((order) => order.size > limits.maxOrderSize);
    if (index === -1) return undefined;
    const size = orders[index]!.size;
    return {
      code: 'RISK_MAX_ORDER_SIZE',
      message: `order ${index}: size ${size} is above the limit ${limits.maxOrderSize} (size units)`,
      details: { index, size: size.toString(), maxOrderSize: limits.maxOrderSize.toString() },
    };
  },
};
