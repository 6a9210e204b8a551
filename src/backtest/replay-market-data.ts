/**
 * What a replay answers the bot's market-data polls: the recorded book (a committed-state poll gets
 * the book of a few blocks ago, as the recorded bot saw it) with the bot's own resting orders merged
 * in from the venue's own answer, and the recorded tape's trades, klines and ticker. Answers are
 * reused while neither the book nor the own orders changed, and each level is formatted once.
 */
import type { Clock } from '../core/clock.ts';
import { fromUnits, toUnits } from '../core/units.ts';
import type { Depth } from '../protocol/market-data.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import type { MarketHistory } from '../venue/market-history.ts';
import type { SimVenueModel } from '../venue/sim-venue.ts';
import type { SimReplay } from '../sim/sim-service.ts';
import type { BookSideName, ReplayBook } from './replay-book.ts';

export interface ReplayMarketDataParameters {
  readonly spec: MarketSpec;
  readonly clock: Pick<Clock, 'now'>;
  /** The recorded book now, and as committed-state polls see it (brought up to date by `catchUp`). */
  readonly book: ReplayBook;
  readonly committedBook: ReplayBook;
  readonly catchUp: () => void;
  /** The recorded tape. */
  readonly history: MarketHistory;
}

/** True when `a` is a better price than `b` on `side`. */
const better = (side: BookSideName, a: bigint, b: bigint) => (side === 'bids' ? a > b : a < b);

/** @example const answers = replayMarketData({ spec, clock, book, committedBook, catchUp, history })(model); */
export function replayMarketData(params: ReplayMarketDataParameters): (model: SimVenueModel) => ReturnType<SimReplay['marketData']> {
  const { spec, clock, book, committedBook, history } = params;
  /** The last depth answer per state and limit. */
  const lastDepth = new Map<string, { version: number; bids: unknown; asks: unknown; merged: { bids: [string, string][]; asks: [string, string][] } }>();
  /** Formatted levels, kept so that one level is formatted and serialised once however many answers hold it. */
  const levelTexts = new Map<string, [string, string]>();
  const formattedLevel = (price: bigint, size: bigint): [string, string] => {
    const key = `${price}:${size}`;
    let level = levelTexts.get(key);
    if (level === undefined) {
      if (levelTexts.size >= 100_000) levelTexts.clear();
      level = [fromUnits(price, spec.pricePrecision), fromUnits(size, spec.sizePrecision)];
      levelTexts.set(key, level);
    }
    return level;
  };

  return (model) => ({
    depth(market, limit, state): Depth {
      // The venue's own answer for its block ids and times and the bot's own orders; the recorded book besides.
      const answer = model.depth(market, limit, state);
      params.catchUp();
      const seen = state === 'committed' ? committedBook : book;
      const last = lastDepth.get(`${state}:${limit}`);
      if (last !== undefined && last.version === seen.version && last.bids === answer.bids && last.asks === answer.asks) {
        return { ...answer, bids: last.merged.bids, asks: last.merged.asks };
      }
      const merge = (side: BookSideName, ownLevels: readonly (readonly [string, string])[]) => {
        const recorded = seen.levels(side, limit);
        // Best first already: only the bot's own levels need merging in (none for most answers).
        if (ownLevels.length === 0) return recorded.map(([price, size]) => formattedLevel(price, size));
        const sizes = new Map<bigint, bigint>();
        for (const [price, size] of recorded) sizes.set(price, size);
        for (const [price, size] of ownLevels) {
          const units = toUnits(price, spec.pricePrecision);
          sizes.set(units, (sizes.get(units) ?? 0n) + toUnits(size, spec.sizePrecision));
        }
        return [...sizes]
          .sort(([a], [b]) => (better(side, a, b) ? -1 : 1))
          .slice(0, limit)
          .map(([price, size]) => formattedLevel(price, size));
      };
      const merged = { bids: merge('bids', answer.bids), asks: merge('asks', answer.asks) };
      lastDepth.set(`${state}:${limit}`, { version: seen.version, bids: answer.bids, asks: answer.asks, merged });
      return { ...answer, ...merged };
    },
    trades: (market, limit) => history.trades(market, limit),
    klines: (market, parameters) => history.klines(market, parameters, clock.now()),
    ticker24hr: (market) => history.ticker24hr(market, clock.now(), { bid: book.best('bids'), ask: book.best('asks') }),
  });
}
