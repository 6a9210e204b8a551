/**
 * Request plans to signed relay requests, and back: the header (account, authNonce epoch, nonce,
 * deadline, clientOrderId, no builder), the EIP-712 signature under the trading-wallet domain of the
 * network (its `tradingWalletDomainVersion`), and the REST envelope (`requestId`, lowercase
 * `wallet`, `authorization7702: null`). The WebSocket transport sends the same request with the
 * request id as its message id.
 *
 * `clientOrderId` is the request id's 16 bytes, left-padded to 32: unique per request, and the
 * journal's request id can be read back from a signed body.
 */
import type { Address, Hex } from '../protocol/encoding.ts';
import { RelayMethod } from '../protocol/constants.ts';
import { tradingWalletDomain, type TradingWalletDomain } from '../protocol/eip712-types.ts';
import { signBatchIntent, signCancelTriggerIntent, signReplaceBySlotIntent, type IntentSigner } from '../protocol/intent-signing.ts';
import type { BatchIntent, IntentHeader, OrderIntent, ReplaceBySlotIntent } from '../protocol/intent-types.ts';
import { decodePackedOps, encodePackedOps } from '../protocol/packed-ops.ts';
import { withPayloadSignature, type RelayRestRequest } from '../protocol/relay-request.ts';
import type { CancelTrigger, Intent, OrderRequest, PlaceAndCancel, ReplaceSlots } from '../strategy/intents.ts';
import type { RequestPlan } from './intent-plan.ts';

const ZERO_ADDRESS = `0x${'00'.repeat(20)}` as Address;

export interface IntentSigningParameters {
  readonly signer: IntentSigner;
  readonly chainId: number;
  /** The network's EIP-712 trading-wallet domain version. */
  readonly domainVersion: string;
  readonly accountId: bigint;
  /** The account's signer-authorization epoch. */
  readonly authNonce: bigint;
}

/** What makes one request unique: its id, intent nonce and deadline (Unix seconds). */
export interface RequestStamp {
  readonly requestId: string;
  readonly nonce: bigint;
  readonly deadlineSec: bigint;
}

/** A request ready to be signed. */
export interface PreparedRequest {
  /** The request with an all-zero signature: what the journal's `planned` record keeps. */
  readonly unsigned: RelayRestRequest;
  /** Computes the signature: the request ready for `RelayTransport.submit`. */
  sign(): Promise<RelayRestRequest>;
}

export interface PlanSigner {
  /** The trading wallet, lowercase. */
  readonly wallet: Address;
  readonly domain: TradingWalletDomain;
  /** `plan` under `stamp`, to be signed (the journal records it first). */
  prepare(plan: RequestPlan, stamp: RequestStamp): PreparedRequest;
  /** Signs `plan` under `stamp`: the request ready for `RelayTransport.submit`. */
  sign(plan: RequestPlan, stamp: RequestStamp): Promise<RelayRestRequest>;
}

/** The signature field of an unsigned request: 65 zero bytes, which no signer produces (r = s = 0). */
export const ZERO_SIGNATURE = `0x${'00'.repeat(65)}` as Hex;

/**
 * The bytes32 clientOrderId of a request: its UUID's 16 bytes, left-padded.
 *
 * @example clientOrderIdOf('0191a1b2-…') // '0x00000000000000000000000000000000 0191a1b2…' (no space)
 */
export function clientOrderIdOf(requestId: string): Hex {
  return `0x${'0'.repeat(32)}${requestId.replaceAll('-', '').toLowerCase()}`;
}

function orderIntent(order: OrderRequest): OrderIntent {
  return {
    side: order.side,
    quantity: order.size,
    price: order.price,
    tif: order.tif,
    executionInstruction: order.executionInstruction,
    minSizeAfterBlock: order.minSizeAfterBlock,
  };
}

/**
 * The signer of one trading wallet on one network and account.
 *
 * @example
 * const signer = createPlanSigner({ signer: account, chainId: 31337, domainVersion: '1', accountId: 1n, authNonce: 0n });
 * const request = await signer.sign(plan, { requestId: ids.next(), nonce: nonces.next(), deadlineSec: 1_723_075_260n });
 */
export function createPlanSigner(params: IntentSigningParameters): PlanSigner {
  const wallet = params.signer.address.toLowerCase() as Address;
  const domain = tradingWalletDomain({ chainId: params.chainId, wallet, version: params.domainVersion });
  const { signer, accountId, authNonce } = params;
  const header = (market: Address, stamp: RequestStamp): IntentHeader => ({
    accountId,
    market: market.toLowerCase() as Address,
    authNonce,
    nonce: stamp.nonce,
    deadline: stamp.deadlineSec,
    clientOrderId: clientOrderIdOf(stamp.requestId),
    builder: ZERO_ADDRESS,
    builderFeePps: 0n,
  });
  const prepared = (request: RelayRestRequest, signature: () => Promise<Hex>): PreparedRequest => ({
    unsigned: request,
    sign: async () => withPayloadSignature(request, await signature()),
  });
  const prepare = (plan: RequestPlan, stamp: RequestStamp): PreparedRequest => {
    const unsigned = { requestId: stamp.requestId, wallet, authorization7702: null } as const;
    switch (plan.kind) {
      case 'batch': {
        const intent: BatchIntent = {
          header: header(plan.market, stamp),
          orders: plan.orders.map(orderIntent),
          cancelSlotIdxs: plan.cancelSlots,
          expectedOrderIds: plan.expectedOrderIds,
        };
        return prepared({ ...unsigned, method: RelayMethod.executeBatch, payload: { ...intent, signature: ZERO_SIGNATURE } }, () => signBatchIntent(signer, { domain, intent }));
      }
      case 'replace': {
        const intent: ReplaceBySlotIntent = {
          header: header(plan.market, stamp),
          packedOps: encodePackedOps(plan.ops),
          expectedOrderIds: plan.expectedOrderIds,
        };
        return prepared({ ...unsigned, method: RelayMethod.executeReplaceBySlotPacked, payload: { ...intent, signature: ZERO_SIGNATURE } }, () =>
          signReplaceBySlotIntent(signer, { domain, intent }),
        );
      }
      case 'cancel-trigger': {
        const intent = { accountId, authNonce, nonce: stamp.nonce, deadline: stamp.deadlineSec, triggerId: plan.triggerId.toLowerCase() as Hex };
        return prepared({ ...unsigned, method: RelayMethod.cancelTrigger, payload: { ...intent, signature: ZERO_SIGNATURE } }, () => signCancelTriggerIntent(signer, { domain, intent }));
      }
    }
  };
  return { wallet, domain, prepare, sign: (plan, stamp) => prepare(plan, stamp).sign() };
}

export function requestStampOf(request: RelayRestRequest): { readonly nonce: bigint; readonly deadlineSec: bigint } | undefined {
  switch (request.method) {
    case RelayMethod.executeBatch:
    case RelayMethod.executeReplaceBySlotPacked:
      return { nonce: request.payload.header.nonce, deadlineSec: request.payload.header.deadline };
    case RelayMethod.cancelTrigger:
      return { nonce: request.payload.nonce, deadlineSec: request.payload.deadline };
    default:
      return undefined;
  }
}

/** The plan a signed request carries (the inverse of `sign`); undefined for the signer grant. */
export function planOfRequest(request: RelayRestRequest): RequestPlan | undefined {
  switch (request.method) {
    case RelayMethod.executeBatch: {
      const { header, orders, cancelSlotIdxs, expectedOrderIds } = request.payload;
      return {
        kind: 'batch',
        market: header.market,
        cancelSlots: cancelSlotIdxs,
        expectedOrderIds,
        orders: orders.map((order) => ({
          side: order.side,
          price: order.price,
          size: order.quantity,
          tif: order.tif,
          executionInstruction: order.executionInstruction,
          minSizeAfterBlock: order.minSizeAfterBlock,
        })),
      };
    }
    case RelayMethod.executeReplaceBySlotPacked:
      return { kind: 'replace', market: request.payload.header.market, ops: decodePackedOps(request.payload.packedOps), expectedOrderIds: request.payload.expectedOrderIds };
    case RelayMethod.cancelTrigger:
      return { kind: 'cancel-trigger', triggerId: request.payload.triggerId };
    default:
      return undefined;
  }
}

/** The intent the portfolio tracks for a plan (a restored request has no strategy intent). */
export function intentOfPlan(plan: RequestPlan, purpose: string): PlaceAndCancel | ReplaceSlots | CancelTrigger {
  switch (plan.kind) {
    case 'batch':
      return { type: 'PlaceAndCancel', market: plan.market, purpose, cancelSlots: plan.cancelSlots, orders: plan.orders };
    case 'replace':
      return { type: 'ReplaceSlots', market: plan.market, purpose, ops: plan.ops };
    case 'cancel-trigger':
      return { type: 'CancelTrigger', purpose, triggerId: plan.triggerId };
  }
}

/** True for the intents the venue defines but does not support live. */
export function isTriggerCreation(intent: Intent): boolean {
  return intent.type === 'CreateBatchTrigger' || intent.type === 'CreateReplaceTrigger';
}
