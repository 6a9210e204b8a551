/**
 * The user-data host: `GET /api/v3/:userAddress/user/order-events` and
 * `GET /api/v2/:userAddress/user/orders/active/:marketAddress`. The user may be an account's owner
 * or any of its granted signers (both resolve to the account); a user the venue does not know has
 * no events and no orders (200, empty). Refused queries answer 400 `{error}` naming the parameter.
 *
 * Order-event answers are cached per unique parameter combination (the user and the query with its
 * defaults applied) for `orderEventsCacheMs` on the clock, as the real service caches them (spec).
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
import type { SimFailure, SimResponse, SimRoute } from './http-types.ts';
import { firstQueryValues } from './query-values.ts';
import { withJsonText } from './route-dispatch.ts';

export interface UserDataRoutesOptions {
  readonly clock: Pick<Clock, 'now'>;
  /** How long an order-events answer is served from the cache (config `userData.orderEventsCacheMs`); 0: no cache. */
  readonly orderEventsCacheMs: number;
  /** Most cached answers kept at once; expired ones go first. Default 10 000. */
  readonly maxCachedAnswers?: number;
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
  const { clock, orderEventsCacheMs } = options;
  const maxCached = options.maxCachedAnswers ?? 10_000;
  const cache = new Map<string, CachedAnswer>();

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
      const { events, total } = accountId === undefined ? { events: [], total: 0 } : venue.orderEvents(accountId, query);
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
