/**
 * The raw recordings of a run's markets (`clobbot record`, `clobbot run --record`): one file per
 * symbol in the output directory, named `<SYMBOL>-<start ms>.raw`, headed by the market, the poll
 * plan and the venue's exchangeInfo answer; market data is appended by the tap on the market-data
 * transport (src/feeds/market-data-tap.ts), own orders by recordOwnOrders.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../core/clock.ts';
import type { HttpTransport } from '../clients/http-transport.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import { feedMarketOf } from '../feeds/feed-market.ts';
import { createRawFeedWriter, type RawFeedWriter } from '../feeds/raw-feed-writer.ts';
import type { FeedTiming } from './market-feed-timing.ts';
import { marketFeedPlanOf } from './market-feed-timing.ts';

export interface MarketRecordingParameters {
  readonly dir: string;
  readonly network: string;
  readonly exchangeUrl: string;
  readonly specs: readonly MarketSpec[];
  readonly timing: FeedTiming;
  /** True when the bot's own orders are recorded too. */
  readonly own: boolean;
  readonly transport: HttpTransport;
  readonly clock: Pick<Clock, 'now'>;
}

export interface MarketRecording {
  /** The writer of a symbol once opened. */
  recorderOf(symbol: string): RawFeedWriter | undefined;
  readonly writers: ReadonlyMap<string, RawFeedWriter>;
  /** Asks the venue for its exchangeInfo and creates the files. */
  open(): Promise<void>;
  /** Ends every recording with an `end` record. Idempotent. */
  close(reason: string): void;
}

/**
 * @example
 * const recording = createMarketRecording({ dir: 'out', network: 'sim', exchangeUrl, specs, timing, own: true, transport, clock });
 * await recording.open();
 * const tapped = tapMarketData(transport, recording.recorderOf, clock);
 */
export function createMarketRecording(params: MarketRecordingParameters): MarketRecording {
  const writers = new Map<string, RawFeedWriter>();
  return {
    writers,
    recorderOf: (symbol) => writers.get(symbol),
    async open() {
      mkdirSync(params.dir, { recursive: true });
      const answer = await params.transport({ method: 'GET', url: `${params.exchangeUrl.replace(/\/+$/, '')}/api/v3/exchangeInfo`, headers: { accept: 'application/json' } });
      const exchangeInfo = answer.status === 200 ? answer.text : 'null';
      const at = params.clock.now();
      for (const spec of params.specs) {
        const plan = marketFeedPlanOf(spec, params.timing);
        writers.set(
          spec.symbol,
          createRawFeedWriter(
            join(params.dir, `${spec.symbol}-${at}.raw`),
            {
              network: params.network,
              symbol: spec.symbol,
              market: feedMarketOf(spec),
              plan: { depth: { everyMs: plan.depth.everyMs, limit: plan.depth.limit ?? 100, state: plan.depth.state ?? 'committed' }, trades: { everyMs: plan.trades.everyMs, ...(plan.trades.limit === undefined ? {} : { limit: plan.trades.limit }) }, ticker: { everyMs: plan.ticker.everyMs } },
              own: params.own,
            },
            at,
            exchangeInfo,
          ),
        );
      }
    },
    close(reason) {
      const at = params.clock.now();
      for (const writer of writers.values()) writer.close(at, reason);
    },
  };
}
