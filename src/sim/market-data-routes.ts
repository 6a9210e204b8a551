/**
 * The market-data host (Binance-compatible): `GET /api/v3/depth`, `/klines`, `/trades`,
 * `/ticker/24hr`, `/exchangeInfo`. Each request is first charged its weight (per client IP, even
 * when its parameters are then refused, as on Binance), then failed and delayed as the fault model
 * says (fault-model.ts: HTTP 500/503 with Binance's bodies, or a 429 -1003 with `Retry-After` exactly
 * like a weight refusal), then validated with the protocol's query schemas (400 with Binance's body; an unlisted
 * symbol -1121) and answered from the venue. Every answer carries `X-MBX-USED-WEIGHT-1M`.
 */
import type { z } from 'zod';
import { MarketErrorCode } from '../protocol/constants.ts';
import { MarketDataLimits, RequestWeight } from '../protocol/constants.ts';
import { INTEGER_LEGAL_RANGE, marketErrorBody, type MarketDataErrorBody } from '../protocol/error-bodies.ts';
import {
  depthQuerySchema,
  exchangeInfoQuerySchema,
  klinesQuerySchema,
  parseMarketQuery,
  tickerQuerySchema,
  tradesQuerySchema,
  type MarketQueryResult,
} from '../protocol/market-data.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import type { SimVenue } from '../venue/sim-venue.ts';
import type { MarketDataFailure, MarketDataFaultReader } from './fault-model.ts';
import type { SimFailure, SimRequest, SimResponse, SimRoute } from './http-types.ts';
import { firstQueryValues } from './query-values.ts';
import { withJsonText } from './route-dispatch.ts';
import { USED_WEIGHT_HEADER, type WeightLimiter } from './weight-limiter.ts';

export interface MarketDataRoutesOptions {
  readonly limiter: WeightLimiter;
  /** Which requests fail, and how late answers leave. */
  readonly faults: MarketDataFaultReader;
}

/**
 * Binance's bodies of the injected server failures (errors.md: -1000 UNKNOWN; -1001 DISCONNECTED,
 * which its HTTP 503 answers carry as "Internal error; unable to process your request").
 */
export const MARKET_FAULT_BODIES = {
  500: { code: MarketErrorCode.UNKNOWN, msg: 'An unknown error occurred while processing the request.' },
  503: { code: MarketErrorCode.DISCONNECTED, msg: 'Internal error; unable to process your request. Please try again.' },
} as const satisfies Record<number, MarketDataErrorBody>;

type RawQuery = Readonly<Record<string, string>>;

/**
 * `parseMarketQuery` with `schema`, remembering results by the query: a poller sends the same
 * query again and again, and parsing one is pure.
 */
function queryParser<S extends z.ZodType>(schema: S): (raw: RawQuery) => MarketQueryResult<z.output<S>> {
  const results = new Map<string, MarketQueryResult<z.output<S>>>();
  return (raw) => {
    const key = JSON.stringify(raw);
    let result = results.get(key);
    if (result === undefined) {
      result = parseMarketQuery(schema, raw);
      if (results.size >= 1000) results.clear();
      results.set(key, result);
    }
    return result;
  };
}

const INTEGER_PATTERN = new RegExp(INTEGER_LEGAL_RANGE);

/**
 * The `limit` whose weight a request costs: the one sent when valid, else the endpoint's default
 * (ours: Binance does not say what an invalid limit weighs).
 */
function weightLimit(raw: RawQuery, bounds: { readonly min: number; readonly max: number; readonly default: number }): number {
  const text = raw['limit'];
  if (text === undefined || !INTEGER_PATTERN.test(text)) return bounds.default;
  const value = Number(text);
  return value >= bounds.min && value <= bounds.max ? value : bounds.default;
}

function badRequest(body: MarketDataErrorBody): SimResponse {
  return { status: 400, body };
}

/** The market of `symbol`, or the -1121 answer. */
function marketOr400(venue: SimVenue, symbol: string): MarketSpec | SimResponse {
  return venue.marketBySymbol(symbol) ?? badRequest(marketErrorBody.badSymbol());
}

function isResponse(value: MarketSpec | SimResponse): value is SimResponse {
  return 'status' in value;
}

function marketFailureBody(failure: SimFailure, message: string): unknown {
  return failure === 'internal-error' ? MARKET_FAULT_BODIES[500] : { code: -1, msg: message };
}

/** The JSON text of each frozen trade the venue has shown (its trades are the same objects every poll). */
const tradeTexts = new WeakMap<object, string>();

/**
 * `trades`, marked with its JSON built from each trade's remembered text: a poll asks for the same
 * trades again and again. Left to the dispatcher as it is when a trade could still change (a flat
 * record that is not frozen).
 */
function tradesBody<T extends object>(trades: T[]): T[] {
  const texts: string[] = new Array<string>(trades.length);
  for (let i = 0; i < trades.length; i++) {
    const trade = trades[i]!;
    if (typeof trade !== 'object' || trade === null || !Object.isFrozen(trade)) return trades;
    let text = tradeTexts.get(trade);
    if (text === undefined) {
      text = JSON.stringify(trade);
      tradeTexts.set(trade, text);
    }
    texts[i] = text;
  }
  return withJsonText(trades, `[${texts.join(',')}]`);
}

/**
 * The five market-data routes over `venue`.
 *
 * @example
 * const routes = marketDataRoutes(venue, { limiter: createWeightLimiter(clock, config.marketData), faults: createFaultModel({ clock, random, settings: config.faults }) });
 */
export function marketDataRoutes(venue: SimVenue, options: MarketDataRoutesOptions): SimRoute[] {
  const { limiter, faults } = options;
  const parse = {
    depth: queryParser(depthQuerySchema),
    klines: queryParser(klinesQuerySchema),
    trades: queryParser(tradesQuerySchema),
    ticker: queryParser(tickerQuerySchema),
    exchangeInfo: queryParser(exchangeInfoQuerySchema),
  };
  const tooManyRequests = (weightHeader: Readonly<Record<string, string>>, retryAfterSec: number): SimResponse => ({
    status: 429,
    headers: { ...weightHeader, 'Retry-After': String(retryAfterSec) },
    body: marketErrorBody.tooManyRequests(limiter.weightPerMinute),
  });
  const failed = (failure: MarketDataFailure, weightHeader: Readonly<Record<string, string>>): SimResponse =>
    failure.status === 429 ? tooManyRequests(weightHeader, failure.retryAfterSec) : { status: failure.status, headers: weightHeader, body: MARKET_FAULT_BODIES[failure.status] };

  function route(pattern: string, weightOf: (raw: RawQuery) => number, serve: (raw: RawQuery) => SimResponse): SimRoute {
    return {
      method: 'GET',
      pattern,
      failureBody: marketFailureBody,
      handler(request: SimRequest) {
        const raw = firstQueryValues(request.query);
        const charge = limiter.charge(request.ip, weightOf(raw));
        const weightHeader = { [USED_WEIGHT_HEADER]: String(charge.used) };
        if (!charge.allowed) return tooManyRequests(weightHeader, charge.retryAfterSeconds);
        const fault = faults.marketData();
        const served = fault.failure === undefined ? serve(raw) : failed(fault.failure, weightHeader);
        return { status: served.status, headers: { ...weightHeader, ...served.headers }, body: served.body, ...(fault.delayMs > 0 ? { delayMs: fault.delayMs } : {}) };
      },
    };
  }

  return [
    route(
      '/api/v3/depth',
      (raw) => RequestWeight.depth(weightLimit(raw, MarketDataLimits.depth)),
      (raw) => {
        const query = parse.depth(raw);
        if (!query.success) return badRequest(query.error);
        const market = marketOr400(venue, query.data.symbol);
        if (isResponse(market)) return market;
        return { status: 200, body: venue.depth(market, query.data.limit, query.data.state) };
      },
    ),
    route(
      '/api/v3/klines',
      (raw) => RequestWeight.klines(weightLimit(raw, MarketDataLimits.klines)),
      (raw) => {
        const query = parse.klines(raw);
        if (!query.success) return badRequest(query.error);
        const market = marketOr400(venue, query.data.symbol);
        if (isResponse(market)) return market;
        const { interval, startTime, endTime, limit } = query.data;
        return { status: 200, body: venue.klines(market, { interval, startTime, endTime, limit }) };
      },
    ),
    route(
      '/api/v3/trades',
      () => RequestWeight.trades(),
      (raw) => {
        const query = parse.trades(raw);
        if (!query.success) return badRequest(query.error);
        const market = marketOr400(venue, query.data.symbol);
        if (isResponse(market)) return market;
        return { status: 200, body: tradesBody(venue.trades(market, query.data.limit)) };
      },
    ),
    route(
      '/api/v3/ticker/24hr',
      () => RequestWeight.ticker(),
      (raw) => {
        const query = parse.ticker(raw);
        if (!query.success) return badRequest(query.error);
        const market = marketOr400(venue, query.data.symbol);
        if (isResponse(market)) return market;
        return { status: 200, body: venue.ticker24hr(market) };
      },
    ),
    route(
      '/api/v3/exchangeInfo',
      () => RequestWeight.exchangeInfo(),
      (raw) => {
        const query = parse.exchangeInfo(raw);
        if (!query.success) return badRequest(query.error);
        return { status: 200, body: venue.exchangeInfo() };
      },
    ),
  ];
}
