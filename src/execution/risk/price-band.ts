/**
 * `price-band`: no fat fingers. With no mid known, placements wait for one (RISK_NO_MID); a buy
 * above `mid x (1 + band)` or a sell below `mid x (1 - band)` is refused (RISK_PRICE_BAND), exactly
 * at the edge passes. Far on the passive side is fine.
 */
import type { RiskRule } from './risk-rule.ts';

export const priceBand: RiskRule = {
  name: 'price-band',
  reads: ['priceBandBps'],
  codes: ['RISK_NO_MID', 'RISK_PRICE_BAND'],
  check(context) {
    const { orders, limits, spec } = context;
    if (orders.length === 0) return undefined;
    const mid = context.mid();
    if (mid === undefined || mid <= 0n) return { code: 'RISK_NO_MID', message: `no mid price is known for ${spec.symbol}: placements wait for one`, details: { market: spec.address } };
    const band = BigInt(limits.priceBandBps);
    const index = orders.findIndex((order) => (order.side === 'BUY' ? order.price * 10_000n > mid * (10_000n + band) : order.price * 10_000n < mid * (10_000n - band)));
    if (index === -1) return undefined;
    const order = orders[index]!;
    return {
      code: 'RISK_PRICE_BAND',
      message: `order ${index}: ${order.side} at ${order.price} is ${order.side === 'BUY' ? 'above' : 'below'} the band of ${limits.priceBandBps} bps around the mid ${mid}`,
      details: { index, side: order.side, price: order.price.toString(), mid: mid.toString(), priceBandBps: limits.priceBandBps },
    };
  },
};
