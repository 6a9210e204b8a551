/**
 * A user's active orders on one market (`GET {user_url}/api/v2/{userAddress}/user/orders/active/{marketAddress}`,
 * spec), with the spec's lowercase field names (`orderid`, `remainingsize`, …) kept as they are.
 */
import { activeOrdersResponseSchema, type ActiveOrder, type Pagination } from '../protocol/user-data.ts';
import { readActiveOrdersResponse } from '../protocol/user-data-readers.ts';
import type { CallOptions } from './market-data-source.ts';
import { describeCall, parseBody } from './response-body.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.ts';
import { DEFAULT_TIMEOUT_MS, sendRequest, type ClientContext } from './send-request.ts';
import { userDataRefusal } from './user-data-error.ts';

export interface ActiveOrdersParameters {
  /** The user (owner or signer) address, any case. */
  readonly user: string;
  /** The market contract address. */
  readonly marketAddress: string;
  /** How many orders to return (query `limit`, venue; server default 100). */
  readonly limit?: number;
}

export interface ActiveOrders {
  readonly orders: readonly ActiveOrder[];
  readonly pagination: Pagination;
  /** The server's time of the answer, ms. */
  readonly timestamp: number;
}

export interface ActiveOrdersClient {
  /** A read, retried after no answer, a 5xx or a 429. Refusals: UserDataError, HTTP_UNAVAILABLE. */
  activeOrders(params: ActiveOrdersParameters, options?: CallOptions): Promise<ActiveOrders>;
}

export interface ActiveOrdersClientParameters {
  /** `{user_url}`. */
  readonly baseUrl: string;
  readonly timeoutMs?: number;
  readonly retry?: RetryPolicy;
}

/**
 * @example
 * const client = createActiveOrdersClient(context, { baseUrl: network.hosts.userUrl });
 * const { orders } = await client.activeOrders({ user, marketAddress, limit: 62 });
 * orders[0]?.remainingsize
 */
export function createActiveOrdersClient(context: ClientContext, params: ActiveOrdersClientParameters): ActiveOrdersClient {
  const baseUrl = params.baseUrl.replace(/\/+$/, '');
  const retry = params.retry ?? DEFAULT_RETRY_POLICY;
  return {
    async activeOrders(query, options = {}) {
      const user = encodeURIComponent(query.user.toLowerCase());
      const market = encodeURIComponent(query.marketAddress.toLowerCase());
      const url = `${baseUrl}/api/v2/${user}/user/orders/active/${market}${query.limit === undefined ? '' : `?limit=${query.limit}`}`;
      const response = await sendRequest(context, {
        request: { method: 'GET', url, headers: { accept: 'application/json' } },
        idempotent: true,
        timeoutMs: options.timeoutMs ?? params.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        retry,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      const where = describeCall('GET', url);
      if (response.status !== 200) throw userDataRefusal(response, where, context.clock.now());
      const body = parseBody(response, { schema: activeOrdersResponseSchema, fast: readActiveOrdersResponse, where });
      return { orders: body.data.data, pagination: body.data.pagination, timestamp: body.timestamp };
    },
  };
}
