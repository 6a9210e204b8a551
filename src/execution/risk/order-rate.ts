/**
 * `order-rate`: the orders signed in the sliding window plus the intent's stay within the capacity.
 * With rate r per second the capacity is max(1, floor(r)) orders per capacity / r seconds (20/s: 20
 * per 1000 ms; 0.5/s: 1 per 2000 ms). One window per engine, shared by all its markets.
 */
import type { RiskRule } from './risk-rule.ts';

/** Times (ms) of the signed orders, oldest first. */
interface SentOrders {
  times: number[];
}

/** The rate rule's window: max(1, floor(r)) orders per max(1, floor(r)) / r seconds. */
export function rateWindow(ordersPerSecond: number): { readonly capacity: number; readonly windowMs: number } {
  const capacity = Math.max(1, Math.floor(ordersPerSecond));
  return { capacity, windowMs: Math.ceil((capacity * 1000) / ordersPerSecond) };
}

export const orderRate: RiskRule<SentOrders> = {
  name: 'order-rate',
  reads: ['maxOrdersPerSecond'],
  codes: ['RISK_ORDER_RATE'],
  newState: () => ({ times: [] }),
  check({ orders, limits, now }, sent) {
    if (orders.length === 0) return undefined;
    const { capacity, windowMs } = rateWindow(limits.maxOrdersPerSecond);
    let first = 0;
    while (first < sent.times.length && sent.times[first]! <= now - windowMs) first++;
    const recent = sent.times.length - first;
    if (recent + orders.length <= capacity) return undefined;
    return {
      code: 'RISK_ORDER_RATE',
      message: `${recent} orders in the last ${windowMs} ms plus ${orders.length} would exceed ${limits.maxOrdersPerSecond} per second`,
      details: { recent, orders: orders.length, capacity, windowMs },
    };
  },
  record({ orders, now }, sent) {
    for (let i = 0; i < orders.length; i++) sent.times.push(now);
    // Keep at most what the widest window can need.
    if (sent.times.length > 100_000) sent.times = sent.times.slice(-50_000);
  },
};
