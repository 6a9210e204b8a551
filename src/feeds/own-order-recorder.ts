/**
 * The bot's own orders, cancels and fills as the engine reports them, for whoever keeps a record of
 * them: the raw recording (`clobbot run --record`, marked as its own so that a backtest can take them
 * out of the recorded book and tape) and a backtest's orders.csv.
 *
 * An order is reported as soon as the engine shows it (its placement confirmed), before the engine
 * has read its venue id from the order events: such an order has a provisional key (`pending:<n>`)
 * and is named when its id is known, by its slot, side, price and size, or by a fill of its side and
 * price. An order the engine never named (replaced or filled before its events were read) keeps its
 * provisional key. Its end is reported when it leaves the engine's state with size still open (a
 * cancel, or an expiry); each fill as the engine reports it.
 */
import type { Observable, Subscription } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { OrderSide } from '../protocol/constants.ts';
import type { OwnFill, OwnMarketState } from '../strategy/strategy-context.ts';
import type { RawFeedWriter } from './raw-feed-writer.ts';

export interface OwnOrderSources {
  readonly state$: Observable<OwnMarketState>;
  readonly fills$: Observable<OwnFill>;
}

/** An own order as reported: price and size units; `key` is `id:<orderId>` or `pending:<n>`. */
export interface OwnOrderSeen {
  readonly key: string;
  readonly side: OrderSide;
  readonly price: bigint;
  readonly size: bigint;
}

export interface OwnOrderSink {
  placed(atMs: number, order: OwnOrderSeen): void;
  /** The order first reported as `pendingKey` has venue id `orderId`. */
  named(atMs: number, pendingKey: string, orderId: bigint): void;
  /** The order left the book with `remaining` still open. */
  ended(atMs: number, order: OwnOrderSeen, remaining: bigint): void;
  filled(atMs: number, fill: OwnFill): void;
}

interface Followed {
  order: OwnOrderSeen;
  remaining: bigint;
  /** Slot, side, price and size: how an unnamed order is recognised once named. */
  readonly terms: string;
}

/**
 * @example subscriptions.add(followOwnOrders({ state$: engine.state$(market), fills$ }, sink, clock));
 */
export function followOwnOrders(sources: OwnOrderSources, sink: OwnOrderSink, clock: Pick<Clock, 'now'>): Subscription {
  /** Orders on the book by key. */
  const open = new Map<string, Followed>();
  /** Unnamed orders by their terms. */
  const unnamed = new Map<string, Followed>();
  let pendingCount = 0;
  const termsOf = (order: OwnMarketState['orders'][number]) => `${order.slot}:${order.side}:${order.price}:${order.size}`;
  const name = (followed: Followed, orderId: bigint) => {
    unnamed.delete(followed.terms);
    open.delete(followed.order.key);
    sink.named(clock.now(), followed.order.key, orderId);
    followed.order = { ...followed.order, key: `id:${orderId}` };
    open.set(followed.order.key, followed);
  };
  const subscription = sources.state$.subscribe((state) => {
    const seen = new Set<string>();
    for (const order of state.orders) {
      const terms = termsOf(order);
      let followed = order.orderId === undefined ? unnamed.get(terms) : (open.get(`id:${order.orderId}`) ?? unnamed.get(terms));
      if (followed === undefined) {
        const key = order.orderId === undefined ? `pending:${(pendingCount += 1)}` : `id:${order.orderId}`;
        followed = { order: { key, side: order.side, price: order.price, size: order.size }, remaining: order.remaining, terms };
        open.set(key, followed);
        if (order.orderId === undefined) unnamed.set(terms, followed);
        sink.placed(clock.now(), followed.order);
      } else if (order.orderId !== undefined && followed.order.key !== `id:${order.orderId}`) {
        name(followed, order.orderId);
      }
      followed.remaining = order.remaining;
      seen.add(followed.order.key);
    }
    for (const [key, followed] of open) {
      if (seen.has(key)) continue;
      open.delete(key);
      unnamed.delete(followed.terms);
      if (followed.remaining > 0n) sink.ended(clock.now(), followed.order, followed.remaining);
    }
  });
  subscription.add(
    sources.fills$.subscribe((fill) => {
      let followed = open.get(`id:${fill.orderId}`);
      if (followed === undefined) {
        // A fill of an order not named yet: the unnamed one of its side and price.
        followed = [...unnamed.values()].find((candidate) => candidate.order.side === fill.side && candidate.order.price === fill.price);
        if (followed !== undefined) name(followed, fill.orderId);
      }
      if (followed !== undefined) followed.remaining -= fill.size;
      sink.filled(clock.now(), fill);
    }),
  );
  return subscription;
}

/** The sink that appends own-order records to a raw recording (raw-feed-format.ts). */
export function rawOwnOrderSink(recorder: RawFeedWriter): OwnOrderSink {
  const meta = (order: OwnOrderSeen, extra: Record<string, string>) => JSON.stringify({ key: order.key, side: order.side, price: String(order.price), ...extra });
  return {
    placed: (atMs, order) => recorder.append('own-order', atMs, meta(order, { size: String(order.size) }), 'null'),
    named: (atMs, pendingKey, orderId) => recorder.append('own-order-id', atMs, JSON.stringify({ key: pendingKey, orderId: String(orderId) }), 'null'),
    ended: (atMs, order, remaining) => recorder.append('own-cancel', atMs, meta(order, { remaining: String(remaining) }), 'null'),
    filled: (atMs, fill) =>
      recorder.append(
        'own-fill',
        atMs,
        JSON.stringify({
          orderId: String(fill.orderId),
          side: fill.side,
          price: String(fill.price),
          size: String(fill.size),
          fee: String(fill.fee),
          liquidity: fill.liquidity,
          timeMs: fill.timeMs,
          transactionHash: fill.transactionHash,
        }),
        'null',
      ),
  };
}
