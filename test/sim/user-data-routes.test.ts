import { privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/logger.ts';
import { Permission, RelayMethod } from '../../src/protocol/constants.ts';
import { accountCoreDomain } from '../../src/protocol/eip712-types.ts';
import type { Address } from '../../src/protocol/encoding.ts';
import { signAuthorizeAccountSigner } from '../../src/protocol/intent-signing.ts';
import { userDataErrorBodySchema } from '../../src/protocol/error-bodies.ts';
import { activeOrdersResponseSchema, orderEventsResponseSchema } from '../../src/protocol/user-data.ts';
import { createSimDispatch } from '../../src/sim/route-dispatch.ts';
import { userDataRoutes } from '../../src/sim/user-data-routes.ts';
import { call } from './sim-request.ts';
import { createVenueFixture, MAKER_BID, TAKER, type VenueFixture } from './venue-fixture.ts';

const OWNER_KEY = `0x${'11'.repeat(32)}` as const;
const SIGNER_KEY = `0x${'22'.repeat(32)}` as const;
const owner = privateKeyToAccount(OWNER_KEY);
const signer = privateKeyToAccount(SIGNER_KEY);
const UNKNOWN: Address = '0x00000000000000000000000000000000000c0ffe';

let fixture: VenueFixture;
let signerAddress: Address;

beforeAll(async () => {
  fixture = await createVenueFixture({ levels: 20, trades: 6 });
  const { venue, config, clock, monUsdc } = fixture;
  // An owner with a key, one resting order, and a signer it granted TRADE through the relay.
  const ownerAddress = owner.address.toLowerCase() as Address;
  signerAddress = signer.address.toLowerCase() as Address;
  venue.fund(ownerAddress, monUsdc.baseToken.address, 10n ** 24n);
  const accountId = venue.fund(ownerAddress, monUsdc.quoteToken.address, 10n ** 12n);
  venue.enqueueSystemTx(accountId, monUsdc.address, {
    kind: 'batch',
    orders: [{ side: 'SELL', price: 400_000n, quantity: 100n, tif: 'GTC', executionInstruction: 'NONE', minSizeAfterBlock: 0n }],
    cancelSlotIdxs: [],
    expectedOrderIds: [],
  });
  const intent = {
    account: ownerAddress,
    authorizer: ownerAddress,
    signer: signerAddress,
    permissions: BigInt(Permission.TRADE),
    expiry: 0n,
    nonce: 1n,
    deadline: BigInt(Math.floor(clock.now() / 1000) + 600),
  };
  const domain = accountCoreDomain({ chainId: config.chainId, accountCore: config.contracts.accountCore });
  const signature = await signAuthorizeAccountSigner(owner, { domain, intent });
  const result = await venue.submit(signerAddress, { method: RelayMethod.authorizeAccountSigner, payload: { ...intent, signature } }, null);
  expect(result.status).toBe('BROADCAST');
  fixture.block();
});

function routes(orderEventsCacheMs = 2000) {
  return userDataRoutes(fixture.venue, { clock: fixture.clock, orderEventsCacheMs });
}

function events(body: unknown) {
  return orderEventsResponseSchema.parse(body).data;
}

describe('order events', () => {
  it('lists an owner’s events newest first with pagination; the address in any case', async () => {
    const r = routes(0);
    const response = await call(r, { url: `/api/v3/${TAKER.replace(/a/g, 'A')}/user/order-events` });
    expect(response.status).toBe(200);
    const { data, pagination } = events(response.body);
    // 6 taker orders (created + trade each), then one resting order.
    expect(pagination).toEqual({ total: data.length, page: 1, pageSize: 50 });
    expect(data.filter((event) => event.eventType === 'trade')).toHaveLength(6);
    expect(data[0]!.eventType).toBe('order-created');
    const times = data.map((event) => Date.parse(event.blockTimestamp));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('answers, fresh or cached, the text JSON.stringify makes of the body (built from cached event texts)', async () => {
    const r = routes(2000);
    const dispatch = createSimDispatch({ routes: r, maxBodyBytes: 1 << 20, logger: createLogger({ level: 'silent' }) });
    for (const query of ['', '?limit=3', '?limit=3', '?eventType=trade&offset=1', '?fromTimestamp=1&toTimestamp=2']) {
      const url = `/api/v3/${TAKER}/user/order-events${query}`;
      const response = await call(r, { url });
      const answer = await dispatch({ method: 'GET', target: url, headers: {}, readBody: async () => ({ ok: true, text: '' }), ip: '127.0.0.1' });
      expect(answer.text).toBe(JSON.stringify(response.body));
    }
  });

  it('applies eventType, limit, offset, marketAddress and the timestamp window', async () => {
    const r = routes(0);
    const all = events((await call(r, { url: `/api/v3/${TAKER}/user/order-events` })).body);
    const trades = events((await call(r, { url: `/api/v3/${TAKER}/user/order-events?eventType=trade&limit=2&offset=2` })).body);
    expect(trades.data.map((event) => event.eventType)).toEqual(['trade', 'trade']);
    expect(trades.pagination).toEqual({ total: 6, page: 2, pageSize: 2 });
    const allTrades = all.data.filter((event) => event.eventType === 'trade');
    expect(trades.data).toEqual(allTrades.slice(2, 4));

    const otherMarket = events((await call(r, { url: `/api/v3/${TAKER}/user/order-events?marketAddress=${fixture.wethUsdc.address.toUpperCase().replace('0X', '0x')}` })).body);
    expect(otherMarket).toEqual({ data: [], pagination: { total: 0, page: 1, pageSize: 50 } });

    const newest = Date.parse(all.data[0]!.blockTimestamp) / 1000;
    const window = events((await call(r, { url: `/api/v3/${TAKER}/user/order-events?fromTimestamp=${Math.floor(newest)}&toTimestamp=${Math.floor(newest) + 1}` })).body);
    expect(window.data.length).toBeGreaterThan(0);
    expect(window.data.every((event) => Date.parse(event.blockTimestamp) >= Math.floor(newest) * 1000)).toBe(true);
  });

  it('resolves a granted signer to its account', async () => {
    const r = routes(0);
    const viaOwner = events((await call(r, { url: `/api/v3/${owner.address}/user/order-events` })).body);
    const viaSigner = events((await call(r, { url: `/api/v3/${signerAddress}/user/order-events` })).body);
    expect(viaOwner.data).toHaveLength(1);
    expect(viaSigner).toEqual(viaOwner);
  });

  it('answers an unknown user with an empty list', async () => {
    const response = await call(routes(), { url: `/api/v3/${UNKNOWN}/user/order-events?eventType=trade` });
    expect(response).toEqual({ status: 200, body: { data: { data: [], pagination: { total: 0, page: 1, pageSize: 50 } } } });
  });

  const refusals: [string, string, string][] = [
    ['a bad eventType names the allowed values', 'eventType=fill', 'eventType must be one of order-created, order-canceled, trade'],
    ['from = to', 'fromTimestamp=10&toTimestamp=10', 'fromTimestamp must be less than toTimestamp'],
    ['from > to', 'fromTimestamp=11&toTimestamp=10', 'fromTimestamp must be less than toTimestamp'],
    ['limit=0', 'limit=0', 'limit must be an integer >= 1'],
    ['offset=-1', 'offset=-1', 'offset must be an integer >= 0'],
    ['fromTimestamp=abc', 'fromTimestamp=abc', 'fromTimestamp must be an integer >= 0'],
    ['a bad marketAddress', 'marketAddress=0x12', 'marketAddress: expected 0x and 40 hex characters'],
  ];
  it.each(refusals)('%s: 400 {error}', async (_name, query, message) => {
    const response = await call(routes(), { url: `/api/v3/${TAKER}/user/order-events?${query}` });
    expect(response.status).toBe(400);
    expect(userDataErrorBodySchema.parse(response.body)).toEqual({ error: message });
  });

  it('refuses a user that is not an address', async () => {
    const response = await call(routes(), { url: '/api/v3/0x1234/user/order-events' });
    expect(response).toEqual({ status: 400, body: { error: 'userAddress: expected 0x and 40 hex characters' } });
  });

  it('caches an answer per parameter combination for orderEventsCacheMs on the clock', async () => {
    const { venue, monUsdc, clock } = fixture;
    const r = routes(2000);
    const url = `/api/v3/${MAKER_BID.slice(0, -2)}00/user/order-events?limit=100`;
    const before = events((await call(r, { url })).body);
    // The same combination, normalised: defaults and case do not make another key.
    const sameCombination = `/api/v3/${MAKER_BID.slice(0, -2).toUpperCase().replace('0X', '0x')}00/user/order-events?limit=100&offset=0&foo=1`;
    // A new trade against this maker.
    const taker = venue.resolveAccount(TAKER)!;
    venue.enqueueSystemTx(taker, monUsdc.address, {
      kind: 'batch',
      orders: [{ side: 'SELL', price: 300_000n, quantity: 100n, tif: 'IOC', executionInstruction: 'NONE', minSizeAfterBlock: 0n }],
      cancelSlotIdxs: [],
      expectedOrderIds: [],
    });
    fixture.block();
    expect(events((await call(r, { url })).body)).toEqual(before);
    expect(events((await call(r, { url: sameCombination })).body)).toEqual(before);
    // Another combination is read fresh.
    const fresh = events((await call(r, { url: `${url}&eventType=trade` })).body);
    expect(fresh.pagination.total).toBe(before.data.filter((event) => event.eventType === 'trade').length + 1);
    clock.advanceBy(2000 - fixture.config.blockMs);
    const after = events((await call(r, { url })).body);
    expect(after.pagination.total).toBe(before.pagination.total + 1);
  });
});

describe('active orders', () => {
  it('lists the account’s active orders on one market with lowercase fields and the envelope', async () => {
    const r = routes();
    const response = await call(r, { url: `/api/v2/${TAKER}/user/orders/active/${fixture.monUsdc.address}` });
    expect(response.status).toBe(200);
    const parsed = activeOrdersResponseSchema.parse(response.body);
    expect(parsed).toMatchObject({ success: true, code: 0, timestamp: fixture.clock.now() });
    expect(parsed.data.data).toHaveLength(1);
    expect(parsed.data.data[0]).toMatchObject({ owner: TAKER, isbuy: true, iscanceled: false, price: '250000' });
    expect(parsed.data.pagination).toEqual({ total: 1, page: 1, pageSize: 100 });
  });

  it('caps the list at limit and counts all in total; a signer sees its account’s orders', async () => {
    const r = routes();
    const maker = `${MAKER_BID.slice(0, -2)}00`;
    const capped = activeOrdersResponseSchema.parse((await call(r, { url: `/api/v2/${maker}/user/orders/active/${fixture.monUsdc.address}?limit=3` })).body);
    expect(capped.data.data).toHaveLength(3);
    expect(capped.data.pagination.total).toBeGreaterThan(3);
    expect(capped.data.pagination.pageSize).toBe(3);
    const viaSigner = activeOrdersResponseSchema.parse((await call(r, { url: `/api/v2/${signerAddress}/user/orders/active/${fixture.monUsdc.address}` })).body);
    expect(viaSigner.data.data.map((order) => order.owner)).toEqual([owner.address.toLowerCase()]);
  });

  it('answers an unknown user with no orders, and refuses an unknown market or a bad limit', async () => {
    const r = routes();
    const empty = activeOrdersResponseSchema.parse((await call(r, { url: `/api/v2/${UNKNOWN}/user/orders/active/${fixture.monUsdc.address}` })).body);
    expect(empty.data).toEqual({ data: [], pagination: { total: 0, page: 1, pageSize: 100 } });
    expect(await call(r, { url: `/api/v2/${TAKER}/user/orders/active/${UNKNOWN}` })).toEqual({
      status: 400,
      body: { error: `marketAddress: unknown market ${UNKNOWN}` },
    });
    expect(await call(r, { url: `/api/v2/${TAKER}/user/orders/active/${fixture.monUsdc.address}?limit=0` })).toEqual({
      status: 400,
      body: { error: 'limit must be an integer >= 1' },
    });
    expect((await call(r, { url: `/api/v2/${TAKER}/user/orders/active/nope` })).status).toBe(400);
  });
});
