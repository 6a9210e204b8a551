/**
 * The market-data side of the venue seam: what the market streams (src/market) poll. The HTTP
 * client of the exchange host implements it live and against the local venue; a recorded feed
 * implements it in backtests. Answers are the wire types of src/protocol/market-data.ts.
 */
import type { KlineInterval, OrderbookState } from '../protocol/constants.ts';
import type { Depth, ExchangeInfo, Kline, Ticker24hr, Trade } from '../protocol/market-data.ts';

/** Per-call options of every read. */
export interface CallOptions {
  /** Aborts the call (and its retries). */
  readonly signal?: AbortSignal;
  /** Time one attempt may take, on the clock; default the client's (10 s). */
  readonly timeoutMs?: number;
}

export interface DepthParameters {
  readonly symbol: string;
  /** 1..5000, default 100. */
  readonly limit?: number;
  /** Orderbook state, default `committed`. */
  readonly state?: OrderbookState;
}

export interface TradesParameters {
  readonly symbol: string;
  /** 1..1000, default 500. */
  readonly limit?: number;
}

export interface KlinesParameters {
  readonly symbol: string;
  readonly interval: KlineInterval;
  readonly startTime?: number;
  readonly endTime?: number;
  /** 1..1000, default 500. */
  readonly limit?: number;
}

export interface MarketDataSource {
  depth(parameters: DepthParameters, options?: CallOptions): Promise<Depth>;
  /**
   * The raw JSON body of a depth answer, when the source has one (the HTTP client): the market feed
   * then parses it straight into its integer book (`parseDepthBody`), within 2x of a bare
   * `JSON.parse`, instead of building the wire object first.
   */
  depthBody?(parameters: DepthParameters, options?: CallOptions): Promise<string>;
  trades(parameters: TradesParameters, options?: CallOptions): Promise<Trade[]>;
  ticker24hr(parameters: { readonly symbol: string }, options?: CallOptions): Promise<Ticker24hr>;
  klines(parameters: KlinesParameters, options?: CallOptions): Promise<Kline[]>;
  exchangeInfo(options?: CallOptions): Promise<ExchangeInfo>;
}
