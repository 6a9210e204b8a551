/**
 * A user's order events, continuously, following the spec's recommended cursoring: timestamp
 * windows are the cursor, `limit` only caps a payload, and every pass starts a little before the
 * newest event already processed (the overlap), de-duplicating what it sees again.
 *
 * How one pass reads everything from the cursor to now (docs/clients.md "Order events"):
 * - it asks for windows `[lo, hi]` in Unix seconds, both ends inclusive, the first one open-ended
 *   (no `toTimestamp`); consecutive windows share their boundary second, so an event is inside some
 *   window whether the server compares whole seconds or milliseconds;
 * - a window is complete when it returns fewer events than `limit` (or than a smaller
 *   `pagination.pageSize`) and no more than `pagination.total` says exist; only complete windows
 *   are delivered, oldest first;
 * - a full window is narrowed and asked again, never paged: `order-event-windows.ts` picks the
 *   next window from what full answers said (`pagination.total` and where their page ended) and
 *   from the density of complete windows; the last window turns open-ended once it reaches now;
 * - only a window of the smallest width the API allows (`[s, s + 1]`: `from < to` is required)
 *   that is still full is read with `offset`, the last resort for many events in one second.
 *   Its pages overlap by one event, and a page whose first event was not seen before means the
 *   list moved under us (a cached or changed page): the window is read again from offset 0.
 *
 * De-duplication is by (transactionHash, eventType, the event's own id: orderId for created and
 * canceled orders; for a trade orderId with filledSize, updatedSize and fillPrice, since one order
 * may fill several times in one transaction and its remaining size differs after each fill).
 * Seen keys are kept only for seconds at or after the cursor, so memory stays bounded.
 */
import { Observable, share } from 'rxjs';
import type { OrderEventType } from '../protocol/constants.ts';
import type { OrderEvent } from '../protocol/user-data.ts';
import { clockDelay } from './clock-delay.ts';
import { ORDER_EVENTS_CACHE_MS, ORDER_EVENTS_DEFAULT_LIMIT } from '../protocol/constants.ts';
import type { OrderEventsClient, OrderEventsPage, OrderEventsPageParameters } from './order-events-client.ts';
import { orderEventAmounts, type OrderEventAmounts } from './order-event-amounts.ts';
import { createWindowPlanner, eventTimeMs } from './order-event-windows.ts';

/** Where to resume: JSON-safe, for the caller to persist after handling a batch. */
export interface OrderEventsCursor {
  /** The next pass asks from this second (inclusive). */
  readonly fromTimestamp: number;
  /** `[key, second]` of the events already delivered at or after `fromTimestamp`: not delivered again. */
  readonly seen: ReadonlyArray<readonly [string, number]>;
}

export interface ReceivedOrderEvent {
  readonly event: OrderEvent;
  /** The de-duplication key. */
  readonly key: string;
  /** `blockTimestamp` in ms since the epoch. */
  readonly timeMs: number;
  /** The amounts in human units (denomination rules). */
  readonly amounts: OrderEventAmounts;
}

export interface OrderEventsBatch {
  /** New events, oldest first; never one delivered before. */
  readonly events: readonly ReceivedOrderEvent[];
  /** Persist this once `events` are handled; resuming from it delivers nothing twice and misses nothing. */
  readonly cursor: OrderEventsCursor;
}

export interface OrderEventsOptions {
  readonly user: string;
  /** Only events of this market contract. */
  readonly market?: string;
  readonly eventType?: OrderEventType;
  /** `limit` of each request, a payload cap. Default 50 (the venue's default); at least 2. */
  readonly pageLimit?: number;
  /** How far before the newest processed event a pass starts again. Default 3 s. */
  readonly overlapSec?: number;
  /** Poll interval on the client's clock. Default 2000 ms (the server caches answers 2 s). */
  readonly everyMs?: number;
  /** Keep polling after catching up. Default true; false: one pass to now, then done. */
  readonly follow?: boolean;
  /** Most de-duplication keys kept (oldest dropped first). Default 10 000. */
  readonly maxSeen?: number;
  /** Ends the iteration (quietly) and every request in flight. */
  readonly signal?: AbortSignal;
}

/** Where to start: a second (Unix seconds, inclusive), or the cursor of an earlier batch (which wins). */
export type OrderEventsStart =
  | { readonly fromTimestamp: number; readonly cursor?: OrderEventsCursor }
  | { readonly fromTimestamp?: number; readonly cursor: OrderEventsCursor };

export type OrderEventsParameters = OrderEventsOptions & OrderEventsStart;

/**
 * The de-duplication key of an event: transactionHash, eventType and the event's own id.
 *
 * @example orderEventKey(event) // '0xab…|trade|42:5000:0:1230000000000000000'
 */
export function orderEventKey(event: OrderEvent): string {
  const prefix = `${event.transactionHash}|${event.eventType}|`;
  if (event.eventType === 'trade') {
    const { orderId, filledSize, updatedSize, fillPrice } = event.eventData;
    return `${prefix}${orderId}:${filledSize}:${updatedSize}:${fillPrice}`;
  }
  return `${prefix}${event.eventData.orderId}`;
}

const secondOf = (timeMs: number) => Math.floor(timeMs / 1000);

/** The resumable state of one reader: the cursor and the keys it has delivered. */
class CursorState {
  fromTimestamp: number;
  readonly #seen = new Map<string, number>();
  readonly #overlapSec: number;
  readonly #maxSeen: number;
  /** The reader never asks below where it was told to start. */
  readonly #floor: number;

  constructor(params: OrderEventsParameters) {
    this.#overlapSec = Math.max(0, Math.floor(params.overlapSec ?? 3));
    this.#maxSeen = Math.max(1, params.maxSeen ?? 10_000);
    const cursor = params.cursor;
    this.fromTimestamp = Math.max(0, Math.floor(cursor?.fromTimestamp ?? params.fromTimestamp ?? 0));
    this.#floor = this.fromTimestamp;
    for (const [key, second] of cursor?.seen ?? []) this.#seen.set(key, second);
  }

  /** The events not delivered before (oldest first), now marked delivered. */
  accept(events: Iterable<OrderEvent>): ReceivedOrderEvent[] {
    const fresh: ReceivedOrderEvent[] = [];
    const keys = new Set<string>();
    for (const event of events) {
      const key = orderEventKey(event);
      if (this.#seen.has(key) || keys.has(key)) continue;
      const timeMs = eventTimeMs(event);
      if (secondOf(timeMs) < this.#floor) continue;
      // May throw (a precision of 0): mark nothing seen until every event of the page converted,
      // or a retry of the reader would skip the good events before the bad one.
      fresh.push({ event, key, timeMs, amounts: orderEventAmounts(event) });
      keys.add(key);
    }
    for (const item of fresh) this.#seen.set(item.key, secondOf(item.timeMs));
    // Servers sort newest first; deliver oldest first, keeping the server's order within one time.
    fresh.reverse();
    return fresh.sort((a, b) => a.timeMs - b.timeMs);
  }

  /** After a complete window: the next pass starts `overlap` before the newest event delivered. */
  advance(newestSecond: number | undefined): void {
    if (newestSecond !== undefined) this.fromTimestamp = Math.max(this.fromTimestamp, newestSecond - this.#overlapSec, this.#floor);
    for (const [key, second] of this.#seen) if (second < this.fromTimestamp) this.#seen.delete(key);
    // Insertion order is delivery order: the oldest keys go first.
    for (const key of this.#seen.keys()) {
      if (this.#seen.size <= this.#maxSeen) break;
      this.#seen.delete(key);
    }
  }

  cursor(): OrderEventsCursor {
    return { fromTimestamp: this.fromTimestamp, seen: [...this.#seen] };
  }
}

/**
 * True when a window may hold more than this answer returned: a full payload (at our `limit`, or at
 * a smaller `pageSize` the server says it used), or more events by the server's count.
 */
function isFull(page: OrderEventsPage, limit: number, offset: number): boolean {
  const { total, pageSize } = page.pagination;
  const cap = pageSize > 0 ? Math.min(limit, pageSize) : limit;
  return page.events.length >= cap || total > offset + page.events.length;
}

function newestSecond(events: readonly OrderEvent[]): number | undefined {
  let newest: number | undefined;
  for (const event of events) {
    const second = secondOf(eventTimeMs(event));
    if (newest === undefined || second > newest) newest = second;
  }
  return newest;
}

/** Restarts of an offset-paged window whose list moved, before its pages are taken as they are. */
const MAX_PAGING_RESTARTS = 3;

/** One pass from the cursor to now, yielding a batch per complete window with new events. */
async function* pass(client: OrderEventsClient, state: CursorState, params: OrderEventsParameters): AsyncGenerator<OrderEventsBatch> {
  const limit = Math.max(2, Math.floor(params.pageLimit ?? ORDER_EVENTS_DEFAULT_LIMIT));
  const options = params.signal === undefined ? {} : { signal: params.signal };
  const base: Omit<OrderEventsPageParameters, 'fromTimestamp'> = {
    user: params.user,
    limit,
    ...(params.market === undefined ? {} : { marketAddress: params.market }),
    ...(params.eventType === undefined ? {} : { eventType: params.eventType }),
  };
  const fetchWindow = (from: number, to: number | undefined, offset: number) =>
    client.page({ ...base, fromTimestamp: from, ...(to === undefined ? {} : { toTimestamp: to }), ...(offset > 0 ? { offset } : {}) }, options);

  /** Every event of `[from, from + 1]`, by offset pages that overlap by one event. */
  const readByOffset = async (from: number): Promise<OrderEvent[]> => {
    for (let restart = 0; ; restart += 1) {
      const collected = new Map<string, OrderEvent>();
      let moved = false;
      for (let offset = 0; ; ) {
        const page = await fetchWindow(from, from + 1, offset);
        const first = page.events[0];
        if (offset > 0 && first !== undefined && !collected.has(orderEventKey(first))) moved = true;
        for (const event of page.events) collected.set(orderEventKey(event), event);
        if (!isFull(page, limit, offset) || page.events.length === 0) break;
        offset += Math.max(1, page.events.length - 1);
      }
      if (!moved || restart >= MAX_PAGING_RESTARTS) return [...collected.values()];
    }
  };

  const deliver = (events: readonly OrderEvent[]): OrderEventsBatch | undefined => {
    const fresh = state.accept(events);
    state.advance(newestSecond(events));
    return fresh.length > 0 ? { events: fresh, cursor: state.cursor() } : undefined;
  };

  const planner = createWindowPlanner({ from: state.fromTimestamp, limit });
  for (;;) {
    const window = planner.next(secondOf(client.clock.now()));
    const page = await fetchWindow(window.from, window.to, 0);
    if (!isFull(page, limit, 0)) {
      const batch = deliver(page.events);
      if (batch !== undefined) yield batch;
      if (!planner.completed(window, page.events)) return;
    } else if (planner.full(window, page, secondOf(client.clock.now())) === 'offset') {
      const events = await readByOffset(window.from);
      const batch = deliver(events);
      if (batch !== undefined) yield batch;
      planner.readByOffset(events);
    }
  }
}

/**
 * The user's order events as an async iterator of batches: one pass from the cursor to now, then
 * (with `follow`, the default) a pass every `everyMs` on the client's clock. Ends quietly when
 * `signal` aborts; a request that fails after its retries ends it with that error (resume from the
 * last batch's cursor).
 *
 * @example
 * for await (const { events, cursor } of orderEvents(client, { user, fromTimestamp: saved?.fromTimestamp ?? 0, cursor: saved })) {
 *   for (const { event, amounts } of events) handle(event, amounts);
 *   await save(cursor);
 * }
 */
export function orderEvents(client: OrderEventsClient, params: OrderEventsParameters): AsyncGenerator<OrderEventsBatch> {
  return read(client, params, new CursorState(params));
}

async function* read(client: OrderEventsClient, params: OrderEventsParameters, state: CursorState): AsyncGenerator<OrderEventsBatch> {
  const { signal } = params;
  const everyMs = params.everyMs ?? ORDER_EVENTS_CACHE_MS;
  try {
    for (;;) {
      yield* pass(client, state, params);
      if (params.follow === false) return;
      await clockDelay(client.clock, { ms: everyMs, ...(signal === undefined ? {} : { signal }) });
    }
  } catch (error) {
    if (signal?.aborted) return;
    throw error;
  }
}

/**
 * The same batches as an Observable, polling on the client's clock. Subscribers share one reader
 * (one poll however many subscribe; it stops when the last one leaves). The reader's state
 * belongs to the Observable, not to a subscription: re-subscribing (e.g. `retry` after an error)
 * goes on after the last delivered batch instead of starting over.
 *
 * @example
 * orderEvents$(client, { user, fromTimestamp: nowSec - 60 }).pipe(retry({ delay: 5_000 })).subscribe(({ events }) => …);
 */
export function orderEvents$(client: OrderEventsClient, params: OrderEventsParameters): Observable<OrderEventsBatch> {
  const state = new CursorState(params);
  return new Observable<OrderEventsBatch>((subscriber) => {
    const controller = new AbortController();
    const signal = params.signal === undefined ? controller.signal : AbortSignal.any([params.signal, controller.signal]);
    const run = async () => {
      for await (const batch of read(client, { ...params, signal }, state)) {
        if (subscriber.closed) return;
        subscriber.next(batch);
      }
      subscriber.complete();
    };
    run().catch((error: unknown) => subscriber.error(error));
    return () => controller.abort();
  }).pipe(share());
}
