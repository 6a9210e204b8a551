import { describe, expect, it } from 'vitest';
import { sizeToHuman, fixed18ToHuman, baseTokenToHuman } from '../../src/core/denomination.ts';
import {
  activeOrderSchema,
  activeOrdersPathSchema,
  activeOrdersQuerySchema,
  activeOrdersResponseSchema,
  orderEventSchema,
  orderEventsPathSchema,
  orderEventsQuerySchema,
  orderEventsResponseSchema,
  userDataQueryErrorBody,
} from '../../src/protocol/user-data.ts';

const MARKET = '0x122C0D8683Cab344163fB73E28E741754257e3Fa';
const OWNER = '0xAbCdEf0123456789abcdef0123456789ABCDEF01';
const TX = `0x${'Ab'.repeat(32)}`;
const baseToken = { address: '0x0000000000000000000000000000000000000001', name: 'Monad', symbol: 'MON', decimal: 18, logoUrl: null };
const quoteToken = { address: '0x0000000000000000000000000000000000000002', name: 'USD Coin', symbol: 'USDC', decimal: 6, logoUrl: 'https://x/usdc.png' };
const common = { orderId: '42', marketAddress: MARKET, owner: OWNER, isBuy: true, sizePrecision: '100', pricePrecision: '10000', baseToken, quoteToken };

const created = {
  eventType: 'order-created',
  transactionHash: TX,
  blockTimestamp: '2025-01-02T03:04:05.000Z',
  eventData: { ...common, size: '150', price: '3900', baseDeposited: '1500000000000000000', baseDepositedInUsd: '585000000000000000' },
};
const canceled = {
  eventType: 'order-canceled',
  transactionHash: TX,
  blockTimestamp: '2025-01-02T03:04:06+00:00',
  eventData: {
    ...common,
    size: '150',
    remainingSize: '50',
    price: '3900',
    basePositionValue: '500000000000000000',
    basePositionValueInUsd: '195000000000000000',
  },
};
const trade = {
  eventType: 'trade',
  transactionHash: TX,
  blockTimestamp: '2025-01-02T03:04:05.500Z',
  eventData: {
    ...common,
    marketId: 3,
    orderSize: '150',
    filledSize: '100',
    fillPrice: '390000000000000000',
    updatedSize: '50',
    baseFilled: '1000000000000000000',
    baseFilledInUsd: '390000000000000000',
    extraUpstreamField: 'kept',
  },
};
const eventsBody = { data: { data: [trade, canceled, created], pagination: { total: 3, page: 1, pageSize: 50 } } };

describe('orderEventsResponseSchema', () => {
  it('parses the three event types, discriminated by eventType', () => {
    const { data } = orderEventsResponseSchema.parse(eventsBody);
    expect(data.pagination).toEqual({ total: 3, page: 1, pageSize: 50 });
    expect(data.data.map((event) => event.eventType)).toEqual(['trade', 'order-canceled', 'order-created']);
    const [first, second, third] = data.data;
    if (first?.eventType !== 'trade' || second?.eventType !== 'order-canceled' || third?.eventType !== 'order-created') {
      throw new Error('unexpected order');
    }
    expect(first.eventData.fillPrice).toBe('390000000000000000');
    expect(first.eventData.marketId).toBe(3);
    expect(first.eventData['extraUpstreamField']).toBe('kept');
    expect(second.eventData.remainingSize).toBe('50');
    expect(third.eventData.baseDeposited).toBe('1500000000000000000');
  });

  it('normalises addresses and hashes to lowercase', () => {
    const event = orderEventSchema.parse(created);
    expect(event.transactionHash).toBe(TX.toLowerCase());
    expect(event.eventData.marketAddress).toBe(MARKET.toLowerCase());
    expect(event.eventData.owner).toBe(OWNER.toLowerCase());
  });

  it('feeds the denomination rules', () => {
    const event = orderEventSchema.parse(trade);
    if (event.eventType !== 'trade') throw new Error('not a trade');
    expect(sizeToHuman(event.eventData.filledSize, event.eventData.sizePrecision).toFixed()).toBe('1');
    expect(fixed18ToHuman(event.eventData.fillPrice).toFixed()).toBe('0.39');
    expect(baseTokenToHuman(event.eventData.baseFilled, event.eventData.baseToken.decimal).toFixed()).toBe('1');
  });

  it('names the three allowed values for an unknown eventType', () => {
    const result = orderEventSchema.safeParse({ ...created, eventType: 'fill' });
    expect(result.success).toBe(false);
    const message = result.error?.issues[0]?.message ?? '';
    for (const value of ['order-created', 'order-canceled', 'trade']) expect(message).toContain(value);
  });

  it.each([
    ['trade fields under order-created', { ...created, eventData: trade.eventData }],
    ['created fields under order-canceled', { ...canceled, eventData: created.eventData }],
    ['order-canceled without remainingSize', { ...canceled, eventData: { ...canceled.eventData, remainingSize: undefined } }],
    ['order-created without baseDepositedInUsd', { ...created, eventData: { ...created.eventData, baseDepositedInUsd: undefined } }],
    ['negative size', { ...created, eventData: { ...created.eventData, size: '-150' } }],
    ['fractional size (units are integers)', { ...created, eventData: { ...created.eventData, size: '1.5' } }],
    ['numeric price', { ...created, eventData: { ...created.eventData, price: 3900 } }],
    ['leading-zero amount', { ...created, eventData: { ...created.eventData, baseDeposited: '01' } }],
    ['string isBuy', { ...created, eventData: { ...created.eventData, isBuy: 'true' } }],
    ['bad owner', { ...created, eventData: { ...created.eventData, owner: '0x1234' } }],
    ['string marketId', { ...trade, eventData: { ...trade.eventData, marketId: '3' } }],
    ['missing fillPrice', { ...trade, eventData: { ...trade.eventData, fillPrice: undefined } }],
    ['string token decimal', { ...trade, eventData: { ...trade.eventData, baseToken: { ...baseToken, decimal: '18' } } }],
    ['short hash', { ...created, transactionHash: '0xabcd' }],
    ['not a timestamp', { ...created, blockTimestamp: 'yesterday' }],
    ['timestamp without zone', { ...created, blockTimestamp: '2025-01-02T03:04:05' }],
    ['unix seconds instead of ISO', { ...created, blockTimestamp: 1735787045 }],
  ])('refuses %s', (_name, event) => {
    expect(orderEventSchema.safeParse(event).success).toBe(false);
  });

  it('refuses a bad pagination', () => {
    expect(orderEventsResponseSchema.safeParse({ data: { data: [], pagination: { total: -1, page: 1, pageSize: 50 } } }).success).toBe(false);
    expect(orderEventsResponseSchema.safeParse({ data: [] }).success).toBe(false);
  });
});

describe('orderEventsQuerySchema', () => {
  it('defaults limit 50 and offset 0', () => {
    expect(orderEventsQuerySchema.parse({})).toEqual({ limit: 50, offset: 0 });
  });

  it('parses every parameter', () => {
    expect(
      orderEventsQuerySchema.parse({
        limit: '10',
        offset: '5',
        eventType: 'trade',
        fromTimestamp: '0',
        toTimestamp: '1700000000',
        marketAddress: MARKET,
      }),
    ).toEqual({ limit: 10, offset: 5, eventType: 'trade', fromTimestamp: 0, toTimestamp: 1700000000, marketAddress: MARKET.toLowerCase() });
  });

  it('requires fromTimestamp < toTimestamp when both are given', () => {
    for (const [from, to] of [
      ['10', '10'],
      ['11', '10'],
    ] as const) {
      const result = orderEventsQuerySchema.safeParse({ fromTimestamp: from, toTimestamp: to });
      expect(result.success).toBe(false);
      if (!result.success) expect(userDataQueryErrorBody(result.error)).toEqual({ error: 'fromTimestamp must be less than toTimestamp' });
    }
    expect(orderEventsQuerySchema.parse({ fromTimestamp: '9', toTimestamp: '10' })).toMatchObject({ fromTimestamp: 9, toTimestamp: 10 });
    expect(orderEventsQuerySchema.parse({ fromTimestamp: '11' }).fromTimestamp).toBe(11);
  });

  it.each([
    [{ limit: '0' }, 'limit must be an integer >= 1'],
    [{ limit: 'ten' }, 'limit must be an integer >= 1'],
    [{ offset: '-1' }, 'offset must be an integer >= 0'],
    [{ fromTimestamp: '-1' }, 'fromTimestamp must be an integer >= 0'],
    [{ toTimestamp: '1.5' }, 'toTimestamp must be an integer >= 0'],
  ])('refuses %j', (query, message) => {
    const result = orderEventsQuerySchema.safeParse(query);
    expect(result.success).toBe(false);
    if (!result.success) expect(userDataQueryErrorBody(result.error)).toEqual({ error: message });
  });

  it('an invalid eventType gives an {error} naming the three allowed values', () => {
    const result = orderEventsQuerySchema.safeParse({ eventType: 'fill' });
    expect(result.success).toBe(false);
    if (result.success) return;
    const body = userDataQueryErrorBody(result.error);
    expect(body).toEqual({ error: 'eventType must be one of order-created, order-canceled, trade' });
  });

  it('names the parameter of a bad market address', () => {
    const result = orderEventsQuerySchema.safeParse({ marketAddress: '0x12' });
    expect(result.success).toBe(false);
    if (!result.success) expect(userDataQueryErrorBody(result.error).error).toMatch(/^marketAddress: /);
  });
});

describe('path parameters', () => {
  it('userAddress is case-insensitive', () => {
    expect(orderEventsPathSchema.parse({ userAddress: OWNER }).userAddress).toBe(OWNER.toLowerCase());
    expect(activeOrdersPathSchema.parse({ userAddress: OWNER, marketAddress: MARKET })).toEqual({
      userAddress: OWNER.toLowerCase(),
      marketAddress: MARKET.toLowerCase(),
    });
    expect(orderEventsPathSchema.safeParse({ userAddress: 'alice' }).success).toBe(false);
  });
});

describe('active orders', () => {
  const order = {
    orderid: 42,
    marketaddress: MARKET,
    owner: OWNER,
    size: '150',
    price: '3900',
    isbuy: false,
    remainingsize: '50',
    iscanceled: false,
    blocknumber: '123456',
    txindex: '2',
    logindex: '7',
    transactionhash: TX,
    triggertime: '2025-01-02T03:04:05.000Z',
    fliporderid: 0,
    flipprice: 0,
    lpid: '',
    sizeprecision: '100',
    priceprecision: '10000',
  };
  const body = { success: true, code: 200, timestamp: 1735787045000, data: { data: [order], pagination: { total: 1, page: 1, pageSize: 100 } } };

  it('parses the envelope with the lowercase fields, empty lpid allowed', () => {
    const parsed = activeOrdersResponseSchema.parse(body);
    expect(parsed.timestamp).toBe(1735787045000);
    expect(parsed.data.data[0]).toMatchObject({ orderid: 42, remainingsize: '50', lpid: '', marketaddress: MARKET.toLowerCase() });
  });

  it.each([
    ['string orderid', { ...order, orderid: '42' }],
    ['camelCase field names', { ...order, orderid: undefined, orderId: 42 }],
    ['missing lpid', { ...order, lpid: undefined }],
    ['negative remainingsize', { ...order, remainingsize: '-1' }],
    ['numeric blocknumber', { ...order, blocknumber: 123456 }],
    ['string iscanceled', { ...order, iscanceled: 'false' }],
    ['fractional flipprice', { ...order, flipprice: 1.5 }],
    ['bad triggertime', { ...order, triggertime: '02/01/2025' }],
  ])('refuses %s', (_name, bad) => {
    expect(activeOrderSchema.safeParse(bad).success).toBe(false);
  });

  it('refuses an envelope without success or with a string timestamp', () => {
    expect(activeOrdersResponseSchema.safeParse({ ...body, success: undefined }).success).toBe(false);
    expect(activeOrdersResponseSchema.safeParse({ ...body, timestamp: '1735787045000' }).success).toBe(false);
  });

  it('query: limit defaults to 100 and must be >= 1', () => {
    expect(activeOrdersQuerySchema.parse({})).toEqual({ limit: 100 });
    expect(activeOrdersQuerySchema.parse({ limit: '5' })).toEqual({ limit: 5 });
    expect(activeOrdersQuerySchema.safeParse({ limit: '0' }).success).toBe(false);
    expect(activeOrdersQuerySchema.safeParse({ limit: '-3' }).success).toBe(false);
  });
});
