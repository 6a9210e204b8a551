/**
 * The user-data host: `GET /api/v3/:userAddress/user/order-events` and
 * `GET /api/v2/:userAddress/user/orders/active/:marketAddress`. The user may be an account's owner
 * or any of its granted signers (both resolve to the account); a user the venue does not know has
 * no events and no orders (200, empty). Refused queries answer 400 `{error}` naming the parameter.
 *
 * Order-event answers are cached per unique parameter combination (the user and the query with its
 * defaults applied) for `orderEventsCacheMs` on the clock, as the real service caches them (spec).
 *
 * Faults (asked of the venue's fault model, fault-model.ts): an order event is shown only from its
 * block time + the standing `orderEventsDelayMs` + its own one-shot delay, as a lagging indexer would
 * show it (its timestamp unchanged); until then answers leave it out, `total` and offsets too. The
 * one-shot delays of `delay-order-events` go to the events readers come upon: on a fresh (uncached)
 * answer while such delays wait, the account's events not looked at before are taken oldest first,
 * and each of a block at or after the moment the action was applied takes the next delay. Events of
 * accounts no one reads (the background flow's) never take one.
 */
import type { z } from 'zod';
import type { Clock } from '../core/clock.ts';
import { NO_MATCH, type FastReader } from '../protocol/fast-reader.ts';
import type { UserDataErrorBody } from '../protocol/error-bodies.ts';
import {
  activeOrdersPathSchema,
  activeOrdersQuerySchema,
  orderEventsPathSchema,
  orderEventsQuerySchema,
  userDataQueryErrorBody,
  type ActiveOrdersResponse,
  type OrderEvent,
  type OrderEventsQuery,
  type OrderEventsResponse,
} from '../protocol/user-data.ts';
import { readOrderEventsPath, readOrderEventsQuery } from '../protocol/user-data-readers.ts';
import type { SimVenue } from '../venue/sim-venue.ts';
import type { OrderEventFaultReader } from './fault-model.ts';
import type { SimFailure, SimResponse, SimRoute } from './http-types.ts';
import { firstQueryValues } from './query-values.ts';
import { withJsonText } from './route-dispatch.ts';

export interface UserDataRoutesOptions {
  readonly clock: Pick<Clock, 'now'>;
  /** How long an order-events answer is served from the cache (config `userData.orderEventsCacheMs`); 0: no cache. */
  readonly orderEventsCacheMs: number;
  /** Most cached answers kept at once; expired ones go first. Default 10 000. */
  readonly maxCachedAnswers?: number;
  /** When order events may be shown (`orderEventsDelayMs`, `delay-order-events`). Default: every event at once. */
  readonly faults?: OrderEventFaultReader;
}

/** What the order-event faults keep per account. */
interface AccountEvents {
  /** The newest event looked at for `delay-order-events` (events are the venue's same objects every time). */
  newest: OrderEvent | undefined;
  /** Events with a one-shot delay not yet over: the delay, ms after their block. */
  readonly delayed: Map<OrderEvent, number>;
}

/** An event's block time, ms. */
function blockTimeMs(event: OrderEvent): number {
  return Date.parse(event.blockTimestamp);
}

/** The spec's body of a server failure on the user-data host. */
function userFailureBody(failure: SimFailure, message: string): UserDataErrorBody {
  return { error: failure === 'internal-error' ? 'internal server error' : message };
}

function badRequest(error: string): SimResponse {
  return { status: 400, body: { error } satisfies UserDataErrorBody };
}

/** The normalised parameter combination of an order-events request: same key, same answer. */
function cacheKey(user: string, query: OrderEventsQuery): string {
  return JSON.stringify([
    user,
    query.limit,
    query.offset,
    query.eventType ?? null,
    query.fromTimestamp ?? null,
    query.toTimestamp ?? null,
    query.marketAddress ?? null,
  ]);
}

interface CachedAnswer {
  readonly expiresAtMs: number;
  readonly body: OrderEventsResponse;
}

/** The JSON text of each event the venue has shown (its events are the same objects every time). */
const eventTexts = new WeakMap<OrderEvent, string>();

function eventJson(event: OrderEvent): string {
  let text = eventTexts.get(event);
  if (text === undefined) {
    text = JSON.stringify(event);
    eventTexts.set(event, text);
  }
  return text;
}

/** The request's value by the fast reader, or by the schema (which names what is wrong in a 400). */
function parseOr400<T>(value: unknown, fast: FastReader<T>, schema: z.ZodType<T, unknown>): T | SimResponse {
  const read = fast(value);
  if (read !== NO_MATCH) return read;
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : badRequest(userDataQueryErrorBody(parsed.error).error);
}

/**
 * The two user-data routes over `venue`.
 *
 * @example userDataRoutes(venue, { clock, orderEventsCacheMs: config.userData.orderEventsCacheMs })
 */
export function userDataRoutes(venue: SimVenue, options: UserDataRoutesOptions): SimRoute[] {
  const { clock, orderEventsCacheMs, faults } = options;
  const maxCached = options.maxCachedAnswers ?? 10_000;
  const cache = new Map<string, CachedAnswer>();
  const accounts = new Map<bigint, AccountEvents>();

  /**
   * Gives waiting `delay-order-events` delays to the account's events not looked at before, oldest
   * first. Only events of the second the oldest waiting action was applied in, or later, are read:
   * older ones can take no delay, now or later (actions wait in the order applied).
   */
  const takeDelays = (fault: OrderEventFaultReader, accountId: bigint, account: AccountEvents, fromMs: number): void => {
    // Newest first: the fresh ones are those before the newest one looked at last time.
    const { events } = venue.orderEvents(accountId, { limit: Number.MAX_SAFE_INTEGER, offset: 0, fromTimestamp: Math.floor(fromMs / 1000) });
    const seen = account.newest === undefined ? -1 : events.indexOf(account.newest);
    const fresh = seen < 0 ? events.length : seen;
    if (fresh > 0) account.newest = events[0];
    for (let i = fresh - 1; i >= 0 && fault.orderEventDelaysFromMs() !== undefined; i--) {
      const event = events[i]!;
      const delayMs = fault.orderEventDelay(blockTimeMs(event));
      if (delayMs !== undefined && delayMs > 0) account.delayed.set(event, delayMs);
    }
  };

  /**
   * The events of the query readers may see now, when the faults hide some; undefined when none is
   * hidden (the venue's answer stands).
   */
  const visibleEvents = (accountId: bigint, query: OrderEventsQuery, now: number): { readonly events: OrderEvent[]; readonly total: number } | undefined => {
    if (faults === undefined) return undefined;
    let account = accounts.get(accountId);
    const fromMs = faults.orderEventDelaysFromMs();
    if (fromMs !== undefined) {
      if (account === undefined) {
        account = { newest: undefined, delayed: new Map() };
        accounts.set(accountId, account);
      }
      takeDelays(faults, accountId, account, fromMs);
    }
    const lagMs = faults.orderEventsDelayMs();
    if (account !== undefined) {
      for (const [event, delayMs] of account.delayed) if (blockTimeMs(event) + lagMs + delayMs <= now) account.delayed.delete(event);
    }
    const delayed = account?.delayed;
    if (lagMs <= 0 && (delayed === undefined || delayed.size === 0)) return undefined;
    const all = venue.orderEvents(accountId, { ...query, limit: Number.MAX_SAFE_INTEGER, offset: 0 }).events;
    const shown = all.filter((event) => blockTimeMs(event) + lagMs + (delayed?.get(event) ?? 0) <= now);
    return { events: shown.slice(query.offset, query.offset + query.limit), total: shown.length };
  };

  const remember = (key: string, body: OrderEventsResponse, now: number): void => {
    if (orderEventsCacheMs <= 0) return;
    if (cache.size >= maxCached) {
      for (const [old, answer] of cache) if (answer.expiresAtMs <= now) cache.delete(old);
      // Still full of live answers: drop the oldest (Map keeps insertion order).
      if (cache.size >= maxCached) cache.delete(cache.keys().next().value!);
    }
    cache.set(key, { expiresAtMs: now + orderEventsCacheMs, body });
  };

  const orderEvents: SimRoute = {
    method: 'GET',
    pattern: '/api/v3/:userAddress/user/order-events',
    failureBody: userFailureBody,
    handler(request) {
      const path = parseOr400(request.params, readOrderEventsPath, orderEventsPathSchema);
      if ('status' in path) return path;
      const query = parseOr400(firstQueryValues(request.query), readOrderEventsQuery, orderEventsQuerySchema);
      if ('status' in query) return query;

      const now = clock.now();
      const key = cacheKey(path.userAddress, query);
      const cached = cache.get(key);
      if (cached !== undefined && cached.expiresAtMs > now) return { status: 200, body: cached.body };

      const accountId = venue.resolveAccount(path.userAddress);
      const { events, total } =
        accountId === undefined ? { events: [], total: 0 } : (visibleEvents(accountId, query, now) ?? venue.orderEvents(accountId, query));
      const { limit, offset } = query;
      const pagination = { total, page: Math.floor(offset / limit) + 1, pageSize: limit };
      // Serialised here from each event's cached JSON: the same events are asked for again and again.
      const text = `{"data":{"data":[${events.map(eventJson).join(',')}],"pagination":${JSON.stringify(pagination)}}}`;
      const body = withJsonText<OrderEventsResponse>({ data: { data: events, pagination } }, text);
      remember(key, body, now);
      return { status: 200, body };
    },
  };

  const activeOrders: SimRoute = {
    method: 'GET',
    pattern: '/api/v2/:userAddress/user/orders/active/:marketAddress',
    failureBody: userFailureBody,
    handler(request) {
      const path = activeOrdersPathSchema.safeParse(request.params);
      if (!path.success) return badRequest(userDataQueryErrorBody(path.error).error);
      const query = activeOrdersQuerySchema.safeParse(firstQueryValues(request.query));
      if (!query.success) return badRequest(userDataQueryErrorBody(query.error).error);
      const market = venue.marketByAddress(path.data.marketAddress);
      if (market === undefined) return badRequest(`marketAddress: unknown market ${path.data.marketAddress}`);

      const accountId = venue.resolveAccount(path.data.userAddress);
      // Every active order, so `total` counts them all; at most 62 slots per account and market.
      const all = accountId === undefined ? [] : venue.activeOrders(accountId, market, Number.MAX_SAFE_INTEGER);
      const { limit } = query.data;
      const body: ActiveOrdersResponse = {
        success: true,
        code: 0,
        timestamp: clock.now(),
        data: { data: all.slice(0, limit), pagination: { total: all.length, page: 1, pageSize: limit } },
      };
      return { status: 200, body };
    },
  };

  return [orderEvents, activeOrders];
}
