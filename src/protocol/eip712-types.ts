/**
 * The EIP-712 typed-data definitions of the venue's signed intents and their domains (venue; see
 * docs/protocol.md "EIP-712 signing"). Field names, types and order are part of the signature: never
 * reorder them.
 */
import { BaseError } from '../core/base-error.ts';
import type { Address } from './encoding.ts';

/** Domain name of every trading-wallet intent (venue). */
export const TRADING_WALLET_DOMAIN_NAME = 'KuruTradingWallet';
/** Trading-wallet domain version of the venue's first contracts; newer contracts use "2" (venue). */
export const DEFAULT_TRADING_WALLET_DOMAIN_VERSION = '1';
/** Domain name and version of the account-core signer authorization (venue). */
export const ACCOUNT_CORE_DOMAIN_NAME = 'KuruAccountCore';
export const ACCOUNT_CORE_DOMAIN_VERSION = '1';

/** An EIP-712 domain with the four fields the venue uses. `verifyingContract` is lowercase. */
export interface Eip712Domain<Name extends string = string> {
  readonly name: Name;
  readonly version: string;
  readonly chainId: number;
  readonly verifyingContract: Address;
}

/**
 * Domain of `BatchIntent`, `ReplaceBySlotIntent` and `CancelTriggerIntent`.
 *
 * @useDeclaredType
 */
export type TradingWalletDomain = Eip712Domain<typeof TRADING_WALLET_DOMAIN_NAME>;
/**
 * Domain of `AuthorizeAccountSigner`.
 *
 * @useDeclaredType
 */
export type AccountCoreDomain = Eip712Domain<typeof ACCOUNT_CORE_DOMAIN_NAME>;

export interface TradingWalletDomainParameters {
  readonly chainId: number;
  /** The trading wallet (the 7702-delegated EOA): it is its own verifying contract. */
  readonly wallet: Address;
  /** Per network: "1" (default) or "2" for the venue's newer contracts. */
  readonly version?: string;
}

export interface AccountCoreDomainParameters {
  readonly chainId: number;
  /** The account-core contract of the network. */
  readonly accountCore: Address;
}

const addressPattern = /^0x[0-9a-fA-F]{40}$/;

function checkDomainInputs(chainId: number, contract: string, field: string): Address {
  if (!Number.isSafeInteger(chainId) || chainId <= 0) {
    throw new BaseError('PROTOCOL_SCHEMA_MISMATCH', `EIP-712 domain chainId must be a positive safe integer, got ${chainId}`, {
      details: { chainId },
    });
  }
  if (!addressPattern.test(contract)) {
    throw new BaseError('PROTOCOL_SCHEMA_MISMATCH', `EIP-712 domain ${field} is not a 20-byte address`, {
      details: { [field]: contract.slice(0, 100) },
    });
  }
  return contract.toLowerCase() as Address;
}

/**
 * The trading-wallet domain: `{name: "KuruTradingWallet", version, chainId, verifyingContract: wallet}`.
 *
 * @example tradingWalletDomain({ chainId: 10143, wallet: '0xe05f…', version: '2' })
 */
export function tradingWalletDomain(parameters: TradingWalletDomainParameters): TradingWalletDomain {
  const { chainId, wallet, version = DEFAULT_TRADING_WALLET_DOMAIN_VERSION } = parameters;
  const verifyingContract = checkDomainInputs(chainId, wallet, 'wallet');
  if (version.length === 0) {
    throw new BaseError('PROTOCOL_SCHEMA_MISMATCH', 'EIP-712 domain version must not be empty');
  }
  return { name: TRADING_WALLET_DOMAIN_NAME, version, chainId, verifyingContract };
}

/**
 * The account-core domain: `{name: "KuruAccountCore", version: "1", chainId, verifyingContract: accountCore}`.
 *
 * @example accountCoreDomain({ chainId: 143, accountCore: '0x…' })
 */
export function accountCoreDomain(parameters: AccountCoreDomainParameters): AccountCoreDomain {
  const verifyingContract = checkDomainInputs(parameters.chainId, parameters.accountCore, 'accountCore');
  return { name: ACCOUNT_CORE_DOMAIN_NAME, version: ACCOUNT_CORE_DOMAIN_VERSION, chainId: parameters.chainId, verifyingContract };
}

/** The eight header fields shared by `BatchIntent` and `ReplaceBySlotIntent`, in order. */
export const intentHeaderFields = [
  { name: 'accountId', type: 'uint40' },
  { name: 'market', type: 'address' },
  { name: 'authNonce', type: 'uint256' },
  { name: 'nonce', type: 'uint64' },
  { name: 'deadline', type: 'uint64' },
  { name: 'clientOrderId', type: 'bytes32' },
  { name: 'builder', type: 'address' },
  { name: 'builderFeePps', type: 'uint32' },
] as const;

/** `BatchIntent` (venue). */
export const batchIntentTypes = {
  BatchIntent: [
    ...intentHeaderFields,
    { name: 'ordersHash', type: 'bytes32' },
    { name: 'cancelSlotIdxsHash', type: 'bytes32' },
    { name: 'expectedOrderIdsHash', type: 'bytes32' },
  ],
} as const;

/** `ReplaceBySlotIntent` (venue). */
export const replaceBySlotIntentTypes = {
  ReplaceBySlotIntent: [
    ...intentHeaderFields,
    { name: 'packedOpsHash', type: 'bytes32' },
    { name: 'expectedOrderIdsHash', type: 'bytes32' },
  ],
} as const;

/** `CancelTriggerIntent` (venue). */
export const cancelTriggerIntentTypes = {
  CancelTriggerIntent: [
    { name: 'accountId', type: 'uint40' },
    { name: 'authNonce', type: 'uint256' },
    { name: 'nonce', type: 'uint64' },
    { name: 'deadline', type: 'uint64' },
    { name: 'triggerId', type: 'bytes32' },
  ],
} as const;

/** `AuthorizeAccountSigner`, in the account-core domain (venue). */
export const authorizeAccountSignerTypes = {
  AuthorizeAccountSigner: [
    { name: 'account', type: 'address' },
    { name: 'authorizer', type: 'address' },
    { name: 'signer', type: 'address' },
    { name: 'permissions', type: 'uint32' },
    { name: 'expiry', type: 'uint64' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

export type BatchIntentTypes = typeof batchIntentTypes;
export type ReplaceBySlotIntentTypes = typeof replaceBySlotIntentTypes;
export type CancelTriggerIntentTypes = typeof cancelTriggerIntentTypes;
export type AuthorizeAccountSignerTypes = typeof authorizeAccountSignerTypes;
