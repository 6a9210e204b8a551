/**
 * The market-data host (`{exchange_url}/api/v3/...`, Binance-compatible) as a MarketDataSource:
 * depth, klines, trades, ticker/24hr and exchangeInfo. Every request is charged its weight (spec)
 * on the host's WeightBudget before it is sent, has a timeout on the clock, honours the caller's
 * AbortSignal, and is retried (a read) after no answer, a 5xx or a 429 with backoff and jitter.
 * Answers are parsed with the protocol's schemas (unknown extra fields kept; klines in object or
 * array form); refusals become MarketDataError with Binance's code.
 */
import { MarketDataLimits, RequestWeight } from '../protocol/constants.ts';
import { marketDataErrorBodySchema } from '../protocol/error-bodies.ts';
import {
  depthSchema,
  exchangeInfoSchema,
  klinesSchema,
  ticker24hrSchema,
  tradesSchema,
  type Depth,
  type ExchangeInfo,
  type Kline,
  type Ticker24hr,
  type Trade,
} from '../protocol/market-data.ts';
import { readTrades } from '../protocol/market-data-readers.ts';
import type { z } from 'zod';
import { ClientError } from './client-error.ts';
import type { HttpResponse } from './http-transport.ts';
import type { CallOptions, DepthParameters, KlinesParameters, MarketDataSource, TradesParameters } from './market-data-source.ts';
import { MarketDataError } from './market-data-error.ts';
import { describeCall, parseBody, refusalText, tryParseJson } from './response-body.ts';
import { DEFAULT_RETRY_POLICY, parseRetryAfterMs, type RetryPolicy } from './retry-policy.ts';
import { DEFAULT_TIMEOUT_MS, sendRequest, type ClientContext } from './send-request.ts';
import { USED_WEIGHT_HEADER, createWeightBudget, type WeightBudget } from './weight-budget.ts';

export interface MarketDataClientParameters {
  /** `{exchange_url}`, e.g. `http://127.0.0.1:31337` or `https://exchange.kuru.io`. */
  readonly baseUrl: string;
  /** The host's weight budget; pass the same one to every client of this host. Default: a new 1200/min budget. */
  readonly budget?: WeightBudget;
  /** Per attempt, on the clock. Default 10 000 ms. */
  readonly timeoutMs?: number;
  readonly retry?: RetryPolicy;
}

export interface MarketDataClient extends MarketDataSource {
  readonly baseUrl: string;
  readonly budget: WeightBudget;
}

/** Statuses Binance uses for weight refusals: 429, and 418 once an IP is banned for ignoring 429s. */
const RATE_LIMIT_STATUSES = new Set([418, 429]);

type Query = Readonly<Record<string, string | number | undefined>>;

function queryString(query: Query): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * A market-data client of `baseUrl`.
 *
 * @example
 * const market = createMarketDataClient({ transport: createFetchTransport(), clock: liveClock, random: seededRandom(1) }, { baseUrl: 'http://127.0.0.1:31337' });
 * const book = await market.depth({ symbol: 'MON_USDC', limit: 20 });
 */
export function createMarketDataClient(context: ClientContext, params: MarketDataClientParameters): MarketDataClient {
  const { clock } = context;
  const baseUrl = params.baseUrl.replace(/\/+$/, '');
  const budget = params.budget ?? createWeightBudget(clock);
  const retry = params.retry ?? DEFAULT_RETRY_POLICY;
  const defaultTimeoutMs = params.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  /** Syncs the budget with the server's count, and pauses the host on a weight refusal. */
  const observe = (response: HttpResponse) => {
    const used = response.headers[USED_WEIGHT_HEADER];
    if (used !== undefined && /^[0-9]{1,12}$/.test(used.trim())) budget.syncUsedWeight(Number(used));
    if (RATE_LIMIT_STATUSES.has(response.status)) {
      const retryAfterMs = parseRetryAfterMs(response.headers['retry-after'], clock.now());
      if (retryAfterMs !== undefined) budget.pauseUntil(clock.now() + retryAfterMs);
    }
  };

  /** The typed error for an answer that is not a 200. */
  const refusal = (response: HttpResponse, url: string): Error => {
    const where = describeCall('GET', url);
    const parsed = marketDataErrorBodySchema.safeParse(tryParseJson(response.text));
    const body = parsed.success ? parsed.data : undefined;
    const detail = refusalText(response.text);
    const details = { url: where };
    if (RATE_LIMIT_STATUSES.has(response.status)) {
      const retryAfterMs = parseRetryAfterMs(response.headers['retry-after'], clock.now());
      return new MarketDataError('MARKET_DATA_RATE_LIMITED', `${detail}${body ? ` (code ${body.code})` : ''}`, {
        binanceCode: body?.code,
        status: response.status,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        details: { ...details, retryAfterMs },
      });
    }
    if (response.status >= 500) {
      return new ClientError('HTTP_UNAVAILABLE', `${where}: HTTP ${response.status}: ${detail}`, {
        status: response.status,
        details: { ...details, status: response.status, binanceCode: body?.code },
      });
    }
    if (response.status >= 400 && body !== undefined) {
      return new MarketDataError('MARKET_DATA_BAD_REQUEST', `${detail} (code ${body.code})`, {
        binanceCode: body.code,
        status: response.status,
        details,
      });
    }
    return new ClientError('HTTP_UNEXPECTED_STATUS', `${where}: unexpected HTTP ${response.status}: ${detail}`, {
      status: response.status,
      details: { ...details, status: response.status },
    });
  };

  /** One GET through the budget and retries; the 200 answer, or the typed refusal. */
  async function fetchOk(path: string, query: Query, weight: number, options: CallOptions): Promise<{ response: HttpResponse; url: string }> {
    const url = `${baseUrl}${path}${queryString(query)}`;
    const response = await sendRequest(context, {
      request: { method: 'GET', url, headers: { accept: 'application/json' } },
      idempotent: true,
      timeoutMs: options.timeoutMs ?? defaultTimeoutMs,
      retry,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      beforeAttempt: (signal) => budget.acquire(weight, signal === undefined ? {} : { signal }),
      onResponse: observe,
    });
    if (response.status !== 200) throw refusal(response, url);
    return { response, url };
  }

  async function get<S extends z.ZodType>(path: string, query: Query, weight: number, schema: S, options: CallOptions = {}): Promise<z.output<S>> {
    const { response, url } = await fetchOk(path, query, weight, options);
    return parseBody(response, { schema, where: describeCall('GET', url) });
  }

  // The last trades answer of each URL: a poll often gets the very same text again (no trade since),
  // which then needs no second parse. Its trades are shared, its list is not.
  const lastTrades = new Map<string, { readonly text: string; readonly trades: readonly Trade[] }>();
  async function trades(query: Query, options: CallOptions = {}): Promise<Trade[]> {
    const { response, url } = await fetchOk('/api/v3/trades', query, RequestWeight.trades(), options);
    const last = lastTrades.get(url);
    if (last !== undefined && last.text === response.text) return [...last.trades];
    const read = parseBody(response, { schema: tradesSchema, where: describeCall('GET', url), fast: readTrades });
    lastTrades.set(url, { text: response.text, trades: [...read] });
    return read;
  }

  return {
    baseUrl,
    budget,
    depth(parameters: DepthParameters, options?: CallOptions): Promise<Depth> {
      const weight = RequestWeight.depth(parameters.limit ?? MarketDataLimits.depth.default);
      return get('/api/v3/depth', { symbol: parameters.symbol, limit: parameters.limit, state: parameters.state }, weight, depthSchema, options);
    },
    async depthBody(parameters: DepthParameters, options: CallOptions = {}): Promise<string> {
      const weight = RequestWeight.depth(parameters.limit ?? MarketDataLimits.depth.default);
      const query = { symbol: parameters.symbol, limit: parameters.limit, state: parameters.state };
      return (await fetchOk('/api/v3/depth', query, weight, options)).response.text;
    },
    trades(parameters: TradesParameters, options?: CallOptions): Promise<Trade[]> {
      return trades({ symbol: parameters.symbol, limit: parameters.limit }, options);
    },
    ticker24hr(parameters: { readonly symbol: string }, options?: CallOptions): Promise<Ticker24hr> {
      return get('/api/v3/ticker/24hr', { symbol: parameters.symbol }, RequestWeight.ticker(), ticker24hrSchema, options);
    },
    klines(parameters: KlinesParameters, options?: CallOptions): Promise<Kline[]> {
      const { symbol, interval, startTime, endTime, limit } = parameters;
      const weight = RequestWeight.klines(limit ?? MarketDataLimits.klines.default);
      return get('/api/v3/klines', { symbol, interval, startTime, endTime, limit }, weight, klinesSchema, options);
    },
    exchangeInfo(options?: CallOptions): Promise<ExchangeInfo> {
      return get('/api/v3/exchangeInfo', {}, RequestWeight.exchangeInfo(), exchangeInfoSchema, options);
    },
  };
}
