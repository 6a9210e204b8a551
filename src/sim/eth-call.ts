/**
 * `eth_call` on the local venue's JSON-RPC route: the chain reads of protocol-facts.md ("Chain
 * reads"), answered from the venue's state after its newest block.
 *
 * - `to` the account core: `getBalanceById(accountId, token)`, the free balance.
 * - `to` a market: `getOrderId(accountId, slotIdx)`, the slot's order id (uint64 max when empty).
 * - `to` any other address: `0x`, as a node answers a call to an address without code.
 * - A selector the contract does not have, or arguments its ABI decoder refuses (a uint40 or uint8
 *   out of range, short calldata), or a slot index past the 62 maker slots: a reverted call
 *   (error code 3, `execution reverted`), as a real node answers it.
 * - Block: `latest`, `pending`, `safe`, `finalized` and the newest block's number read the current
 *   state (blocks are final at once here); older blocks are refused (-32000, the local venue keeps
 *   no historical state) and later ones are not found (-32000 `header not found`), as geth answers.
 */
import { decodeFunctionData, encodeFunctionData, encodeFunctionResult, type Abi, type Hex as ViemHex } from 'viem';
import { MAKER_SLOTS } from '../protocol/constants.ts';
import type { Address } from '../protocol/encoding.ts';
import { accountCoreReadAbi, EMPTY_SLOT_ORDER_ID, orderBookReadAbi } from '../protocol/chain-reads.ts';
import type { SimVenue } from '../venue/sim-venue.ts';

/** What a call answers: its return data, or a JSON-RPC error. */
export type EthCallAnswer = { readonly ok: true; readonly data: string } | { readonly ok: false; readonly code: number; readonly message: string };

/** JSON-RPC error codes of `eth_call` failures (geth's). */
export const ETH_CALL_ERROR = { REVERTED: 3, SERVER: -32000, INVALID_PARAMS: -32602 } as const;

const CURRENT_TAGS = new Set(['latest', 'pending', 'safe', 'finalized']);
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const CALLDATA = /^0x(?:[0-9a-fA-F]{2})*$/;
const BLOCK_NUMBER = /^0x(?:0|[1-9a-fA-F][0-9a-fA-F]*)$/;

const reverted: EthCallAnswer = { ok: false, code: ETH_CALL_ERROR.REVERTED, message: 'execution reverted' };
const invalid = (message: string): EthCallAnswer => ({ ok: false, code: ETH_CALL_ERROR.INVALID_PARAMS, message: `invalid params: ${message}` });

/** The block a call reads, as a problem when it is not the current state. */
function blockProblem(venue: SimVenue, block: unknown): EthCallAnswer | undefined {
  if (block === undefined || (typeof block === 'string' && CURRENT_TAGS.has(block))) return undefined;
  if (block === 'earliest') return { ok: false, code: ETH_CALL_ERROR.SERVER, message: 'historical state not available: the local venue keeps the newest state only' };
  if (typeof block !== 'string' || !BLOCK_NUMBER.test(block)) return invalid('the block is a tag (latest, pending, safe, finalized) or a block number in hex');
  const number = BigInt(block);
  const newest = venue.blockNumber();
  if (number > newest) return { ok: false, code: ETH_CALL_ERROR.SERVER, message: 'header not found' };
  if (number < newest) return { ok: false, code: ETH_CALL_ERROR.SERVER, message: 'historical state not available: the local venue keeps the newest state only' };
  return undefined;
}

/**
 * The arguments of a call to a view of `abi`, or undefined where Solidity's ABI decoder reverts: an
 * unknown selector, short calldata, or a word with bits its type does not have (viem's decoder
 * reads a uint40 or an address from its word without checking the rest, so the words are encoded
 * again and compared; bytes past the arguments are ignored, as Solidity ignores them).
 */
function decodeStrict(abi: Abi, data: ViemHex): readonly unknown[] | undefined {
  try {
    const decoded = decodeFunctionData({ abi, data });
    const again = encodeFunctionData({ abi, functionName: decoded.functionName, args: decoded.args });
    return decoded.args !== undefined && data.startsWith(again.toLowerCase()) ? decoded.args : undefined;
  } catch {
    return undefined;
  }
}

function accountCoreCall(venue: SimVenue, data: ViemHex): EthCallAnswer {
  const args = decodeStrict(accountCoreReadAbi, data);
  if (args === undefined) return reverted;
  const [accountId, token] = args as readonly [number, Address];
  const balance = venue.freeBalance(BigInt(accountId), token.toLowerCase() as Address);
  return { ok: true, data: encodeFunctionResult({ abi: accountCoreReadAbi, functionName: 'getBalanceById', result: balance }) };
}

function orderBookCall(venue: SimVenue, market: Address, data: ViemHex): EthCallAnswer {
  const args = decodeStrict(orderBookReadAbi, data);
  if (args === undefined) return reverted;
  const [accountId, slot] = args as readonly [number, number];
  if (slot >= MAKER_SLOTS) return reverted;
  const orderId = venue.slotOrderId(BigInt(accountId), market, slot) ?? EMPTY_SLOT_ORDER_ID;
  return { ok: true, data: encodeFunctionResult({ abi: orderBookReadAbi, functionName: 'getOrderId', result: orderId }) };
}

/**
 * One `eth_call` with its params (`[call, block?]`).
 *
 * @example ethCall(venue, [{ to: accountCore, data }, 'latest']) // { ok: true, data: '0x…' }
 */
export function ethCall(venue: SimVenue, params: unknown): EthCallAnswer {
  if (!Array.isArray(params) || params.length < 1 || params.length > 3) return invalid('expected [call, block?]');
  const [call, block] = params as [unknown, unknown];
  if (typeof call !== 'object' || call === null || Array.isArray(call)) return invalid('the call is an object with to and data');
  const { to, data, input } = call as Record<string, unknown>;
  if (typeof to !== 'string' || !ADDRESS.test(to)) return invalid('to must be an address (0x and 40 hex digits)');
  const calldata = data ?? input ?? '0x';
  if (typeof calldata !== 'string' || !CALLDATA.test(calldata)) return invalid('data must be hex bytes');
  if (data !== undefined && input !== undefined && data !== input) return invalid('data and input differ');
  const problem = blockProblem(venue, block);
  if (problem !== undefined) return problem;
  const target = to.toLowerCase() as Address;
  if (target === venue.info().contracts.accountCore) return accountCoreCall(venue, calldata.toLowerCase() as ViemHex);
  if (venue.marketByAddress(target) !== undefined) return orderBookCall(venue, target, calldata.toLowerCase() as ViemHex);
  return { ok: true, data: '0x' };
}
