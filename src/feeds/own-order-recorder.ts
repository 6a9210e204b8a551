/**
 * Records the bot's own orders, cancels and fills next to the market data it saw
 * (`clobbot run --record`), marked as its own so that a backtest can tell them from everyone else's
 * liquidity and trades. An order is recorded when the engine first knows its id, its end when it
 * leaves the engine's state with size still open (a cancel, or an expiry), and each fill as the
 * engine reports it.
 */
import type { Observable, Subscription } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { OwnFill, OwnMarketState } from '../strategy/strategy-context.ts';
import type { RawFeedWriter } from './raw-feed-writer.ts';

export interface OwnOrderSources {
  readonly state$: Observable<OwnMarketState>;
  readonly fills$: Observable<OwnFill>;
}

/**
 * @example
 * subscriptions.add(recordOwnOrders({ state$: engine.state$(market), fills$ }, raw, clock));
 */
export function recordOwnOrders(sources: OwnOrderSources, recorder: RawFeedWriter, clock: Pick<Clock, 'now'>): Subscription {
  /** Open orders by id as last seen: side, price and what was still open. */
  const open = new Map<bigint, { side: string; price: bigint; remaining: bigint }>();
  const subscription = sources.state$.subscribe((state) => {
    const seen = new Set<bigint>();
    for (const order of state.orders) {
      if (order.orderId === undefined) continue;
      seen.add(order.orderId);
      const known = open.get(order.orderId);
      if (known === undefined) {
        recorder.append('own-order', clock.now(), JSON.stringify({ orderId: String(order.orderId), side: order.side, price: String(order.price), size: String(order.size) }), 'null');
      }
      open.set(order.orderId, { side: order.side, price: order.price, remaining: order.remaining });
    }
    for (const [orderId, order] of open) {
      if (seen.has(orderId)) continue;
      open.delete(orderId);
      if (order.remaining > 0n) {
        recorder.append('own-cancel', clock.now(), JSON.stringify({ orderId: String(orderId), side: order.side, price: String(order.price), remaining: String(order.remaining) }), 'null');
      }
    }
  });
  subscription.add(
    sources.fills$.subscribe((fill) => {
      const order = open.get(fill.orderId);
      if (order !== undefined) order.remaining -= fill.size;
      recorder.append(
        'own-fill',
        clock.now(),
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
      );
    }),
  );
  return subscription;
}
