/**
 * How often a run polls each market's depth, trades and ticker: the fastest periods that fit every
 * market's feed in its share of the market-data weight budget. Trading and recording use the same
 * plan, so a recording sees what a bot would see.
 */
import { MARKET_DATA_WEIGHT_PER_MINUTE } from '../protocol/constants.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import type { MarketFeedPlan } from '../market/market-feed-plan.ts';

export interface FeedTiming {
  readonly depthMs: number;
  readonly tradesMs: number;
  readonly tickerMs: number;
  /** Request weight per minute of each market's feed. */
  readonly budget: number;
}

/** Depth levels and trades each poll asks for. */
const DEPTH_LIMIT = 100;
const TRADES_LIMIT = 100;

/** Poll periods of `markets` feeds on a venue making a block every `blockMs`. */
export function feedTiming(blockMs: number | undefined, markets: number): FeedTiming {
  const budget = Math.floor((MARKET_DATA_WEIGHT_PER_MINUTE * 0.9) / Math.max(1, markets));
  const tradesMs = 1_000;
  const tickerMs = 10_000;
  const fixed = 60_000 / tradesMs + 60_000 / tickerMs;
  const fastest = Math.min(1_000, Math.max(200, blockMs ?? 500));
  const depthMs = Math.max(fastest, Math.ceil(60_000 / Math.max(1, budget - fixed)));
  return { depthMs, tradesMs, tickerMs, budget };
}

/** The feed plan of one market under `timing`. */
export function marketFeedPlanOf(spec: Pick<MarketSpec, 'symbol' | 'pricePrecision' | 'sizePrecision'>, timing: FeedTiming): MarketFeedPlan {
  return {
    symbol: spec.symbol,
    market: spec,
    depth: { everyMs: timing.depthMs, limit: DEPTH_LIMIT },
    trades: { everyMs: timing.tradesMs, limit: TRADES_LIMIT },
    ticker: { everyMs: timing.tickerMs },
  };
}
