import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.ts';
import {
  binanceKlineRowSchema,
  depthQuerySchema,
  depthSchema,
  exchangeInfoQuerySchema,
  exchangeInfoSchema,
  klineSchema,
  klinesQuerySchema,
  klinesSchema,
  marketQueryErrorBody,
  parseMarketQuery,
  ticker24hrSchema,
  tickerQuerySchema,
  tradeSchema,
  tradesQuerySchema,
  tradesSchema,
} from '../../src/protocol/market-data.ts';
import type { z } from 'zod';
import type { KlineInterval, OrderbookState } from '../../src/protocol/constants.ts';
import type { DepthQuery, Kline, Klines, KlinesQuery } from '../../src/protocol/market-data.ts';

const fixtureUrl = (path: string) => new URL(`../fixtures/${path}`, import.meta.url);

interface CcxtEntry {
  readonly request: string;
  readonly httpResponse: unknown;
}
const ccxt = JSON.parse(readFileSync(fixtureUrl('binance-rest/ccxt-binance-fixtures.json'), 'utf8')) as Record<string, unknown>;
const entries = Object.entries(ccxt).filter((entry): entry is [string, CcxtEntry] => !entry[0].startsWith('_'));
const entry = (name: string): CcxtEntry => {
  const found = entries.find(([key]) => key === name);
  if (!found) throw new Error(`fixture entry ${name} missing`);
  return found[1];
};

/**
 * ccxt's recorder stringifies some integers that Binance sends as JSON numbers (see the fixture's
 * `_origin`); turn those fields back into numbers so the record is what Binance sent.
 */
function unstringify(value: unknown, keys: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => unstringify(item, keys));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => {
      if (!keys.includes(key)) return [key, field];
      if (typeof field !== 'string' || !/^[0-9]+$/.test(field)) throw new Error(`${key} is not a stringified integer`);
      return [key, Number(field)];
    }),
  );
}
const STRINGIFIED = ['lastUpdateId', 'E', 'T', 'openTime', 'closeTime', 'count', 'firstId', 'lastId', 'a', 'f', 'l'];

/** The Binance body a query schema failure maps to. */
function queryError(schema: z.ZodType, query: Record<string, string>) {
  const result = schema.safeParse(query);
  if (result.success) throw new Error(`expected ${JSON.stringify(query)} to fail`);
  return marketQueryErrorBody(result.error);
}

describe('ccxt-recorded Binance REST responses', () => {
  it('covers every depth, trades, ticker and klines entry of the fixture', () => {
    const paths = entries.map(([, { request }]) => request.split(' ')[1]!.split('?')[0]);
    expect(paths.sort()).toEqual(['/api/v3/aggTrades', '/api/v3/depth', '/api/v3/klines', '/api/v3/ticker/24hr', '/fapi/v1/depth']);
    for (const [name, { request, httpResponse }] of entries) {
      const path = request.split(' ')[1]!.split('?')[0]!;
      const body = unstringify(httpResponse, STRINGIFIED);
      if (path.endsWith('/depth')) expect(depthSchema.safeParse(body).success, name).toBe(true);
      else if (path.endsWith('/klines')) expect(klinesSchema.safeParse(body).success, name).toBe(true);
      else if (path.endsWith('/ticker/24hr')) expect(ticker24hrSchema.safeParse(body).success, name).toBe(true);
      // aggTrades is another endpoint with another record (a, p, q, T, m): not a /trades response.
      else if (path.endsWith('/aggTrades')) expect(tradesSchema.safeParse(body).success, name).toBe(false);
      else throw new Error(`unexpected fixture path ${path}`);
    }
  });

  it('spot depth: values come through, no E/T', () => {
    const depth = depthSchema.parse(unstringify(entry('fetchOrderBook').httpResponse, STRINGIFIED));
    expect(depth.lastUpdateId).toBe(25445101);
    expect(depth.E).toBeUndefined();
    expect(depth.T).toBeUndefined();
    expect(depth.bids).toEqual([
      ['42574.30000000', '0.01070000'],
      ['42574.20000000', '0.00646000'],
    ]);
    expect(depth.asks[0]).toEqual(['42574.31000000', '0.00870000']);
  });

  it('refuses the recorder-stringified lastUpdateId: integers are JSON numbers on the wire', () => {
    const result = depthSchema.safeParse(entry('fetchOrderBook').httpResponse);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['lastUpdateId']);
  });

  it('depth with E and T (futures record) keeps them', () => {
    const depth = depthSchema.parse(unstringify(entry('fetchOrderBook_usdm_swap_with_E_T').httpResponse, STRINGIFIED));
    expect(depth.E).toBe(1706803917264);
    expect(depth.T).toBe(1706803917258);
    expect(depth.bids).toHaveLength(5);
    expect(depth.asks[4]).toEqual(['42998.10', '0.071']);
  });

  it('ticker: values come through and Binance-only fields are kept', () => {
    const ticker = ticker24hrSchema.parse(unstringify(entry('fetchTicker').httpResponse, STRINGIFIED));
    expect(ticker.symbol).toBe('BTCUSDT');
    expect(ticker.lastPrice).toBe('73369.84000000');
    expect(ticker.priceChange).toBe('1188.75000000');
    expect(ticker.quoteVolume).toBe('5167027510.68728707');
    expect(ticker.openTime).toBe(1710241845391);
    expect(ticker.closeTime).toBe(1710328245391);
    expect(ticker.count).toBe(3187938);
    expect(ticker['weightedAvgPrice']).toBe('71624.65401064');
  });

  it('klines: the array form is normalised to the object form', () => {
    const klines = klinesSchema.parse(entry('fetchOHLCV').httpResponse);
    expect(klines).toHaveLength(3);
    expect(klines[0]).toEqual({
      openTime: 1706630400000,
      open: '43519.34000000',
      high: '43936.00000000',
      low: '43171.00000000',
      close: '43488.71000000',
      volume: '20.55495000',
      closeTime: 1706633999999,
      quoteVolume: '891428.42858070',
      numTrades: 3743,
    });
    expect(klines[2]?.close).toBe('43361.11000000');
    // The normalised object is itself a valid object-form kline, and parses to the same value.
    expect(klinesSchema.parse(klines)).toEqual(klines);
  });

  it('aggTrades is refused by the trades schema because its fields differ', () => {
    const result = tradeSchema.safeParse(unstringify(entry('fetchTrades').httpResponse, STRINGIFIED));
    expect(result.success).toBe(false);
  });
});

describe('Binance spot depth snapshot (hftbacktest capture, 2024-08-08)', () => {
  // The capture's line format: `<local_receive_ns> <json>`.
  const line = gunzipSync(readFileSync(fixtureUrl('binance-capture/btcusdt_depth_snapshot_20240808.txt.gz'))).toString('utf8').trim();
  const result = depthSchema.safeParse(JSON.parse(line.slice(line.indexOf(' ') + 1)));
  const depth = result.success ? result.data : { lastUpdateId: -1, bids: [], asks: [] };

  it('parses without E/T, 1000 levels a side, with the recorded values', () => {
    expect(result.error).toBeUndefined();
    expect(line.split(' ')[0]).toBe('1723161254206652067');
    expect(depth.lastUpdateId).toBe(50093239218);
    expect(depth.E).toBeUndefined();
    expect(depth.T).toBeUndefined();
    expect(depth.bids).toHaveLength(1000);
    expect(depth.asks).toHaveLength(1000);
    expect(depth.bids[0]).toEqual(['61837.63000000', '3.78826000']);
  });

  it('bids strictly descend, asks strictly ascend, and the book is not crossed', () => {
    const prices = (levels: typeof depth.bids) => levels.map(([price]) => new Decimal(price));
    const bids = prices(depth.bids);
    const asks = prices(depth.asks);
    for (let i = 1; i < bids.length; i++) expect(bids[i]!.lt(bids[i - 1]!)).toBe(true);
    for (let i = 1; i < asks.length; i++) expect(asks[i]!.gt(asks[i - 1]!)).toBe(true);
    expect(bids[0]!.lt(asks[0]!)).toBe(true);
  });
});

describe('response schemas refuse bad input', () => {
  const validDepth = { lastUpdateId: 7, E: 1723161255208, T: 1723161255, bids: [['1.5', '2']], asks: [['1.6', '3']] };

  it('accepts a venue depth with E and T', () => {
    expect(depthSchema.parse(validDepth)).toEqual(validDepth);
  });

  it.each([
    ['negative lastUpdateId', { ...validDepth, lastUpdateId: -1 }],
    ['fractional lastUpdateId', { ...validDepth, lastUpdateId: 1.5 }],
    ['unsafe lastUpdateId', { ...validDepth, lastUpdateId: 2 ** 60 }],
    ['string E', { ...validDepth, E: '1723161255208' }],
    ['negative price', { ...validDepth, bids: [['-1.5', '2']] }],
    ['exponent price', { ...validDepth, bids: [['1e3', '2']] }],
    ['numeric price', { ...validDepth, bids: [[1.5, '2']] }],
    ['spaced quantity', { ...validDepth, asks: [['1.6', ' 3']] }],
    ['three-element level', { ...validDepth, asks: [['1.6', '3', '4']] }],
    ['one-element level', { ...validDepth, asks: [['1.6']] }],
    ['missing asks', { lastUpdateId: 7, bids: [] }],
  ])('depth: %s', (_name, body) => {
    expect(depthSchema.safeParse(body).success).toBe(false);
  });

  const validKline = {
    openTime: 0,
    open: '1',
    high: '2',
    low: '0.5',
    close: '1.5',
    volume: '10',
    closeTime: 59_999,
    quoteVolume: '15',
    numTrades: 3,
  };
  it('kline object: the valid base parses', () => {
    expect(klinesSchema.parse([validKline])).toEqual([validKline]);
  });
  it.each([
    ['negative open', { ...validKline, open: '-1' }],
    ['fractional numTrades', { ...validKline, numTrades: 1.5 }],
    ['string openTime', { ...validKline, openTime: '0' }],
    ['missing quoteVolume', { ...validKline, quoteVolume: undefined }],
  ])('kline object: %s', (_name, body) => {
    expect(klineSchema.safeParse(body).success).toBe(false);
    expect(klinesSchema.safeParse([body]).success).toBe(false);
  });

  const row = [1706630400000, '1', '2', '0.5', '1.5', '10', 1706633999999, '15', 3, '4', '6', '0'];
  it('kline row: accepts the Binance row and extra trailing elements', () => {
    expect(binanceKlineRowSchema.parse(row).close).toBe('1.5');
    expect(binanceKlineRowSchema.parse([...row, 'future']).numTrades).toBe(3);
  });
  it.each([
    ['numeric price', row.map((value, index) => (index === 1 ? 1 : value))],
    ['negative taker volume', row.map((value, index) => (index === 9 ? '-4' : value))],
    ['too short', row.slice(0, 9)],
    ['string numTrades', row.map((value, index) => (index === 8 ? '3' : value))],
  ])('kline row: %s', (_name, body) => {
    expect(binanceKlineRowSchema.safeParse(body).success).toBe(false);
  });

  const validTrade = { id: 28457, price: '4.00000100', qty: '12.00000000', time: 1499865549590, isBuyerMaker: true };
  it('trade: accepts the Binance documented example with quoteQty and isBestMatch, and keeps them', () => {
    const trades = tradesSchema.parse([{ ...validTrade, quoteQty: '48.000012', isBestMatch: true }]);
    expect(trades[0]?.price).toBe('4.00000100');
    expect(trades[0]?.['quoteQty']).toBe('48.000012');
  });
  it.each([
    ['string boolean', { ...validTrade, isBuyerMaker: 'true' }],
    ['comma decimal', { ...validTrade, price: '4,000001' }],
    ['negative qty', { ...validTrade, qty: '-12' }],
    ['negative id', { ...validTrade, id: -1 }],
    ['missing time', { ...validTrade, time: undefined }],
  ])('trade: %s', (_name, body) => {
    expect(tradeSchema.safeParse(body).success).toBe(false);
  });

  const validTicker = {
    symbol: 'MON_USDC',
    priceChange: '-0.0100',
    priceChangePercent: '-2.5',
    lastPrice: '0.39',
    bidPrice: '0.389',
    askPrice: '0.391',
    openPrice: '0.40',
    highPrice: '0.41',
    lowPrice: '0.38',
    volume: '1000',
    quoteVolume: '395',
    openTime: 1,
    closeTime: 86_400_001,
    count: 12,
  };
  it('ticker: a falling price has a negative change', () => {
    expect(ticker24hrSchema.parse(validTicker).priceChange).toBe('-0.0100');
  });
  it.each([
    ['negative lastPrice', { ...validTicker, lastPrice: '-0.39' }],
    ['negative volume', { ...validTicker, volume: '-1' }],
    ['negative count', { ...validTicker, count: -1 }],
    ['numeric price', { ...validTicker, bidPrice: 0.389 }],
    ['empty symbol', { ...validTicker, symbol: '' }],
  ])('ticker: %s', (_name, body) => {
    expect(ticker24hrSchema.safeParse(body).success).toBe(false);
  });

  const validInfo = {
    timezone: 'UTC',
    serverTime: 1723161255300,
    E: 1723161255208,
    T: 1723161255,
    symbols: [
      { symbol: 'MON_USDC', status: 'TRADING', baseAsset: 'MON', quoteAsset: 'USDC', baseAssetPrecision: 18, quoteAssetPrecision: 6, filters: [] },
    ],
  };
  it('exchangeInfo: accepts an answer without E/T, as real Binance sends it', () => {
    const { E: _e, T: _t, ...binance } = validInfo;
    expect(exchangeInfoSchema.parse(binance).E).toBeUndefined();
    expect(exchangeInfoSchema.safeParse({ ...validInfo, E: '1' }).success).toBe(false);
  });
  it('exchangeInfo: parses and keeps unknown symbol fields', () => {
    const info = exchangeInfoSchema.parse(validInfo);
    expect(info.symbols[0]?.quoteAssetPrecision).toBe(6);
    expect(info.symbols[0]?.['filters']).toEqual([]);
  });
  it.each([
    ['string serverTime', { ...validInfo, serverTime: '1' }],
    ['fractional precision', { ...validInfo, symbols: [{ ...validInfo.symbols[0], baseAssetPrecision: 1.5 }] }],
    ['missing status', { ...validInfo, symbols: [{ ...validInfo.symbols[0], status: undefined }] }],
  ])('exchangeInfo: %s', (_name, body) => {
    expect(exchangeInfoSchema.safeParse(body).success).toBe(false);
  });
});

describe('market-data queries and their Binance errors', () => {
  const SYMBOL_MISSING = { code: -1102, msg: "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed." };

  it('depth: defaults limit 100 and state committed; tolerates and drops unknown parameters', () => {
    expect(depthQuerySchema.parse({ symbol: 'MON_USDC', extra: 'x' })).toEqual({ symbol: 'MON_USDC', limit: 100, state: 'committed' });
    expect(depthQuerySchema.parse({ symbol: 'MON_USDC', limit: '5000', state: 'finalized' })).toEqual({
      symbol: 'MON_USDC',
      limit: 5000,
      state: 'finalized',
    });
    expect(depthQuerySchema.parse({ symbol: 'BTCUSDT', limit: '1' }).limit).toBe(1);
  });

  it('-1102 when symbol is missing or empty, even if other parameters are also wrong', () => {
    expect(queryError(depthQuerySchema, {})).toEqual(SYMBOL_MISSING);
    expect(queryError(depthQuerySchema, { symbol: '' })).toEqual(SYMBOL_MISSING);
    expect(queryError(depthQuerySchema, { limit: '0' })).toEqual(SYMBOL_MISSING);
    expect(queryError(tradesQuerySchema, { limit: 'abc' })).toEqual(SYMBOL_MISSING);
    expect(queryError(tickerQuerySchema, {})).toEqual(SYMBOL_MISSING);
  });

  it('a missing mandatory parameter wins over an earlier malformed one', () => {
    expect(queryError(klinesQuerySchema, { symbol: 'btcusdt', limit: '0' })).toEqual({
      code: -1102,
      msg: "Mandatory parameter 'interval' was not sent, was empty/null, or malformed.",
    });
  });

  it('-1100 for illegal characters in symbol or limit', () => {
    expect(queryError(depthQuerySchema, { symbol: 'mon_usdc' })).toEqual({
      code: -1100,
      msg: "Illegal characters found in parameter 'symbol'; legal range is '^[A-Z0-9-_.]{1,20}$'.",
    });
    expect(queryError(tickerQuerySchema, { symbol: 'A'.repeat(21) }).code).toBe(-1100);
    const illegalLimit = { code: -1100, msg: "Illegal characters found in parameter 'limit'; legal range is '^[0-9]{1,20}$'." };
    expect(queryError(depthQuerySchema, { symbol: 'MON_USDC', limit: 'abc' })).toEqual(illegalLimit);
    expect(queryError(depthQuerySchema, { symbol: 'MON_USDC', limit: '-5' })).toEqual(illegalLimit);
    expect(queryError(depthQuerySchema, { symbol: 'MON_USDC', limit: '1.5' })).toEqual(illegalLimit);
    expect(queryError(depthQuerySchema, { symbol: 'MON_USDC', limit: '' })).toEqual(illegalLimit);
    expect(queryError(depthQuerySchema, { symbol: 'MON_USDC', limit: '1'.repeat(21) })).toEqual(illegalLimit);
  });

  it('-1130 for a limit outside the endpoint range', () => {
    const invalidLimit = { code: -1130, msg: "Data sent for parameter 'limit' is not valid." };
    expect(queryError(depthQuerySchema, { symbol: 'MON_USDC', limit: '0' })).toEqual(invalidLimit);
    expect(queryError(depthQuerySchema, { symbol: 'MON_USDC', limit: '5001' })).toEqual(invalidLimit);
    expect(queryError(depthQuerySchema, { symbol: 'MON_USDC', limit: '1'.repeat(20) })).toEqual(invalidLimit);
    expect(queryError(tradesQuerySchema, { symbol: 'MON_USDC', limit: '1001' })).toEqual(invalidLimit);
    expect(queryError(klinesQuerySchema, { symbol: 'MON_USDC', interval: '1m', limit: '1001' })).toEqual(invalidLimit);
  });

  it('-1130 for an unknown depth state', () => {
    expect(queryError(depthQuerySchema, { symbol: 'MON_USDC', state: 'pending' })).toEqual({
      code: -1130,
      msg: "Data sent for parameter 'state' is not valid.",
    });
  });

  it('trades: 1..1000, default 500', () => {
    expect(tradesQuerySchema.parse({ symbol: 'MON_USDC' }).limit).toBe(500);
    expect(tradesQuerySchema.parse({ symbol: 'MON_USDC', limit: '1000' }).limit).toBe(1000);
  });

  it('klines: interval mandatory, -1120 when unknown, times parsed as ms, default limit 500', () => {
    expect(klinesQuerySchema.parse({ symbol: 'BTCUSDT', interval: '1h', startTime: '1706628191000', limit: '3' })).toEqual({
      symbol: 'BTCUSDT',
      interval: '1h',
      startTime: 1706628191000,
      limit: 3,
    });
    expect(klinesQuerySchema.parse({ symbol: 'BTCUSDT', interval: '1w' }).limit).toBe(500);
    expect(queryError(klinesQuerySchema, { symbol: 'BTCUSDT' })).toEqual({
      code: -1102,
      msg: "Mandatory parameter 'interval' was not sent, was empty/null, or malformed.",
    });
    expect(queryError(klinesQuerySchema, { symbol: 'BTCUSDT', interval: '2m' })).toEqual({ code: -1120, msg: 'Invalid interval.' });
    expect(queryError(klinesQuerySchema, { symbol: 'BTCUSDT', interval: 'toString' })).toEqual({ code: -1120, msg: 'Invalid interval.' });
    expect(queryError(klinesQuerySchema, { symbol: 'BTCUSDT', interval: '1m', startTime: 'yesterday' })).toEqual({
      code: -1100,
      msg: "Illegal characters found in parameter 'startTime'; legal range is '^[0-9]{1,20}$'.",
    });
    expect(queryError(klinesQuerySchema, { symbol: 'BTCUSDT', interval: '1m', endTime: '99999999999999999999' })).toEqual({
      code: -1130,
      msg: "Data sent for parameter 'endTime' is not valid.",
    });
  });

  it('ticker tolerates type=FULL; exchangeInfo takes nothing', () => {
    expect(tickerQuerySchema.parse({ symbol: 'MON_USDC', type: 'FULL' })).toEqual({ symbol: 'MON_USDC' });
    expect(exchangeInfoQuerySchema.parse({ anything: '1' })).toEqual({});
  });

  it('query and kline outputs carry the narrow types (checked by tsc)', () => {
    expectTypeOf<DepthQuery['state']>().toEqualTypeOf<OrderbookState>();
    expectTypeOf<DepthQuery['limit']>().toEqualTypeOf<number>();
    expectTypeOf<KlinesQuery['interval']>().toEqualTypeOf<KlineInterval>();
    expectTypeOf<KlinesQuery['startTime']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<Klines[number]>().toExtend<Kline>();
  });

  it('parseMarketQuery returns data or the Binance body', () => {
    expect(parseMarketQuery(tradesQuerySchema, { symbol: 'MON_USDC', limit: '10' })).toEqual({
      success: true,
      data: { symbol: 'MON_USDC', limit: 10 },
    });
    expect(parseMarketQuery(tradesQuerySchema, { symbol: 'MON_USDC', limit: '0' })).toEqual({
      success: false,
      error: { code: -1130, msg: "Data sent for parameter 'limit' is not valid." },
    });
  });
});
