/**
 * The venue's chain reads (protocol-facts.md "Chain reads"): what no REST API publishes, read with
 * `eth_call` from the contracts.
 *
 * - The account core's `getBalanceById(uint40 accountId, address token) returns (uint256)`: the
 *   account's free balance of `token` in raw token units (not what its open orders lock).
 * - A market's order book `getOrderId(uint40 accountId, uint8 slotIdx) returns (uint64)`: the order
 *   in that maker slot, `EMPTY_SLOT_ORDER_ID` (uint64 max) when the slot is empty.
 *
 * One ABI, used by the local venue to answer the calls and by the clients to make them, so both
 * sides encode the same bytes.
 */
import { UINT64_MAX } from '../core/units.ts';

/** The account core's balance view. */
export const accountCoreReadAbi = [
  {
    type: 'function',
    name: 'getBalanceById',
    stateMutability: 'view',
    inputs: [
      { name: 'accountId', type: 'uint40' },
      { name: 'token', type: 'address' },
    ],
    outputs: [{ name: '', type: 'uint256' }],
  },
] as const;

/** A market order book's slot view. */
export const orderBookReadAbi = [
  {
    type: 'function',
    name: 'getOrderId',
    stateMutability: 'view',
    inputs: [
      { name: 'accountId', type: 'uint40' },
      { name: 'slotIdx', type: 'uint8' },
    ],
    outputs: [{ name: '', type: 'uint64' }],
  },
] as const;

/** What `getOrderId` returns for an empty slot. */
export const EMPTY_SLOT_ORDER_ID = UINT64_MAX;
