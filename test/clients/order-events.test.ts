import { firstValueFrom, toArray, take } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createOrderEventsClient } from '../../src/clients/order-events-client.ts';
import { orderEventKey, orderEvents, orderEvents$, type OrderEventsBatch, type OrderEventsCursor } from '../../src/clients/order-events.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import type { OrderEvent } from '../../src/protocol/user-data.ts';
import { MARKET, USER, makeEvent, scriptedSource, type ScriptedEvent } from './order-events-source.ts';
import { context, json, runOnClock, settle, stubTransport } from './support.ts';

const T0 = Date.UTC(2024, 7, 8, 12, 0, 0);
const sec = (ms: number) => Math.floor(ms / 1000);

async function collect(iterator: AsyncIterable<OrderEventsBatch>): Promise<OrderEventsBatch[]> {
  const batches: OrderEventsBatch[] = [];
  for await (const batch of iterator) batches.push(batch);
  return batches;
}

const keys = (batches: readonly OrderEventsBatch[]) => batches.flatMap((batch) => batch.events.map((item) => item.key));

function expectExactlyOnce(batches: readonly OrderEventsBatch[], expected: readonly OrderEvent[]) {
  const delivered = keys(batches);
  expect(new Set(delivered).size).toBe(delivered.length);
  expect([...delivered].sort()).toEqual(expected.map(orderEventKey).sort());
}

describe('orderEvents: one pass to now', () => {
  it('reads 500 events of one second with limit 50: nothing missed, nothing twice, oldest first', async () => {
    const clock = new VirtualClock(T0 + 10_000);
    const events = Array.from({ length: 500 }, (_, n) => makeEvent(n, T0 + 5_000 + (n % 1000)));
    const source = scriptedSource(clock, events.map((event) => ({ event })));
    const batches = await runOnClock(clock, collect(orderEvents(source, { user: USER, fromTimestamp: sec(T0), follow: false })));
    expectExactlyOnce(batches, events);
    const times = batches.flatMap((batch) => batch.events.map((item) => item.timeMs));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // Offset paging happened only inside a window of the smallest width.
    for (const call of source.calls.filter((c) => (c.offset ?? 0) > 0)) expect(call.toTimestamp! - call.fromTimestamp!).toBe(1);
    expect(source.calls.every((call) => call.limit === 50)).toBe(true);
  });

  it('reads a crowded second again when its list moves between offset pages (no gap)', async () => {
    const clock = new VirtualClock(T0 + 10_000);
    const events = Array.from({ length: 120 }, (_, n) => makeEvent(n, T0 + 5_000 + n));
    const inner = scriptedSource(clock, events.map((event) => ({ event })));
    // The newest five vanish (e.g. a reorg) right after the first page of the crowded window was served.
    let removed = false;
    const source = {
      ...inner,
      async page(params: Parameters<typeof inner.page>[0]) {
        if (!removed && (params.offset ?? 0) > 0) {
          removed = true;
          events.splice(115, 5);
          const fresh = scriptedSource(clock, events.map((event) => ({ event })));
          inner.page = fresh.page.bind(fresh);
        }
        return inner.page(params);
      },
    };
    const batches = await runOnClock(clock, collect(orderEvents(source, { user: USER, fromTimestamp: sec(T0 + 5_000), pageLimit: 30, follow: false })));
    expectExactlyOnce(batches, events);
  });

  it('shrinks and grows windows over two hours of bursts, and never uses offset where time windows suffice', async () => {
    const clock = new VirtualClock(T0 + 7_200_000);
    const events: OrderEvent[] = [];
    let n = 0;
    for (let minute = 0; minute < 120; minute += 1) {
      const burst = minute % 17 === 0 ? 120 : minute % 5;
      for (let i = 0; i < burst; i += 1) events.push(makeEvent(n++, T0 + minute * 60_000 + i * 37, (['order-created', 'order-canceled', 'trade'] as const)[n % 3]));
    }
    const source = scriptedSource(clock, events.map((event) => ({ event })));
    const batches = await runOnClock(clock, collect(orderEvents(source, { user: USER, fromTimestamp: sec(T0), pageLimit: 40, follow: false })));
    expectExactlyOnce(batches, events);
    expect(source.calls.filter((call) => (call.offset ?? 0) > 0)).toHaveLength(0);
    expect(source.calls.length).toBeLessThan(130);
  });

  it('works when the server compares whole seconds, and when it caps limit lower than asked', async () => {
    for (const options of [{ compare: 'seconds' as const }, { maxLimit: 7 }]) {
      const clock = new VirtualClock(T0 + 100_000);
      const events = Array.from({ length: 300 }, (_, n) => makeEvent(n, T0 + Math.floor(n / 60) * 1_000 + (n % 60) * 10));
      const source = scriptedSource(clock, events.map((event) => ({ event })), options);
      const batches = await runOnClock(clock, collect(orderEvents(source, { user: USER, fromTimestamp: sec(T0), pageLimit: 25, follow: false })));
      expectExactlyOnce(batches, events);
    }
  });

  it('de-duplicates by transaction, type and the event id; distinct fills of one order in one transaction are kept', async () => {
    const clock = new VirtualClock(T0 + 10_000);
    const fillA = makeEvent(1, T0 + 1_000, 'trade', { orderId: '7', txN: 99, updatedSize: '200' });
    const fillB = makeEvent(2, T0 + 1_000, 'trade', { orderId: '7', txN: 99, updatedSize: '150' });
    const created = makeEvent(3, T0 + 1_000, 'order-created', { orderId: '7', txN: 99 });
    const source = scriptedSource(clock, [fillA, fillB, created, fillA, created].map((event) => ({ event })));
    const batches = await runOnClock(clock, collect(orderEvents(source, { user: USER, fromTimestamp: sec(T0), follow: false })));
    expect(keys(batches)).toHaveLength(3);
  });

  it('passes the market and event-type filters and converts amounts to human units', async () => {
    const clock = new VirtualClock(T0 + 10_000);
    const source = scriptedSource(clock, [{ event: makeEvent(1, T0 + 1_000, 'trade') }, { event: makeEvent(2, T0 + 2_000) }]);
    const [batch] = await runOnClock(clock, collect(orderEvents(source, { user: USER, market: MARKET, eventType: 'trade', fromTimestamp: sec(T0), follow: false })));
    expect(source.calls[0]).toMatchObject({ user: USER, marketAddress: MARKET, eventType: 'trade', fromTimestamp: sec(T0) });
    const amounts = batch!.events[0]!.amounts;
    expect(amounts.eventType).toBe('trade');
    if (amounts.eventType !== 'trade') return;
    expect(amounts.orderSize.toFixed()).toBe('2.5');
    expect(amounts.filledSize.toFixed()).toBe('0.5');
    expect(amounts.fillPrice.toFixed()).toBe('1.2345');
    expect(amounts.baseFilled.toFixed()).toBe('0.5');
    expect(amounts.baseFilledInUsd.toFixed()).toBe('0.61725');
  });
});

describe('orderEvents: following, cursor and resume', () => {
  /** Events arriving live over `seconds`, some many in one second, indexed up to `delayMs` late. */
  function liveEvents(seconds: number, delayMs: number): ScriptedEvent[] {
    const scripted: ScriptedEvent[] = [];
    let n = 0;
    for (let s = 0; s < seconds; s += 1) {
      const count = s % 11 === 3 ? 130 : s % 3;
      for (let i = 0; i < count; i += 1) {
        const timeMs = T0 + s * 1_000 + ((i * 7) % 1_000);
        scripted.push({ event: makeEvent(n++, timeMs, i % 4 === 0 ? 'trade' : 'order-created'), visibleAtMs: timeMs + ((n * 131) % (delayMs + 1)) });
      }
    }
    return scripted;
  }

  it('polls on the clock and delivers every live event once, late indexing within the overlap included', async () => {
    const clock = new VirtualClock(T0);
    const scripted = liveEvents(60, 2_500);
    const source = scriptedSource(clock, scripted);
    const controller = new AbortController();
    const batches: OrderEventsBatch[] = [];
    const reading = (async () => {
      for await (const batch of orderEvents(source, { user: USER, fromTimestamp: sec(T0), pageLimit: 50, overlapSec: 3, everyMs: 2_000, signal: controller.signal })) {
        batches.push(batch);
        if (clock.now() >= T0 + 80_000) controller.abort();
      }
    })();
    clock.scheduler.schedule(() => controller.abort(), 90_000);
    await runOnClock(clock, reading);
    expectExactlyOnce(batches, scripted.map((item) => item.event));
    // Every request was at least 2 s after the previous pass started: polling on the clock.
    expect(source.calls.length).toBeGreaterThan(40);
  });

  it('resumes from a persisted cursor (JSON round trip) without repeating or missing anything', async () => {
    const clock = new VirtualClock(T0 + 100_000);
    const scripted = liveEvents(90, 0);
    const source = scriptedSource(clock, scripted);
    const first: OrderEventsBatch[] = [];
    let saved: OrderEventsCursor | undefined;
    for await (const batch of orderEvents(source, { user: USER, fromTimestamp: sec(T0), pageLimit: 30, follow: false })) {
      first.push(batch);
      saved = JSON.parse(JSON.stringify(batch.cursor)) as OrderEventsCursor;
      if (first.length === 4) break;
    }
    expect(saved!.seen.length).toBeGreaterThan(0);
    const rest = await runOnClock(clock, collect(orderEvents(source, { user: USER, cursor: saved!, pageLimit: 30, follow: false })));
    expectExactlyOnce([...first, ...rest], scripted.map((item) => item.event));
  });

  it('keeps only the keys at or after the cursor (bounded memory)', async () => {
    const clock = new VirtualClock(T0 + 1_000_000);
    const events = Array.from({ length: 2_000 }, (_, n) => makeEvent(n, T0 + n * 400));
    const source = scriptedSource(clock, events.map((event) => ({ event })));
    const batches = await runOnClock(clock, collect(orderEvents(source, { user: USER, fromTimestamp: sec(T0), pageLimit: 100, overlapSec: 5, follow: false })));
    const last = batches.at(-1)!.cursor;
    expect(last.fromTimestamp).toBe(sec(T0 + 1_999 * 400) - 5);
    expect(last.seen.length).toBeLessThanOrEqual(16);
    expect(last.seen.every(([, second]) => second >= last.fromTimestamp)).toBe(true);
  });

  it('as an Observable: polls on the clock, continues after re-subscription, stops on unsubscribe', async () => {
    const clock = new VirtualClock(T0 + 5_000);
    const source = scriptedSource(clock, [{ event: makeEvent(1, T0 + 1_000) }]);
    const events$ = orderEvents$(source, { user: USER, fromTimestamp: sec(T0), everyMs: 2_000 });
    const first = runOnClock(clock, firstValueFrom(events$.pipe(take(1))));
    expect((await first).events.map((item) => item.event.eventData.orderId)).toEqual(['1']);
    source.add({ event: makeEvent(2, T0 + 6_000), visibleAtMs: T0 + 6_500 });
    source.add({ event: makeEvent(3, T0 + 9_000) });
    const next = await runOnClock(clock, firstValueFrom(events$.pipe(take(2), toArray())));
    expect(next.flatMap((batch) => batch.events.map((item) => item.event.eventData.orderId))).toEqual(['2', '3']);
    const callsAfter = source.calls.length;
    clock.advanceBy(60_000);
    expect(source.calls.length).toBe(callsAfter);
  });

  it('as an Observable: two subscribers share one poll', async () => {
    const clock = new VirtualClock(T0 + 5_000);
    const source = scriptedSource(clock, [{ event: makeEvent(1, T0 + 1_000) }]);
    const events$ = orderEvents$(source, { user: USER, fromTimestamp: sec(T0), everyMs: 2_000 });
    const seen: string[] = [];
    const a = events$.subscribe((batch) => seen.push(`a${batch.events.length}`));
    const b = events$.subscribe((batch) => seen.push(`b${batch.events.length}`));
    await settle();
    for (let i = 0; i < 5; i += 1) {
      clock.advanceBy(2_000);
      await settle();
    }
    a.unsubscribe();
    b.unsubscribe();
    expect(seen).toEqual(['a1', 'b1']);
    // One pass at start and one per 2 s: 6 requests for one reader, not 12.
    expect(source.calls).toHaveLength(6);
  });

  it('ends quietly when its signal aborts and throws a failed request', async () => {
    const clock = new VirtualClock(T0);
    const stub = stubTransport(clock, [json(400, { error: 'eventType must be one of order-created, order-canceled, trade' })]);
    const client = createOrderEventsClient(context(clock, stub.transport), { baseUrl: 'http://user.test' });
    await expect(collect(orderEvents(client, { user: USER, fromTimestamp: 0, follow: false }))).rejects.toMatchObject({
      code: 'USER_DATA_BAD_REQUEST',
      serverMessage: 'eventType must be one of order-created, order-canceled, trade',
    });
    const controller = new AbortController();
    controller.abort();
    expect(await collect(orderEvents(client, { user: USER, fromTimestamp: 0, signal: controller.signal }))).toEqual([]);
  });
});
