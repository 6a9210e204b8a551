/**
 * Market data (Binance-compatible, `{exchange_url}/api/v3/...`): the response records and the query
 * parameters of depth, klines, trades, ticker/24hr and exchangeInfo.
 *
 * Responses are inbound data: they accept unknown extra fields (real Binance trades carry
 * `quoteQty`, `isBestMatch`; real tickers carry `weightedAvgPrice`, `firstId`, …) and keep them.
 * Decimal values stay strings; integers are JSON numbers within the safe-integer range.
 *
 * Queries arrive as strings (URL query parameters). Their schemas carry, on every failure, the
 * Binance error body that the simulated venue answers with; `marketQueryErrorBody` picks it.
 */
import { z } from 'zod';
import {
  KLINE_INTERVAL_MS,
  MarketDataLimits,
  MarketErrorCode,
  ORDERBOOK_STATES,
  type KlineInterval,
  type OrderbookState,
} from './constants.ts';
import { decimalString, signedDecimalString } from './decimal-string.ts';
import {
  INTEGER_LEGAL_RANGE,
  SYMBOL_LEGAL_RANGE,
  marketDataErrorBodySchema,
  marketErrorBody,
  type MarketDataErrorBody,
} from './error-bodies.ts';

/** A non-negative safe integer (ids, block numbers, timestamps, counts). */
const count = z.int().min(0);

// ---------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------

/** One depth level `[price, quantity]`, both decimal strings (spec). */
export const depthLevelSchema = z.tuple([decimalString, decimalString]);
export type DepthLevel = z.output<typeof depthLevelSchema>;

/**
 * `GET /api/v3/depth` response. `E` (block timestamp, ms) and `T` (block timestamp, Unix seconds)
 * are always sent by our venue (spec) but optional here: real Binance spot depth has neither.
 * Ordering (bids descending, asks ascending) is the venue's duty and is not checked here.
 */
export const depthSchema = z.looseObject({
  /** Block number of the snapshot (venue); Binance's book update id. */
  lastUpdateId: count,
  E: count.optional(),
  T: count.optional(),
  bids: z.array(depthLevelSchema),
  asks: z.array(depthLevelSchema),
});
export type Depth = z.output<typeof depthSchema>;

/** One candlestick in the spec's object form (`GET /api/v3/klines` of our venue). */
export const klineSchema = z.looseObject({
  openTime: count,
  open: decimalString,
  high: decimalString,
  low: decimalString,
  close: decimalString,
  /** Base-asset volume. */
  volume: decimalString,
  closeTime: count,
  quoteVolume: decimalString,
  numTrades: count,
});
/**
 * One candlestick (`GET /api/v3/klines`), in the spec's object form whichever form it came in.
 *
 * @useDeclaredType
 */
export type Kline = z.output<typeof klineSchema>;

/**
 * One candlestick in Binance's array form
 * `[openTime, open, high, low, close, volume, closeTime, quoteVolume, numTrades, takerBuyBase,
 * takerBuyQuote, ignore]`, normalised to the object form. Later elements, if Binance adds any,
 * are ignored; the taker volumes are validated and dropped (the spec's kline has none).
 */
export const binanceKlineRowSchema = z
  .tuple(
    [
      count,
      decimalString,
      decimalString,
      decimalString,
      decimalString,
      decimalString,
      count,
      decimalString,
      count,
      decimalString,
      decimalString,
      z.unknown(),
    ],
    z.unknown(),
  )
  .transform(
    ([openTime, open, high, low, close, volume, closeTime, quoteVolume, numTrades]): Kline => ({
      openTime,
      open,
      high,
      low,
      close,
      volume,
      closeTime,
      quoteVolume,
      numTrades,
    }),
  );

/**
 * `GET /api/v3/klines` response: an array of klines in either form (our venue sends objects,
 * real Binance sends arrays); both parse to `Kline`.
 *
 * @example klinesSchema.parse(await response.json())[0]?.close
 */
export const klinesSchema = z.array(z.union([klineSchema, binanceKlineRowSchema]));
export type Klines = z.output<typeof klinesSchema>;

/** One recent trade (spec). */
export const tradeSchema = z.looseObject({
  id: count,
  price: decimalString,
  qty: decimalString,
  time: count,
  isBuyerMaker: z.boolean(),
});
/**
 * One recent trade (`GET /api/v3/trades`).
 *
 * @useDeclaredType
 */
export type Trade = z.output<typeof tradeSchema>;

/** `GET /api/v3/trades` response (spec). */
export const tradesSchema = z.array(tradeSchema);
export type Trades = z.output<typeof tradesSchema>;

/**
 * `GET /api/v3/ticker/24hr` response for one symbol (spec). `priceChange` and
 * `priceChangePercent` are signed: the price may have fallen.
 */
export const ticker24hrSchema = z.looseObject({
  symbol: z.string().min(1),
  priceChange: signedDecimalString,
  priceChangePercent: signedDecimalString,
  lastPrice: decimalString,
  bidPrice: decimalString,
  askPrice: decimalString,
  openPrice: decimalString,
  highPrice: decimalString,
  lowPrice: decimalString,
  /** Base-asset volume. */
  volume: decimalString,
  quoteVolume: decimalString,
  openTime: count,
  closeTime: count,
  /** Number of trades in the 24 hours. */
  count,
});
export type Ticker24hr = z.output<typeof ticker24hrSchema>;

/**
 * Binance's `PRICE_FILTER` of an exchangeInfo symbol: the price step (Binance). The venue's spec shows
 * no filters; a client reads this one when present. A `tickSize` of 0 disables the rule (Binance).
 */
export const priceFilterSchema = z.looseObject({ filterType: z.literal('PRICE_FILTER'), tickSize: decimalString });
export type PriceFilter = z.output<typeof priceFilterSchema>;

/** Binance's `LOT_SIZE` filter: the smallest and largest quantity and the quantity step (Binance). */
export const lotSizeFilterSchema = z.looseObject({ filterType: z.literal('LOT_SIZE'), minQty: decimalString, maxQty: decimalString, stepSize: decimalString });
export type LotSizeFilter = z.output<typeof lotSizeFilterSchema>;

/** One symbol of exchangeInfo (spec). `status` is open-ended: only `TRADING` is known. */
export const exchangeSymbolSchema = z.looseObject({
  symbol: z.string().min(1),
  status: z.string().min(1),
  baseAsset: z.string().min(1),
  quoteAsset: z.string().min(1),
  baseAssetPrecision: count,
  quoteAssetPrecision: count,
  /** Binance's symbol filters (not in the venue's spec): any filter types, read by `filterType`. */
  filters: z.array(z.looseObject({ filterType: z.string() })).optional(),
});
export type ExchangeSymbol = z.output<typeof exchangeSymbolSchema>;

/**
 * `GET /api/v3/exchangeInfo` response (spec). `E` and `T` (the latest committed block, ms and
 * seconds) are venue semantics that our venue always sends; real Binance has no such fields, so a
 * client accepts their absence, as it does for depth.
 */
export const exchangeInfoSchema = z.looseObject({
  timezone: z.string(),
  /** Server wall clock, ms. */
  serverTime: count,
  /** Latest committed block timestamp, ms (always sent by our venue; absent on real Binance). */
  E: count.optional(),
  /** Same block, Unix seconds (as E). */
  T: count.optional(),
  symbols: z.array(exchangeSymbolSchema),
});
export type ExchangeInfo = z.output<typeof exchangeInfoSchema>;

// ---------------------------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------------------------

const SYMBOL_PATTERN = new RegExp(SYMBOL_LEGAL_RANGE);
const INTEGER_PATTERN = new RegExp(INTEGER_LEGAL_RANGE);

/** A failing check that carries the Binance body the venue answers with; later checks are skipped. */
function failsWith(body: MarketDataErrorBody) {
  return { message: body.msg, params: { binance: body }, abort: true };
}

/** A mandatory string parameter: missing or empty -> -1102. */
function mandatory(name: string) {
  const missing = marketErrorBody.mandatoryParameter(name);
  return z.string({ error: missing.msg }).refine((text) => text.length > 0, failsWith(missing));
}

/** `symbol`: mandatory (-1102), Binance's character range (-1100). Whether it is listed is the venue's -1121. */
const symbolParam = mandatory('symbol').refine(
  (text) => SYMBOL_PATTERN.test(text),
  failsWith(marketErrorBody.illegalCharacters('symbol', SYMBOL_LEGAL_RANGE)),
);

/** An integer parameter: digits only (-1100), then `min..max` (-1130). */
function integerParam(name: string, min: number, max: number) {
  return z
    .string()
    .refine((text) => INTEGER_PATTERN.test(text), failsWith(marketErrorBody.illegalCharacters(name, INTEGER_LEGAL_RANGE)))
    .transform(Number)
    .refine((value) => Number.isSafeInteger(value) && value >= min && value <= max, failsWith(marketErrorBody.invalidParameter(name)));
}

/** `limit` with the spec's range and default for one endpoint. */
function limitParam(bounds: { readonly min: number; readonly max: number; readonly default: number }) {
  return integerParam('limit', bounds.min, bounds.max).optional().default(bounds.default);
}

// Type guards: zod narrows a refined value's output type to the guarded type.
function isKlineInterval(text: string): text is KlineInterval {
  return Object.hasOwn(KLINE_INTERVAL_MS, text);
}

function isOrderbookState(text: string): text is OrderbookState {
  return (ORDERBOOK_STATES as readonly string[]).includes(text);
}

/** Milliseconds since the epoch, as Binance's `startTime`/`endTime`. */
const timeParam = (name: string) => integerParam(name, 0, Number.MAX_SAFE_INTEGER).optional();

/**
 * `GET /api/v3/depth` query: `symbol`, `limit` 1..5000 (default 100), `state` (venue) one of
 * proposed, voted, finalized, committed (default committed; anything else -1130).
 */
export const depthQuerySchema = z.object({
  symbol: symbolParam,
  limit: limitParam(MarketDataLimits.depth),
  state: z
    .string()
    .refine(isOrderbookState, failsWith(marketErrorBody.invalidParameter('state')))
    .optional()
    .default('committed'),
});
export type DepthQuery = z.output<typeof depthQuerySchema>;

/**
 * `GET /api/v3/klines` query (names from Binance): `symbol`, `interval` (mandatory as on Binance;
 * unknown -> -1120), `startTime`/`endTime` ms, `limit` 1..1000 (default 500).
 */
export const klinesQuerySchema = z.object({
  symbol: symbolParam,
  interval: mandatory('interval')
    .refine(isKlineInterval, failsWith(marketErrorBody.badInterval())),
  startTime: timeParam('startTime'),
  endTime: timeParam('endTime'),
  limit: limitParam(MarketDataLimits.klines),
});
export type KlinesQuery = z.output<typeof klinesQuerySchema>;

/** `GET /api/v3/trades` query: `symbol`, `limit` 1..1000 (default 500). */
export const tradesQuerySchema = z.object({
  symbol: symbolParam,
  limit: limitParam(MarketDataLimits.trades),
});
export type TradesQuery = z.output<typeof tradesQuerySchema>;

/** `GET /api/v3/ticker/24hr` query: `symbol`. Extra parameters such as `type=FULL` are tolerated and dropped (Binance). */
export const tickerQuerySchema = z.object({
  symbol: symbolParam,
});
export type TickerQuery = z.output<typeof tickerQuerySchema>;

/** `GET /api/v3/exchangeInfo` takes no parameters; any sent are dropped. */
export const exchangeInfoQuerySchema = z.object({});
export type ExchangeInfoQuery = z.output<typeof exchangeInfoQuerySchema>;

/** Binance's body of the failure that the issue stands for. */
function issueBody(issue: z.core.$ZodIssue): MarketDataErrorBody {
  const parameter = String(issue.path[0] ?? '');
  if (issue.code === 'custom') {
    const carried = marketDataErrorBodySchema.safeParse(issue.params?.['binance']);
    if (carried.success) return { code: carried.data.code, msg: carried.data.msg };
  }
  // A parameter that is absent (or not a string) fails the type check before any refinement.
  if (issue.code === 'invalid_type') return marketErrorBody.mandatoryParameter(parameter);
  return marketErrorBody.invalidParameter(parameter);
}

/**
 * The Binance error body for a failed market-data query. A missing mandatory parameter (-1102)
 * wins over other failures, as on Binance; otherwise the first failing parameter in schema order.
 *
 * @example
 * const result = depthQuerySchema.safeParse({ symbol: 'MON_USDC', limit: '0' });
 * if (!result.success) marketQueryErrorBody(result.error)
 * // { code: -1130, msg: "Data sent for parameter 'limit' is not valid." }
 */
export function marketQueryErrorBody(error: z.ZodError): MarketDataErrorBody {
  const bodies = error.issues.map(issueBody);
  const mandatoryMissing = bodies.find((body) => body.code === MarketErrorCode.MANDATORY_PARAM_EMPTY_OR_MALFORMED);
  return mandatoryMissing ?? bodies[0] ?? { code: MarketErrorCode.INVALID_PARAMETER, msg: 'Invalid data sent for a parameter.' };
}

export type MarketQueryResult<T> =
  | { readonly success: true; readonly data: T }
  | { readonly success: false; readonly error: MarketDataErrorBody };

/**
 * Parses URL query parameters with one of the query schemas; a failure is the Binance body to answer.
 *
 * @example parseMarketQuery(tradesQuerySchema, Object.fromEntries(url.searchParams))
 */
export function parseMarketQuery<S extends z.ZodType>(schema: S, query: unknown): MarketQueryResult<z.output<S>> {
  const result = schema.safeParse(query);
  return result.success ? { success: true, data: result.data } : { success: false, error: marketQueryErrorBody(result.error) };
}
