/**
 * Which of the replayed bot's resting orders the recorded market fills (docs/backtesting.md, "The
 * replay venue"): each order's queue position under the queue model; a recorded trade reaching the
 * orders of its maker side at its price or better (better prices first, then the order they were
 * placed in, the trade's size consumed once); the flow that filled the recorded bot's order going on
 * past its price; a recorded book that crosses an order. What is decided becomes the body of a script
 * taker's transaction that meets exactly those orders.
 */
import type { OrderSide } from '../protocol/constants.ts';
import type { OrderIntent } from '../protocol/intent-types.ts';
import type { RestingOrder } from '../venue/resting-order.ts';
import type { SystemTxBody } from '../venue/sim-venue.ts';
import type { QueueModel, QueuePosition } from './queue-model.ts';
import type { BookSideName, LevelChange, ReplayBook } from './replay-book.ts';

interface OwnOrder {
  readonly id: bigint;
  readonly side: BookSideName;
  readonly price: bigint;
  remaining: bigint;
  /** Fills decided and not yet carried out by the venue. */
  pending: bigint;
  readonly position: QueuePosition;
}

/** Counts the replay reports. */
export interface FillCounts {
  fills: number;
  filledSize: bigint;
}

const sideOf = (side: OrderSide): BookSideName => (side === 'BUY' ? 'bids' : 'asks');
/** True when `a` is a better price than `b` on `side`. */
export const better = (side: BookSideName, a: bigint, b: bigint): boolean => (side === 'bids' ? a > b : a < b);

export class OwnOrderFills {
  private readonly own = new Map<bigint, OwnOrder>();
  /** Fills decided since the last body, in the order they must execute. */
  private readonly decided: OwnOrder[] = [];
  private readonly sizes = new Map<bigint, bigint>();

  constructor(
    private readonly book: ReplayBook,
    private readonly queueModel: QueueModel,
    private readonly counts: FillCounts,
  ) {}

  /** The bot's resting orders now: new ones join their queue (returned), gone ones leave. */
  refresh(orders: readonly RestingOrder[]): Set<bigint> {
    const joined = new Set<bigint>();
    const seen = new Set<bigint>();
    for (const order of orders) {
      seen.add(order.id);
      const known = this.own.get(order.id);
      if (known !== undefined) {
        known.remaining = order.remaining;
        known.pending = 0n;
        continue;
      }
      const side = sideOf(order.side);
      const best = this.book.best(side);
      // Price improvement puts it at the front; otherwise it joins behind what is displayed at its price.
      const ahead = best === undefined || better(side, order.price, best[0]) ? 0n : this.book.displayed(side, order.price);
      this.own.set(order.id, { id: order.id, side, price: order.price, remaining: order.remaining, pending: 0n, position: this.queueModel.place(ahead) });
      joined.add(order.id);
    }
    for (const id of this.own.keys()) if (!seen.has(id)) this.own.delete(id);
    return joined;
  }

  /** True when an own order rests at `price` on `side` (a depth change there moves its queue). */
  restsAt(side: BookSideName, price: number): boolean {
    if (this.own.size === 0) return false;
    for (const order of this.own.values()) if (order.side === side && Number(order.price) === price) return true;
    return false;
  }

  /** A depth change at an own order's price moves its queue (an order that joined after it already counts it). */
  onLevel(change: LevelChange, joined: ReadonlySet<bigint>): void {
    for (const order of this.own.values()) {
      if (order.side === change.side && order.price === change.price && !joined.has(order.id)) this.queueModel.onDepth(order.position, change.before, change.after);
    }
  }

  /**
   * A recorded trade of `size` at `price` by a `takerSide` taker reaches the own orders it can. The
   * part that filled the recorded bot's own order (`recordedOwn`) is taker flow that, without that
   * order, would have gone on: what of it the replayed bot's orders at the price did not take walks
   * on through the displayed book to worse prices (continueFlow).
   */
  onTrade(takerSide: OrderSide, price: bigint, size: bigint, recordedOwn: bigint): void {
    const side: BookSideName = takerSide === 'BUY' ? 'asks' : 'bids';
    let left = size;
    let blocked = false;
    for (const order of this.ownOn(side)) {
      if (better(side, price, order.price)) break;
      if (order.price !== price) {
        // A better price than the trade's: the taker met it first.
        const fill = open(order) < left ? open(order) : left;
        this.decide(order, fill);
        left -= fill;
        if (open(order) > 0n) blocked = true;
        continue;
      }
      this.queueModel.onTrade(order.position, size);
      const reached = this.queueModel.takeFilled(order.position);
      if (blocked || left === 0n) continue;
      let fill = reached < open(order) ? reached : open(order);
      if (fill > left) fill = left;
      this.decide(order, fill);
      left -= fill;
      // An own order still open at this price stands ahead of the later ones.
      if (open(order) > 0n) blocked = true;
    }
    const taken = size - left;
    if (recordedOwn > taken && !blocked) this.continueFlow(side, price, recordedOwn - taken);
  }

  /** After a checkpoint: own orders the recorded book now crosses are filled whole, at their price. */
  onCheckpoint(): void {
    for (const side of ['bids', 'asks'] as const) {
      const opposite = this.book.best(side === 'bids' ? 'asks' : 'bids');
      if (opposite === undefined) continue;
      for (const order of this.ownOn(side)) {
        if (side === 'bids' ? order.price < opposite[0] : order.price > opposite[0]) break;
        this.decide(order, open(order));
      }
    }
  }

  /** The script taker's orders that meet exactly the fills decided since the last body. */
  body(): SystemTxBody {
    const orders: OrderIntent[] = this.decided.map((order) => ({
      side: order.side === 'bids' ? 'SELL' : 'BUY',
      price: order.price,
      quantity: this.sizes.get(order.id)!,
      tif: 'IOC',
      executionInstruction: 'NONE',
      minSizeAfterBlock: 0n,
    }));
    this.decided.length = 0;
    this.sizes.clear();
    return { kind: 'batch', orders, cancelSlotIdxs: [], expectedOrderIds: [] };
  }

  /**
   * Taker flow of `size` that went past `price` on `side` (what filled the recorded bot's order
   * there: had it not rested, the taker would have gone on). At each worse price it takes the queue
   * ahead of the replayed bot's orders there, then theirs, then what rests behind them; what is left
   * goes on to the next price. It is assumed to have no limit (a market order) and to take nothing
   * more at `price` itself (the recorded bot was typically alone at its price).
   */
  private continueFlow(side: BookSideName, price: bigint, size: bigint): void {
    let left = size;
    const levels = new Set<bigint>(this.book.levels(side).map(([level]) => level));
    const mine = this.ownOn(side).filter((order) => better(side, price, order.price));
    for (const order of mine) levels.add(order.price);
    for (const level of [...levels].filter((candidate) => better(side, price, candidate)).sort((a, b) => (better(side, a, b) ? -1 : 1))) {
      if (left <= 0n) return;
      const displayed = this.book.displayed(side, level);
      for (const order of mine) {
        if (order.price !== level) continue;
        const front = BigInt(Math.max(0, Math.floor(this.queueModel.front(order.position))));
        const reach = left - front;
        if (reach <= 0n) break;
        const fill = reach < open(order) ? reach : open(order);
        this.decide(order, fill);
        left -= fill;
        if (open(order) > 0n) return;
      }
      left -= displayed;
    }
  }

  /** Own orders of `side`, best price first, then in the order they were placed. */
  private ownOn(side: BookSideName): OwnOrder[] {
    return [...this.own.values()].filter((order) => order.side === side).sort((a, b) => (a.price === b.price ? (a.id < b.id ? -1 : 1) : better(side, a.price, b.price) ? -1 : 1));
  }

  private decide(order: OwnOrder, size: bigint): void {
    if (size <= 0n) return;
    order.pending += size;
    if (!this.sizes.has(order.id)) this.decided.push(order);
    this.sizes.set(order.id, (this.sizes.get(order.id) ?? 0n) + size);
    this.counts.fills += 1;
    this.counts.filledSize += size;
  }
}

/** What of an order is open to fills: its remaining size less the fills decided for it. */
const open = (order: OwnOrder) => order.remaining - order.pending;
