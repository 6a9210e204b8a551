import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createMarketDataClient } from '../../src/clients/market-data-client.ts';
import { MarketDataError } from '../../src/clients/market-data-error.ts';
import { createWeightBudget } from '../../src/clients/weight-budget.ts';
import type { HttpRequest } from '../../src/clients/http-transport.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { MarketErrorCode } from '../../src/protocol/constants.ts';
import { marketErrorBody } from '../../src/protocol/error-bodies.ts';
import { context, json, runOnClock, stubTransport, type Reply } from './support.ts';

const START = Date.UTC(2024, 7, 8, 12, 0, 30);
const BASE = 'http://exchange.test';

interface CcxtEntry {
  readonly request: string;
  readonly httpResponse: unknown;
}
const ccxt = JSON.parse(readFileSync(new URL('../fixtures/binance-rest/ccxt-binance-fixtures.json', import.meta.url), 'utf8')) as Record<string, CcxtEntry>;
const STRINGIFIED = ['lastUpdateId', 'E', 'T', 'openTime', 'closeTime', 'count', 'firstId', 'lastId'];

/** ccxt's recorder stringifies integers that Binance sends as JSON numbers: undo it. */
function unstringify(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unstringify);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, STRINGIFIED.includes(key) && typeof field === 'string' ? Number(field) : field]));
}
const recorded = (name: string) => unstringify(ccxt[name]!.httpResponse);
/** The query of a recorded request line `GET /path?query`. */
const recordedQuery = (name: string) => Object.fromEntries(new URL(`http://x${ccxt[name]!.request.split(' ')[1]}`).searchParams);

function setup(replies: readonly Reply[] | ((request: HttpRequest) => Reply), weightPerMinute = 1200) {
  const clock = new VirtualClock(START);
  const stub = stubTransport(clock, replies);
  const budget = createWeightBudget(clock, { weightPerMinute });
  const client = createMarketDataClient(context(clock, stub.transport), { baseUrl: `${BASE}/`, budget });
  const query = (index = 0) => Object.fromEntries(new URL(stub.requests[index]!.url).searchParams);
  const path = (index = 0) => new URL(stub.requests[index]!.url).pathname;
  return { clock, stub, budget, client, query, path };
}

/** Binance's trades example (binance-spot-api-docs, "Recent trades list"), extra fields included. */
const BINANCE_TRADES = [{ id: 28457, price: '4.00000100', qty: '12.00000000', quoteQty: '48.000012', time: 1499865549590, isBuyerMaker: true, isBestMatch: true }];

const VENUE_INFO = {
  timezone: 'UTC',
  serverTime: START,
  E: START - 400,
  T: Math.floor((START - 400) / 1000),
  symbols: [{ symbol: 'MON_USDC', status: 'TRADING', baseAsset: 'MON', quoteAsset: 'USDC', baseAssetPrecision: 18, quoteAssetPrecision: 6 }],
};

describe('market-data client: real Binance answers', () => {
  it('depth: parses the recorded spot depth (no E/T) and sends symbol and limit', async () => {
    const { client, query, path, budget } = setup([json(200, recorded('fetchOrderBook'))]);
    const depth = await client.depth({ symbol: 'BTCUSDT', limit: 2 });
    expect(depth.lastUpdateId).toBe(25445101);
    expect(depth.bids[0]).toEqual(['42574.30000000', '0.01070000']);
    expect(path()).toBe('/api/v3/depth');
    expect(query()).toEqual(recordedQuery('fetchOrderBook'));
    expect(budget.used()).toBe(1);
  });

  it('klines: reads Binance array rows as klines and sends the recorded query', async () => {
    const { client, query } = setup([json(200, recorded('fetchOHLCV'))]);
    const klines = await client.klines({ symbol: 'BTCUSDT', interval: '1h', startTime: 1706628191000, limit: 3 });
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
    expect(query()).toEqual(recordedQuery('fetchOHLCV'));
  });

  it('ticker: parses the recorded 24hr ticker and keeps unknown fields', async () => {
    const { client, query } = setup([json(200, recorded('fetchTicker'))]);
    const ticker = await client.ticker24hr({ symbol: 'BTCUSDT' });
    expect(ticker.lastPrice).toBe('73369.84000000');
    expect(ticker.count).toBe(3187938);
    expect((ticker as Record<string, unknown>)['weightedAvgPrice']).toBe('71624.65401064');
    expect(query()).toEqual(recordedQuery('fetchTicker'));
  });

  it('trades: accepts Binance extra fields (quoteQty, isBestMatch)', async () => {
    const { client, query } = setup([json(200, BINANCE_TRADES)]);
    const trades = await client.trades({ symbol: 'BTCUSDT', limit: 1 });
    expect(trades[0]).toMatchObject({ id: 28457, price: '4.00000100', isBuyerMaker: true, quoteQty: '48.000012' });
    expect(query()).toEqual({ symbol: 'BTCUSDT', limit: '1' });
  });

  it('exchangeInfo: the venue form with E and T', async () => {
    const { client, path, query, budget } = setup([json(200, VENUE_INFO)]);
    expect((await client.exchangeInfo()).symbols[0]?.symbol).toBe('MON_USDC');
    expect(path()).toBe('/api/v3/exchangeInfo');
    expect(query()).toEqual({});
    expect(budget.used()).toBe(10);
  });
});

describe('market-data client: request weights (spec) charged before sending', () => {
  const cases: [string, (client: ReturnType<typeof setup>['client']) => Promise<unknown>, unknown, number][] = [
    ['depth default', (c) => c.depth({ symbol: 'A_B' }), recorded('fetchOrderBook'), 1],
    ['depth 100', (c) => c.depth({ symbol: 'A_B', limit: 100 }), recorded('fetchOrderBook'), 1],
    ['depth 101', (c) => c.depth({ symbol: 'A_B', limit: 101 }), recorded('fetchOrderBook'), 5],
    ['depth 500', (c) => c.depth({ symbol: 'A_B', limit: 500 }), recorded('fetchOrderBook'), 5],
    ['depth 1000', (c) => c.depth({ symbol: 'A_B', limit: 1000 }), recorded('fetchOrderBook'), 10],
    ['depth 5000', (c) => c.depth({ symbol: 'A_B', limit: 5000 }), recorded('fetchOrderBook'), 20],
    ['klines default (500)', (c) => c.klines({ symbol: 'A_B', interval: '1m' }), [], 2],
    ['klines 100', (c) => c.klines({ symbol: 'A_B', interval: '1m', limit: 100 }), [], 1],
    ['klines 1000', (c) => c.klines({ symbol: 'A_B', interval: '1m', limit: 1000 }), [], 5],
    ['trades', (c) => c.trades({ symbol: 'A_B', limit: 1000 }), [], 1],
    ['ticker', (c) => c.ticker24hr({ symbol: 'BTCUSDT' }), recorded('fetchTicker'), 1],
    ['exchangeInfo', (c) => c.exchangeInfo(), VENUE_INFO, 10],
  ];
  for (const [name, call, body, weight] of cases) {
    it(`${name}: ${weight}`, async () => {
      const { client, budget } = setup([json(200, body)]);
      await call(client);
      expect(budget.used()).toBe(weight);
    });
  }

  it('a burst of subscribers never goes over the budget: the rest waits for the window on the clock', async () => {
    const { client, clock, stub } = setup([json(200, recorded('fetchOrderBook'))]);
    const polls = Array.from({ length: 150 }, () => client.depth({ symbol: 'BTCUSDT', limit: 1000 }));
    await runOnClock(clock, Promise.all(polls));
    const times = stub.requests.map((request) => request.at - START);
    expect(times.filter((time) => time === 0)).toHaveLength(120);
    expect(times.filter((time) => time === 60_000)).toHaveLength(30);
  });

  it('syncs down to the server count (X-MBX-USED-WEIGHT-1M): the next heavy request waits', async () => {
    const { client, clock, stub } = setup([json(200, recorded('fetchOrderBook'), { 'x-mbx-used-weight-1m': '1195' })]);
    await client.depth({ symbol: 'BTCUSDT', limit: 5 });
    await runOnClock(clock, client.depth({ symbol: 'BTCUSDT', limit: 1000 }));
    expect(stub.requests.map((request) => request.at - START)).toEqual([0, 60_000]);
  });
});

describe('market-data client: typed errors from Binance bodies', () => {
  const bodies: [string, { code: number; msg: string }][] = [
    ['-1102 (real body)', { code: -1102, msg: "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed." }],
    ['-1121 (real body)', { code: -1121, msg: 'Invalid symbol.' }],
    ['-1100', marketErrorBody.illegalCharacters('symbol', '^[A-Z0-9-_.]{1,20}$')],
    ['-1130', marketErrorBody.invalidParameter('limit')],
    ['-1120', marketErrorBody.badInterval()],
  ];
  for (const [name, body] of bodies) {
    it(`${name} -> MARKET_DATA_BAD_REQUEST with the code, never retried`, async () => {
      const { client, stub } = setup([json(400, body)]);
      const error = await client.depth({ symbol: 'NOPE' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MarketDataError);
      expect(error).toMatchObject({ code: 'MARKET_DATA_BAD_REQUEST', binanceCode: body.code, status: 400, message: `${body.msg} (code ${body.code})` });
      expect(stub.requests).toHaveLength(1);
    });
  }

  it('-1003 with a long Retry-After -> MARKET_DATA_RATE_LIMITED, and the host stays paused until then', async () => {
    const tooMany = json(429, marketErrorBody.tooManyRequests(), { 'retry-after': '42' });
    const { client, clock, stub, budget } = setup([tooMany, json(200, BINANCE_TRADES)]);
    const error = await client.trades({ symbol: 'BTCUSDT' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'MARKET_DATA_RATE_LIMITED', binanceCode: MarketErrorCode.TOO_MANY_REQUESTS, status: 429, retryAfterMs: 42_000 });
    expect(budget.pausedUntil()).toBe(START + 42_000);
    await runOnClock(clock, client.trades({ symbol: 'BTCUSDT' }));
    expect(stub.requests.map((request) => request.at - START)).toEqual([0, 42_000]);
  });

  it('-1003 with a short Retry-After is waited out and retried', async () => {
    const { client, clock, stub } = setup([json(429, marketErrorBody.tooManyRequests(), { 'retry-after': '2' }), json(200, BINANCE_TRADES)]);
    expect(await runOnClock(clock, client.trades({ symbol: 'BTCUSDT' }))).toHaveLength(1);
    expect(stub.requests.map((request) => request.at - START)).toEqual([0, 2_000]);
  });

  it('5xx: retried, then HTTP_UNAVAILABLE with the status and Binance code', async () => {
    const { client, clock, stub } = setup([json(503, { code: -1001, msg: 'Internal error; unable to process your request. Please try again.' })]);
    const error = await runOnClock(clock, client.ticker24hr({ symbol: 'BTCUSDT' })).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'HTTP_UNAVAILABLE', status: 503, details: expect.objectContaining({ binanceCode: -1001 }) });
    expect(stub.requests).toHaveLength(4);
  });

  it('a 404 page of a server that is not Binance-compatible -> HTTP_UNEXPECTED_STATUS', async () => {
    const { client } = setup([{ status: 404, headers: { 'content-type': 'text/html' }, text: '<html>Not Found</html>' }]);
    await expect(client.exchangeInfo()).rejects.toMatchObject({ code: 'HTTP_UNEXPECTED_STATUS', status: 404 });
  });

  it('a 200 that is not JSON, or not the record -> PROTOCOL_INVALID_JSON, PROTOCOL_SCHEMA_MISMATCH with the path', async () => {
    await expect(setup([{ status: 200, headers: {}, text: 'hello' }]).client.depth({ symbol: 'X_Y' })).rejects.toMatchObject({ code: 'PROTOCOL_INVALID_JSON' });
    const error = await setup([json(200, { lastUpdateId: 1, bids: [['1', 'x']], asks: [] })])
      .client.depth({ symbol: 'X_Y' })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'PROTOCOL_SCHEMA_MISMATCH', details: { path: 'bids.0.1' } });
  });

  it('honours a per-call timeout and abort signal', async () => {
    const { client, clock } = setup(() => () => new Promise(() => undefined));
    const timedOut = client.exchangeInfo({ timeoutMs: 50 }).catch((caught: unknown) => caught);
    const error = await runOnClock(clock, timedOut);
    expect(error).toMatchObject({ code: 'HTTP_TIMEOUT' });
    const controller = new AbortController();
    const aborted = client.exchangeInfo({ signal: controller.signal });
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ code: 'HTTP_ABORTED' });
  });
});
