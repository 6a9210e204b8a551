import { describe, expect, it } from 'vitest';
import { createActiveOrdersClient } from '../../src/clients/active-orders-client.ts';
import { createOrderEventsClient } from '../../src/clients/order-events-client.ts';
import { createTokenClient } from '../../src/clients/token-client.ts';
import { UserDataError } from '../../src/clients/user-data-error.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { MARKET, USER, makeEvent } from './order-events-source.ts';
import { context, json, runOnClock, stubTransport } from './support.ts';

const T0 = Date.UTC(2024, 7, 8, 12, 0, 0);
const MIXED_USER = '0x00000000000000000000000000000000000000AA';

const ACTIVE_ORDER = {
  orderid: 17,
  marketaddress: MARKET.toUpperCase().replace('0X', '0x'),
  owner: USER,
  size: '250',
  price: '12345',
  isbuy: true,
  remainingsize: '200',
  iscanceled: false,
  blocknumber: '1234',
  txindex: '0',
  logindex: '3',
  transactionhash: `0x${'ab'.repeat(32)}`,
  triggertime: '2024-08-08T12:00:00.000Z',
  fliporderid: 0,
  flipprice: 0,
  lpid: '',
  sizeprecision: '100',
  priceprecision: '10000',
};

describe('order events page client', () => {
  it('sends the query with the spec names and parses {data: {data, pagination}}', async () => {
    const clock = new VirtualClock(T0);
    const event = makeEvent(1, T0, 'trade');
    const stub = stubTransport(clock, [json(200, { data: { data: [event], pagination: { total: 1, page: 1, pageSize: 10 } } })]);
    const client = createOrderEventsClient(context(clock, stub.transport), { baseUrl: 'http://user.test/' });
    const page = await client.page({ user: MIXED_USER, marketAddress: MARKET, eventType: 'trade', fromTimestamp: 100, toTimestamp: 200, limit: 10, offset: 5 });
    expect(page.events).toEqual([event]);
    expect(page.pagination.total).toBe(1);
    const url = new URL(stub.requests[0]!.url);
    expect(url.pathname).toBe(`/api/v3/${USER}/user/order-events`);
    expect(Object.fromEntries(url.searchParams)).toEqual({ limit: '10', offset: '5', eventType: 'trade', fromTimestamp: '100', toTimestamp: '200', marketAddress: MARKET });
    expect(stub.requests[0]!.headers).not.toHaveProperty('authorization');
  });

  it('reads the same answer text again to the same page (its own list), and still refuses a malformed one', async () => {
    const clock = new VirtualClock(T0);
    const good = json(200, { data: { data: [makeEvent(1, T0, 'trade'), makeEvent(2, T0)], pagination: { total: 2, page: 1, pageSize: 50 } } });
    const malformed = json(200, { data: { data: [{ ...makeEvent(3, T0), transactionHash: '0x12' }], pagination: { total: 1, page: 1, pageSize: 50 } } });
    const stub = stubTransport(clock, [good, { ...good }, malformed, good]);
    const client = createOrderEventsClient(context(clock, stub.transport), { baseUrl: 'http://user.test' });
    const first = await client.page({ user: USER });
    const again = await client.page({ user: USER });
    expect(again).toEqual(first);
    expect(again.events).not.toBe(first.events);
    await expect(client.page({ user: USER })).rejects.toMatchObject({ code: 'PROTOCOL_SCHEMA_MISMATCH', message: expect.stringContaining('transactionHash') });
    expect(await client.page({ user: USER })).toEqual(first);
  });

  it('an {error} body of a 400 is a UserDataError with the server message; a 500 is retried, then HTTP_UNAVAILABLE', async () => {
    const clock = new VirtualClock(T0);
    const bad = stubTransport(clock, [json(400, { error: 'eventType must be one of order-created, order-canceled, trade' })]);
    const error = await createOrderEventsClient(context(clock, bad.transport), { baseUrl: 'http://user.test' })
      .page({ user: USER })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UserDataError);
    expect(error).toMatchObject({ code: 'USER_DATA_BAD_REQUEST', status: 400, serverMessage: 'eventType must be one of order-created, order-canceled, trade' });
    expect(bad.requests).toHaveLength(1);

    const down = stubTransport(clock, [json(500, { error: 'internal database error' })]);
    const failed = await runOnClock(clock, createOrderEventsClient(context(clock, down.transport), { baseUrl: 'http://user.test' }).page({ user: USER })).catch(
      (caught: unknown) => caught,
    );
    expect(failed).toMatchObject({ code: 'HTTP_UNAVAILABLE', status: 500, message: expect.stringContaining('internal database error') });
    expect(down.requests).toHaveLength(4);
  });
});

describe('active orders client', () => {
  it('reads the lowercase fields, sends limit, and lowercases the path addresses', async () => {
    const clock = new VirtualClock(T0);
    const body = { success: true, code: 0, timestamp: T0, data: { data: [ACTIVE_ORDER], pagination: { total: 1, page: 1, pageSize: 62 } } };
    const stub = stubTransport(clock, [json(200, body)]);
    const client = createActiveOrdersClient(context(clock, stub.transport), { baseUrl: 'http://user.test' });
    const answer = await client.activeOrders({ user: MIXED_USER, marketAddress: MARKET.toUpperCase().replace('0X', '0x'), limit: 62 });
    expect(answer.orders[0]).toMatchObject({ orderid: 17, marketaddress: MARKET, remainingsize: '200', isbuy: true, lpid: '' });
    expect(answer.timestamp).toBe(T0);
    expect(stub.requests[0]!.url).toBe(`http://user.test/api/v2/${USER}/user/orders/active/${MARKET}?limit=62`);
  });

  it('a refused market is a UserDataError', async () => {
    const clock = new VirtualClock(T0);
    const stub = stubTransport(clock, [json(400, { error: `marketAddress: unknown market ${MARKET}` })]);
    const client = createActiveOrdersClient(context(clock, stub.transport), { baseUrl: 'http://user.test' });
    await expect(client.activeOrders({ user: USER, marketAddress: MARKET })).rejects.toMatchObject({ code: 'USER_DATA_BAD_REQUEST' });
  });
});

describe('token client', () => {
  const TOKEN = {
    tokenAddress: '0x00000000000000000000000000000000000000c1',
    name: 'Monad',
    symbol: 'MON',
    decimals: 18,
    logoUrl: null,
    description: null,
    websiteUrl: null,
    verified: true,
    contractRenounced: false,
    isErc20: true,
    isMintable: false,
    isStrict: true,
    firstPoolAddress: null,
  };

  it('GETs /api/v1/tokens/{lowercase address} and returns the token', async () => {
    const clock = new VirtualClock(T0);
    const stub = stubTransport(clock, [json(200, { feedEpoch: null, data: TOKEN })]);
    const client = createTokenClient(context(clock, stub.transport), { baseUrl: 'http://api.test' });
    expect(await client.token('0x00000000000000000000000000000000000000C1')).toEqual(TOKEN);
    expect(stub.requests[0]!.url).toBe('http://api.test/api/v1/tokens/0x00000000000000000000000000000000000000c1');
  });

  it('an unknown token is HTTP_UNEXPECTED_STATUS 404 with the server message', async () => {
    const clock = new VirtualClock(T0);
    const stub = stubTransport(clock, [json(404, { error: 'token 0x…c9 is not a token of this venue' })]);
    const client = createTokenClient(context(clock, stub.transport), { baseUrl: 'http://api.test' });
    await expect(client.token('0x00000000000000000000000000000000000000c9')).rejects.toMatchObject({
      code: 'HTTP_UNEXPECTED_STATUS',
      status: 404,
      message: expect.stringContaining('is not a token of this venue'),
    });
  });
});
