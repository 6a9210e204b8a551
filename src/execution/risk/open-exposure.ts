/**
 * A market's exposure if every open order filled, before and after an intent: the live orders and
 * those in flight, then less the ones the intent cancels, plus its new orders. The max-position,
 * max-notional and max-open-orders rules read it, and refuse only what makes a measure `worse`: an
 * intent that leaves a measure over its limit no worse (a sell while too long) passes, so the bot
 * can always work its way back.
 */
import type { OrderSide } from '../../protocol/constants.ts';
import { quoteRaw, type AmountScale } from '../../protocol/market-spec.ts';
import type { Intent } from '../../strategy/intents.ts';
import type { MarketState } from '../portfolio.ts';
import type { IntentOrder } from './intent-orders.ts';

export interface Exposure {
  /** Size units of the open buys. */
  buys: bigint;
  /** Size units of the open sells. */
  sells: bigint;
  /** Raw quote units: the open orders' value, each at its price. */
  notional: bigint;
  /** Open orders that rest (GTC). */
  resting: number;
}

export interface ExposureChange {
  /** Size units, signed: the market's position. */
  readonly position: bigint;
  readonly before: Readonly<Exposure>;
  readonly after: Readonly<Exposure>;
}

/** The slots whose orders the intent removes. */
function cancelledSlots(intent: Intent): ReadonlySet<number> {
  switch (intent.type) {
    case 'PlaceAndCancel':
      return new Set(intent.cancelSlots);
    case 'ReplaceSlots':
      return new Set(intent.ops.map((op) => op.slotIdx));
    default:
      return new Set();
  }
}

/** Adds (sign 1) or removes (-1) `remaining` of an order; by value, not an object copy, as it runs per order per check. */
function add(exposure: Exposure, scale: AmountScale, order: { side: OrderSide; price: bigint }, remaining: bigint, resting: boolean, sign: 1 | -1): void {
  const amount = sign === 1 ? remaining : -remaining;
  if (order.side === 'BUY') exposure.buys += amount;
  else exposure.sells += amount;
  exposure.notional += quoteRaw(scale, order.price, remaining) * (sign === 1 ? 1n : -1n);
  if (resting) exposure.resting += sign;
}

/**
 * The exposure of `state`'s market before `intent` and after it (placing `orders`, its new orders).
 *
 * @example exposureChange(portfolio.state(market), amountScale(spec), intent, newOrders(intent)).after.buys // 4_000n
 */
export function exposureChange(state: MarketState, scale: AmountScale, intent: Intent, orders: readonly IntentOrder[]): ExposureChange {
  const cancelled = cancelledSlots(intent);
  const before: Exposure = { buys: 0n, sells: 0n, notional: 0n, resting: 0 };
  for (const order of state.orders) add(before, scale, order, order.remaining, true, 1);
  for (const order of state.pending) add(before, scale, order, order.size, order.tif === 'GTC', 1);
  const after: Exposure = { ...before };
  for (const order of state.orders) if (order.slot !== undefined && cancelled.has(order.slot)) add(after, scale, order, order.remaining, true, -1);
  for (const order of orders) add(after, scale, order, order.size, order.tif === 'GTC', 1);
  return { position: state.position, before, after };
}

/** True when `after` breaks `limit` and is worse than `before`. */
export function worse(before: bigint, after: bigint, limit: bigint): boolean {
  return after > limit && after > before;
}
