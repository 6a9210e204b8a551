/**
 * The signed intents of the relay as typed values (integers as bigint, hex as lowercase `0x`).
 * The relay schemas parse wire JSON into these; the EIP-712 hashing and signing take them.
 */
import type { Address, Hex } from './encoding.ts';
import type { ExecutionInstruction, OrderSide, TimeInForce } from './constants.ts';

/** Header shared by batch and packed-replacement intents (venue). */
export interface IntentHeader {
  /** uint40 */
  readonly accountId: bigint;
  readonly market: Address;
  /** uint256: the signer-authorization epoch of the account. */
  readonly authNonce: bigint;
  /** uint64, non-zero, increasing. */
  readonly nonce: bigint;
  /** uint64, seconds since the epoch. */
  readonly deadline: bigint;
  readonly clientOrderId: Hex;
  /** Zero address when no builder; builder and builderFeePps are both zero or both set. */
  readonly builder: Address;
  /** uint32 */
  readonly builderFeePps: bigint;
}

/** One native order of a batch (venue). */
export interface OrderIntent {
  readonly side: OrderSide;
  /** uint96 size-precision units, non-zero. */
  readonly quantity: bigint;
  /** uint32 price-precision units, non-zero, not 0xFFFFFFFF. */
  readonly price: bigint;
  readonly tif: TimeInForce;
  readonly executionInstruction: ExecutionInstruction;
  /** uint32; 0 for IOC and FOK. */
  readonly minSizeAfterBlock: bigint;
}

/** `wallet.execute_batch`: cancels first, then orders, atomically. */
export interface BatchIntent {
  readonly header: IntentHeader;
  readonly orders: readonly OrderIntent[];
  readonly cancelSlotIdxs: readonly number[];
  /** uint64, one per cancel slot: the order id now in that slot (uint64 max: the slot must be empty). */
  readonly expectedOrderIds: readonly bigint[];
}

/** `wallet.execute_replace_by_slot_packed`: 32-byte ops, one expected order id per op. */
export interface ReplaceBySlotIntent {
  readonly header: IntentHeader;
  readonly packedOps: Hex;
  readonly expectedOrderIds: readonly bigint[];
}

/** `wallet.cancel_trigger`. */
export interface CancelTriggerIntent {
  readonly accountId: bigint;
  readonly authNonce: bigint;
  readonly nonce: bigint;
  readonly deadline: bigint;
  /** Non-zero bytes32. */
  readonly triggerId: Hex;
}

/** `account_core.authorize_account_signer_by_sig`, signed by the account owner. */
export interface AuthorizeAccountSignerIntent {
  readonly account: Address;
  readonly authorizer: Address;
  readonly signer: Address;
  /** uint32 bit set of Permission. */
  readonly permissions: bigint;
  /** uint64 */
  readonly expiry: bigint;
  /** uint256 */
  readonly nonce: bigint;
  /** uint256 */
  readonly deadline: bigint;
}

/** An EIP-7702 authorization in its wire form (venue). */
export interface Authorization7702 {
  readonly authority: Address;
  readonly chainId: bigint;
  readonly delegate: Address;
  readonly nonce: bigint;
  readonly yParity: number;
  readonly r: Hex;
  readonly s: Hex;
}
