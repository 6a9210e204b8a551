/**
 * Fuzzing the query parsers through the routes: random query strings and paths never make a route
 * throw or answer 5xx, and every answer has its endpoint's documented shape. A failure prints the line
 * that replays it (CLOBBOT_FUZZ_SEED, CLOBBOT_FUZZ_PATH: docs/testing.md).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../src/core/logger.ts';
import { seededRandom } from '../../src/core/random.ts';
import { marketDataErrorBodySchema, userDataErrorBodySchema } from '../../src/protocol/error-bodies.ts';
import { depthSchema, exchangeInfoSchema, klinesSchema, ticker24hrSchema, tradesSchema } from '../../src/protocol/market-data.ts';
import { quoteResponseSchema, generateTokenResponseSchema } from '../../src/protocol/quote.ts';
import { tokenEnvelopeSchema } from '../../src/protocol/tokens.ts';
import { activeOrdersResponseSchema, orderEventsResponseSchema } from '../../src/protocol/user-data.ts';
import type { SimRoute } from '../../src/sim/http-types.ts';
import { createHttpServer, type HttpServer } from '../../src/sim/http-server.ts';
import { createSimDispatch } from '../../src/sim/route-dispatch.ts';
import { JwtSecret } from '../../src/sim/jwt.ts';
import { marketAndUserRoutes } from '../../src/sim/market-and-user-routes.ts';
import { call } from './sim-request.ts';
import { createVenueFixture, TAKER, type VenueFixture } from './venue-fixture.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

let fixture: VenueFixture;
let routes: SimRoute[];

beforeAll(async () => {
  fixture = await createVenueFixture({ levels: 30, trades: 4 });
  routes = marketAndUserRoutes(fixture.venue, {
    config: { ...fixture.config, marketData: { weightPerMinute: 1_000_000 } },
    clock: fixture.clock,
    random: seededRandom(3),
    secret: JwtSecret.fromBytes(new Uint8Array(32).fill(9)),
  });
});

const MARKET_ENDPOINTS = {
  '/api/v3/depth': depthSchema,
  '/api/v3/klines': klinesSchema,
  '/api/v3/trades': tradesSchema,
  '/api/v3/ticker/24hr': ticker24hrSchema,
  '/api/v3/exchangeInfo': exchangeInfoSchema,
} as const satisfies Record<string, z.ZodType>;

const NAMES = ['symbol', 'limit', 'interval', 'startTime', 'endTime', 'state', 'type', 'eventType', 'offset', 'fromTimestamp', 'toTimestamp', 'marketAddress'];
const VALUES = [
  'MON_USDC', 'WETH_USDC', 'mon_usdc', 'FOO_BAR', '', '0', '1', '100', '5000', '5001', '-1', '1e3', '1.5', ' 1', '99999999999999999999999',
  '1m', '1w', '2m', 'proposed', 'committed', 'FULL', 'trade', 'order-created', 'fill', TAKER, '0x12', 'null', '__proto__', 'constructor',
];

/** A raw query string: known and random names, known and random values, raw or percent-encoded. */
const rawQuery = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom(...NAMES), fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'hasOwnProperty')),
      fc.oneof(fc.constantFrom(...VALUES), fc.string({ maxLength: 24 }), fc.string({ unit: 'binary', maxLength: 12 }), fc.integer().map(String)),
      fc.boolean(),
    ),
    { maxLength: 6 },
  )
  .map((pairs) =>
    pairs.map(([name, value, encode]) => (encode ? `${encodeURIComponent(name)}=${encodeURIComponent(value)}` : `${name}=${value}`)).join('&'),
  );

/** Appends a query to a path without letting it change the path. */
function withQuery(path: string, query: string): string {
  return `${path}?${query.replace(/[#]/g, '%23')}`;
}

describe('market-data routes under random queries', () => {
  it('never throw nor answer 5xx; every answer has its documented shape', async () => {
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(MARKET_ENDPOINTS)), rawQuery, async (path, query) => {
        const response = await call(routes, { url: withQuery(path, query) });
        statuses.add(response.status);
        expect(response.status).toBeLessThan(500);
        if (response.status === 200) MARKET_ENDPOINTS[path as keyof typeof MARKET_ENDPOINTS].parse(response.body);
        else {
          expect(response.status).toBe(400);
          marketDataErrorBodySchema.parse(response.body);
        }
        expect(response.headers?.['X-MBX-USED-WEIGHT-1M']).toMatch(/^[1-9][0-9]*$/);
      }),
      fuzzSettings({ numRuns: 600 }),
    );
    // The generator reaches both answers, not only refusals.
    expect([...statuses].sort()).toEqual([200, 400]);
  });
});

describe('user-data and token routes under random paths and queries', () => {
  const segment = fc.oneof(
    fc.constant(TAKER),
    fc.constant(TAKER.toUpperCase()),
    fc.string({ maxLength: 44 }),
    fc.stringMatching(/^0x[0-9a-fA-F]{0,42}$/),
  );
  it('never throw nor answer 5xx; 200s parse, refusals are {error}', async () => {
    const statuses = new Set<number>();
    const MARKET = '<market>';
    const TOKEN = '<token>';
    const second = fc.oneof(segment, fc.constantFrom(MARKET, TOKEN));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 }), fc.oneof(segment, fc.constant(TOKEN)), second, rawQuery, async (which, first, other, query) => {
        const encoded = [first, other].map((part) =>
          part === MARKET ? fixture.monUsdc.address : part === TOKEN ? fixture.monUsdc.baseToken.address : encodeURIComponent(part) || 'x',
        );
        const [path, schema] =
          which === 0
            ? [`/api/v3/${encoded[0]}/user/order-events`, orderEventsResponseSchema]
            : which === 1
              ? [`/api/v2/${encoded[0]}/user/orders/active/${encoded[1]}`, activeOrdersResponseSchema]
              : [`/api/v1/tokens/${encoded[0]}`, tokenEnvelopeSchema];
        const response = await call(routes, { url: withQuery(path, query) });
        statuses.add(response.status);
        expect(response.status).toBeLessThan(500);
        if (response.status === 200) (schema as z.ZodType).parse(response.body);
        else userDataErrorBodySchema.parse(response.body);
      }),
      fuzzSettings({ numRuns: 400 }),
    );
    expect([...statuses].sort()).toEqual([200, 400, 404]);
  });

  it('generate-token and quote never throw nor answer 5xx for any body', async () => {
    const issued = await call(routes, { method: 'POST', url: '/api/generate-token', body: JSON.stringify({ user_address: TAKER }) });
    const { token } = generateTokenResponseSchema.parse(issued.body);
    const body = fc.oneof(
      fc.string({ maxLength: 64 }),
      fc.json({ maxDepth: 3 }),
      fc
        .record(
          {
            userAddress: fc.oneof(fc.constant(TAKER), fc.string()),
            tokenIn: fc.oneof(fc.constant(fixture.monUsdc.quoteToken.address), fc.string()),
            tokenOut: fc.oneof(fc.constant(fixture.monUsdc.baseToken.address), fc.string()),
            amount: fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 80n }).map(String), fc.string(), fc.integer()),
            slippageTolerance: fc.oneof(fc.integer({ min: -5, max: 20_000 }), fc.double()),
            autoSlippage: fc.oneof(fc.boolean(), fc.string()),
            user_address: fc.oneof(fc.constant(TAKER), fc.string()),
          },
          { requiredKeys: [] },
        )
        .map((record) => JSON.stringify(record)),
    );
    await fc.assert(
      fc.asyncProperty(fc.boolean(), body, async (toQuote, text) => {
        // Each quote is a second later: the token's bucket is always full again.
        fixture.clock.advanceBy(1000);
        const url = toQuote ? '/api/quote' : '/api/generate-token';
        const response = await call(routes, { method: 'POST', url, body: text, headers: { authorization: `Bearer ${token}` } });
        expect(response.status).toBeLessThan(500);
        if (response.status === 200) (toQuote ? quoteResponseSchema : generateTokenResponseSchema).parse(response.body);
        else expect(response.body).toEqual({ error: expect.any(String) });
      }),
      fuzzSettings({ numRuns: 300 }),
    );
  });
});

describe('market data over HTTP under random query strings', () => {
  let server: HttpServer;
  let base: string;
  beforeAll(async () => {
    server = createHttpServer({ dispatch: createSimDispatch({ routes, maxBodyBytes: 4096, logger: createLogger({ level: 'silent' }) }), logger: createLogger({ level: 'silent' }), clock: fixture.clock });
    base = (await server.listen(0)).url;
  });
  afterAll(() => server.close());

  it('never answers 5xx, always JSON', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(MARKET_ENDPOINTS)), rawQuery, async (path, query) => {
        // fetch needs a valid URL: characters it would reject are percent-encoded, the rest sent raw.
        const target = `${base}${path}?${encodeURI(query).replace(/#/g, '%23')}`;
        const response = await fetch(target);
        expect(response.status).toBeLessThan(500);
        expect(response.headers.get('content-type')).toBe('application/json');
        const body: unknown = await response.json();
        if (response.status !== 200) marketDataErrorBodySchema.parse(body);
      }),
      fuzzSettings({ numRuns: 150 }),
    );
  });
});
