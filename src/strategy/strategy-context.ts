/**
 * The StrategyContext port: everything a strategy may see. Market streams of its markets, its own
 * orders by slot, fills, position and balances, the market parameters, its validated params, the
 * clock, a seeded random source and a logger. No network, keys, nonces or signing: the engine owns
 * those. The same strategy code runs live, against the local venue and in backtests.
 */
import type { Observable } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { RandomSource } from '../core/random.ts';
import type { OrderSide } from '../protocol/constants.ts';
import type { Address, Hex } from '../protocol/encoding.ts';
import type { MarketFeed } from '../market/create-market-feed.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';

/** A live order of the strategy's account (live = its placement was CONFIRMED). */
export interface OwnOrder {
  readonly market: Address;
  /** The venue's order id; undefined until the engine has learnt it. */
  readonly orderId: bigint | undefined;
  /** Maker slot 0..61, when known. */
  readonly slot: number | undefined;
  readonly side: OrderSide;
  /** Price units. */
  readonly price: bigint;
  /** Size units as placed. */
  readonly size: bigint;
  /** Size units still open. */
  readonly remaining: bigint;
}

/** One fill of one of the account's orders. */
export interface OwnFill {
  readonly market: Address;
  readonly orderId: bigint;
  readonly transactionHash: Hex;
  /** Block time, ms. */
  readonly timeMs: number;
  readonly side: OrderSide;
  /** Size units. */
  readonly size: bigint;
  /** Price units. */
  readonly price: bigint;
  /** Raw quote-token units paid in fees. */
  readonly fee: bigint;
  readonly liquidity: 'maker' | 'taker';
}

/** The strategy's own state on one market, as the engine keeps it. */
export interface OwnMarketState {
  readonly market: Address;
  /** MAKER_SLOTS entries: the live order in each slot, or null. */
  readonly slots: readonly (OwnOrder | null)[];
  readonly orders: readonly OwnOrder[];
  /** Requests signed and not yet resolved that touch this market. */
  readonly pendingRequests: number;
  /** Size units, signed (long > 0). */
  readonly position: bigint;
  /** Raw quote units, average cost, gross of fees. */
  readonly realizedPnl: bigint;
  /** Raw quote units. */
  readonly fees: bigint;
}

/** One market as a strategy sees it. */
export interface StrategyMarket {
  readonly spec: MarketSpec;
  /** The market's streams (books, best bid and offer, mid, trades, ticker, klines, health). */
  readonly feed: Pick<MarketFeed, 'book$' | 'bbo$' | 'mid$' | 'trades$' | 'ticker$' | 'klines$' | 'health$'>;
  /** Own orders, position and PnL; the current state at once, then every change. */
  readonly state$: Observable<OwnMarketState>;
  /** Own fills, each once. */
  readonly fills$: Observable<OwnFill>;
}

export interface StrategyContext<P> {
  /** The strategy's params, validated by its own schema. */
  readonly params: P;
  /** Its markets by symbol (`BASE_QUOTE`), in the order of the run file. */
  readonly markets: ReadonlyMap<string, StrategyMarket>;
  readonly clock: Clock;
  /** Seeded: the same run, the same draws. */
  readonly random: RandomSource;
  /** A pino child logger bound to the strategy's name. */
  readonly logger: Logger;
}
