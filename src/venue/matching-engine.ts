/**
 * The venue model: markets, their books and the accounts, and the two trading operations of the
 * relay (`wallet.execute_batch` and `wallet.execute_replace_by_slot_packed`) executed atomically.
 *
 * Policies (ours; docs/protocol.md should repeat them):
 * - Atomicity: every check that needs no state runs first; the operation then applies step by
 *   step while an undo log records each mutation, and the first failed check rolls the log back.
 *   A rejected batch changes nothing: balances, book, slots, order and trade id counters, fees.
 * - Order: cancels first, then orders in their given order; each sees the state the previous left.
 * - Slots: a GTC order takes a maker slot when it is placed (a batch order: the lowest free slot
 *   at that moment; a place op: its own slot, emptied by the op's cancel). No free slot rejects
 *   the batch, even if the order would fill at once; a slot is freed when its order fills,
 *   is cancelled or expires. IOC and FOK orders never take a slot. Every accepted order, IOC and
 *   FOK included, gets the next uint64 order id.
 * - Expected order ids: one per cancel slot (and, in the long form, one per order that must be
 *   uint64 max, since an order only takes an empty slot); uint64 max means "the slot must be empty"
 *   (a cancel of an empty slot is then a no-op), any other value must be the id in the slot.
 * - Matching: price-time priority, at the resting order's price, partial fills allowed.
 * - Fees: charged in the quote token, floored, per fill: the maker pays makerFeePps and the taker
 *   takerFeePps of the fill's quote amount. A buyer pays quote + fee; a seller receives quote - fee.
 * - Funds: an order is accepted only if the available balance covers its worst case (buy: quote at
 *   its limit price for its full size plus the larger fee (maker fee only for post-only); sell: base
 *   of its full size). A resting buy locks quoteRaw(price, open size) + its maker fee; a resting
 *   sell locks baseRaw(open size). After each fill the lock is recomputed for the open size and
 *   any excess (from flooring) is released to available; a cancel releases the whole lock.
 * - Self-trade: cancel resting. When an incoming order reaches a resting order of the same
 *   account, the resting order is cancelled (reason `self-trade`) and matching continues. A FOK
 *   counts only other accounts' liquidity; a post-only order is rejected if it would cross any order.
 * - Post-only: rejected (INVALID_ORDER) if it would cross the best opposite price.
 * - FOK: rejected (INVALID_ORDER) unless other accounts' orders at acceptable prices cover its size.
 * - IOC: whatever is left after matching is cancelled (reason `unfilled`).
 * - minSizeAfterBlock: kept on the resting order. `endBlock()` cancels every resting order whose
 *   open size is below its minSizeAfterBlock (reason `min-size-after-block`). Open size only
 *   shrinks by fills, so only orders placed or filled during the block are checked.
 */
import { BaseError } from '../core/base-error.ts';
import { MAX_PRICE_UNITS, UINT32_MAX, UINT64_MAX } from '../core/units.ts';
import type { Address } from '../protocol/encoding.ts';
import {
  MAKER_SLOTS,
  MAX_ARRAY_ITEMS,
  MAX_PACKED_OPS_BYTES,
  PACKED_OP_BYTES,
  type RelayErrorCodeName,
  type TimeInForce,
} from '../protocol/constants.ts';
import type { OrderIntent } from '../protocol/intent-types.ts';
import { Account, Accounts, type MakerSlots, type TokenBalance } from './accounts.ts';
import { invariantBroken } from './invariant.ts';
import { amountScale, baseRaw, createMarketSpec, feeRaw, quoteRaw, type AmountScale, type MarketSpec } from '../protocol/market-spec.ts';
import { OrderBook, type BookSide, type DepthSnapshot, type PriceLevel } from './order-book.ts';
import { VenueOrder, type RestingOrder } from './resting-order.ts';
import type { PackedOp } from '../protocol/packed-ops.ts';
import type { CancelReason, VenueEvent } from './venue-events.ts';

/** The most ops in one replace call: 64 KiB of 32-byte ops (venue). */
export const MAX_SLOT_OPS = MAX_PACKED_OPS_BYTES / PACKED_OP_BYTES;

export interface BatchAccepted {
  readonly ok: true;
  /** Everything that happened, in order. */
  readonly events: readonly VenueEvent[];
  /** The ids given to the placed orders, in order. */
  readonly orderIds: readonly bigint[];
}

export interface BatchRejected {
  readonly ok: false;
  readonly code: RelayErrorCodeName;
  readonly message: string;
  /** Position of the failing item in its array (cancelSlotIdxs, orders or ops), when one failed. */
  readonly index?: number;
}

export type BatchResult = BatchAccepted | BatchRejected;

export interface ExecuteBatchParams {
  readonly accountId: bigint;
  readonly market: Address;
  readonly cancelSlotIdxs: readonly number[];
  /** Exactly one per cancel slot. */
  readonly expectedOrderIds: readonly bigint[];
  readonly orders: readonly OrderIntent[];
}

export interface ExecuteReplaceParams {
  readonly accountId: bigint;
  readonly market: Address;
  /** The decoded packed ops; slots unique. */
  readonly ops: readonly PackedOp[];
  /** One per op. */
  readonly expectedOrderIds: readonly bigint[];
}

/** Read-only access to a market's book. */
export type ReadonlyOrderBook = Pick<OrderBook<VenueOrder>, 'size' | 'bestBid' | 'bestAsk' | 'isCrossed' | 'depth'> & {
  get(id: bigint): RestingOrder | undefined;
  orders(isBid: boolean): IterableIterator<RestingOrder>;
};

interface MarketState {
  readonly spec: MarketSpec;
  readonly scale: AmountScale;
  readonly book: OrderBook<VenueOrder>;
  /** The venue's fee balance of the quote token (shared by markets with the same quote token). */
  readonly fees: TokenBalance;
  readonly makerFeePps: bigint;
  readonly takerFeePps: bigint;
  readonly maxFeePps: bigint;
  nextTradeId: bigint;
}

// Undo log entries: four slots each, [kind, a, b, c].
const UNDO_BALANCE = 1; // [_, balance, available, locked]
const UNDO_FILL = 2; // [_, order, remaining, locked]
const UNDO_ADD = 3; // [_, order, -, -]
const UNDO_REMOVE = 4; // [_, order, prev, level]
const UNDO_SLOT = 5; // [_, slots, index, previous]

function reject(code: RelayErrorCodeName, message: string, index?: number): BatchRejected {
  return index === undefined ? { ok: false, code, message } : { ok: false, code, message, index };
}

/**
 * The rules of a single order that need no state: price on the grid and in range, size within the
 * market's bounds, and the combinations of tif, post-only and minSizeAfterBlock. Null when valid.
 *
 * @example orderShapeProblem(monUsdc, { side: 'BUY', price: 201n, size: 10n, tif: 'GTC', postOnly: false, minSizeAfterBlock: 0n })
 * // 'price 201 is not a multiple of the tick size 5'
 */
export function orderShapeProblem(
  spec: MarketSpec,
  order: { side: string; price: bigint; size: bigint; tif: string; postOnly: boolean; minSizeAfterBlock: bigint },
): string | null {
  return shapeProblem(spec, order.side, order.price, order.size, order.tif, order.postOnly, order.minSizeAfterBlock);
}

// Positional, so that the batch paths allocate nothing to validate an order.
function shapeProblem(
  spec: MarketSpec,
  side: string,
  price: bigint,
  size: bigint,
  tif: string,
  postOnly: boolean,
  minSizeAfterBlock: bigint,
): string | null {
  if (side !== 'BUY' && side !== 'SELL') return 'side must be BUY or SELL';
  if (tif !== 'GTC' && tif !== 'IOC' && tif !== 'FOK') return 'tif must be GTC, IOC or FOK';
  if (typeof price !== 'bigint' || price < 1n || price > MAX_PRICE_UNITS) return `price must be in 1..${MAX_PRICE_UNITS}`;
  if (spec.tickSize !== 1n && price % spec.tickSize !== 0n) {
    return `price ${price} is not a multiple of the tick size ${spec.tickSize}`;
  }
  if (typeof size !== 'bigint' || size < spec.minSize) return `size is below the minimum ${spec.minSize}`;
  if (size > spec.maxSize) return `size is above the maximum ${spec.maxSize}`;
  if (typeof minSizeAfterBlock !== 'bigint' || minSizeAfterBlock < 0n || minSizeAfterBlock > UINT32_MAX) {
    return 'minSizeAfterBlock must be a uint32';
  }
  if (postOnly && tif !== 'GTC') return 'post-only needs tif GTC';
  if (tif !== 'GTC' && minSizeAfterBlock !== 0n) return 'IOC and FOK need minSizeAfterBlock 0';
  return null;
}

function isSlotIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < MAKER_SLOTS;
}

function isUint64(value: unknown): value is bigint {
  return typeof value === 'bigint' && value >= 0n && value <= UINT64_MAX;
}

/**
 * The matching engine of the venue over all its markets and accounts. Deterministic: no clock,
 * no randomness, no I/O.
 *
 * @example
 * const engine = new MatchingEngine({ markets: [monUsdc] });
 * const alice = engine.accounts.fund({ owner, token: usdc.address, amount: 10_000_000n });
 * const result = engine.executeBatch({ accountId: alice.id, market: monUsdc.address, cancelSlotIdxs: [],
 *   expectedOrderIds: [], orders: [{ side: 'BUY', quantity: 100n, price: 12_340n, tif: 'GTC',
 *   executionInstruction: 'POST_ONLY', minSizeAfterBlock: 0n }] });
 * if (!result.ok) console.log(result.code); // e.g. 'INSUFFICIENT_BALANCE'
 */
export class MatchingEngine {
  readonly accounts: Accounts<VenueOrder>;
  private readonly marketStates = new Map<Address, MarketState>();
  private readonly feeBalances = new Map<Address, TokenBalance>();
  private nextId = 1n;
  /** Undo log of the operation in progress (flat, four slots per entry; emptied after each). */
  private readonly undo: unknown[] = [];
  /** Resting orders with a minSizeAfterBlock that were placed or filled in this block. */
  private readonly minSizeCandidates: VenueOrder[] = [];
  /** Duplicate-slot detection without allocation: slot -> stamp of the call that used it. */
  private readonly slotStamps = new Uint32Array(MAKER_SLOTS);
  private stamp = 0;

  constructor(params: { markets?: readonly MarketSpec[]; accounts?: Accounts<VenueOrder> } = {}) {
    this.accounts = params.accounts ?? new Accounts<VenueOrder>();
    for (const spec of params.markets ?? []) this.addMarket(spec);
  }

  /** Adds a market (validated; throws CONFIG_INVALID when bad or when its address is taken). */
  addMarket(input: MarketSpec): MarketSpec {
    const spec = createMarketSpec(input);
    if (this.marketStates.has(spec.address)) {
      throw new BaseError('CONFIG_INVALID', `market ${spec.symbol}: address ${spec.address} is already a market`, {
        details: { market: spec.symbol, address: spec.address },
      });
    }
    let fees = this.feeBalances.get(spec.quoteToken.address);
    if (fees === undefined) {
      fees = { available: 0n, locked: 0n };
      this.feeBalances.set(spec.quoteToken.address, fees);
    }
    this.marketStates.set(spec.address, {
      spec,
      scale: amountScale(spec),
      book: new OrderBook<VenueOrder>(),
      fees,
      makerFeePps: spec.makerFeePps,
      takerFeePps: spec.takerFeePps,
      maxFeePps: spec.makerFeePps > spec.takerFeePps ? spec.makerFeePps : spec.takerFeePps,
      nextTradeId: 1n,
    });
    return spec;
  }

  // ---- reads -------------------------------------------------------------------------------

  markets(): MarketSpec[] {
    return [...this.marketStates.values()].map((state) => state.spec);
  }

  market(address: Address): MarketSpec | undefined {
    return this.marketStates.get(address)?.spec;
  }

  /** A market's book, read-only. */
  book(market: Address): ReadonlyOrderBook | undefined {
    return this.marketStates.get(market)?.book;
  }

  depth(market: Address, limit: number): DepthSnapshot | undefined {
    return this.marketStates.get(market)?.book.depth(limit);
  }

  /** A resting order by id. */
  order(market: Address, orderId: bigint): RestingOrder | undefined {
    return this.marketStates.get(market)?.book.get(orderId);
  }

  /** The id the next order will get. */
  get nextOrderId(): bigint {
    return this.nextId;
  }

  /** The id the next trade of `market` will get. */
  nextTradeId(market: Address): bigint | undefined {
    return this.marketStates.get(market)?.nextTradeId;
  }

  /** A copy of an account's balance of `token` (zero when unknown). */
  balance(accountId: bigint, token: Address): { available: bigint; locked: bigint } {
    const account = this.accounts.get(accountId);
    if (account === undefined) return { available: 0n, locked: 0n };
    const balance = account.peekBalance(token);
    return balance === undefined ? { available: 0n, locked: 0n } : { available: balance.available, locked: balance.locked };
  }

  /** Fees collected so far in `token`. */
  feesCollected(token: Address): bigint {
    return this.feeBalances.get(token)?.available ?? 0n;
  }

  /** The account's resting orders on `market`, by slot. */
  activeOrders(accountId: bigint, market: Address): RestingOrder[] {
    const account = this.accounts.get(accountId);
    const slots = account?.peekSlots(market);
    return slots === undefined ? [] : slots.filter((order): order is VenueOrder => order !== null);
  }

  /** The order id in each of the account's 62 slots on `market` (null = empty). */
  slotOrderIds(accountId: bigint, market: Address): (bigint | null)[] {
    const account = this.accounts.get(accountId);
    return account === undefined ? new Array<bigint | null>(MAKER_SLOTS).fill(null) : account.slotOrderIds(market);
  }

  // ---- operations ----------------------------------------------------------------------------

  /**
   * `wallet.execute_batch`: cancels by slot, then places the orders, atomically.
   * Bad input is a rejected result (codes of RelayErrorCode), never a throw.
   */
  executeBatch(params: ExecuteBatchParams): BatchResult {
    const m = this.marketStates.get(params.market);
    if (m === undefined) return reject('UNKNOWN_MARKET', `no market at ${params.market}`);
    const account = this.accounts.get(params.accountId);
    if (account === undefined) return reject('INVALID_REQUEST', `no account ${params.accountId}`);
    const { cancelSlotIdxs, expectedOrderIds, orders } = params;
    const cancels = cancelSlotIdxs.length;
    if (cancels + orders.length === 0) return reject('INVALID_REQUEST', 'a batch needs at least one order or cancel');
    if (cancels > MAX_ARRAY_ITEMS || orders.length > MAX_ARRAY_ITEMS) {
      return reject('INVALID_REQUEST', `at most ${MAX_ARRAY_ITEMS} cancels and ${MAX_ARRAY_ITEMS} orders`);
    }
    if (expectedOrderIds.length !== cancels) return reject('INVALID_REQUEST', 'expectedOrderIds needs exactly one id per cancel slot');
    const slots = account.slots(m.spec.address);
    const stamp = this.nextStamp();
    for (let i = 0; i < cancels; i++) {
      const slot = cancelSlotIdxs[i];
      if (!isSlotIndex(slot)) return reject('INVALID_REQUEST', `cancel slot must be an integer in 0..${MAKER_SLOTS - 1}`, i);
      if (this.slotStamps[slot] === stamp) return reject('INVALID_REQUEST', `cancel slot ${slot} appears twice`, i);
      this.slotStamps[slot] = stamp;
    }
    for (let i = 0; i < expectedOrderIds.length; i++) {
      if (!isUint64(expectedOrderIds[i])) return reject('INVALID_REQUEST', 'expected order ids must be uint64', i);
    }
    for (let i = 0; i < orders.length; i++) {
      const order = orders[i]!;
      const problem = shapeProblem(
        m.spec,
        order.side,
        order.price,
        order.quantity,
        order.tif,
        order.executionInstruction === 'POST_ONLY',
        order.minSizeAfterBlock,
      );
      if (problem !== null) return reject('INVALID_ORDER', `order ${i}: ${problem}`, i);
      if (order.executionInstruction !== 'NONE' && order.executionInstruction !== 'POST_ONLY') {
        return reject('INVALID_ORDER', `order ${i}: executionInstruction must be NONE or POST_ONLY`, i);
      }
    }
    for (let i = 0; i < cancels; i++) {
      const mismatch = expectedIdMismatch(slots, cancelSlotIdxs[i]!, expectedOrderIds[i]!);
      if (mismatch !== null) return reject('EXPECTED_ORDER_ID_MISMATCH', mismatch, i);
    }

    // Apply, recording every mutation so that a failed order undoes the whole batch.
    const events: VenueEvent[] = [];
    const orderIds: bigint[] = [];
    const savepoint = this.savepoint(m);
    for (let i = 0; i < cancels; i++) {
      const resting = slots[cancelSlotIdxs[i]!];
      if (resting !== null && resting !== undefined) this.cancelResting(m, resting, 'requested', events);
    }
    const baseBalance = account.balance(m.spec.baseToken.address);
    const quoteBalance = account.balance(m.spec.quoteToken.address);
    for (let i = 0; i < orders.length; i++) {
      const order = orders[i]!;
      const failed = this.place(
        m,
        account,
        slots,
        baseBalance,
        quoteBalance,
        order.side === 'BUY',
        order.price,
        order.quantity,
        order.tif,
        order.executionInstruction === 'POST_ONLY',
        order.minSizeAfterBlock,
        -1,
        i,
        events,
        orderIds,
      );
      if (failed !== null) {
        this.rollback(m, savepoint);
        return failed;
      }
    }
    this.undo.length = 0;
    return { ok: true, events, orderIds };
  }

  /**
   * `wallet.execute_replace_by_slot_packed` in decoded form, atomically: first every op's slot is
   * checked against its expected id and emptied (cancel ops: reason `requested`; place ops:
   * `replaced`), then each place op puts a GTC order into its own slot, in op order.
   */
  executeReplace(params: ExecuteReplaceParams): BatchResult {
    const m = this.marketStates.get(params.market);
    if (m === undefined) return reject('UNKNOWN_MARKET', `no market at ${params.market}`);
    const account = this.accounts.get(params.accountId);
    if (account === undefined) return reject('INVALID_REQUEST', `no account ${params.accountId}`);
    const { ops, expectedOrderIds } = params;
    if (ops.length === 0 || ops.length > MAX_SLOT_OPS) return reject('INVALID_REQUEST', `1..${MAX_SLOT_OPS} ops`);
    if (expectedOrderIds.length !== ops.length) return reject('INVALID_REQUEST', 'expectedOrderIds needs one id per op');
    const slots = account.slots(m.spec.address);
    const stamp = this.nextStamp();
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      if (!isSlotIndex(op.slotIdx)) return reject('INVALID_REQUEST', `slotIdx must be an integer in 0..${MAKER_SLOTS - 1}`, i);
      if (this.slotStamps[op.slotIdx] === stamp) return reject('INVALID_REQUEST', `slot ${op.slotIdx} appears twice`, i);
      this.slotStamps[op.slotIdx] = stamp;
      if (!isUint64(expectedOrderIds[i])) return reject('INVALID_REQUEST', 'expected order ids must be uint64', i);
      if (op.kind === 'place') {
        const problem = shapeProblem(m.spec, op.side, op.price, op.size, 'GTC', op.postOnly === true, op.minSizeAfterBlock);
        if (problem !== null) return reject('INVALID_ORDER', `op ${i}: ${problem}`, i);
      } else if (op.kind !== 'cancel') {
        return reject('INVALID_REQUEST', `op ${i}: kind must be cancel or place`, i);
      }
    }
    for (let i = 0; i < ops.length; i++) {
      const mismatch = expectedIdMismatch(slots, ops[i]!.slotIdx, expectedOrderIds[i]!);
      if (mismatch !== null) return reject('EXPECTED_ORDER_ID_MISMATCH', mismatch, i);
    }

    const events: VenueEvent[] = [];
    const orderIds: bigint[] = [];
    const savepoint = this.savepoint(m);
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      const resting = slots[op.slotIdx];
      if (resting !== null && resting !== undefined) this.cancelResting(m, resting, op.kind === 'cancel' ? 'requested' : 'replaced', events);
    }
    const baseBalance = account.balance(m.spec.baseToken.address);
    const quoteBalance = account.balance(m.spec.quoteToken.address);
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      if (op.kind !== 'place') continue;
      const failed = this.place(
        m,
        account,
        slots,
        baseBalance,
        quoteBalance,
        op.side === 'BUY',
        op.price,
        op.size,
        'GTC',
        op.postOnly,
        op.minSizeAfterBlock,
        op.slotIdx,
        i,
        events,
        orderIds,
      );
      if (failed !== null) {
        this.rollback(m, savepoint);
        return failed;
      }
    }
    this.undo.length = 0;
    return { ok: true, events, orderIds };
  }

  /**
   * Closes the current block: cancels the resting orders whose open size fell below their
   * minSizeAfterBlock (placed or filled during the block) and returns those cancellations.
   */
  endBlock(): VenueEvent[] {
    const events: VenueEvent[] = [];
    const candidates = this.minSizeCandidates;
    for (let i = 0; i < candidates.length; i++) {
      const order = candidates[i]!;
      if (order.level === null || order.remaining >= order.minSizeAfterBlock) continue;
      const m = this.marketStates.get(order.market);
      if (m === undefined) invariantBroken('resting order of an unknown market', { orderId: order.id.toString() });
      this.cancelResting(m, order, 'min-size-after-block', events);
    }
    candidates.length = 0;
    this.undo.length = 0;
    return events;
  }

  // ---- internals -----------------------------------------------------------------------------

  private nextStamp(): number {
    this.stamp = (this.stamp + 1) >>> 0;
    if (this.stamp === 0) {
      this.slotStamps.fill(0);
      this.stamp = 1;
    }
    return this.stamp;
  }

  private savepoint(m: MarketState): { orderId: bigint; tradeId: bigint; candidates: number } {
    this.undo.length = 0;
    return { orderId: this.nextId, tradeId: m.nextTradeId, candidates: this.minSizeCandidates.length };
  }

  /** Undoes every recorded mutation, newest first, and restores the counters. */
  private rollback(m: MarketState, savepoint: { orderId: bigint; tradeId: bigint; candidates: number }): void {
    const undo = this.undo;
    const book = m.book;
    for (let i = undo.length - 4; i >= 0; i -= 4) {
      switch (undo[i] as number) {
        case UNDO_BALANCE: {
          const balance = undo[i + 1] as TokenBalance;
          balance.available = undo[i + 2] as bigint;
          balance.locked = undo[i + 3] as bigint;
          break;
        }
        case UNDO_FILL: {
          const order = undo[i + 1] as VenueOrder;
          book.setRemaining(order, undo[i + 2] as bigint);
          order.locked = undo[i + 3] as bigint;
          break;
        }
        case UNDO_ADD:
          book.remove(undo[i + 1] as VenueOrder);
          break;
        case UNDO_REMOVE:
          book.restore(undo[i + 1] as VenueOrder, undo[i + 3] as PriceLevel, undo[i + 2] as VenueOrder | null);
          break;
        case UNDO_SLOT:
          (undo[i + 1] as MakerSlots<VenueOrder>)[undo[i + 2] as number] = undo[i + 3] as VenueOrder | null;
          break;
        default:
          invariantBroken('unknown undo entry');
      }
    }
    undo.length = 0;
    this.nextId = savepoint.orderId;
    m.nextTradeId = savepoint.tradeId;
    this.minSizeCandidates.length = savepoint.candidates;
  }

  /** Moves funds within a balance (and logs the old values). Negative results are a bug. */
  private adjust(balance: TokenBalance, availableDelta: bigint, lockedDelta: bigint): void {
    const available = balance.available + availableDelta;
    const locked = balance.locked + lockedDelta;
    if (available < 0n || locked < 0n) {
      invariantBroken('balance would go negative', { available: available.toString(), locked: locked.toString() });
    }
    this.undo.push(UNDO_BALANCE, balance, balance.available, balance.locked);
    balance.available = available;
    balance.locked = locked;
  }

  private setSlot(slots: MakerSlots<VenueOrder>, index: number, order: VenueOrder | null): void {
    this.undo.push(UNDO_SLOT, slots, index, slots[index] ?? null);
    slots[index] = order;
  }

  private removeFromBook(m: MarketState, order: VenueOrder): void {
    const level = order.level;
    const prev = m.book.remove(order);
    this.undo.push(UNDO_REMOVE, order, prev, level);
  }

  /** What a resting order of `isBuy` at `price` with `open` size must keep locked. */
  private lockFor(m: MarketState, isBuy: boolean, price: bigint, open: bigint): bigint {
    if (open === 0n) return 0n;
    if (!isBuy) return baseRaw(m.scale, open);
    const quote = quoteRaw(m.scale, price, open);
    return quote + feeRaw(quote, m.makerFeePps);
  }

  private cancelResting(m: MarketState, order: VenueOrder, reason: CancelReason, events: VenueEvent[]): void {
    this.adjust(order.lockBalance, order.locked, -order.locked);
    this.removeFromBook(m, order);
    this.setSlot(order.slots, order.slot, null);
    events.push({
      type: 'OrderCanceled',
      market: order.market,
      orderId: order.id,
      accountId: order.accountId,
      side: order.side,
      price: order.price,
      size: order.size,
      canceledSize: order.remaining,
      slot: order.slot,
      reason,
    });
  }

  /** True when other accounts' orders at acceptable prices cover `size`. */
  private canFillFully(opposite: BookSide, isBuy: boolean, limitKey: number, size: bigint, accountId: bigint): boolean {
    const levels = opposite.levels;
    let needed = size;
    for (let i = levels.length - 1; i >= 0; i--) {
      const level = levels[i]!;
      if (isBuy ? level.priceKey > limitKey : level.priceKey < limitKey) return false;
      for (let order = level.head as VenueOrder | null; order !== null; order = order.next as VenueOrder | null) {
        if (order.accountId === accountId) continue;
        needed -= order.remaining;
        if (needed <= 0n) return true;
      }
    }
    return false;
  }

  /** Checks, then places one order. Returns the rejection, or null when it was applied. */
  private place(
    m: MarketState,
    account: Account<VenueOrder>,
    slots: MakerSlots<VenueOrder>,
    baseBalance: TokenBalance,
    quoteBalance: TokenBalance,
    isBuy: boolean,
    price: bigint,
    size: bigint,
    tif: TimeInForce,
    postOnly: boolean,
    minSizeAfterBlock: bigint,
    explicitSlot: number,
    index: number,
    events: VenueEvent[],
    orderIds: bigint[],
  ): BatchRejected | null {
    const book = m.book;
    const opposite = isBuy ? book.asks : book.bids;
    const priceKey = Number(price);
    const best = opposite.best();
    const crosses = best !== undefined && (isBuy ? best.priceKey <= priceKey : best.priceKey >= priceKey);
    if (postOnly && crosses) return reject('INVALID_ORDER', `order ${index}: post-only order would cross the book`, index);
    if (tif === 'FOK' && !(crosses && this.canFillFully(opposite, isBuy, priceKey, size, account.id))) {
      return reject('INVALID_ORDER', `order ${index}: fill-or-kill order cannot be filled in full`, index);
    }
    let slot = -1;
    if (tif === 'GTC') {
      slot = explicitSlot >= 0 ? explicitSlot : slots.indexOf(null);
      if (slot < 0) return reject('NO_FREE_SLOT', `order ${index}: no free maker slot`, index);
      if (slots[slot] !== null) invariantBroken('placing into an occupied slot', { slot });
    }
    let needed: bigint;
    let available: bigint;
    if (isBuy) {
      const quote = quoteRaw(m.scale, price, size);
      needed = quote + feeRaw(quote, postOnly ? m.makerFeePps : m.maxFeePps);
      available = quoteBalance.available;
    } else {
      needed = baseRaw(m.scale, size);
      available = baseBalance.available;
    }
    if (available < needed) {
      return reject('INSUFFICIENT_BALANCE', `order ${index}: needs ${needed} raw units, ${available} available`, index);
    }

    if (this.nextId > UINT64_MAX) invariantBroken('order ids exhausted');
    const order = new VenueOrder(
      this.nextId++,
      m.spec.address,
      account.id,
      isBuy,
      price,
      size,
      tif,
      postOnly,
      minSizeAfterBlock,
      slots,
      slot,
      baseBalance,
      quoteBalance,
    );
    if (slot >= 0) this.setSlot(slots, slot, order);
    orderIds.push(order.id);
    events.push({
      type: 'OrderPlaced',
      market: order.market,
      orderId: order.id,
      accountId: order.accountId,
      side: order.side,
      price,
      size,
      tif,
      postOnly,
      minSizeAfterBlock,
      slot: slot >= 0 ? slot : null,
    });
    if (crosses) this.match(m, order, opposite, events);

    const open = order.remaining;
    if (open > 0n) {
      if (tif === 'GTC') {
        const lock = this.lockFor(m, isBuy, price, open);
        this.adjust(isBuy ? quoteBalance : baseBalance, -lock, lock);
        order.locked = lock;
        book.add(order);
        this.undo.push(UNDO_ADD, order, null, null);
        if (minSizeAfterBlock > 0n) this.minSizeCandidates.push(order);
      } else {
        if (tif === 'FOK') invariantBroken('fill-or-kill order left unfilled', { orderId: order.id.toString() });
        events.push({
          type: 'OrderCanceled',
          market: order.market,
          orderId: order.id,
          accountId: order.accountId,
          side: order.side,
          price,
          size,
          canceledSize: open,
          slot: null,
          reason: 'unfilled',
        });
      }
    } else if (slot >= 0) {
      this.setSlot(slots, slot, null);
    }
    return null;
  }

  /** Matches an incoming order against the opposite side while prices cross. */
  private match(m: MarketState, taker: VenueOrder, opposite: BookSide, events: VenueEvent[]): void {
    const isBuy = taker.isBuy;
    const limitKey = taker.priceKey;
    while (taker.remaining > 0n) {
      const level = opposite.best();
      if (level === undefined || (isBuy ? level.priceKey > limitKey : level.priceKey < limitKey)) return;
      const maker = level.head as VenueOrder;
      if (maker.accountId === taker.accountId) {
        this.cancelResting(m, maker, 'self-trade', events);
        continue;
      }
      this.fill(m, maker, taker, maker.remaining < taker.remaining ? maker.remaining : taker.remaining, events);
    }
  }

  /** Settles one fill of `size` between a resting maker and the incoming taker at the maker's price. */
  private fill(m: MarketState, maker: VenueOrder, taker: VenueOrder, size: bigint, events: VenueEvent[]): void {
    const price = maker.price;
    const quote = quoteRaw(m.scale, price, size);
    const base = baseRaw(m.scale, size);
    const makerFee = feeRaw(quote, m.makerFeePps);
    const takerFee = feeRaw(quote, m.takerFeePps);

    const oldLocked = maker.locked;
    this.undo.push(UNDO_FILL, maker, maker.remaining, oldLocked);
    m.book.reduce(maker, size);
    const open = maker.remaining;
    const newLocked = this.lockFor(m, maker.isBuy, price, open);
    maker.locked = newLocked;
    // What the fill takes out of the maker's lock; the rest above the new lock is released.
    const spent = maker.isBuy ? quote + makerFee : base;
    const released = oldLocked - spent - newLocked;
    if (released < 0n) invariantBroken('resting order under-locked', { orderId: maker.id.toString() });
    if (taker.isBuy) {
      this.adjust(taker.quoteBalance, -(quote + takerFee), 0n);
      this.adjust(taker.baseBalance, base, 0n);
      this.adjust(maker.baseBalance, released, newLocked - oldLocked);
      this.adjust(maker.quoteBalance, quote - makerFee, 0n);
    } else {
      this.adjust(taker.baseBalance, -base, 0n);
      this.adjust(taker.quoteBalance, quote - takerFee, 0n);
      this.adjust(maker.quoteBalance, released, newLocked - oldLocked);
      this.adjust(maker.baseBalance, base, 0n);
    }
    if (makerFee + takerFee !== 0n) this.adjust(m.fees, makerFee + takerFee, 0n);
    taker.remaining -= size;

    events.push({
      type: 'OrderFilled',
      market: maker.market,
      tradeId: m.nextTradeId++,
      price,
      size,
      quote,
      base,
      takerSide: taker.side,
      makerOrderId: maker.id,
      makerAccountId: maker.accountId,
      makerSlot: maker.slot,
      makerRemaining: open,
      makerFee,
      takerOrderId: taker.id,
      takerAccountId: taker.accountId,
      takerRemaining: taker.remaining,
      takerFee,
    });
    if (open === 0n) {
      this.removeFromBook(m, maker);
      this.setSlot(maker.slots, maker.slot, null);
    } else if (maker.minSizeAfterBlock > 0n) {
      this.minSizeCandidates.push(maker);
    }
  }
}

/** Why a slot does not hold what the intent expected, or null when it does. */
function expectedIdMismatch(slots: MakerSlots<VenueOrder>, slot: number, expected: bigint): string | null {
  const order = slots[slot] ?? null;
  if (expected === UINT64_MAX) return order === null ? null : `slot ${slot} holds order ${order.id}, expected empty`;
  if (order === null) return `slot ${slot} is empty, expected order ${expected}`;
  return order.id === expected ? null : `slot ${slot} holds order ${order.id}, expected ${expected}`;
}
