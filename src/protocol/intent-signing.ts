/**
 * EIP-712 signing and recovery of the venue's intents, plus the generic typed-data helpers they
 * are built on. The typed message of each intent is derived from the typed intent of
 * `intent-types.ts`: arrays are replaced by their hashes (`intent-hashes.ts`).
 *
 * Signatures are 65 bytes `r ‖ s ‖ v`, lowercase hex, `v` 27 or 28 and low-s (s ≤ n/2), as the
 * chain's `ecrecover`-based verifiers and the relay require. Whatever a signer returns is
 * normalised to that form (v 0/1 -> 27/28, lowercase) or refused (high-s, bad length).
 *
 * Why one file of this size: digests, signing and recovery of each intent kind sit together so that
 * what is signed and what is checked cannot drift apart.
 */
import { hashTypedData, type LocalAccount, type TypedData, type TypedDataDefinition } from 'viem';
import { BaseError } from '../core/base-error.ts';
import { UINT256_MAX, UINT32_MAX, UINT40_MAX, UINT64_MAX, assertInRange } from '../core/units.ts';
import type { Address, Hex } from './encoding.ts';
import {
  authorizeAccountSignerTypes,
  batchIntentTypes,
  cancelTriggerIntentTypes,
  replaceBySlotIntentTypes,
  type AccountCoreDomain,
  type AuthorizeAccountSignerTypes,
  type BatchIntentTypes,
  type CancelTriggerIntentTypes,
  type ReplaceBySlotIntentTypes,
  type TradingWalletDomain,
} from './eip712-types.ts';
import { recoverDigestAddress } from './recover-address.ts';
import { SECP256K1_N } from './secp256k1-order.ts';
import { eip712Digest, hashStaticStruct, typeHash } from './eip712-hasher.ts';
import { hashCancelSlotIdxs, hashCancelSlotIdxsBytes, hashExpectedOrderIds, hashExpectedOrderIdsBytes, hashOrders, hashOrdersBytes, hashPackedOps, hashPackedOpsBytes } from './intent-hashes.ts';
import type {
  AuthorizeAccountSignerIntent,
  BatchIntent,
  CancelTriggerIntent,
  IntentHeader,
  ReplaceBySlotIntent,
} from './intent-types.ts';

/**
 * Anything that signs EIP-712 typed data: a viem LocalAccount (`privateKeyToAccount`), or a
 * remote signer (KMS, HSM, wallet bridge) that offers the same two members. A signer with a raw
 * `sign({ hash })` (every local key) signs the digest directly: the fast path.
 */
export type IntentSigner = Pick<LocalAccount, 'address' | 'signTypedData'> & { readonly sign?: LocalAccount['sign'] };

/** secp256k1 group order n (src/protocol/secp256k1-order.ts); n/2 is the largest low-s value (EIP-2). */
export { SECP256K1_N };
const SECP256K1_HALF_N = SECP256K1_N >> 1n;
const signaturePattern = /^0x[0-9a-fA-F]{130}$/;

function signatureError(message: string, signature: string): BaseError {
  return new BaseError('PROTOCOL_SIGNATURE_INVALID', message, {
    details: { signature: signature.slice(0, 140) },
  });
}

/**
 * Checks the scalars of a secp256k1 signature: 0 < r < n and 0 < s ≤ n/2 (low-s, EIP-2), else
 * PROTOCOL_SIGNATURE_INVALID. `shown` goes into the error details.
 */
export function assertCanonicalScalars(r: bigint, s: bigint, shown: string): void {
  if (r <= 0n || r >= SECP256K1_N) throw signatureError('signature r is out of range', shown);
  if (s <= 0n || s >= SECP256K1_N) throw signatureError('signature s is out of range', shown);
  if (s > SECP256K1_HALF_N) throw signatureError('signature is high-s (malleable); only low-s is accepted', shown);
}

/**
 * The verifier: returns the signature in lowercase when it is exactly 65 bytes of hex with
 * 0 < r < n, 0 < s ≤ n/2 (low-s) and v 27 or 28; otherwise throws PROTOCOL_SIGNATURE_INVALID.
 *
 * @example assertCanonicalSignature(signature) // '0x…1b'
 */
export function assertCanonicalSignature(signature: string): Hex {
  if (typeof signature !== 'string' || !signaturePattern.test(signature)) {
    throw signatureError('signature is not 0x and 65 bytes of hex', String(signature));
  }
  assertCanonicalScalars(BigInt(`0x${signature.slice(2, 66)}`), BigInt(`0x${signature.slice(66, 130)}`), signature);
  const v = Number.parseInt(signature.slice(130, 132), 16);
  if (v !== 27 && v !== 28) throw signatureError(`signature v is ${v}, expected 27 or 28`, signature);
  return signature.toLowerCase() as Hex;
}

/**
 * A signer's output -> the canonical form: v 0/1 becomes 27/28, hex becomes lowercase; then
 * `assertCanonicalSignature` (high-s is refused, not flipped: a signer that makes it is suspect).
 */
export function normalizeSignature(signature: string): Hex {
  if (typeof signature === 'string' && signaturePattern.test(signature)) {
    const v = signature.slice(130, 132);
    if (v === '00' || v === '01') return assertCanonicalSignature(`${signature.slice(0, 130)}${v === '00' ? '1b' : '1c'}`);
  }
  return assertCanonicalSignature(signature);
}

/** Any typed data viem can hash. */
export type AnyTypedData = TypedDataDefinition<TypedData | Record<string, unknown>, string>;

/**
 * The EIP-712 digest `keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(message))`. Data that does
 * not match its types throws PROTOCOL_SCHEMA_MISMATCH.
 */
export function typedDataDigest<const T extends TypedData | Record<string, unknown>, P extends keyof T | 'EIP712Domain'>(
  typedData: TypedDataDefinition<T, P>,
): Hex {
  try {
    return hashTypedData(typedData);
  } catch (cause) {
    throw new BaseError('PROTOCOL_SCHEMA_MISMATCH', `typed data does not match its EIP-712 types: ${(cause as Error).message.split('\n')[0]}`, {
      cause,
    });
  }
}

/**
 * Signs any typed data with `signer` and returns the canonical signature.
 *
 * @example await signTypedDataWith(account, { domain, types, primaryType: 'Mail', message })
 */
export async function signTypedDataWith<const T extends TypedData | Record<string, unknown>, P extends keyof T | 'EIP712Domain'>(
  signer: IntentSigner,
  typedData: TypedDataDefinition<T, P>,
): Promise<Hex> {
  return normalizeSignature(await signer.signTypedData(typedData));
}

export interface RecoverTypedDataParameters<T extends TypedData | Record<string, unknown>, P extends keyof T | 'EIP712Domain'> {
  readonly typedData: TypedDataDefinition<T, P>;
  readonly signature: string;
}

/**
 * The lowercase address that signed `typedData`. Refuses non-canonical signatures (see
 * `assertCanonicalSignature`).
 */
export async function recoverTypedDataSigner<const T extends TypedData | Record<string, unknown>, P extends keyof T | 'EIP712Domain'>(
  parameters: RecoverTypedDataParameters<T, P>,
): Promise<Address> {
  const signature = assertCanonicalSignature(parameters.signature);
  const digest = typedDataDigest(parameters.typedData);
  return recoverDigestAddress(digest, signature);
}

/**
 * Throws PROTOCOL_SIGNATURE_INVALID unless `signature` is canonical and recovers to `signer`.
 */
export async function verifyTypedDataSignature<const T extends TypedData | Record<string, unknown>, P extends keyof T | 'EIP712Domain'>(
  parameters: RecoverTypedDataParameters<T, P> & { readonly signer: Address },
): Promise<void> {
  const recovered = await recoverTypedDataSigner(parameters);
  if (recovered !== parameters.signer.toLowerCase()) {
    throw new BaseError('PROTOCOL_SIGNATURE_INVALID', 'signature does not recover to the expected signer', {
      details: { expected: parameters.signer.toLowerCase(), recovered },
    });
  }
}

// ---- typed messages of the intents ----------------------------------------------------------

const addressPattern = /^0x[0-9a-fA-F]{40}$/;
const bytes32Pattern = /^0x[0-9a-fA-F]{64}$/;

function checkHex(value: string, pattern: RegExp, field: string, what: string): Hex {
  if (typeof value !== 'string' || !pattern.test(value)) {
    throw new BaseError('PROTOCOL_SCHEMA_MISMATCH', `${field} is not ${what}`, {
      details: { field, value: String(value).slice(0, 100) },
    });
  }
  return value.toLowerCase() as Hex;
}

function headerMessage(header: IntentHeader) {
  return {
    accountId: Number(assertInRange(header.accountId, UINT40_MAX, 'accountId')),
    market: checkHex(header.market, addressPattern, 'market', 'a 20-byte address'),
    authNonce: assertInRange(header.authNonce, UINT256_MAX, 'authNonce'),
    nonce: assertInRange(header.nonce, UINT64_MAX, 'nonce'),
    deadline: assertInRange(header.deadline, UINT64_MAX, 'deadline'),
    clientOrderId: checkHex(header.clientOrderId, bytes32Pattern, 'clientOrderId', 'bytes32'),
    builder: checkHex(header.builder, addressPattern, 'builder', 'a 20-byte address'),
    builderFeePps: Number(assertInRange(header.builderFeePps, UINT32_MAX, 'builderFeePps')),
  };
}

/** The parameters of every trading-wallet intent function. */
export interface TradingWalletIntentParameters<I> {
  readonly domain: TradingWalletDomain;
  readonly intent: I;
}

/** The parameters of the account-core signer authorization. */
export interface AccountCoreIntentParameters<I> {
  readonly domain: AccountCoreDomain;
  readonly intent: I;
}

/** Recovery parameters: the signed intent and its signature. */
export type RecoverIntentParameters<P> = P & { readonly signature: string };

/**
 * The `BatchIntent` typed data: header, then ordersHash, cancelSlotIdxsHash, expectedOrderIdsHash.
 *
 * @example typedDataDigest(batchIntentTypedData({ domain, intent }))
 */
export function batchIntentTypedData(parameters: TradingWalletIntentParameters<BatchIntent>): TypedDataDefinition<BatchIntentTypes, 'BatchIntent'> {
  const { domain, intent } = parameters;
  return {
    domain,
    types: batchIntentTypes,
    primaryType: 'BatchIntent',
    message: {
      ...headerMessage(intent.header),
      ordersHash: hashOrders(intent.orders),
      cancelSlotIdxsHash: hashCancelSlotIdxs(intent.cancelSlotIdxs),
      expectedOrderIdsHash: hashExpectedOrderIds(intent.expectedOrderIds),
    },
  };
}

/** The `ReplaceBySlotIntent` typed data: header, then packedOpsHash, expectedOrderIdsHash. */
export function replaceBySlotIntentTypedData(
  parameters: TradingWalletIntentParameters<ReplaceBySlotIntent>,
): TypedDataDefinition<ReplaceBySlotIntentTypes, 'ReplaceBySlotIntent'> {
  const { domain, intent } = parameters;
  return {
    domain,
    types: replaceBySlotIntentTypes,
    primaryType: 'ReplaceBySlotIntent',
    message: {
      ...headerMessage(intent.header),
      packedOpsHash: hashPackedOps(intent.packedOps),
      expectedOrderIdsHash: hashExpectedOrderIds(intent.expectedOrderIds),
    },
  };
}

/** The `CancelTriggerIntent` typed data. */
export function cancelTriggerIntentTypedData(
  parameters: TradingWalletIntentParameters<CancelTriggerIntent>,
): TypedDataDefinition<CancelTriggerIntentTypes, 'CancelTriggerIntent'> {
  const { domain, intent } = parameters;
  return {
    domain,
    types: cancelTriggerIntentTypes,
    primaryType: 'CancelTriggerIntent',
    message: {
      accountId: Number(assertInRange(intent.accountId, UINT40_MAX, 'accountId')),
      authNonce: assertInRange(intent.authNonce, UINT256_MAX, 'authNonce'),
      nonce: assertInRange(intent.nonce, UINT64_MAX, 'nonce'),
      deadline: assertInRange(intent.deadline, UINT64_MAX, 'deadline'),
      triggerId: checkHex(intent.triggerId, bytes32Pattern, 'triggerId', 'bytes32'),
    },
  };
}

/** The `AuthorizeAccountSigner` typed data (account-core domain). */
export function authorizeAccountSignerTypedData(
  parameters: AccountCoreIntentParameters<AuthorizeAccountSignerIntent>,
): TypedDataDefinition<AuthorizeAccountSignerTypes, 'AuthorizeAccountSigner'> {
  const { domain, intent } = parameters;
  return {
    domain,
    types: authorizeAccountSignerTypes,
    primaryType: 'AuthorizeAccountSigner',
    message: {
      account: checkHex(intent.account, addressPattern, 'account', 'a 20-byte address'),
      authorizer: checkHex(intent.authorizer, addressPattern, 'authorizer', 'a 20-byte address'),
      signer: checkHex(intent.signer, addressPattern, 'signer', 'a 20-byte address'),
      permissions: Number(assertInRange(intent.permissions, UINT32_MAX, 'permissions')),
      expiry: assertInRange(intent.expiry, UINT64_MAX, 'expiry'),
      nonce: assertInRange(intent.nonce, UINT256_MAX, 'nonce'),
      deadline: assertInRange(intent.deadline, UINT256_MAX, 'deadline'),
    },
  };
}

// ---- fast digests: the same values as hashTypedData of the typed data above -------------------

const batchFields = batchIntentTypes.BatchIntent;
const replaceFields = replaceBySlotIntentTypes.ReplaceBySlotIntent;
const cancelTriggerFields = cancelTriggerIntentTypes.CancelTriggerIntent;
const authorizeFields = authorizeAccountSignerTypes.AuthorizeAccountSigner;
const batchTypeHash = typeHash('BatchIntent', batchFields);
const replaceTypeHash = typeHash('ReplaceBySlotIntent', replaceFields);
const cancelTriggerTypeHash = typeHash('CancelTriggerIntent', cancelTriggerFields);
const authorizeTypeHash = typeHash('AuthorizeAccountSigner', authorizeFields);

function headerValues(header: IntentHeader): (bigint | number | string)[] {
  const h = headerMessage(header);
  return [h.accountId, h.market, h.authNonce, h.nonce, h.deadline, h.clientOrderId, h.builder, h.builderFeePps];
}

/** The EIP-712 digest of a batch intent (what the wallet signs). */
export function batchIntentDigest(parameters: TradingWalletIntentParameters<BatchIntent>): Hex {
  const { domain, intent } = parameters;
  return eip712Digest(
    domain,
    hashStaticStruct(batchTypeHash, batchFields, [
      ...headerValues(intent.header),
      hashOrdersBytes(intent.orders),
      hashCancelSlotIdxsBytes(intent.cancelSlotIdxs),
      hashExpectedOrderIdsBytes(intent.expectedOrderIds),
    ]),
  );
}

/** The EIP-712 digest of a packed-replacement intent. */
export function replaceBySlotIntentDigest(parameters: TradingWalletIntentParameters<ReplaceBySlotIntent>): Hex {
  const { domain, intent } = parameters;
  return eip712Digest(
    domain,
    hashStaticStruct(replaceTypeHash, replaceFields, [
      ...headerValues(intent.header),
      hashPackedOpsBytes(intent.packedOps),
      hashExpectedOrderIdsBytes(intent.expectedOrderIds),
    ]),
  );
}

/** The EIP-712 digest of a cancel-trigger intent. */
export function cancelTriggerIntentDigest(parameters: TradingWalletIntentParameters<CancelTriggerIntent>): Hex {
  const { domain } = parameters;
  const m = cancelTriggerIntentTypedData(parameters).message;
  return eip712Digest(domain, hashStaticStruct(cancelTriggerTypeHash, cancelTriggerFields, [m.accountId, m.authNonce, m.nonce, m.deadline, m.triggerId]));
}

/** The EIP-712 digest of a signer authorization (account-core domain). */
export function authorizeAccountSignerDigest(parameters: AccountCoreIntentParameters<AuthorizeAccountSignerIntent>): Hex {
  const { domain } = parameters;
  const m = authorizeAccountSignerTypedData(parameters).message;
  return eip712Digest(
    domain,
    hashStaticStruct(authorizeTypeHash, authorizeFields, [m.account, m.authorizer, m.signer, m.permissions, m.expiry, m.nonce, m.deadline]),
  );
}

/**
 * Signs a digest: with the signer's raw `sign` when it has one (a local key: one secp256k1
 * signature, no generic typed-data encoding), else through its `signTypedData` (remote signers
 * show the user what they sign).
 */
async function signIntent(signer: IntentSigner, digest: Hex, typedData: () => AnyTypedData): Promise<Hex> {
  if (signer.sign) return normalizeSignature(await signer.sign({ hash: digest }));
  return signTypedDataWith(signer, typedData());
}

async function recoverDigestSigner(digest: Hex, signature: string): Promise<Address> {
  return recoverDigestAddress(digest, assertCanonicalSignature(signature));
}

// ---- sign and recover, per intent ------------------------------------------------------------

/**
 * Signs a `wallet.execute_batch` intent.
 *
 * @example const signature = await signBatchIntent(account, { domain: tradingWalletDomain({ chainId, wallet }), intent })
 */
export function signBatchIntent(signer: IntentSigner, parameters: TradingWalletIntentParameters<BatchIntent>): Promise<Hex> {
  return signIntent(signer, batchIntentDigest(parameters), () => batchIntentTypedData(parameters));
}

/** The lowercase address that signed a batch intent. */
export function recoverBatchIntentSigner(parameters: RecoverIntentParameters<TradingWalletIntentParameters<BatchIntent>>): Promise<Address> {
  return recoverDigestSigner(batchIntentDigest(parameters), parameters.signature);
}

/** Signs a `wallet.execute_replace_by_slot_packed` intent. */
export function signReplaceBySlotIntent(signer: IntentSigner, parameters: TradingWalletIntentParameters<ReplaceBySlotIntent>): Promise<Hex> {
  return signIntent(signer, replaceBySlotIntentDigest(parameters), () => replaceBySlotIntentTypedData(parameters));
}

/** The lowercase address that signed a packed-replacement intent. */
export function recoverReplaceBySlotIntentSigner(
  parameters: RecoverIntentParameters<TradingWalletIntentParameters<ReplaceBySlotIntent>>,
): Promise<Address> {
  return recoverDigestSigner(replaceBySlotIntentDigest(parameters), parameters.signature);
}

/** Signs a `wallet.cancel_trigger` intent. */
export function signCancelTriggerIntent(signer: IntentSigner, parameters: TradingWalletIntentParameters<CancelTriggerIntent>): Promise<Hex> {
  return signIntent(signer, cancelTriggerIntentDigest(parameters), () => cancelTriggerIntentTypedData(parameters));
}

/** The lowercase address that signed a cancel-trigger intent. */
export function recoverCancelTriggerIntentSigner(
  parameters: RecoverIntentParameters<TradingWalletIntentParameters<CancelTriggerIntent>>,
): Promise<Address> {
  return recoverDigestSigner(cancelTriggerIntentDigest(parameters), parameters.signature);
}

/** Signs an `account_core.authorize_account_signer_by_sig` grant (signed by the account owner). */
export function signAuthorizeAccountSigner(
  signer: IntentSigner,
  parameters: AccountCoreIntentParameters<AuthorizeAccountSignerIntent>,
): Promise<Hex> {
  return signIntent(signer, authorizeAccountSignerDigest(parameters), () => authorizeAccountSignerTypedData(parameters));
}

/** The lowercase address that signed a signer authorization. */
export function recoverAuthorizeAccountSignerSigner(
  parameters: RecoverIntentParameters<AccountCoreIntentParameters<AuthorizeAccountSignerIntent>>,
): Promise<Address> {
  return recoverDigestSigner(authorizeAccountSignerDigest(parameters), parameters.signature);
}
