/**
 * Fuzzing the user-data parsers: order-event pages and active orders as the clients read them (any
 * status, any body), and the order-events reader above them. Whatever the host sends, a call yields
 * a value its schema accepts or a BaseError of a documented code; a page the reader cannot take
 * changes nothing in its state, so nothing is lost when it is retried.
 */
import fc from 'fast-check';
import { lastValueFrom, retry, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createActiveOrdersClient } from '../../src/clients/active-orders-client.ts';
import type { HttpResponse } from '../../src/clients/http-transport.ts';
import { createOrderEventsClient } from '../../src/clients/order-events-client.ts';
import { orderEventKey, orderEvents, orderEvents$, type OrderEventsBatch } from '../../src/clients/order-events.ts';
import type { ErrorCode } from '../../src/core/error-codes.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { activeOrdersResponseSchema, orderEventsResponseSchema } from '../../src/protocol/user-data.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';
import { MARKET, USER, makeEvent } from '../clients/order-events-source.ts';
import { context, runOnClock, stubTransport } from '../clients/support.ts';
import { expectTypedOutcome, hostileJson } from './support/hostile.ts';

const T0 = Date.UTC(2024, 7, 8, 12, 0, 0);
const NOW = T0 + 60_000;

const page = (events: readonly unknown[]) => JSON.stringify({ data: { data: events, pagination: { total: events.length, page: 1, pageSize: 50 } } });
const ORDER_EVENTS = [page([makeEvent(1, T0 + 1_000, 'trade'), makeEvent(2, T0 + 2_000, 'order-canceled'), makeEvent(3, T0 + 3_000)].reverse()), page([])];

const activeOrder = {
  orderid: 17,
  marketaddress: MARKET,
  owner: USER,
  size: '250',
  price: '12345',
  isbuy: true,
  remainingsize: '100',
  iscanceled: false,
  blocknumber: '123',
  txindex: '0',
  logindex: '2',
  transactionhash: `0x${'ab'.repeat(32)}`,
  triggertime: '2024-08-08T12:00:00.000Z',
  fliporderid: 0,
  flipprice: 0,
  lpid: '',
  sizeprecision: '100',
  priceprecision: '10000',
};
const ACTIVE_ORDERS = [
  JSON.stringify({ success: true, code: 200, timestamp: NOW, data: { data: [activeOrder, { ...activeOrder, orderid: 18, isbuy: false }], pagination: { total: 2, page: 1, pageSize: 100 } } }),
];

const CLIENT_CODES: readonly ErrorCode[] = ['PROTOCOL_INVALID_JSON', 'PROTOCOL_SCHEMA_MISMATCH', 'USER_DATA_BAD_REQUEST', 'HTTP_RATE_LIMITED', 'HTTP_UNAVAILABLE', 'HTTP_UNEXPECTED_STATUS'];
const status = fc.oneof({ arbitrary: fc.constant(200), weight: 6 }, fc.constantFrom(204, 400, 401, 404, 429, 500, 503));
const errorBody = fc.constantFrom('{"error":"limit must be an integer >= 1"}', '{"error":1}', '{"error":"' + 'x'.repeat(10_000) + '"}', '{"error":"eyJhbGciOiJIUzI1NiJ9.eyJ3YWxsZXQiOiIweCJ9.c2ln"}');

function setup(answer: HttpResponse | ((call: number) => HttpResponse)) {
  const clock = new VirtualClock(NOW);
  let calls = 0;
  const stub = stubTransport(clock, () => {
    calls += 1;
    return typeof answer === 'function' ? answer(calls) : answer;
  });
  const ctx = context(clock, stub.transport);
  const retryPolicy = { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 10, jitter: 0, maxRetryAfterMs: 100 };
  return {
    clock,
    events: createOrderEventsClient(ctx, { baseUrl: 'http://user.test', retry: retryPolicy }),
    active: createActiveOrdersClient(ctx, { baseUrl: 'http://user.test', retry: retryPolicy }),
  };
}

describe('user-data fuzz', () => {
  it('the templates are valid answers', async () => {
    for (const text of ORDER_EVENTS) {
      const { clock, events } = setup({ status: 200, headers: {}, text });
      expect((await runOnClock(clock, events.page({ user: USER }))).events).toEqual(orderEventsResponseSchema.parse(JSON.parse(text)).data.data);
    }
    const { clock, active } = setup({ status: 200, headers: {}, text: ACTIVE_ORDERS[0]! });
    expect((await runOnClock(clock, active.activeOrders({ user: USER, marketAddress: MARKET }))).orders).toHaveLength(2);
  });

  it('order-events pages: a page its schema accepts, or a typed error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(hostileJson(ORDER_EVENTS), errorBody), status, async (text, code) => {
        const { clock, events } = setup({ status: code, headers: {}, text });
        await expectTypedOutcome(() => runOnClock(clock, events.page({ user: USER })), CLIENT_CODES, (value) => {
          expect(code).toBe(200);
          expect(value.events).toEqual(orderEventsResponseSchema.parse(JSON.parse(text)).data.data);
        });
      }),
      fuzzSettings({ numRuns: 150 }),
    );
  });

  it('active orders: orders its schema accepts, or a typed error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(hostileJson(ACTIVE_ORDERS), errorBody), status, async (text, code) => {
        const { clock, active } = setup({ status: code, headers: {}, text });
        await expectTypedOutcome(() => runOnClock(clock, active.activeOrders({ user: USER, marketAddress: MARKET })), CLIENT_CODES, (value) => {
          expect(code).toBe(200);
          expect(value.orders).toEqual(activeOrdersResponseSchema.parse(JSON.parse(text)).data.data);
        });
      }),
      fuzzSettings({ numRuns: 120 }),
    );
  });

  it('the order-events reader: batches of events with their amounts, or a typed error', async () => {
    // Amounts are computed from the event's precisions and decimals: a schema-valid 0 or 200 is a units error.
    const codes = [...CLIENT_CODES, 'UNITS_PRECISION_INVALID', 'UNITS_OUT_OF_RANGE'] as const;
    await fc.assert(
      fc.asyncProperty(hostileJson(ORDER_EVENTS), async (text) => {
        const { clock, events } = setup({ status: 200, headers: {}, text });
        const run = async () => {
          const batches: OrderEventsBatch[] = [];
          for await (const batch of orderEvents(events, { user: USER, fromTimestamp: 0, follow: false })) batches.push(batch);
          return batches;
        };
        await expectTypedOutcome(() => runOnClock(clock, run()), codes, (batches) => {
          const delivered = batches.flatMap((batch) => batch.events.map((item) => item.key));
          expect(new Set(delivered).size).toBe(delivered.length);
          for (const item of batches.flatMap((batch) => batch.events)) expect(item.amounts.eventType).toBe(item.event.eventType);
        });
      }),
      fuzzSettings({ numRuns: 60 }),
    );
  });

  it('an event whose amounts cannot be computed marks nothing delivered: a retry still delivers the good events of that page', async () => {
    const good = makeEvent(1, T0 + 1_000, 'trade');
    const bad = JSON.parse(JSON.stringify(makeEvent(2, T0 + 2_000, 'trade')));
    bad.eventData.sizePrecision = '0';
    // First answer: the good event listed before the bad one; then the host fixes its data.
    const { clock, events } = setup((call) => ({ status: 200, headers: {}, text: call === 1 ? page([good, bad]) : page([good]) }));
    const batches = await runOnClock(clock, lastValueFrom(orderEvents$(events, { user: USER, fromTimestamp: 0, follow: false }).pipe(retry(1), toArray())));
    expect(batches.flatMap((batch) => batch.events.map((item) => item.key))).toEqual([orderEventKey(good)]);
  });
});
