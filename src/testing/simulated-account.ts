/**
 * The own state of a strategy under test: its maker slots, orders, position and fees per market,
 * with each intent applied as if the engine had signed it and the venue confirmed it. Good enough
 * to unit-test strategy logic; it is not the venue:
 *
 * - An intent counts as pending (`pendingRequests`) from the moment it is emitted until it is
 *   applied `confirmAfterMs` later (default 0: the same virtual instant, after the emission).
 * - Each slot an intent names is bound, when it is emitted, to the order id it then holds (as the
 *   engine does with `expectedOrderIds`); if the slot holds another order when the intent is applied,
 *   the intent reverts (EXPECTED_ORDER_ID_MISMATCH). Intents are atomic, as on the venue.
 * - Orders that cross the scripted book take from it at its levels' prices (taker fills, the taker
 *   fee) and consume that liquidity until the next scripted book; the feed keeps showing the
 *   scripted book. IOC remainders are dropped, FOK orders fill fully or revert, GTC remainders rest;
 *   a post-only order that would cross reverts the intent. A batch's GTC order takes the lowest free
 *   slot after its cancels (the local venue's rule); a packed op its own slot.
 * - Resting orders fill only when the script says so (`fill` steps: maker fills at the order's
 *   price, the maker fee). Real queue positions and other traders need the venue (`clobbot sim`).
 * - `realizedPnl` is not modelled (always 0); fees are, floored like the venue.
 */
import { BaseError } from '../core/base-error.ts';
import { BehaviorSubject, Subject, type Observable } from 'rxjs';
import { MAX_PRICE_UNITS, UINT32_MAX, UINT64_MAX } from '../core/units.ts';
import { MAKER_SLOTS, MAX_ARRAY_ITEMS, type OrderSide } from '../protocol/constants.ts';
import type { Address, Hex } from '../protocol/encoding.ts';
import { encodePackedOpsToBytes } from '../protocol/packed-ops.ts';
import type { BookLevel, OrderBookView } from '../market/order-book-model.ts';
import type { Intent, OrderRequest } from '../strategy/intents.ts';
import type { OwnFill, OwnMarketState, OwnOrder } from '../strategy/strategy-context.ts';
import { amountScale, feeRaw, quoteRaw, type AmountScale, type MarketSpec } from '../protocol/market-spec.ts';

/** An order resting in a slot at the start. */
export interface InitialOrder {
  readonly slot: number;
  readonly side: OrderSide;
  /** Price units. */
  readonly price: bigint;
  /** Size units. */
  readonly size: bigint;
  /** Size units still open; default `size`. */
  readonly remaining?: bigint;
}

export interface TimedIntent {
  /** Clock time of the emission, ms. */
  readonly at: number;
  readonly intent: Intent;
}

export interface RevertedIntent extends TimedIntent {
  /** `CODE: message`, as the venue's outcome reason. */
  readonly reason: string;
}

export interface InvalidIntent extends TimedIntent {
  readonly problems: readonly string[];
}

export interface TimedState {
  readonly at: number;
  readonly state: OwnMarketState;
}

/** A venue-side failure of an intent while it is applied; caught in `settle`, never escapes. */
class Revert extends Error {}

/** Book levels best first, mutable: what orders take from until the next scripted book. */
interface WorkingLevel {
  readonly price: bigint;
  size: bigint;
}

interface WorkingBook {
  bids: WorkingLevel[];
  asks: WorkingLevel[];
}

interface Fill {
  readonly order: OwnOrder;
  readonly price: bigint;
  readonly size: bigint;
  readonly liquidity: 'maker' | 'taker';
}

/** One market of the simulated account. */
export class SimulatedMarketAccount {
  readonly spec: MarketSpec;
  readonly history: TimedState[] = [];
  readonly #scale: AmountScale;
  readonly #state: BehaviorSubject<OwnMarketState>;
  readonly #fills = new Subject<OwnFill>();
  readonly #nextIds: { order: bigint; tx: bigint };
  #slots: (OwnOrder | null)[];
  #pending = 0;
  #position: bigint;
  #fees = 0n;
  #book: WorkingBook = { bids: [], asks: [] };
  readonly #now: () => number;

  constructor(spec: MarketSpec, options: { position?: bigint; orders?: readonly InitialOrder[]; ids: { order: bigint; tx: bigint }; now: () => number }) {
    this.spec = spec;
    this.#scale = amountScale(spec);
    this.#nextIds = options.ids;
    this.#now = options.now;
    this.#position = options.position ?? 0n;
    this.#slots = new Array<OwnOrder | null>(MAKER_SLOTS).fill(null);
    for (const order of options.orders ?? []) {
      if (!Number.isInteger(order.slot) || order.slot < 0 || order.slot >= MAKER_SLOTS || this.#slots[order.slot] !== null) {
        throw new BaseError('STRATEGY_CHECK_INVALID', `${spec.symbol}: initial order in slot ${order.slot}: not a free maker slot 0..${MAKER_SLOTS - 1}`);
      }
      this.#slots[order.slot] = this.#newOrder(order.slot, order.side, order.price, order.size, order.remaining ?? order.size);
    }
    this.#state = new BehaviorSubject(this.#snapshot());
    this.history.push({ at: this.#now(), state: this.#state.value });
  }

  get state$(): Observable<OwnMarketState> {
    return this.#state.asObservable();
  }

  get fills$(): Observable<OwnFill> {
    return this.#fills.asObservable();
  }

  get state(): OwnMarketState {
    return this.#state.value;
  }

  /** A new scripted book replaces the liquidity orders take from. */
  setBook(book: OrderBookView): void {
    this.#book = { bids: book.levels('bid').map((level) => ({ ...level })), asks: book.levels('ask').map((level) => ({ ...level })) };
  }

  /** The order ids the slots hold now (UINT64_MAX: empty), as the engine binds them at signing. */
  expectedIds(slots: readonly number[]): bigint[] {
    return slots.map((slot) => this.#slots[slot]?.orderId ?? UINT64_MAX);
  }

  markPending(): void {
    this.#pending += 1;
    this.#emit();
  }

  /** Applies an intent's part on this market atomically; returns the revert reason, if any. */
  settle(intent: Intent, expected: readonly bigint[], fills: OwnFill[]): string | undefined {
    this.#pending -= 1;
    let reason: string | undefined;
    try {
      this.#apply(intent, expected, fills);
    } catch (error) {
      if (!(error instanceof Revert)) throw error;
      reason = error.message;
    }
    this.#emit();
    for (const fill of fills) this.#fills.next(fill);
    return reason;
  }

  /** A maker fill of the order in `slot` (default: all that remains). Returns a problem or undefined. */
  fillSlot(slot: number, size: bigint | undefined): string | undefined {
    const order = this.#slots[slot];
    if (!order) return `slot ${slot} of ${this.spec.symbol} holds no order to fill`;
    const amount = size ?? order.remaining;
    if (amount < 1n || amount > order.remaining) return `cannot fill ${amount} of the order in slot ${slot}: ${order.remaining} remains`;
    const slots = [...this.#slots];
    const fill = this.#fillResting(slots, slot, amount);
    this.#slots = slots;
    const own = this.#commitFills([fill]);
    this.#emit();
    for (const entry of own) this.#fills.next(entry);
    return undefined;
  }

  #apply(intent: Intent, expected: readonly bigint[], out: OwnFill[]): void {
    const slots = [...this.#slots];
    const book: WorkingBook = { bids: this.#book.bids.map((l) => ({ ...l })), asks: this.#book.asks.map((l) => ({ ...l })) };
    const fills: Fill[] = [];
    const checkExpected = (slot: number, index: number) => {
      const holds = slots[slot]?.orderId ?? UINT64_MAX;
      if (holds !== expected[index]) throw new Revert(`EXPECTED_ORDER_ID_MISMATCH: slot ${slot} holds ${holds === UINT64_MAX ? 'no order' : `order ${holds}`}, not the expected one`);
    };
    switch (intent.type) {
      case 'ReplaceSlots':
        intent.ops.forEach((op, index) => {
          checkExpected(op.slotIdx, index);
          slots[op.slotIdx] = null;
          if (op.kind === 'place') {
            const order = this.#newOrder(op.slotIdx, op.side, op.price, op.size, op.size);
            const rest = this.#take(book, fills, order, op.postOnly);
            if (rest > 0n) slots[op.slotIdx] = { ...order, remaining: rest };
          }
        });
        break;
      case 'PlaceAndCancel':
        intent.cancelSlots.forEach((slot, index) => {
          checkExpected(slot, index);
          slots[slot] = null;
        });
        for (const order of intent.orders) this.#place(slots, book, fills, order);
        break;
      case 'CancelAll':
        slots.fill(null);
        break;
      case 'CancelTrigger':
        throw new Revert('UNKNOWN_TRIGGER: creating triggers is not supported live, so none is active');
      default:
        throw new Revert(`UNSUPPORTED_METHOD: ${intent.type}`);
    }
    this.#slots = slots;
    this.#book = book;
    out.push(...this.#commitFills(fills));
  }

  #place(slots: (OwnOrder | null)[], book: WorkingBook, fills: Fill[], order: OrderRequest): void {
    const postOnly = order.executionInstruction === 'POST_ONLY';
    if (order.tif === 'FOK') {
      const available = this.#crossing(book, order.side, order.price).reduce((sum, level) => sum + level.size, 0n);
      if (available < order.size) throw new Revert(`INVALID_ORDER: FOK order of ${order.size} finds only ${available}`);
    }
    const own = this.#newOrder(undefined, order.side, order.price, order.size, order.size);
    const rest = this.#take(book, fills, own, postOnly);
    if (order.tif !== 'GTC' || rest === 0n) return;
    const slot = slots.indexOf(null);
    if (slot === -1) throw new Revert(`NO_FREE_SLOT: all ${MAKER_SLOTS} maker slots hold an order`);
    slots[slot] = { ...own, slot, remaining: rest };
  }

  #crossing(book: WorkingBook, side: OrderSide, price: bigint): WorkingLevel[] {
    return side === 'BUY' ? book.asks.filter((level) => level.price <= price) : book.bids.filter((level) => level.price >= price);
  }

  /** Takes from the working book; returns what is left of the order. */
  #take(book: WorkingBook, fills: Fill[], order: OwnOrder, postOnly: boolean): bigint {
    const levels = order.side === 'BUY' ? book.asks : book.bids;
    const crosses = (level: BookLevel) => (order.side === 'BUY' ? level.price <= order.price : level.price >= order.price);
    if (postOnly && levels[0] !== undefined && crosses(levels[0])) {
      throw new Revert(`INVALID_ORDER: post-only ${order.side} at ${order.price} would cross ${levels[0].price}`);
    }
    let rest = order.size;
    while (rest > 0n && levels[0] !== undefined && crosses(levels[0])) {
      const level = levels[0];
      const size = rest < level.size ? rest : level.size;
      fills.push({ order, price: level.price, size, liquidity: 'taker' });
      rest -= size;
      level.size -= size;
      if (level.size === 0n) levels.shift();
    }
    return rest;
  }

  #fillResting(slots: (OwnOrder | null)[], slot: number, size: bigint): Fill {
    const order = slots[slot]!;
    const remaining = order.remaining - size;
    slots[slot] = remaining === 0n ? null : { ...order, remaining };
    return { order, price: order.price, size, liquidity: 'maker' };
  }

  #commitFills(fills: readonly Fill[]): OwnFill[] {
    if (fills.length === 0) return [];
    const transactionHash = `0x${this.#nextIds.tx.toString(16).padStart(64, '0')}` as Hex;
    this.#nextIds.tx += 1n;
    return fills.map((fill) => {
      const fee = feeRaw(quoteRaw(this.#scale, fill.price, fill.size), fill.liquidity === 'maker' ? this.spec.makerFeePps : this.spec.takerFeePps);
      this.#position += fill.order.side === 'BUY' ? fill.size : -fill.size;
      this.#fees += fee;
      return {
        market: this.spec.address,
        orderId: fill.order.orderId!,
        transactionHash,
        timeMs: this.#now(),
        side: fill.order.side,
        size: fill.size,
        price: fill.price,
        fee,
        liquidity: fill.liquidity,
      };
    });
  }

  #newOrder(slot: number | undefined, side: OrderSide, price: bigint, size: bigint, remaining: bigint): OwnOrder {
    const orderId = this.#nextIds.order;
    this.#nextIds.order += 1n;
    return { market: this.spec.address, orderId, slot, side, price, size, remaining };
  }

  #snapshot(): OwnMarketState {
    const slots = this.#slots.map((order, slot): OwnOrder | null => (order === null ? null : { ...order, slot }));
    return Object.freeze({
      market: this.spec.address,
      slots: Object.freeze(slots),
      orders: Object.freeze(slots.filter((order): order is OwnOrder => order !== null)),
      pendingRequests: this.#pending,
      position: this.#position,
      realizedPnl: 0n,
      fees: this.#fees,
    });
  }

  #emit(): void {
    const state = this.#snapshot();
    this.history.push({ at: this.#now(), state });
    this.#state.next(state);
  }
}
