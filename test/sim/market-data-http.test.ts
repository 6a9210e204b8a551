/**
 * The market-data, user-data and token routes behind a real HTTP server on loopback, read with fetch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/logger.ts';
import { seededRandom } from '../../src/core/random.ts';
import { marketDataErrorBodySchema, marketErrorBody } from '../../src/protocol/error-bodies.ts';
import { depthSchema, exchangeInfoSchema, klinesSchema, ticker24hrSchema, tradesSchema } from '../../src/protocol/market-data.ts';
import { tokenEnvelopeSchema } from '../../src/protocol/tokens.ts';
import { activeOrdersResponseSchema, orderEventsResponseSchema } from '../../src/protocol/user-data.ts';
import { createHttpServer, type HttpServer } from '../../src/sim/http-server.ts';
import { createSimDispatch } from '../../src/sim/route-dispatch.ts';
import { marketAndUserRoutes } from '../../src/sim/market-and-user-routes.ts';
import { createVenueFixture, TAKER, type VenueFixture } from './venue-fixture.ts';

const BUDGET = 40;
let fixture: VenueFixture;
let server: HttpServer;
let base: string;

beforeAll(async () => {
  fixture = await createVenueFixture({ levels: 120, trades: 6 });
  const { config, clock, venue } = fixture;
  const routes = marketAndUserRoutes(venue, {
    config: { ...config, marketData: { weightPerMinute: BUDGET } },
    clock,
    random: seededRandom(1),
  });
  server = createHttpServer({ dispatch: createSimDispatch({ routes, maxBodyBytes: config.http.maxBodyBytes, logger: createLogger({ level: 'silent' }) }), logger: createLogger({ level: 'silent' }), clock });
  base = (await server.listen(0)).url;
});

afterAll(async () => {
  await server.close();
});

async function get(path: string): Promise<{ status: number; headers: Headers; body: unknown }> {
  const response = await fetch(`${base}${path}`);
  return { status: response.status, headers: response.headers, body: await response.json() };
}

describe('market data over HTTP', () => {
  it('serves every endpoint in the protocol shapes, with the used weight rising', async () => {
    // A fresh minute for the budget.
    fixture.clock.advanceBy(60_000);
    const depth = await get('/api/v3/depth?symbol=MON_USDC&limit=100');
    expect(depth.status).toBe(200);
    expect(depth.headers.get('content-type')).toBe('application/json');
    expect(depthSchema.parse(depth.body).bids).toHaveLength(100);
    expect(klinesSchema.parse((await get('/api/v3/klines?symbol=MON_USDC&interval=5m')).body).length).toBeGreaterThan(0);
    expect(tradesSchema.parse((await get('/api/v3/trades?symbol=MON_USDC')).body)).toHaveLength(6);
    expect(ticker24hrSchema.parse((await get('/api/v3/ticker/24hr?symbol=MON_USDC&type=FULL')).body).symbol).toBe('MON_USDC');
    const info = await get('/api/v3/exchangeInfo');
    expect(exchangeInfoSchema.parse(info.body).timezone).toBe('UTC');
    // 1 (depth) + 2 (klines, limit 500) + 1 (trades) + 1 (ticker) + 10 (exchangeInfo)
    expect(info.headers.get('x-mbx-used-weight-1m')).toBe('15');
  });

  it('answers each error code with HTTP 400 and the Binance body', async () => {
    fixture.clock.advanceBy(60_000);
    const cases: [string, { code: number; msg: string }][] = [
      ['/api/v3/depth', marketErrorBody.mandatoryParameter('symbol')],
      ['/api/v3/trades?symbol=FOO_BAR', marketErrorBody.badSymbol()],
      ['/api/v3/depth?symbol=mon_usdc', marketErrorBody.illegalCharacters('symbol', '^[A-Z0-9-_.]{1,20}$')],
      ['/api/v3/depth?symbol=MON_USDC&limit=abc', marketErrorBody.illegalCharacters('limit', '^[0-9]{1,20}$')],
      ['/api/v3/depth?symbol=MON_USDC&limit=0', marketErrorBody.invalidParameter('limit')],
      ['/api/v3/depth?symbol=MON_USDC&limit=5001', marketErrorBody.invalidParameter('limit')],
      ['/api/v3/klines?symbol=MON_USDC&interval=7m', marketErrorBody.badInterval()],
    ];
    for (const [path, body] of cases) {
      const answer = await get(path);
      expect({ path, status: answer.status }).toEqual({ path, status: 400 });
      expect(marketDataErrorBodySchema.parse(answer.body)).toEqual(body);
      expect(Number(answer.headers.get('x-mbx-used-weight-1m'))).toBeGreaterThan(0);
    }
  });

  it('answers 429 -1003 with Retry-After once the budget is spent, X-MBX-USED-WEIGHT-1M increasing', async () => {
    fixture.clock.advanceBy(60_000);
    const used: number[] = [];
    let refused: { status: number; headers: Headers; body: unknown } | undefined;
    for (let i = 0; i < 10 && refused === undefined; i++) {
      const answer = await get('/api/v3/exchangeInfo');
      used.push(Number(answer.headers.get('x-mbx-used-weight-1m')));
      if (answer.status === 429) refused = answer;
    }
    expect(used).toEqual([10, 20, 30, 40, 50]);
    expect(refused!.body).toEqual(marketErrorBody.tooManyRequests(BUDGET));
    const retryAfter = Number(refused!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const again = await get('/api/v3/trades?symbol=MON_USDC&limit=1');
    expect(again.status).toBe(429);
    expect(again.headers.get('x-mbx-used-weight-1m')).toBe('51');
    fixture.clock.advanceBy(retryAfter * 1000);
    const after = await get('/api/v3/trades?symbol=MON_USDC&limit=1');
    expect(after.status).toBe(200);
    expect(after.headers.get('x-mbx-used-weight-1m')).toBe('1');
  });
});

describe('user data and tokens over HTTP', () => {
  it('serves order events, active orders and token metadata', async () => {
    const events = await get(`/api/v3/${TAKER.toUpperCase().replace('0X', '0x')}/user/order-events?limit=2`);
    expect(events.status).toBe(200);
    expect(orderEventsResponseSchema.parse(events.body).data.data).toHaveLength(2);
    const active = await get(`/api/v2/${TAKER}/user/orders/active/${fixture.monUsdc.address}`);
    expect(activeOrdersResponseSchema.parse(active.body).data.data).toHaveLength(1);
    const token = await get(`/api/v1/tokens/${fixture.monUsdc.baseToken.address}`);
    expect(tokenEnvelopeSchema.parse(token.body).data.symbol).toBe('MON');
    const bad = await get('/api/v3/not-an-address/user/order-events');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'userAddress: expected 0x and 40 hex characters' });
  });

  it('refuses an oversized generate-token body with 413 and keeps serving', async () => {
    const response = await fetch(`${base}/api/generate-token`, { method: 'POST', body: 'x'.repeat(fixture.config.http.maxBodyBytes + 1) });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: `Request body exceeds ${fixture.config.http.maxBodyBytes} bytes.` });
    expect((await get(`/api/v1/tokens/${fixture.monUsdc.quoteToken.address}`)).status).toBe(200);
  });
});
