/**
 * The simulated venue's minimal JSON-RPC 2.0 endpoint (`POST /rpc`, ours): `eth_chainId`,
 * `eth_blockNumber` and `eth_getTransactionReceipt`, enough for viem's public client to reconcile
 * relay transactions by receipt, and `eth_call` for the chain reads (balances, maker slots:
 * `eth-call.ts`). Batches are answered in order; notifications get no answer.
 *
 * Gas figures of a receipt are synthetic constants (the sponsor pays; nobody reads them here), and
 * logs are empty: trading events are read from the user-data endpoints, not from logs.
 */
import { numberToHex } from 'viem';
import type { Hex } from '../protocol/encoding.ts';
import type { SimVenue, TxReceipt } from '../venue/sim-venue.ts';
import type { SimFailure, SimRequest, SimResponse, SimRoute } from './http-types.ts';
import { ethCall } from './eth-call.ts';

/** JSON-RPC 2.0 error codes (JSON-RPC 2.0 specification). */
export const JsonRpcErrorCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
} as const;

/** The methods served. */
export const JSON_RPC_METHODS = ['eth_chainId', 'eth_blockNumber', 'eth_getTransactionReceipt', 'eth_call'] as const;

/** Most calls in one batch (ours). */
export const MAX_JSON_RPC_BATCH = 1000;

/** Synthetic gas figures of every receipt (ours). */
export const SIM_RECEIPT_GAS = { gasUsed: 150_000n, effectiveGasPrice: 1_000_000_000n } as const;

const EMPTY_BLOOM = `0x${'0'.repeat(512)}` as const;
/** EIP-2718 transaction types: 0x2 dynamic fee (EIP-1559), 0x4 set code (EIP-7702). */
const TX_TYPE = { DYNAMIC_FEE: '0x2', SET_CODE: '0x4' } as const;

type JsonRpcId = string | number | null;

interface JsonRpcError {
  readonly jsonrpc: '2.0';
  readonly id: JsonRpcId;
  readonly error: { readonly code: number; readonly message: string };
}

interface JsonRpcResult {
  readonly jsonrpc: '2.0';
  readonly id: JsonRpcId;
  readonly result: unknown;
}

type JsonRpcAnswer = JsonRpcError | JsonRpcResult;

function error(id: JsonRpcId, code: number, message: string): JsonRpcError {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/**
 * A receipt in its JSON-RPC form: quantities as minimal hex, `status` `0x1`/`0x0`, no logs.
 *
 * @example formatReceipt(venue.receipt(hash)!).status // '0x1'
 */
export function formatReceipt(receipt: TxReceipt): Record<string, unknown> {
  const cumulativeGasUsed = SIM_RECEIPT_GAS.gasUsed * BigInt(receipt.transactionIndex + 1);
  return {
    transactionHash: receipt.transactionHash,
    blockHash: receipt.blockHash,
    blockNumber: numberToHex(receipt.blockNumber),
    transactionIndex: numberToHex(receipt.transactionIndex),
    from: receipt.from,
    to: receipt.to,
    status: receipt.success ? '0x1' : '0x0',
    type: TX_TYPE[receipt.type],
    cumulativeGasUsed: numberToHex(cumulativeGasUsed),
    gasUsed: numberToHex(SIM_RECEIPT_GAS.gasUsed),
    effectiveGasPrice: numberToHex(SIM_RECEIPT_GAS.effectiveGasPrice),
    logs: [],
    logsBloom: EMPTY_BLOOM,
    contractAddress: null,
  };
}

function isId(value: unknown): value is JsonRpcId {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * One call -> its answer, or undefined for a notification (a valid request without `id`).
 */
function call(venue: SimVenue, chainId: number, request: unknown): JsonRpcAnswer | undefined {
  if (!isObject(request)) return error(null, JsonRpcErrorCode.INVALID_REQUEST, 'invalid request: expected an object');
  const hasId = Object.hasOwn(request, 'id');
  const id = hasId && isId(request.id) ? request.id : null;
  if (request.jsonrpc !== '2.0') return error(id, JsonRpcErrorCode.INVALID_REQUEST, 'invalid request: jsonrpc must be "2.0"');
  if (hasId && !isId(request.id)) return error(null, JsonRpcErrorCode.INVALID_REQUEST, 'invalid request: id must be a string, number or null');
  if (typeof request.method !== 'string') return error(id, JsonRpcErrorCode.INVALID_REQUEST, 'invalid request: method must be a string');
  const params = request.params;
  if (params !== undefined && typeof params !== 'object') {
    return error(id, JsonRpcErrorCode.INVALID_REQUEST, 'invalid request: params must be an array or an object');
  }
  // A notification is never answered, not even with an error (JSON-RPC 2.0); every method here only reads.
  if (!hasId) return undefined;
  const answer = (result: unknown): JsonRpcResult => ({ jsonrpc: '2.0', id, result });
  const list = Array.isArray(params) ? params : [];
  const noParams = params === undefined || params === null || (Array.isArray(params) && params.length === 0);
  switch (request.method) {
    case 'eth_chainId':
      if (!noParams) return error(id, JsonRpcErrorCode.INVALID_PARAMS, 'invalid params: eth_chainId takes none');
      return answer(numberToHex(chainId));
    case 'eth_blockNumber':
      if (!noParams) return error(id, JsonRpcErrorCode.INVALID_PARAMS, 'invalid params: eth_blockNumber takes none');
      return answer(numberToHex(venue.blockNumber()));
    case 'eth_getTransactionReceipt': {
      const hash = list[0];
      if (!Array.isArray(params) || list.length !== 1 || typeof hash !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(hash)) {
        return error(id, JsonRpcErrorCode.INVALID_PARAMS, 'invalid params: expected [transactionHash] (0x and 64 hex characters)');
      }
      const receipt = venue.receipt(hash.toLowerCase() as Hex);
      return answer(receipt === undefined ? null : formatReceipt(receipt));
    }
    case 'eth_call': {
      const result = ethCall(venue, params);
      return result.ok ? answer(result.data) : error(id, result.code, result.message);
    }
    default:
      return error(id, JsonRpcErrorCode.METHOD_NOT_FOUND, `method not found: ${request.method.slice(0, 80)}`);
  }
}

/**
 * `POST /rpc`. Always HTTP 200 with a JSON-RPC body (errors included), except a batch made only of
 * notifications, which gets HTTP 204 and no body.
 *
 * @example const route = jsonRpcRoute({ venue, chainId: 31337 });
 */
export function jsonRpcRoute(context: { readonly venue: SimVenue; readonly chainId: number }): SimRoute {
  const { venue, chainId } = context;
  const handler = (request: SimRequest): SimResponse => {
    let body: unknown;
    try {
      body = JSON.parse(request.body);
    } catch {
      return { status: 200, body: error(null, JsonRpcErrorCode.PARSE_ERROR, 'parse error: the body is not valid JSON') };
    }
    if (!Array.isArray(body)) {
      const answer = call(venue, chainId, body);
      return answer === undefined ? { status: 204, body: undefined } : { status: 200, body: answer };
    }
    if (body.length === 0) return { status: 200, body: error(null, JsonRpcErrorCode.INVALID_REQUEST, 'invalid request: empty batch') };
    if (body.length > MAX_JSON_RPC_BATCH) {
      return { status: 200, body: error(null, JsonRpcErrorCode.INVALID_REQUEST, `invalid request: a batch holds at most ${MAX_JSON_RPC_BATCH} calls`) };
    }
    const answers = body.map((item) => call(venue, chainId, item)).filter((answer): answer is JsonRpcAnswer => answer !== undefined);
    return answers.length === 0 ? { status: 204, body: undefined } : { status: 200, body: answers };
  };
  // The server's own 413 and 500 as JSON-RPC errors.
  const failureBody = (failure: SimFailure, message: string) =>
    error(null, failure === 'payload-too-large' ? JsonRpcErrorCode.INVALID_REQUEST : JsonRpcErrorCode.INTERNAL_ERROR, message);
  return { method: 'POST', pattern: '/rpc', handler, failureBody };
}
