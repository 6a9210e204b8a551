/**
 * The read side of the venue that the execution engine reconciles with: the account's order events
 * and active orders (the user-data host) and transaction receipts (JSON-RPC), over the HTTP clients.
 */
import type { Address, Hex } from '../protocol/encoding.ts';
import type { OrderEvent } from '../protocol/user-data.ts';
import { createActiveOrdersClient } from '../clients/active-orders-client.ts';
import { orderEvents } from '../clients/order-events.ts';
import { createOrderEventsClient } from '../clients/order-events-client.ts';
import type { ClientContext } from '../clients/send-request.ts';
import type { ReceiptReader, UserDataReader } from '../execution/execution-engine.ts';
import { createReceiptWatcher } from '../execution/relay-receipts.ts';

/** Orders the active-orders query asks for at most: every maker slot and then some. */
const ACTIVE_ORDERS_LIMIT = 100;

/** The user-data host's polls, as `onPollTimed` names them. */
export type UserDataEndpoint = 'orderEvents' | 'activeOrders';

export interface UserDataReaderParameters {
  readonly userUrl: string;
  readonly owner: Address;
  /** Each read's duration on the clock, ms, answered or failed (every page of an order-events read together). */
  readonly onPollTimed?: (endpoint: UserDataEndpoint, ms: number) => void;
}

/**
 * A UserDataReader of `owner`'s account on the user-data host `userUrl`.
 *
 * @example const userData = createUserDataReader(context, { userUrl: network.hosts.userUrl!, owner });
 */
export function createUserDataReader(context: ClientContext, params: UserDataReaderParameters): UserDataReader {
  const events = createOrderEventsClient(context, { baseUrl: params.userUrl });
  const active = createActiveOrdersClient(context, { baseUrl: params.userUrl });
  const { onPollTimed } = params;
  const timed = async <T>(endpoint: UserDataEndpoint, read: () => Promise<T>): Promise<T> => {
    if (onPollTimed === undefined) return read();
    const started = context.clock.now();
    try {
      return await read();
    } finally {
      onPollTimed(endpoint, context.clock.now() - started);
    }
  };
  return {
    orderEventsSince: (fromMs, options = {}) => timed('orderEvents', async () => {
      const out: OrderEvent[] = [];
      const reader = orderEvents(events, {
        user: params.owner,
        fromTimestamp: Math.floor(fromMs / 1000),
        follow: false,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      for await (const batch of reader) {
        for (const received of batch.events) if (received.timeMs >= fromMs) out.push(received.event);
      }
      return out;
    }),
    activeOrders: (market, options = {}) => timed('activeOrders', async () => {
      const answer = await active.activeOrders(
        { user: params.owner, marketAddress: market, limit: ACTIVE_ORDERS_LIMIT },
        options.signal === undefined ? {} : { signal: options.signal },
      );
      return answer.orders;
    }),
  };
}

/**
 * A ReceiptReader over the network's JSON-RPC endpoint: null while the chain has no receipt.
 *
 * @example const receipts = createReceiptReader(context, { rpcUrl: network.hosts.rpcUrl! });
 */
export function createReceiptReader(context: ClientContext, params: { readonly rpcUrl: string }): ReceiptReader {
  const watcher = createReceiptWatcher(context, { rpcUrl: params.rpcUrl });
  return {
    async receipt(txHash) {
      const found = await watcher.read(txHash as Hex);
      if (found === undefined || (found.status !== 'CONFIRMED' && found.status !== 'REVERTED')) return null;
      return { success: found.status === 'CONFIRMED', blockNumber: found.blockNumber ?? 0n };
    },
  };
}
