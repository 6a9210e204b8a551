/**
 * Fuzzing the market-data parsers: the HTTP client's depth, trades, ticker, klines and exchangeInfo
 * answers (any status, any body, hostile headers) and the one-pass depth body parser. Whatever the
 * host sends, a call yields a value its schema accepts or a BaseError of a documented code, fast.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { HttpResponse } from '../../src/clients/http-transport.ts';
import { createMarketDataClient, type MarketDataClient } from '../../src/clients/market-data-client.ts';
import { USED_WEIGHT_HEADER } from '../../src/clients/weight-budget.ts';
import type { ErrorCode } from '../../src/core/error-codes.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { OrderBook } from '../../src/market/order-book-model.ts';
import { parseDepthBody } from '../../src/market/parse-depth-body.ts';
import { depthSchema, exchangeInfoSchema, klinesSchema, ticker24hrSchema, tradesSchema } from '../../src/protocol/market-data.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';
import { context, runOnClock, stubTransport } from '../clients/support.ts';
import { expectTypedOutcome, hostileJson } from './support/hostile.ts';

const START = Date.UTC(2026, 10, 26, 12, 0, 0);
const MARKET = { pricePrecision: 100n, sizePrecision: 10n ** 8n };

const DEPTH = [
  '{"lastUpdateId":1027024,"E":1732622400000,"T":1732622400,"bids":[["4.00","431.00000000"],["3.99","12.5"]],"asks":[["4.01","12.00000000"],["4.02","0.1"]]}',
  '{"lastUpdateId":0,"bids":[],"asks":[]}',
  '{"lastUpdateId":7,"extra":{"nested":[1,2,{"x":"y"}]},"bids":[["1","1"]],"asks":[]}',
];
const TRADES = ['[{"id":28457,"price":"4.00000100","qty":"12.00000000","time":1499865549590,"isBuyerMaker":true,"quoteQty":"48.000012"},{"id":28458,"price":"4.1","qty":"1","time":1499865549591,"isBuyerMaker":false}]', '[]'];
const TICKER = [
  '{"symbol":"MON_USDC","priceChange":"-94.99999800","priceChangePercent":"-95.960","lastPrice":"4.00000200","bidPrice":"4.00000000","askPrice":"4.00000200","openPrice":"99.00000000","highPrice":"100.00000000","lowPrice":"0.10000000","volume":"8913.30000000","quoteVolume":"15.30000000","openTime":1499783499040,"closeTime":1499869899040,"count":76}',
];
const KLINES = [
  '[{"openTime":1499040000000,"open":"0.01634790","high":"0.80000000","low":"0.01575800","close":"0.01577100","volume":"148976.11427815","closeTime":1499644799999,"quoteVolume":"2434.19055334","numTrades":308}]',
  '[[1499040000000,"0.01634790","0.80000000","0.01575800","0.01577100","148976.11427815",1499644799999,"2434.19055334",308,"1756.87402397","28.46694368","0"]]',
];
const EXCHANGE_INFO = [
  '{"timezone":"UTC","serverTime":1565246363776,"E":1565246363000,"T":1565246363,"symbols":[{"symbol":"MON_USDC","status":"TRADING","baseAsset":"MON","quoteAsset":"USDC","baseAssetPrecision":8,"quoteAssetPrecision":8,"filters":[{"filterType":"PRICE_FILTER","tickSize":"0.01"},{"filterType":"LOT_SIZE","minQty":"0.1","maxQty":"1000","stepSize":"0.1"}]}]}',
];

/** What a call may fail with: the answer is not JSON, not the record, or a refusal of its status. */
const CODES: readonly ErrorCode[] = [
  'PROTOCOL_INVALID_JSON',
  'PROTOCOL_SCHEMA_MISMATCH',
  'MARKET_DATA_BAD_REQUEST',
  'MARKET_DATA_RATE_LIMITED',
  'HTTP_UNAVAILABLE',
  'HTTP_UNEXPECTED_STATUS',
];

type Endpoint = {
  readonly name: string;
  readonly templates: readonly string[];
  readonly schema: z.ZodType;
  readonly call: (client: MarketDataClient) => Promise<unknown>;
};

const ENDPOINTS: readonly Endpoint[] = [
  { name: 'depth', templates: DEPTH, schema: depthSchema, call: (client) => client.depth({ symbol: 'MON_USDC', limit: 20 }) },
  { name: 'trades', templates: TRADES, schema: tradesSchema, call: (client) => client.trades({ symbol: 'MON_USDC' }) },
  { name: 'ticker', templates: TICKER, schema: ticker24hrSchema, call: (client) => client.ticker24hr({ symbol: 'MON_USDC' }) },
  { name: 'klines', templates: KLINES, schema: klinesSchema, call: (client) => client.klines({ symbol: 'MON_USDC', interval: '1m' }) },
  { name: 'exchangeInfo', templates: EXCHANGE_INFO, schema: exchangeInfoSchema, call: (client) => client.exchangeInfo() },
];

/** Header values a hostile host might send where the client reads numbers. */
const headerValue = fc.oneof(fc.constantFrom('', '-1', '1e9', '999999999999', 'NaN', 'Infinity', ' 3 ', '0x10', 'Thu, 01 Jan 1970 00:00:00 GMT', 'Fri, 31 Dec 9999 23:59:59 GMT', '\u0000'), fc.string({ maxLength: 40 }));
const headers = fc.record({ 'retry-after': headerValue, [USED_WEIGHT_HEADER]: headerValue }, { requiredKeys: [] });
const status = fc.oneof({ arbitrary: fc.constant(200), weight: 6 }, fc.constantFrom(204, 301, 400, 403, 404, 418, 429, 500, 503, 999));

/** One call of `endpoint` against a host that answers `answer` to every attempt. */
async function callWith(endpoint: Endpoint, answer: HttpResponse): Promise<unknown> {
  const clock = new VirtualClock(START);
  const stub = stubTransport(clock, [answer]);
  const client = createMarketDataClient(context(clock, stub.transport), { baseUrl: 'http://exchange.test' });
  return runOnClock(clock, endpoint.call(client));
}

describe('market-data fuzz', () => {
  it('the templates are valid answers (so an edit is what breaks them)', async () => {
    for (const endpoint of ENDPOINTS) {
      for (const text of endpoint.templates) {
        const value = await callWith(endpoint, { status: 200, headers: {}, text });
        expect(endpoint.schema.safeParse(JSON.parse(text)).success).toBe(true);
        expect(value).toEqual(endpoint.schema.parse(JSON.parse(text)));
      }
    }
    for (const text of DEPTH) expect(parseDepthBody(text, MARKET).lastUpdateId).toBe(JSON.parse(text).lastUpdateId);
  });

  for (const endpoint of ENDPOINTS) {
    it(`${endpoint.name}: any answer is a valid value or a typed error`, async () => {
      let errors = 0;
      await fc.assert(
        fc.asyncProperty(hostileJson(endpoint.templates), status, headers, async (text, code, extra) => {
          const outcome = await expectTypedOutcome(() => callWith(endpoint, { status: code, headers: extra, text }), CODES, (value) => {
            // A value only ever comes from a 200 whose body the schema accepts.
            expect(code).toBe(200);
            expect(endpoint.schema.safeParse(JSON.parse(text)).success).toBe(true);
            expect(value).toEqual(endpoint.schema.parse(JSON.parse(text)));
          });
          if (!outcome.ok) errors += 1;
        }),
        fuzzSettings({ numRuns: 120 }),
      );
      // The barrage reached the refusals (the first test shows the templates read as values).
      expect(errors).toBeGreaterThan(0);
    });
  }

  it('parseDepthBody refuses a raw control character in a field name, as JSON does (found by this fuzz)', () => {
    const text = '{"lastUpdateId":1,"\nE":1,"bids":[],"asks":[]}';
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect(() => parseDepthBody(text, MARKET)).toThrow(expect.objectContaining({ code: 'PROTOCOL_INVALID_JSON', details: { offset: 19 } }));
  });

  it('parseDepthBody: a book only when the schema accepts the body too, otherwise a typed error', async () => {
    const codes: readonly ErrorCode[] = ['PROTOCOL_INVALID_JSON', 'PROTOCOL_SCHEMA_MISMATCH', 'PROTOCOL_DUPLICATE_FIELD', 'UNITS_NOT_REPRESENTABLE', 'UNITS_OUT_OF_RANGE'];
    let books = 0;
    await fc.assert(
      fc.asyncProperty(hostileJson(DEPTH), async (text) => {
        const outcome = await expectTypedOutcome(() => parseDepthBody(text, MARKET), codes, (book) => {
          // The one-pass parser is never laxer than JSON.parse and the schema.
          const parsed = depthSchema.safeParse(JSON.parse(text));
          expect(parsed.success).toBe(true);
          // And reads the same book as the schema path does.
          expect(book.toHuman()).toEqual(OrderBook.fromDepth(parsed.data!, MARKET).toHuman());
        });
        if (outcome.ok) books += 1;
      }),
      fuzzSettings({ numRuns: 400 }),
    );
    expect(books).toBeGreaterThan(0);
  });
});
