/**
 * The feed over the real market-data client against the simulated venue with its synthetic order
 * flow, on wall time: the same code as on the virtual clock. It ends when enough books came (an
 * event), and checks the shared poller by counting calls against books, not calls in a window.
 */
import { firstValueFrom, skip } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchTransport, type HttpTransport } from '../../src/clients/http-transport.ts';
import { createMarketDataClient } from '../../src/clients/market-data-client.ts';
import { liveClock } from '../../src/core/clock.ts';
import { seededRandom } from '../../src/core/random.ts';
import { createMarketFeed } from '../../src/market/create-market-feed.ts';
import type { OrderBookView } from '../../src/market/order-book-model.ts';
import type { UnitTrade } from '../../src/market/unit-trade.ts';
import { startTestVenue, type TestVenue } from '../sim/relay-harness.ts';

let venue: TestVenue;
beforeAll(async () => {
  venue = await startTestVenue({ blockMs: 20, backgroundFlow: true });
});
afterAll(() => venue.stop());

describe('market feed against the simulated venue', () => {
  it('polls each source once for many subscribers; books move forward, trades come once in id order', async () => {
    const spec = venue.config.markets[0]!;
    const paths: string[] = [];
    const inner = createFetchTransport();
    const transport: HttpTransport = (request) => {
      paths.push(new URL(request.url).pathname);
      return inner(request);
    };
    const client = createMarketDataClient({ transport, clock: liveClock, random: seededRandom(3) }, { baseUrl: venue.url });
    const feed = createMarketFeed(
      client,
      { symbol: spec.symbol, market: spec, depth: { everyMs: 110, limit: 20 }, trades: { everyMs: 110 }, ticker: { everyMs: 5_000 } },
      liveClock,
    );
    const books: OrderBookView[] = [];
    const trades: UnitTrade[] = [];
    const subscriptions = [
      feed.book$.subscribe((book) => books.push(book)),
      feed.book$.subscribe(() => undefined),
      feed.bbo$.subscribe(() => undefined),
      feed.mid$.subscribe(() => undefined),
      feed.trades$.subscribe((trade) => trades.push(trade)),
      feed.trades$.subscribe(() => undefined),
    ];
    // The sixth book (blocks every 20 ms, so every poll, 110 ms after the last answer, finds a newer book; within the weight budget).
    await firstValueFrom(feed.book$.pipe(skip(5)));
    const depthCalls = paths.filter((path) => path === '/api/v3/depth').length;
    subscriptions.forEach((subscription) => subscription.unsubscribe());
    const health = await new Promise((resolve) => feed.health$.subscribe(resolve).unsubscribe());

    // One poller whatever the six subscribers: one depth call per book (and perhaps the next one on the wire).
    expect(books.length).toBeGreaterThanOrEqual(6);
    expect(depthCalls).toBeGreaterThanOrEqual(books.length);
    expect(depthCalls).toBeLessThanOrEqual(books.length + 1);
    expect(paths.filter((path) => path === '/api/v3/ticker/24hr')).toEqual([]); // nothing subscribed to it
    books.forEach((book, i) => {
      if (i > 0) expect(book.lastUpdateId).toBeGreaterThan(books[i - 1]!.lastUpdateId);
      expect(book.isCrossed()).toBe(false);
    });
    // the synthetic flow may or may not trade within the window; whatever came must be in order
    trades.forEach((trade, i) => {
      if (i > 0) expect(trade.id).toBeGreaterThan(trades[i - 1]!.id);
    });
    expect(health).toMatchObject({ depth: { status: 'idle' }, trades: { status: 'idle' }, ticker: { status: 'idle' } });
  });
});
