import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitsUint, uintMax } from '../../src/protocol/encoding.ts';
import { readActiveOrdersResponse, readOrderEventsPath, readOrderEventsQuery, readOrderEventsResponse } from '../../src/protocol/user-data-readers.ts';
import { activeOrdersResponseSchema, orderEventsPathSchema, orderEventsQuerySchema, orderEventsResponseSchema } from '../../src/protocol/user-data.ts';
import { agrees, itAgreesWithSchema, type Json } from './support/fast-reader-check.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const hex = (length: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: length, maxLength: length });
const address = hex(40).map((h) => `0x${h}`);
const txHash = hex(64).map((h) => `0x${h}`);
const uintText = fc.oneof(fc.bigInt({ min: 0n, max: uintMax(256) }), fc.bigInt({ min: 0n, max: 10n ** 20n })).map(String);
const uint64Text = fc.bigInt({ min: 0n, max: uintMax(64) }).map(String);
const count = fc.oneof(fc.nat(), fc.constantFrom(0, Number.MAX_SAFE_INTEGER));
const iso = fc
  .date({ min: new Date(Date.UTC(1970, 0, 1)), max: new Date(Date.UTC(2999, 11, 31)), noInvalidDate: true })
  .chain((date) => fc.constantFrom(date.toISOString(), date.toISOString().replace('Z', '+05:30'), date.toISOString().replace(/\.\d+Z$/, 'Z')));
const extras = fc.dictionary(fc.constantFrom('x', 'extra', '1', 'logo', 'baseAsset'), fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.boolean(), { maxLength: 2 })) as fc.Arbitrary<Json>, { maxKeys: 2 });
const withExtras = <T extends Record<string, Json>>(record: fc.Arbitrary<T>) => fc.tuple(record, extras).map(([value, extra]) => ({ ...extra, ...value }));

const token = withExtras(
  fc.record({ address, name: fc.string(), symbol: fc.string(), decimal: fc.integer({ min: 0, max: 255 }), logoUrl: fc.option(fc.string(), { nil: null }) }),
);
const eventBase = {
  orderId: fc.string({ minLength: 1 }),
  marketAddress: address,
  owner: address,
  isBuy: fc.boolean(),
  sizePrecision: uintText,
  pricePrecision: uintText,
  baseToken: token,
  quoteToken: token,
};
const eventData = {
  'order-created': fc.record({ ...eventBase, size: uintText, price: uintText, baseDeposited: uintText, baseDepositedInUsd: uintText }),
  'order-canceled': fc.record({ ...eventBase, size: uintText, remainingSize: uintText, price: uintText, basePositionValue: uintText, basePositionValueInUsd: uintText }),
  trade: fc.record({ ...eventBase, marketId: count, orderSize: uintText, filledSize: uintText, fillPrice: uintText, updatedSize: uintText, baseFilled: uintText, baseFilledInUsd: uintText }),
};
const orderEvent = fc.constantFrom('order-created', 'order-canceled', 'trade').chain((eventType) =>
  withExtras(fc.record({ eventType: fc.constant(eventType), transactionHash: txHash, blockTimestamp: iso, eventData: withExtras(eventData[eventType] as fc.Arbitrary<Record<string, Json>>) })),
);
const pagination = withExtras(fc.record({ total: count, page: count, pageSize: count }));
const orderEventsBody = withExtras(fc.record({ data: withExtras(fc.record({ data: fc.array(orderEvent, { maxLength: 3 }), pagination })) }));

const activeOrder = withExtras(
  fc.record({
    orderid: count,
    marketaddress: address,
    owner: address,
    size: uintText,
    price: uintText,
    isbuy: fc.boolean(),
    remainingsize: uintText,
    iscanceled: fc.boolean(),
    blocknumber: uint64Text,
    txindex: uint64Text,
    logindex: uint64Text,
    transactionhash: txHash,
    triggertime: iso,
    fliporderid: count,
    flipprice: count,
    lpid: fc.string(),
    sizeprecision: uintText,
    priceprecision: uintText,
  }),
);
const activeOrdersBody = withExtras(
  fc.record({
    success: fc.boolean(),
    code: fc.integer(),
    timestamp: count,
    data: withExtras(fc.record({ data: fc.array(activeOrder, { maxLength: 3 }), pagination })),
  }),
);

const cases = [
  { name: 'order events', reader: readOrderEventsResponse, schema: orderEventsResponseSchema, body: orderEventsBody },
  { name: 'active orders', reader: readActiveOrdersResponse, schema: activeOrdersResponseSchema, body: activeOrdersBody },
] as const;

describe.each(cases)('the fast reader of $name', ({ reader, schema, body }) => {
  itAgreesWithSchema(reader, schema, body, 5);
});

describe('the fast readers of an order-events request', () => {
  const parameter = fc.oneof(
    fc.constantFrom('0', '1', '2', '50', '007', '999999999999999', '1000000000000000', '-1', '1.5', ' 1', '1e3', '', 'x', 'trade', 'order-created', 'fill'),
    fc.nat().map(String),
    address,
    fc.string(),
  );
  const query = fc.dictionary(fc.constantFrom('limit', 'offset', 'eventType', 'fromTimestamp', 'toTimestamp', 'marketAddress', 'other', '__proto__'), parameter);

  it('reads the query (defaults, absent parameters, unknown ones dropped) exactly as the schema does, and never one it refuses', () => {
    let read = 0;
    fc.assert(
      fc.property(query, (record) => {
        // The route passes a prototype-less record (query-values.ts).
        const raw = Object.assign(Object.create(null) as Record<string, string>, record);
        if (agrees(readOrderEventsQuery, orderEventsQuerySchema, raw as Json) === 'read') read += 1;
      }),
      fuzzSettings({ numRuns: 3000 }),
    );
    expect(read).toBeGreaterThan(100);
  });

  it('reads the path exactly as the schema does', () => {
    fc.assert(
      fc.property(fc.oneof(address, parameter), (userAddress) => {
        agrees(readOrderEventsPath, orderEventsPathSchema, { userAddress });
      }),
      fuzzSettings(),
    );
    expect(readOrderEventsPath({ userAddress: `0x${'AB'.repeat(20)}` })).toEqual({ userAddress: `0x${'ab'.repeat(20)}` });
  });
});

describe('fitsUint', () => {
  it('tells values up to uintMax(bits) from larger ones at every width', () => {
    for (const bits of [8, 64, 128, 256]) {
      const max = uintMax(bits);
      for (const value of [0n, max / 10n, max / 10n + 1n, max - 1n, max]) expect(fitsUint(value.toString(), bits)).toBe(true);
      for (const value of [max + 1n, max * 10n]) expect(fitsUint(value.toString(), bits)).toBe(false);
    }
  });
});
