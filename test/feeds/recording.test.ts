/**
 * Recording the in-process venue for a simulated minute on the virtual clock, through the same
 * market feed a live run uses: the raw recording holds every answer the venue gave, and its
 * normalized form holds exactly the venue's trades and rebuilds the book of every depth poll.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom, Subscription, timer } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/logger.ts';
import { seededRandom } from '../../src/core/random.ts';
import { toUnits } from '../../src/core/units.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { loadConfigOrThrow } from '../../src/config/load-config.ts';
import { simConfigSchema } from '../../src/config/sim-config.ts';
import { DEFAULT_VIRTUAL_LATENCY } from '../../src/config/virtual-config.ts';
import type { HttpTransport } from '../../src/clients/http-transport.ts';
import { createMarketDataClient } from '../../src/clients/market-data-client.ts';
import type { Depth, Trade } from '../../src/protocol/market-data.ts';
import { createMarketFeed } from '../../src/market/create-market-feed.ts';
import { describeRawFeed } from '../../src/feeds/describe-raw-feed.ts';
import { openEventFeed } from '../../src/feeds/event-feed-reader.ts';
import { eventAt, FeedEventKind, Side, type FeedEvent } from '../../src/feeds/feed-event.ts';
import { tapMarketData } from '../../src/feeds/market-data-tap.ts';
import { normalizeRawFeed } from '../../src/feeds/normalize-raw-feed.ts';
import { openRawFeed } from '../../src/feeds/raw-feed-reader.ts';
import { createInProcessVenue } from '../../src/runtime/in-process-venue.ts';
import { feedTiming, marketFeedPlanOf } from '../../src/runtime/market-feed-timing.ts';
import { createMarketRecording } from '../../src/runtime/market-recording.ts';
import { createPendingWork } from '../../src/runtime/pending-work.ts';
import { getSimInfo, marketSpecsOf } from '../../src/runtime/sim-account.ts';
import { runOnVirtualClock } from '../../src/runtime/virtual-driver.ts';

const START = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;

interface Recorded {
  readonly path: string;
  /** Depth answers (200) the venue gave the feed, in order. */
  readonly depthAnswers: Depth[];
  /** Every trade of the venue at the end of the minute (its trades endpoint, limit 1000). */
  readonly venueTrades: Trade[];
  readonly tickSize: bigint;
}

let dir: string;
let recorded: Recorded;

/** The venue's answers, seen at the transport seam as the feed received them. */
function counting(inner: HttpTransport, depthAnswers: Depth[]): HttpTransport {
  return async (request) => {
    const response = await inner(request);
    if (request.url.includes('/api/v3/depth') && response.status === 200) depthAnswers.push(JSON.parse(response.text) as Depth);
    return response;
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clobbot-recording-'));
  const sim = await loadConfigOrThrow('config/sim.yaml', simConfigSchema);
  const clock = new VirtualClock(START);
  const pending = createPendingWork();
  const logger = createLogger({ level: 'silent' });
  recorded = await runOnVirtualClock(
    clock,
    async () => {
      const venue = createInProcessVenue({ config: sim, clock, random: seededRandom(1), secrets: seededRandom(2), latencyRandom: seededRandom(3), latency: DEFAULT_VIRTUAL_LATENCY, logger, pending, seed: 1 });
      venue.start();
      const context = { transport: venue.transport, clock, random: seededRandom(4) };
      const spec = marketSpecsOf(await getSimInfo(context, venue.url), ['MON_USDC']).specs[0]!;
      const timing = feedTiming(sim.blockMs, 1);
      const recording = createMarketRecording({ dir, network: 'sim', exchangeUrl: venue.url, specs: [spec], timing, own: false, transport: venue.transport, clock });
      await recording.open();
      const depthAnswers: Depth[] = [];
      const transport = tapMarketData(counting(venue.transport, depthAnswers), recording.recorderOf, clock);
      const feed = createMarketFeed(createMarketDataClient({ ...context, transport }, { baseUrl: venue.url }), marketFeedPlanOf(spec, timing), clock, { weightBudgetPerMinute: timing.budget });
      const streams = new Subscription();
      streams.add(feed.book$.subscribe());
      streams.add(feed.trades$.subscribe());
      streams.add(feed.ticker$.subscribe());
      await firstValueFrom(timer(MINUTE, clock.scheduler));
      streams.unsubscribe();
      recording.close('duration');
      const venueTrades = await createMarketDataClient(context, { baseUrl: venue.url }).trades({ symbol: 'MON_USDC', limit: 1_000 });
      venue.stop();
      return { path: recording.writers.get('MON_USDC')!.path, depthAnswers, venueTrades, tickSize: spec.tickSize };
    },
    { busy: pending.busy },
  );
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function rowsOf(path: string): Promise<FeedEvent[]> {
  const feed = await openEventFeed(path);
  const rows: FeedEvent[] = [];
  for await (const batch of feed.batches()) for (let i = 0; i < batch.length; i += 1) rows.push(eventAt(batch, i));
  await feed.close();
  return rows;
}

describe('recording the in-process venue for a simulated minute', () => {
  it('holds every depth answer the venue gave, in order, verbatim, over the minute', () => {
    const description = describeRawFeed(recorded.path);
    expect(description.end.closed).toBe('duration');
    expect(description.end.tailBytes).toBe(0);
    expect(description.counts.depth).toBe(recorded.depthAnswers.length);
    // Depth every 400 ms (after each answer) for a minute: about 140 polls.
    expect(recorded.depthAnswers.length).toBeGreaterThan(100);
    expect(description.counts.trades).toBeGreaterThan(50);
    expect(description.counts.ticker).toBeGreaterThanOrEqual(5);
    expect(description.firstAtMs).toBeGreaterThanOrEqual(START);
    expect(description.lastAtMs).toBeLessThanOrEqual(START + MINUTE + 1_000);
    const depths = [...openRawFeed(recorded.path).records()].filter((record) => record.kind === 'depth').map((record) => JSON.parse(record.body) as Depth);
    expect(depths).toEqual(recorded.depthAnswers);
  });

  it('normalizes to exactly the venue\'s trades and to the book of every depth poll', async () => {
    const out = join(dir, 'minute.arrow');
    const result = await normalizeRawFeed(recorded.path, out);
    const rows = await rowsOf(out);
    expect(result.rows).toBe(rows.length);

    const trades = rows.filter((row) => row.kind === FeedEventKind.TRADE);
    expect(rows.filter((row) => row.kind === FeedEventKind.TRADE_GAP)).toEqual([]);
    expect(trades.length).toBeGreaterThan(10);
    const firstId = trades[0]!.id;
    const lastId = trades.at(-1)!.id;
    const venue = recorded.venueTrades.filter((trade) => BigInt(trade.id) >= firstId && BigInt(trade.id) <= lastId);
    // Ticks: the venue's price in price units (precision 1e7) / tick; lots: size units (precision 100, a lot is one unit).
    const asRow = (trade: Trade) => ({
      id: BigInt(trade.id),
      side: trade.isBuyerMaker ? Side.SELL : Side.BUY,
      exchTs: BigInt(trade.time) * 1_000_000n,
      price: toUnits(trade.price, 10_000_000n) / recorded.tickSize,
      qty: toUnits(trade.qty, 100n),
    });
    expect(trades.map(({ id, side, exchTs, price, qty }) => ({ id, side, exchTs, price, qty }))).toEqual(venue.map(asRow));

    // Replaying the rows rebuilds, at each checkpoint, the book the matching depth poll returned.
    const book = { [Side.BUY]: new Map<bigint, bigint>(), [Side.SELL]: new Map<bigint, bigint>() };
    const byUpdate = new Map(recorded.depthAnswers.map((depth) => [BigInt(depth.lastUpdateId), depth]));
    let compared = 0;
    for (const row of rows) {
      if (row.kind === FeedEventKind.BOOK_CLEAR) (book[Side.BUY].clear(), book[Side.SELL].clear());
      if (row.kind === FeedEventKind.LEVEL) {
        const side = book[row.side as 1 | -1];
        if (row.qty === 0n) side.delete(row.price);
        else side.set(row.price, row.qty);
      }
      if (row.kind !== FeedEventKind.CHECKPOINT) continue;
      const depth = byUpdate.get(row.id)!;
      const levels = (side: readonly (readonly [string, string])[]) => side.map(([price, size]) => [toUnits(price, 10_000_000n) / recorded.tickSize, toUnits(size, 100n)]);
      const sorted = (side: Map<bigint, bigint>, descending: boolean) => [...side].sort(([a], [b]) => (descending ? Number(b - a) : Number(a - b)));
      expect(sorted(book[Side.BUY], true)).toEqual(levels(depth.bids));
      expect(sorted(book[Side.SELL], false)).toEqual(levels(depth.asks));
      compared += 1;
    }
    expect(compared).toBe(new Set(recorded.depthAnswers.map((depth) => depth.lastUpdateId)).size);
  });
});
