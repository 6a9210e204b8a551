/**
 * The account's truth as the chain holds it (protocol-facts.md "Chain reads"): free balances from
 * the account core and the order in each maker slot from a market's order book, read with viem's
 * public client (`readContract`, `eth_call`) through the clients' transport seam, so the calls run
 * on the clock and against the local venue as against a real node.
 */
import type { PublicClient } from 'viem';
import type { Address } from '../protocol/encoding.ts';
import { MAKER_SLOTS } from '../protocol/constants.ts';
import { accountCoreReadAbi, EMPTY_SLOT_ORDER_ID, orderBookReadAbi } from '../protocol/chain-reads.ts';
import { createRpcPublicClient } from './rpc-public-client.ts';
import type { ClientContext } from './send-request.ts';

/** Reads of the slot view before one that a block interrupted is returned as it is. */
const SLOT_VIEW_ATTEMPTS = 3;

export interface ChainReader {
  /** The account's free balance of `token` (raw units: not what its open orders lock). */
  freeBalance(accountId: bigint, token: Address): Promise<bigint>;
  /** The order id in each of the account's 62 maker slots on `market`, null where empty, as of one block (when blocks allow). */
  slotOrderIds(accountId: bigint, market: Address): Promise<(bigint | null)[]>;
  /** The chain's newest block number. */
  blockNumber(): Promise<bigint>;
}

export interface ChainReaderParameters {
  /** The network's JSON-RPC endpoint. */
  readonly rpcUrl: string;
  /** The account core contract. */
  readonly accountCore: Address;
  /** Each call's timeout. Default 5 000 ms. */
  readonly timeoutMs?: number;
  /** A public client to read with instead of one over `context.transport`. */
  readonly publicClient?: Pick<PublicClient, 'readContract' | 'getBlockNumber'>;
}

/**
 * @example
 * const chain = createChainReader(context, { rpcUrl: network.hosts.rpcUrl!, accountCore });
 * const free = await chain.freeBalance(accountId, monUsdc.quoteToken.address); // raw units
 */
export function createChainReader(context: ClientContext, params: ChainReaderParameters): ChainReader {
  const client = params.publicClient ?? createRpcPublicClient(context, { rpcUrl: params.rpcUrl, ...(params.timeoutMs === undefined ? {} : { timeoutMs: params.timeoutMs }) });
  const accountCore = params.accountCore;
  return {
    freeBalance: (accountId, token) => client.readContract({ address: accountCore, abi: accountCoreReadAbi, functionName: 'getBalanceById', args: [Number(accountId), token] }),
    async slotOrderIds(accountId, market) {
      // 62 calls: one view of the slots only if no block came between the first and the last.
      for (let attempt = 1; ; attempt++) {
        const before = await client.getBlockNumber({ cacheTime: 0 });
        const slots = await Promise.all(
          Array.from({ length: MAKER_SLOTS }, (_, slot) => client.readContract({ address: market, abi: orderBookReadAbi, functionName: 'getOrderId', args: [Number(accountId), slot] })),
        );
        if (attempt === SLOT_VIEW_ATTEMPTS || (await client.getBlockNumber({ cacheTime: 0 })) === before) {
          return slots.map((orderId) => (orderId === EMPTY_SLOT_ORDER_ID ? null : orderId));
        }
      }
    },
    blockNumber: () => client.getBlockNumber({ cacheTime: 0 }),
  };
}
