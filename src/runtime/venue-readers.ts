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

/**
 * A UserDataReader of `owner`'s account on the user-data host `userUrl`.
 *
 * @example const userData = createUserDataReader(context, { userUrl: network.hosts.userUrl!, owner });
 */
export function createUserDataReader(context: ClientContext, params: { readonly userUrl: string; readonly owner: Address }): UserDataReader {
  const events = createOrderEventsClient(context, { baseUrl: params.userUrl });
  const active = createActiveOrdersClient(context, { baseUrl: params.userUrl });
  return {
    async orderEventsSince(fromMs, options = {}) {
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
    },
    async activeOrders(market, options = {}) {
      const answer = await active.activeOrders(
        { user: params.owner, marketAddress: market, limit: ACTIVE_ORDERS_LIMIT },
        options.signal === undefined ? {} : { signal: options.signal },
      );
      return answer.orders;
    },
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
