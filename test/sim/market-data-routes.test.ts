import { beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/random.ts';
import { marketErrorBody } from '../../src/protocol/error-bodies.ts';
import { depthSchema, exchangeInfoSchema, klinesSchema, ticker24hrSchema, tradesSchema } from '../../src/protocol/market-data.ts';
import { marketDataErrorBodySchema } from '../../src/protocol/error-bodies.ts';
import type { SimFaultsPatch } from '../../src/config/fault-config.ts';
import { createFaultModel, type FaultModel } from '../../src/sim/fault-model.ts';
import { MARKET_FAULT_BODIES, marketDataRoutes } from '../../src/sim/market-data-routes.ts';
import { createWeightLimiter, USED_WEIGHT_HEADER } from '../../src/sim/weight-limiter.ts';
import { call } from './sim-request.ts';
import { createVenueFixture, type VenueFixture } from './venue-fixture.ts';

let fixture: VenueFixture;
beforeAll(async () => {
  fixture = await createVenueFixture({ levels: 120, trades: 6 });
});

function routes(options: { weightPerMinute?: number; faults?: SimFaultsPatch; seed?: number } = {}): { limiter: ReturnType<typeof createWeightLimiter>; routes: ReturnType<typeof marketDataRoutes>; faults: FaultModel } {
  const { clock, venue } = fixture;
  const limiter = createWeightLimiter(clock, { weightPerMinute: options.weightPerMinute ?? 1200 });
  const faults = createFaultModel({ clock, random: seededRandom(options.seed ?? 1) });
  faults.apply({ action: 'set', settings: options.faults ?? {} });
  return { limiter, routes: marketDataRoutes(venue, { limiter, faults }), faults };
}

function weight(response: { headers?: Readonly<Record<string, string>> }): number {
  return Number(response.headers?.[USED_WEIGHT_HEADER]);
}

describe('market-data routes: answers', () => {
  it('depth: default limit 100, committed state, E/T, bids descending and asks ascending', async () => {
    const { routes: r } = routes();
    const response = await call(r, { url: '/api/v3/depth?symbol=MON_USDC' });
    expect(response.status).toBe(200);
    const depth = depthSchema.parse(response.body);
    expect(depth.bids).toHaveLength(100);
    expect(depth.asks).toHaveLength(100);
    expect(depth.bids[0]).toEqual(['0.034999', '85']);
    expect(depth.asks[0]).toEqual(['0.035001', '85']);
    const bidPrices = depth.bids.map(([price]) => Number(price));
    expect(bidPrices).toEqual([...bidPrices].sort((a, b) => b - a));
    expect(depth.lastUpdateId).toBe(Number(fixture.venue.blockNumber()) - fixture.config.stateLagBlocks.committed);
    expect(depth.T).toBe(Math.floor(depth.E! / 1000));
    expect(weight(response)).toBe(1);
  });

  it('depth: limit, state and tolerated extra parameters; weight by limit', async () => {
    const { routes: r } = routes();
    const five = await call(r, { url: '/api/v3/depth?symbol=MON_USDC&limit=5&state=proposed&foo=bar' });
    expect(depthSchema.parse(five.body).bids).toHaveLength(5);
    expect(depthSchema.parse(five.body).lastUpdateId).toBe(Number(fixture.venue.blockNumber()));
    expect(weight(five)).toBe(1);
    const cases: [number, number][] = [
      [100, 1],
      [101, 5],
      [500, 5],
      [501, 10],
      [1000, 10],
      [1001, 20],
      [5000, 20],
    ];
    let used = 1;
    for (const [limit, cost] of cases) {
      const response = await call(r, { url: `/api/v3/depth?symbol=MON_USDC&limit=${limit}` });
      used += cost;
      expect(response.status).toBe(200);
      expect(weight(response)).toBe(used);
    }
    const empty = await call(r, { url: '/api/v3/depth?symbol=WETH_USDC' });
    expect(depthSchema.parse(empty.body)).toMatchObject({ bids: [], asks: [] });
  });

  it('klines: objects of the spec, weight by limit', async () => {
    const { routes: r } = routes();
    const response = await call(r, { url: '/api/v3/klines?symbol=MON_USDC&interval=1m&limit=3' });
    expect(response.status).toBe(200);
    const klines = klinesSchema.parse(response.body);
    expect(klines.length).toBeGreaterThan(0);
    expect(klines.at(-1)).toMatchObject({ numTrades: 6, volume: '30' });
    expect(weight(response)).toBe(1);
    const big = await call(r, { url: '/api/v3/klines?symbol=MON_USDC&interval=1h&limit=501&startTime=0&endTime=9999999999999' });
    expect(big.status).toBe(200);
    expect(weight(big)).toBe(1 + 5);
    const mid = await call(r, { url: '/api/v3/klines?symbol=MON_USDC&interval=1d' }); // default limit 500: weight 2
    expect(weight(mid)).toBe(1 + 5 + 2);
  });

  it('trades, ticker (type=FULL tolerated) and exchangeInfo', async () => {
    const { routes: r } = routes();
    const trades = await call(r, { url: '/api/v3/trades?symbol=MON_USDC&limit=4' });
    expect(tradesSchema.parse(trades.body).map((trade) => trade.id)).toEqual([3, 4, 5, 6]);
    expect(weight(trades)).toBe(1);
    const ticker = await call(r, { url: '/api/v3/ticker/24hr?symbol=MON_USDC&type=FULL' });
    expect(ticker24hrSchema.parse(ticker.body)).toMatchObject({ symbol: 'MON_USDC', count: 6, bidPrice: '0.034999', askPrice: '0.035001' });
    expect(weight(ticker)).toBe(2);
    const info = await call(r, { url: '/api/v3/exchangeInfo?anything=1' });
    const parsed = exchangeInfoSchema.parse(info.body);
    expect(parsed.symbols.map((symbol) => symbol.symbol)).toEqual(['MON_USDC', 'WETH_USDC']);
    expect(parsed.serverTime).toBe(fixture.clock.now());
    expect(weight(info)).toBe(12);
  });
});

describe('market-data routes: refusals', () => {
  const cases: [string, string, { code: number; msg: string }][] = [
    ['depth without symbol', '/api/v3/depth', marketErrorBody.mandatoryParameter('symbol')],
    ['depth with an empty symbol', '/api/v3/depth?symbol=', marketErrorBody.mandatoryParameter('symbol')],
    ['a missing symbol wins over a bad limit', '/api/v3/depth?limit=0', marketErrorBody.mandatoryParameter('symbol')],
    ['a lowercase symbol', '/api/v3/depth?symbol=mon_usdc', marketErrorBody.illegalCharacters('symbol', '^[A-Z0-9-_.]{1,20}$')],
    ['limit=abc', '/api/v3/depth?symbol=MON_USDC&limit=abc', marketErrorBody.illegalCharacters('limit', '^[0-9]{1,20}$')],
    ['limit=-1', '/api/v3/trades?symbol=MON_USDC&limit=-1', marketErrorBody.illegalCharacters('limit', '^[0-9]{1,20}$')],
    ['an empty limit', '/api/v3/trades?symbol=MON_USDC&limit=', marketErrorBody.illegalCharacters('limit', '^[0-9]{1,20}$')],
    ['depth limit=0', '/api/v3/depth?symbol=MON_USDC&limit=0', marketErrorBody.invalidParameter('limit')],
    ['depth limit=5001', '/api/v3/depth?symbol=MON_USDC&limit=5001', marketErrorBody.invalidParameter('limit')],
    ['trades limit=1001', '/api/v3/trades?symbol=MON_USDC&limit=1001', marketErrorBody.invalidParameter('limit')],
    ['an unknown depth state', '/api/v3/depth?symbol=MON_USDC&state=pending', marketErrorBody.invalidParameter('state')],
    ['klines without interval', '/api/v3/klines?symbol=MON_USDC', marketErrorBody.mandatoryParameter('interval')],
    ['klines with a bad interval', '/api/v3/klines?symbol=MON_USDC&interval=2m', marketErrorBody.badInterval()],
    ['klines startTime=x', '/api/v3/klines?symbol=MON_USDC&interval=1m&startTime=x', marketErrorBody.illegalCharacters('startTime', '^[0-9]{1,20}$')],
    ['depth of an unknown symbol', '/api/v3/depth?symbol=FOO_BAR', marketErrorBody.badSymbol()],
    ['klines of an unknown symbol', '/api/v3/klines?symbol=FOO_BAR&interval=1m', marketErrorBody.badSymbol()],
    ['trades of an unknown symbol', '/api/v3/trades?symbol=FOO_BAR', marketErrorBody.badSymbol()],
    ['ticker of an unknown symbol', '/api/v3/ticker/24hr?symbol=MONUSDC', marketErrorBody.badSymbol()],
    ['ticker without symbol', '/api/v3/ticker/24hr?type=FULL', marketErrorBody.mandatoryParameter('symbol')],
  ];
  it.each(cases)('%s: HTTP 400 with the Binance body', async (_name, url, body) => {
    const { routes: r } = routes();
    const response = await call(r, { url });
    expect(response.status).toBe(400);
    expect(marketDataErrorBodySchema.parse(response.body)).toEqual(body);
    expect(weight(response)).toBeGreaterThanOrEqual(1);
  });

  it('keeps the first value of a repeated parameter', async () => {
    const { routes: r } = routes();
    expect((await call(r, { url: '/api/v3/trades?symbol=MON_USDC&limit=2&limit=x' })).status).toBe(200);
    expect((await call(r, { url: '/api/v3/trades?symbol=FOO_BAR&symbol=MON_USDC' })).body).toEqual(marketErrorBody.badSymbol());
  });

  it('charges refused requests their weight (the default limit when the limit itself is bad)', async () => {
    const { routes: r, limiter } = routes();
    await call(r, { url: '/api/v3/depth?symbol=FOO_BAR&limit=5000', ip: '10.0.0.1' }); // -1121, weight 20
    await call(r, { url: '/api/v3/depth?symbol=MON_USDC&limit=9999', ip: '10.0.0.1' }); // -1130, default limit 100: weight 1
    await call(r, { url: '/api/v3/klines?symbol=MON_USDC&interval=9m&limit=1000', ip: '10.0.0.1' }); // -1120, weight 5
    expect(limiter.used('10.0.0.1')).toBe(26);
  });
});

describe('market-data routes: weight limit', () => {
  it('answers 429 -1003 with Retry-After past the budget, per IP, until the minute turns', async () => {
    const { routes: r } = routes({ weightPerMinute: 25 });
    const start = fixture.clock.now();
    const seen: number[] = [];
    for (let i = 0; i < 2; i++) seen.push(weight(await call(r, { url: '/api/v3/depth?symbol=MON_USDC&limit=1000', ip: '10.0.0.2' })));
    const over = await call(r, { url: '/api/v3/exchangeInfo', ip: '10.0.0.2' });
    expect(seen).toEqual([10, 20]);
    expect(over.status).toBe(429);
    expect(over.body).toEqual(marketErrorBody.tooManyRequests(25));
    expect(over.body).toMatchObject({ code: -1003 });
    expect(weight(over)).toBe(30);
    const retryAfter = Number(over.headers?.['Retry-After']);
    expect(retryAfter).toBe(Math.ceil((Math.floor(start / 60_000) * 60_000 + 60_000 - start) / 1000));
    // Other IPs are not affected.
    expect((await call(r, { url: '/api/v3/exchangeInfo', ip: '10.0.0.3' })).status).toBe(200);
    fixture.clock.advanceBy(retryAfter * 1000);
    const after = await call(r, { url: '/api/v3/exchangeInfo', ip: '10.0.0.2' });
    expect(after.status).toBe(200);
    expect(weight(after)).toBe(10);
  });
});

describe('market-data routes: faults', () => {
  it('answers 500/503 with Binance bodies at the error rate, still weighed', async () => {
    const { routes: r, faults } = routes({ faults: { marketDataErrorRate: 1 } });
    const statuses = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const response = await call(r, { url: '/api/v3/depth?symbol=MON_USDC' });
      statuses.add(response.status);
      expect(response.body).toEqual(MARKET_FAULT_BODIES[response.status as 500 | 503]);
      expect(weight(response)).toBe(i + 1);
    }
    expect([...statuses].sort()).toEqual([500, 503]);
    // Faults are asked on every request: switched off, answers are normal again.
    faults.apply({ action: 'set', settings: { marketDataErrorRate: 0 } });
    expect((await call(r, { url: '/api/v3/depth?symbol=MON_USDC' })).status).toBe(200);
  });

  it('fails about the configured fraction, the same way for the same seed', async () => {
    const run = async () => {
      const { routes: r } = routes({ faults: { marketDataErrorRate: 0.25 }, weightPerMinute: 1_000_000, seed: 7 });
      const statuses: number[] = [];
      for (let i = 0; i < 400; i++) statuses.push((await call(r, { url: '/api/v3/trades?symbol=MON_USDC&limit=1' })).status);
      return statuses;
    };
    const first = await run();
    const failed = first.filter((status) => status !== 200).length;
    expect(failed).toBeGreaterThan(60);
    expect(failed).toBeLessThan(140);
    expect(await run()).toEqual(first);
  });

  it('answers an injected 429 exactly like a weight refusal, Retry-After from the settings', async () => {
    const { routes: r } = routes({ faults: { marketDataRateLimitRate: 1, marketDataRetryAfterSec: 7 }, weightPerMinute: 5000 });
    const response = await call(r, { url: '/api/v3/ticker/24hr?symbol=MON_USDC' });
    expect(response.status).toBe(429);
    expect(response.headers).toMatchObject({ 'Retry-After': '7', [USED_WEIGHT_HEADER]: '1' });
    expect(response.body).toEqual(marketErrorBody.tooManyRequests(5000));
  });

  it('marks answers to be held back on the clock by the delay (the face waits, not the handler)', async () => {
    const { routes: r } = routes({ faults: { marketDataDelayMs: 1500 } });
    const response = await call(r, { url: '/api/v3/ticker/24hr?symbol=MON_USDC' });
    expect(response.status).toBe(200);
    expect(response.delayMs).toBe(1500);
    expect(weight(response)).toBe(1);
    const { routes: prompt } = routes();
    expect((await call(prompt, { url: '/api/v3/ticker/24hr?symbol=MON_USDC' })).delayMs).toBeUndefined();
  });
});
