/**
 * Pre-signing risk checks. `check(intent)` returns `{ ok: true }` or `{ ok: false, error }` with a
 * BaseError of a stable code, and changes nothing; `record(intent)` counts a signed intent's
 * orders for the rate rule. Rules, in the order they are checked (the first failure is returned):
 *
 * 0. Risk-reducing intents (`isRiskReducing`: cancels only) always pass, kill switch included.
 * 1. RISK_KILL_SWITCH: the kill switch is tripped.
 * 2. RISK_MARKET_UNKNOWN: the intent's market has no limits.
 * 3. RISK_MAX_ORDER_SIZE: an order's size is above `maxOrderSize`.
 * 4. RISK_NO_MID / RISK_PRICE_BAND: with no mid known, placements are refused; a buy above
 *    `mid x (1 + band)` or a sell below `mid x (1 - band)` is refused (exactly at the edge passes).
 * 5. RISK_MAX_POSITION: exposure if every order filled, per side: long = position + open buys,
 *    short = -position + open sells, where the open orders are the live ones and those in flight,
 *    less the ones the intent cancels, plus the intent's new orders.
 * 6. RISK_MAX_NOTIONAL: quote value (raw, at each order's price) of the open orders, counted the same way.
 * 7. RISK_MAX_OPEN_ORDERS: resting (GTC) open orders, counted the same way.
 * 8. RISK_ORDER_RATE: orders recorded in the sliding window plus the intent's orders above the
 *    capacity: with rate r per second, capacity max(1, floor(r)) orders per capacity / r seconds
 *    (20/s: 20 per 1000 ms; 0.5/s: 1 per 2000 ms). The window is shared by all markets.
 *
 * Rules 5-7 refuse an intent that takes a measure above its limit, or raises one already above it;
 * one that leaves a measure over the limit no worse (e.g. a sell while too long) passes, so the
 * bot can always work its way back.
 */
import { BaseError } from '../core/base-error.ts';
import type { ErrorCode } from '../core/error-codes.ts';
import type { Clock } from '../core/clock.ts';
import { toUnits } from '../core/units.ts';
import type { RiskConfig } from '../config/run-config.ts';
import type { OrderSide, TimeInForce } from '../protocol/constants.ts';
import type { Address } from '../protocol/encoding.ts';
import { intentMarket } from '../strategy/intent-problems.ts';
import { isRiskReducing, type Intent } from '../strategy/intents.ts';
import { amountScale, quoteRaw, type AmountScale, type MarketSpec } from '../protocol/market-spec.ts';
import type { KillSwitchTrip } from './kill-switch.ts';
import type { MarketState } from './portfolio.ts';

/** The limits of one market in its integer units. */
export interface RiskLimits {
  /** Size units: largest absolute exposure on either side. */
  readonly maxPosition: bigint;
  /** Size units: largest single order. */
  readonly maxOrderSize: bigint;
  /** Raw quote units: largest quote value of the market's open orders together. */
  readonly maxNotional: bigint;
  /** 1..10000. */
  readonly priceBandBps: number;
  /** Orders per second, > 0. */
  readonly maxOrdersPerSecond: number;
  readonly maxOpenOrders: number;
}

export type RiskResult = { readonly ok: true } | { readonly ok: false; readonly error: BaseError };

const OK: RiskResult = Object.freeze({ ok: true });

/**
 * A market's limits from the run file's `risk` section: human amounts to units, rounded down (a
 * limit is never loosened by rounding).
 *
 * @example riskLimits(config.risk, monUsdc).maxPosition // '100' MON at sizePrecision 1000 -> 100_000n
 */
export function riskLimits(risk: RiskConfig, spec: MarketSpec): RiskLimits {
  return {
    maxPosition: toUnits(risk.maxPosition, spec.sizePrecision, 'down'),
    maxOrderSize: toUnits(risk.maxOrderSize, spec.sizePrecision, 'down'),
    maxNotional: toUnits(risk.maxNotional, 10n ** BigInt(spec.quoteToken.decimals), 'down'),
    priceBandBps: risk.priceBandBps,
    maxOrdersPerSecond: risk.maxOrdersPerSecond,
    maxOpenOrders: risk.maxOpenOrders,
  };
}

export interface RiskMarket {
  readonly spec: MarketSpec;
  readonly limits: RiskLimits;
}

export interface RiskContext {
  readonly clock: Pick<Clock, 'now'>;
  /** The portfolio (or anything that gives a market's state). */
  readonly portfolio: { state(market: Address): MarketState };
  /** The current mid of a market in price units, or undefined when none is known. */
  readonly mid: (market: Address) => bigint | undefined;
  readonly killSwitch?: { readonly tripped: KillSwitchTrip | undefined };
}

export interface RiskParameters {
  readonly markets: readonly RiskMarket[];
}

interface IntentOrder {
  readonly side: OrderSide;
  readonly price: bigint;
  readonly size: bigint;
  readonly tif: TimeInForce;
}

/** The new orders an intent places. */
function newOrders(intent: Intent): readonly IntentOrder[] {
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

interface Exposure {
  buys: bigint;
  sells: bigint;
  notional: bigint;
  resting: number;
}

/** Adds (sign 1) or removes (-1) `remaining` of an order; by value, not an object copy, as it runs per order per check. */
function add(exposure: Exposure, scale: AmountScale, order: { side: OrderSide; price: bigint }, remaining: bigint, resting: boolean, sign: 1 | -1): void {
  const amount = sign === 1 ? remaining : -remaining;
  if (order.side === 'BUY') exposure.buys += amount;
  else exposure.sells += amount;
  exposure.notional += quoteRaw(scale, order.price, remaining) * (sign === 1 ? 1n : -1n);
  if (resting) exposure.resting += sign;
}

/** True when `after` breaks `limit` and is worse than `before`. */
function worse(before: bigint, after: bigint, limit: bigint): boolean {
  return after > limit && after > before;
}

/**
 * The risk check of the engine.
 *
 * @example
 * const risk = createRiskCheck({ clock, portfolio, mid: (m) => mids.get(m), killSwitch }, { markets: [{ spec, limits }] });
 * const verdict = risk.check(intent);
 * if (!verdict.ok) return refuse(verdict.error); // e.g. verdict.error.code === 'RISK_PRICE_BAND'
 * risk.record(intent); // once signed
 */
export class RiskCheck {
  readonly #context: RiskContext;
  readonly #markets = new Map<Address, RiskMarket & { readonly scale: AmountScale }>();
  /** Times (ms) of recorded orders, oldest first. */
  #sent: number[] = [];

  constructor(context: RiskContext, params: RiskParameters) {
    this.#context = context;
    for (const market of params.markets) this.#markets.set(market.spec.address, { ...market, scale: amountScale(market.spec) });
  }

  /** Checks `intent` against every rule; changes nothing. */
  check(intent: Intent): RiskResult {
    if (isRiskReducing(intent)) return OK;
    const trip = this.#context.killSwitch?.tripped;
    if (trip !== undefined) {
      return refuse('RISK_KILL_SWITCH', `kill switch tripped (${trip.trigger}): ${trip.reason}`, { trigger: trip.trigger, reason: trip.reason });
    }
    const address = intentMarket(intent);
    const market = address === undefined ? undefined : this.#markets.get(address);
    if (address === undefined || market === undefined) {
      return refuse('RISK_MARKET_UNKNOWN', `no risk limits for market ${address ?? '(none)'}`, { market: address ?? null });
    }
    const { limits, scale } = market;
    const orders = newOrders(intent);

    for (const [index, order] of orders.entries()) {
      if (order.size > limits.maxOrderSize) {
        return refuse('RISK_MAX_ORDER_SIZE', `order ${index}: size ${order.size} is above the limit ${limits.maxOrderSize} (size units)`, {
          index,
          size: order.size.toString(),
          maxOrderSize: limits.maxOrderSize.toString(),
        });
      }
    }

    if (orders.length > 0) {
      const mid = this.#context.mid(address);
      if (mid === undefined || mid <= 0n) return refuse('RISK_NO_MID', `no mid price is known for ${market.spec.symbol}: placements wait for one`, { market: address });
      const band = BigInt(limits.priceBandBps);
      for (const [index, order] of orders.entries()) {
        const outside = order.side === 'BUY' ? order.price * 10_000n > mid * (10_000n + band) : order.price * 10_000n < mid * (10_000n - band);
        if (outside) {
          return refuse(
            'RISK_PRICE_BAND',
            `order ${index}: ${order.side} at ${order.price} is ${order.side === 'BUY' ? 'above' : 'below'} the band of ${limits.priceBandBps} bps around the mid ${mid}`,
            { index, side: order.side, price: order.price.toString(), mid: mid.toString(), priceBandBps: limits.priceBandBps },
          );
        }
      }
    }

    const state = this.#context.portfolio.state(address);
    const cancelled = cancelledSlots(intent);
    const before: Exposure = { buys: 0n, sells: 0n, notional: 0n, resting: 0 };
    for (const order of state.orders) add(before, scale, order, order.remaining, true, 1);
    for (const order of state.pending) add(before, scale, order, order.size, order.tif === 'GTC', 1);
    const after: Exposure = { ...before };
    for (const order of state.orders) if (order.slot !== undefined && cancelled.has(order.slot)) add(after, scale, order, order.remaining, true, -1);
    for (const order of orders) add(after, scale, order, order.size, order.tif === 'GTC', 1);

    const position = state.position;
    const long = { before: position + before.buys, after: position + after.buys };
    const short = { before: before.sells - position, after: after.sells - position };
    if (worse(long.before, long.after, limits.maxPosition) || worse(short.before, short.after, limits.maxPosition)) {
      const side = worse(long.before, long.after, limits.maxPosition) ? 'long' : 'short';
      const exposure = side === 'long' ? long.after : short.after;
      return refuse('RISK_MAX_POSITION', `if every order filled the ${side} exposure would be ${exposure}, above the limit ${limits.maxPosition} (size units)`, {
        side,
        position: position.toString(),
        exposure: exposure.toString(),
        maxPosition: limits.maxPosition.toString(),
      });
    }
    if (worse(before.notional, after.notional, limits.maxNotional)) {
      return refuse('RISK_MAX_NOTIONAL', `open orders would be worth ${after.notional}, above the limit ${limits.maxNotional} (raw quote units)`, {
        notional: after.notional.toString(),
        maxNotional: limits.maxNotional.toString(),
      });
    }
    if (worse(BigInt(before.resting), BigInt(after.resting), BigInt(limits.maxOpenOrders))) {
      return refuse('RISK_MAX_OPEN_ORDERS', `${after.resting} open orders would exceed the limit ${limits.maxOpenOrders}`, {
        openOrders: after.resting,
        maxOpenOrders: limits.maxOpenOrders,
      });
    }

    if (orders.length > 0) {
      const { capacity, windowMs } = rateWindow(limits.maxOrdersPerSecond);
      const recent = this.#recent(windowMs);
      if (recent + orders.length > capacity) {
        return refuse('RISK_ORDER_RATE', `${recent} orders in the last ${windowMs} ms plus ${orders.length} would exceed ${limits.maxOrdersPerSecond} per second`, {
          recent,
          orders: orders.length,
          capacity,
          windowMs,
        });
      }
    }
    return OK;
  }

  /** Counts a signed intent's orders in the rate window. */
  record(intent: Intent): void {
    const count = newOrders(intent).length;
    const now = this.#context.clock.now();
    for (let i = 0; i < count; i++) this.#sent.push(now);
    // Keep at most what the widest window can need.
    if (this.#sent.length > 100_000) this.#sent = this.#sent.slice(-50_000);
  }

  #recent(windowMs: number): number {
    const since = this.#context.clock.now() - windowMs;
    let first = 0;
    while (first < this.#sent.length && this.#sent[first]! <= since) first++;
    return this.#sent.length - first;
  }
}

/** The rate rule's window: max(1, floor(r)) orders per max(1, floor(r)) / r seconds. */
export function rateWindow(ordersPerSecond: number): { readonly capacity: number; readonly windowMs: number } {
  const capacity = Math.max(1, Math.floor(ordersPerSecond));
  return { capacity, windowMs: Math.ceil((capacity * 1000) / ordersPerSecond) };
}

function refuse(code: ErrorCode, message: string, details: Record<string, unknown>): RiskResult {
  return { ok: false, error: new BaseError(code, message, { details }) };
}

/**
 * @example const risk = createRiskCheck({ clock, portfolio, mid, killSwitch }, { markets: [{ spec: monUsdc, limits: riskLimits(config.risk, monUsdc) }] });
 */
export function createRiskCheck(context: RiskContext, params: RiskParameters): RiskCheck {
  return new RiskCheck(context, params);
}
