/**
 * The account of a candle backtest on its one market: its orders by maker slot, its balances and
 * locks, its position, realized PnL and fees, and its intents carried out at a bar's open by the bar
 * rules (candle-fill-rules.ts). It keeps the venue's rules that do not need a book
 * (src/venue/matching-engine.ts): an intent is atomic (a rejected one changes nothing), cancels
 * first, then orders in their order; a GTC order takes a maker slot (a batch's the lowest free one,
 * a place op its own), an IOC or FOK order never; post-only orders that would cross, FOK orders that
 * cannot fill, orders without a free slot or the funds for their worst case are rejected with the
 * venue's codes; a resting order locks its quote and maker fee (buy) or its base (sell); fees are
 * the market's maker and taker fees on each fill's quote amount, floored. What needs a book is the
 * bar's: fills are whole (a bar has no depth), own orders never meet each other, and there is no
 * queue: a bar that reaches a price fills every own order there.
 */
import type { Address, Hex } from '../protocol/encoding.ts';
import type { OrderSide, RelayErrorCodeName, TimeInForce } from '../protocol/constants.ts';
import { MAKER_SLOTS } from '../protocol/constants.ts';
import { amountScale, baseRaw, feeRaw, quoteRaw, restingLockRaw, type AmountScale, type MarketSpec } from '../protocol/market-spec.ts';
import { applyFill, FLAT_POSITION, type CostPosition } from '../execution/average-cost.ts';
import type { Intent } from '../strategy/intents.ts';
import type { IntentFate, OwnFill, OwnMarketState, OwnOrder } from '../strategy/strategy-context.ts';
import { marketableAtOpen, restingFillPrice } from './candle-fill-rules.ts';

/** Raw token amounts the account starts with. */
export interface CandleFunding {
  readonly base: bigint;
  readonly quote: bigint;
}

interface Rejection {
  readonly code: RelayErrorCodeName;
  readonly reason: string;
}

/** The transaction hash a candle backtest gives intent `n` (`0x1…`) and the fills of bar `n` (`0x2…`): there is no chain. */
export function candleTxHash(kind: 'intent' | 'bar', n: number): Hex {
  return `0x${kind === 'intent' ? '1' : '2'}${n.toString(16).padStart(63, '0')}`;
}

/**
 * @example
 * const account = new CandleAccount(spec, { base: 0n, quote: 1_000_000_000_000n });
 * account.apply(intent, openPrice, openMs, 1); // { status: 'CONFIRMED', … }; account.takeFills() holds what filled at the open
 * account.fillResting(open, high, low, closeMs, 7);
 */
export class CandleAccount {
  readonly #spec: MarketSpec;
  readonly #market: Address;
  readonly #scale: AmountScale;
  readonly #maxFeePps: bigint;
  #baseAvailable: bigint;
  #baseLocked = 0n;
  #quoteAvailable: bigint;
  #quoteLocked = 0n;
  #slots: (OwnOrder | null)[] = new Array<OwnOrder | null>(MAKER_SLOTS).fill(null);
  /** What each slot's order locks. */
  #locks: bigint[] = new Array<bigint>(MAKER_SLOTS).fill(0n);
  /** The resting orders, in the order placed. */
  #resting: OwnOrder[] = [];
  #nextOrderId = 1n;
  #position: CostPosition = FLAT_POSITION;
  #fees = 0n;
  #fills: OwnFill[] = [];
  #state: OwnMarketState | undefined;

  constructor(spec: MarketSpec, funding: CandleFunding) {
    this.#spec = spec;
    this.#market = spec.address;
    this.#scale = amountScale(spec);
    this.#maxFeePps = spec.makerFeePps > spec.takerFeePps ? spec.makerFeePps : spec.takerFeePps;
    this.#baseAvailable = funding.base;
    this.#quoteAvailable = funding.quote;
  }

  /** Whether an order rests: a bar may fill it. */
  get resting(): boolean {
    return this.#resting.length > 0;
  }

  /** The position in size units (signed). */
  get position(): bigint {
    return this.#position.size;
  }

  /** The best own bid and ask resting, price units. */
  quotes(): { readonly bestBid: bigint | undefined; readonly bestAsk: bigint | undefined } {
    let bestBid: bigint | undefined;
    let bestAsk: bigint | undefined;
    for (const order of this.#resting) {
      if (order.side === 'BUY' && (bestBid === undefined || order.price > bestBid)) bestBid = order.price;
      if (order.side === 'SELL' && (bestAsk === undefined || order.price < bestAsk)) bestAsk = order.price;
    }
    return { bestBid, bestAsk };
  }

  /** Quote raw units: everything held (locks included), the base valued at `mark` (price units). */
  equity(mark: bigint): bigint {
    const base = this.#baseAvailable + this.#baseLocked;
    const size = (base * this.#scale.baseDiv) / this.#scale.baseMul;
    return this.#quoteAvailable + this.#quoteLocked + quoteRaw(this.#scale, mark, size);
  }

  /** The state a strategy sees: a new object after each change, the same one until then. */
  state(): OwnMarketState {
    this.#state ??= {
      market: this.#market,
      slots: [...this.#slots],
      orders: [...this.#resting],
      pendingRequests: 0,
      position: this.#position.size,
      realizedPnl: this.#position.realized,
      fees: this.#fees,
    };
    return this.#state;
  }

  /** The fills since the last call, in order. */
  takeFills(): OwnFill[] {
    const fills = this.#fills;
    if (fills.length > 0) this.#fills = [];
    return fills;
  }

  /**
   * Carries out intent number `n` at a bar's `open` (price units, time `atMs`): CONFIRMED, or
   * REVERTED with the venue's code and nothing changed; CancelAll with nothing resting is
   * NOTHING_TO_DO; trigger creation is REFUSED as the engine refuses it.
   */
  apply(intent: Intent, open: bigint, atMs: number, n: number): IntentFate {
    const requestId = `candle-${n}`;
    const txHash = candleTxHash('intent', n);
    switch (intent.type) {
      case 'CreateBatchTrigger':
      case 'CreateReplaceTrigger':
        return { status: 'REFUSED', code: 'INTENT_NOT_SUPPORTED_LIVE', message: `${intent.type} is defined by the venue but not supported` };
      case 'CancelTrigger':
        return { status: 'REVERTED', requestId, txHash, code: null, reason: 'no such trigger: a candle backtest has no triggers' };
      case 'CancelAll':
        if (this.#resting.length === 0) return { status: 'NOTHING_TO_DO', reason: 'no order rests' };
        this.cancelAll();
        return { status: 'CONFIRMED', requestId, txHash };
      case 'PlaceAndCancel':
      case 'ReplaceSlots': {
        const undo = this.#snapshot();
        const rejected = intent.type === 'PlaceAndCancel' ? this.#batch(intent, open, atMs, txHash) : this.#replace(intent, open, atMs, txHash);
        if (rejected !== null) {
          undo();
          return { status: 'REVERTED', requestId, txHash, code: rejected.code, reason: rejected.reason };
        }
        return { status: 'CONFIRMED', requestId, txHash };
      }
    }
  }

  /** Fills the resting orders bar `n` (price units) reaches, at `atMs`, as makers. Returns whether any filled. */
  fillResting(open: bigint, high: bigint, low: bigint, atMs: number, n: number): boolean {
    let filled = false;
    for (let i = 0; i < this.#resting.length; ) {
      const order = this.#resting[i]!;
      const price = restingFillPrice(order.side, order.price, open, high, low);
      if (price === undefined) {
        i += 1;
        continue;
      }
      this.#release(order.slot!);
      this.#fill(order.orderId!, order.side, price, order.size, 'maker', atMs, candleTxHash('bar', n));
      filled = true;
    }
    return filled;
  }

  /** Cancels every resting order (the end of a run); returns how many. */
  cancelAll(): number {
    const count = this.#resting.length;
    for (const order of [...this.#resting]) this.#release(order.slot!);
    return count;
  }

  #batch(intent: Extract<Intent, { type: 'PlaceAndCancel' }>, open: bigint, atMs: number, txHash: Hex): Rejection | null {
    for (const slot of intent.cancelSlots) this.#release(slot);
    for (const [index, order] of intent.orders.entries()) {
      const rejected = this.#place(order.side, order.price, order.size, order.tif, order.executionInstruction === 'POST_ONLY', -1, open, atMs, txHash, `order ${index}`);
      if (rejected !== null) return rejected;
    }
    return null;
  }

  #replace(intent: Extract<Intent, { type: 'ReplaceSlots' }>, open: bigint, atMs: number, txHash: Hex): Rejection | null {
    for (const [index, op] of intent.ops.entries()) {
      this.#release(op.slotIdx);
      if (op.kind === 'cancel') continue;
      const rejected = this.#place(op.side, op.price, op.size, 'GTC', op.postOnly, op.slotIdx, open, atMs, txHash, `op ${index}`);
      if (rejected !== null) return rejected;
    }
    return null;
  }

  /** Checks, then places one order at the bar's open: a marketable one fills there whole as a taker, a GTC one that is not rests. */
  #place(side: OrderSide, price: bigint, size: bigint, tif: TimeInForce, postOnly: boolean, explicitSlot: number, open: bigint, atMs: number, txHash: Hex, which: string): Rejection | null {
    const crosses = marketableAtOpen(side, price, open);
    if (postOnly && crosses) return { code: 'INVALID_ORDER', reason: `${which}: post-only order would cross the book` };
    if (tif === 'FOK' && !crosses) return { code: 'INVALID_ORDER', reason: `${which}: fill-or-kill order cannot be filled in full` };
    const slot = tif !== 'GTC' ? -1 : explicitSlot >= 0 ? explicitSlot : this.#slots.indexOf(null);
    if (tif === 'GTC' && slot < 0) return { code: 'NO_FREE_SLOT', reason: `${which}: no free maker slot` };
    const buy = side === 'BUY';
    const quote = buy ? quoteRaw(this.#scale, price, size) : 0n;
    const needed = buy ? quote + feeRaw(quote, postOnly ? this.#spec.makerFeePps : this.#maxFeePps) : baseRaw(this.#scale, size);
    const available = buy ? this.#quoteAvailable : this.#baseAvailable;
    if (available < needed) return { code: 'INSUFFICIENT_BALANCE', reason: `${which}: needs ${needed} raw units, ${available} available` };
    const orderId = this.#nextOrderId++;
    if (crosses) {
      this.#fill(orderId, side, open, size, 'taker', atMs, txHash);
      return null;
    }
    // An IOC that does not cross is cancelled unfilled; a GTC order rests.
    if (tif !== 'GTC') return null;
    const order: OwnOrder = { market: this.#market, orderId, slot, side, price, size, remaining: size };
    const lock = restingLockRaw(this.#spec, this.#scale, side, price, size);
    if (buy) {
      this.#quoteAvailable -= lock;
      this.#quoteLocked += lock;
    } else {
      this.#baseAvailable -= lock;
      this.#baseLocked += lock;
    }
    this.#slots[slot] = order;
    this.#locks[slot] = lock;
    this.#resting.push(order);
    this.#state = undefined;
    return null;
  }

  /** Takes the order in `slot` off the book, its lock back to available (nothing when the slot is empty). */
  #release(slot: number): void {
    const order = this.#slots[slot];
    if (order === null || order === undefined) return;
    const lock = this.#locks[slot]!;
    if (order.side === 'BUY') {
      this.#quoteLocked -= lock;
      this.#quoteAvailable += lock;
    } else {
      this.#baseLocked -= lock;
      this.#baseAvailable += lock;
    }
    this.#slots[slot] = null;
    this.#locks[slot] = 0n;
    this.#resting.splice(this.#resting.indexOf(order), 1);
    this.#state = undefined;
  }

  /** Settles one fill: a buyer pays its quote and fee and gets the base, a seller the other way round. */
  #fill(orderId: bigint, side: OrderSide, price: bigint, size: bigint, liquidity: 'maker' | 'taker', atMs: number, transactionHash: Hex): void {
    const quote = quoteRaw(this.#scale, price, size);
    const fee = feeRaw(quote, liquidity === 'maker' ? this.#spec.makerFeePps : this.#spec.takerFeePps);
    const base = baseRaw(this.#scale, size);
    if (side === 'BUY') {
      this.#quoteAvailable -= quote + fee;
      this.#baseAvailable += base;
    } else {
      this.#baseAvailable -= base;
      this.#quoteAvailable += quote - fee;
    }
    this.#position = applyFill(this.#position, side, size, quote);
    this.#fees += fee;
    this.#state = undefined;
    this.#fills.push({ market: this.#market, orderId, transactionHash, timeMs: atMs, side, size, price, fee, liquidity });
  }

  /** Everything an intent may change, and how to put it back. */
  #snapshot(): () => void {
    const saved = {
      baseAvailable: this.#baseAvailable,
      baseLocked: this.#baseLocked,
      quoteAvailable: this.#quoteAvailable,
      quoteLocked: this.#quoteLocked,
      slots: [...this.#slots],
      locks: [...this.#locks],
      resting: [...this.#resting],
      nextOrderId: this.#nextOrderId,
      position: this.#position,
      fees: this.#fees,
      fills: this.#fills.length,
      state: this.#state,
    };
    return () => {
      this.#baseAvailable = saved.baseAvailable;
      this.#baseLocked = saved.baseLocked;
      this.#quoteAvailable = saved.quoteAvailable;
      this.#quoteLocked = saved.quoteLocked;
      this.#slots = saved.slots;
      this.#locks = saved.locks;
      this.#resting = saved.resting;
      this.#nextOrderId = saved.nextOrderId;
      this.#position = saved.position;
      this.#fees = saved.fees;
      this.#fills.length = saved.fills;
      this.#state = saved.state;
    };
  }
}
