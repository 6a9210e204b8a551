/**
 * Liquidity outside the venue's own book that relayed transactions meet: a backtest's recorded
 * market. Before a relayed batch or replace executes, the levels of the recorded book that its orders
 * could reach (prices up to each side's most aggressive limit) are placed as resting orders of an
 * outside account; the transaction then runs through the venue's own rules unchanged — a post-only
 * order that would cross them is rejected, a taker walks them level by level, with fees — and what
 * is left of them is cancelled at once. The outside orders exist only while one transaction runs,
 * so they never sit in the queue of the bot's own resting orders.
 */
import { MAKER_SLOTS, type OrderSide } from '../protocol/constants.ts';
import type { Address } from '../protocol/encoding.ts';
import type { MatchingEngine } from './matching-engine.ts';
import type { VenueEvent } from './venue-events.ts';
import type { VenueTx, VenueTxResult } from './venue-transaction.ts';

/** What a backtest tells the venue about the market outside its book. */
export interface OutsideLiquidity {
  /** Owner of the outside account (funded by the venue with every token). */
  readonly owner: Address;
  /**
   * The outside levels a `side` order with limit `limitPrice` could meet on `market`: the opposite
   * side's levels at prices up to the limit, best first, as [price units, size units].
   */
  levels(market: Address, side: OrderSide, limitPrice: bigint): readonly (readonly [bigint, bigint])[];
  /** What a transaction took: size units per price of the levels of `side`'s opposite side. */
  taken(market: Address, takerSide: OrderSide, fills: ReadonlyMap<bigint, bigint>): void;
}

/** The most aggressive limit of each side among a transaction's orders. */
function limitsOf(tx: VenueTx): Map<OrderSide, bigint> {
  const limits = new Map<OrderSide, bigint>();
  const note = (side: OrderSide, price: bigint) => {
    const known = limits.get(side);
    if (known === undefined || (side === 'BUY' ? price > known : price < known)) limits.set(side, price);
  };
  if (tx.kind === 'batch') for (const order of tx.orders) note(order.side, order.price);
  if (tx.kind === 'replace') for (const op of tx.ops) if (op.kind === 'place') note(op.side, op.price);
  return limits;
}

/**
 * Runs `execute` with the outside levels that `tx` could meet placed for it, and reports what it took.
 *
 * @example const result = withOutsideLiquidity(engine, outside, outsideAccountId, tx, () => executeVenueTx(context, tx, now));
 */
export function withOutsideLiquidity(engine: MatchingEngine, outside: OutsideLiquidity, accountId: bigint, tx: VenueTx, execute: () => VenueTxResult): VenueTxResult {
  if (tx.kind === 'authorize') return execute();
  const placed: { side: OrderSide; price: bigint; size: bigint; orderId: bigint }[] = [];
  const placeEvents: VenueEvent[] = [];
  for (const [side, limit] of limitsOf(tx)) {
    const restingSide: OrderSide = side === 'BUY' ? 'SELL' : 'BUY';
    const levels = outside.levels(tx.market, side, limit).slice(0, MAKER_SLOTS - placed.length);
    if (levels.length === 0) continue;
    const result = engine.executeBatch({
      accountId,
      market: tx.market,
      cancelSlotIdxs: [],
      expectedOrderIds: [],
      orders: levels.map(([price, size]) => ({ side: restingSide, price, quantity: size, tif: 'GTC', executionInstruction: 'NONE', minSizeAfterBlock: 0n })),
    });
    if (!result.ok) continue;
    placeEvents.push(...result.events);
    result.orderIds.forEach((orderId, index) => placed.push({ side: restingSide, price: levels[index]![0], size: levels[index]![1], orderId }));
  }
  if (placed.length === 0) return execute();
  const result = execute();
  const takenBySide = new Map<OrderSide, Map<bigint, bigint>>();
  for (const order of placed) {
    const open = engine.order(tx.market, order.orderId)?.remaining ?? 0n;
    const taken = order.size - open;
    if (taken > 0n) {
      const takerSide: OrderSide = order.side === 'BUY' ? 'SELL' : 'BUY';
      const fills = takenBySide.get(takerSide) ?? new Map<bigint, bigint>();
      fills.set(order.price, (fills.get(order.price) ?? 0n) + taken);
      takenBySide.set(takerSide, fills);
    }
  }
  const cancelSlotIdxs: number[] = [];
  const expectedOrderIds: bigint[] = [];
  engine.slotOrderIds(accountId, tx.market).forEach((orderId, slot) => {
    if (orderId !== null) {
      cancelSlotIdxs.push(slot);
      expectedOrderIds.push(orderId);
    }
  });
  const cancelled = cancelSlotIdxs.length > 0 ? engine.executeBatch({ accountId, market: tx.market, cancelSlotIdxs, expectedOrderIds, orders: [] }) : undefined;
  for (const [takerSide, fills] of takenBySide) outside.taken(tx.market, takerSide, fills);
  // The outside orders' placing and cancelling are logs of the transaction they served (a rejected
  // one left no trace of them: nothing traded with them).
  if (!result.ok) return result;
  return { ...result, events: [...placeEvents, ...result.events, ...(cancelled?.ok ? cancelled.events : [])] };
}
