/**
 * One page of a user's order events (`GET {user_url}/api/v3/{userAddress}/user/order-events`, spec):
 * the raw query, newest first. Continuous reading goes through `orderEvents` (order-events.ts),
 * which windows by timestamp on top of this.
 */
import type { Clock } from '../core/clock.ts';
import type { OrderEventType } from '../protocol/constants.ts';
import { orderEventsResponseSchema, type OrderEvent, type Pagination } from '../protocol/user-data.ts';
import { readOrderEventsResponse } from '../protocol/user-data-readers.ts';
import type { CallOptions } from './market-data-source.ts';
import { describeCall, parseBody } from './response-body.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.ts';
import { DEFAULT_TIMEOUT_MS, sendRequest, type ClientContext } from './send-request.ts';
import { userDataRefusal } from './user-data-error.ts';

export interface OrderEventsPageParameters {
  /** The user (owner or signer) address, any case. */
  readonly user: string;
  /** Only events of this market (query `marketAddress`, venue). */
  readonly marketAddress?: string;
  readonly eventType?: OrderEventType;
  /** Unix seconds, inclusive. */
  readonly fromTimestamp?: number;
  /** Unix seconds, inclusive; greater than `fromTimestamp` when both are given (spec). */
  readonly toTimestamp?: number;
  /** Payload cap (server default 50). */
  readonly limit?: number;
  /** Events to skip (legacy pagination). */
  readonly offset?: number;
}

export interface OrderEventsPage {
  /** Newest first, as the server sorts them. */
  readonly events: readonly OrderEvent[];
  readonly pagination: Pagination;
}

export interface OrderEventsClient {
  /** The clock the client waits on; `orderEvents` polls on it too. */
  readonly clock: Clock;
  /** One request; a read, retried after no answer, a 5xx or a 429. Refusals: UserDataError, HTTP_UNAVAILABLE. */
  page(params: OrderEventsPageParameters, options?: CallOptions): Promise<OrderEventsPage>;
}

export interface OrderEventsClientParameters {
  /** `{user_url}`. */
  readonly baseUrl: string;
  readonly timeoutMs?: number;
  readonly retry?: RetryPolicy;
}

/**
 * @example
 * const events = createOrderEventsClient(context, { baseUrl: network.hosts.userUrl });
 * const { events: newest } = await events.page({ user, limit: 10 });
 */
export function createOrderEventsClient(context: ClientContext, params: OrderEventsClientParameters): OrderEventsClient {
  const baseUrl = params.baseUrl.replace(/\/+$/, '');
  const retry = params.retry ?? DEFAULT_RETRY_POLICY;
  // The last answer's text and page: a poll often gets the very same text again (the host caches
  // answers), which then needs no second parse. Its events are shared, its list is not.
  let last: { readonly text: string; readonly page: OrderEventsPage } | undefined;
  return {
    clock: context.clock,
    async page(query, options = {}) {
      const search = new URLSearchParams();
      const add = (name: string, value: string | number | undefined) => {
        if (value !== undefined) search.set(name, String(value));
      };
      add('limit', query.limit);
      add('offset', query.offset);
      add('eventType', query.eventType);
      add('fromTimestamp', query.fromTimestamp);
      add('toTimestamp', query.toTimestamp);
      add('marketAddress', query.marketAddress?.toLowerCase());
      const text = search.toString();
      const url = `${baseUrl}/api/v3/${encodeURIComponent(query.user.toLowerCase())}/user/order-events${text === '' ? '' : `?${text}`}`;
      const response = await sendRequest(context, {
        request: { method: 'GET', url, headers: { accept: 'application/json' } },
        idempotent: true,
        timeoutMs: options.timeoutMs ?? params.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        retry,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      const where = describeCall('GET', url);
      if (response.status !== 200) throw userDataRefusal(response, where, context.clock.now());
      if (last !== undefined && last.text === response.text) return { events: [...last.page.events], pagination: last.page.pagination };
      const body = parseBody(response, { schema: orderEventsResponseSchema, fast: readOrderEventsResponse, where });
      const page = { events: body.data.data, pagination: body.data.pagination };
      last = { text: response.text, page: { events: [...page.events], pagination: page.pagination } };
      return page;
    },
  };
}
