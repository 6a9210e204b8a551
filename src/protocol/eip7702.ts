/**
 * EIP-7702 authorization of the trading wallet's delegation (venue; EIP-7702):
 * digest = keccak256(0x05 ‖ rlp([chainId, delegate, nonce])), integers as minimal big-endian RLP
 * strings (zero is the empty string), `delegate` as its 20 bytes. This is the same rule as viem's
 * `hashAuthorization` (a test keeps the two in step).
 *
 * The wire form is `{authority, chainId, delegate, nonce, yParity, r, s}` (`Authorization7702`),
 * `authority` = the envelope `wallet`, r and s exactly 32 bytes of lowercase hex, s low.
 */
import { concatHex, keccak256, toRlp, type LocalAccount } from 'viem';
import { recoverDigestAddress } from './recover-address.ts';
import { BaseError } from '../core/base-error.ts';
import { UINT256_MAX, UINT64_MAX, assertInRange } from '../core/units.ts';
import { toHexBytes, type Address, type Hex } from './encoding.ts';
import type { Authorization7702 } from './intent-types.ts';
import { assertCanonicalScalars } from './intent-signing.ts';

/** The EIP-7702 authorization magic byte. */
export const EIP7702_MAGIC = '0x05';
/** EIP-7702 requires nonce < 2^64 - 1. */
export const MAX_AUTHORIZATION_NONCE = UINT64_MAX - 1n;

/** What is signed: the chain (0 = any chain), the contract to delegate to, the authority's nonce. */
export interface Authorization7702Request {
  readonly chainId: bigint;
  readonly delegate: Address;
  readonly nonce: bigint;
}

/**
 * Anything that signs EIP-7702 authorizations: a viem PrivateKeyAccount, or a remote signer with
 * the same two members.
 */
export type AuthorizationSigner = Pick<LocalAccount, 'address'> & {
  readonly signAuthorization: NonNullable<LocalAccount['signAuthorization']>;
};

const addressPattern = /^0x[0-9a-fA-F]{40}$/;
const word32Pattern = /^0x[0-9a-fA-F]{64}$/;

function checkAddress(value: string, field: string): Address {
  if (typeof value !== 'string' || !addressPattern.test(value)) {
    throw new BaseError('PROTOCOL_SCHEMA_MISMATCH', `authorization ${field} is not a 20-byte address`, {
      details: { field, value: String(value).slice(0, 100) },
    });
  }
  return value.toLowerCase() as Address;
}

/** An unsigned integer as an RLP string: minimal big-endian bytes, zero as the empty string. */
function rlpUint(value: bigint): Hex {
  if (value === 0n) return '0x';
  const hex = value.toString(16);
  return `0x${hex.length % 2 === 1 ? '0' : ''}${hex}`;
}

function checkRequest(request: Authorization7702Request): { chainId: bigint; delegate: Address; nonce: bigint } {
  return {
    chainId: assertInRange(request.chainId, UINT256_MAX, 'chainId'),
    delegate: checkAddress(request.delegate, 'delegate'),
    nonce: assertInRange(request.nonce, MAX_AUTHORIZATION_NONCE, 'nonce'),
  };
}

/**
 * The digest an authority signs: keccak256(0x05 ‖ rlp([chainId, delegate, nonce])).
 *
 * @example hashAuthorization7702({ chainId: 143n, delegate: '0x6666…6666', nonce: 7n })
 */
export function hashAuthorization7702(request: Authorization7702Request): Hex {
  const { chainId, delegate, nonce } = checkRequest(request);
  return keccak256(concatHex([EIP7702_MAGIC, toRlp([rlpUint(chainId), delegate, rlpUint(nonce)])]));
}

const scalarPattern = /^0x[0-9a-fA-F]{1,64}$/;

/** r or s -> its value and exact 32-byte lowercase hex. `exact` (the wire) needs all 64 digits; a signer's output may be shorter. */
function parseScalar(value: string, field: string, exact: boolean): { hex: Hex; value: bigint } {
  if (typeof value !== 'string' || !(exact ? word32Pattern : scalarPattern).test(value)) {
    throw new BaseError('PROTOCOL_SIGNATURE_INVALID', `authorization ${field} is not exactly 32 bytes of hex`, {
      details: { field, value: String(value).slice(0, 100) },
    });
  }
  const big = BigInt(value);
  return { hex: toHexBytes(big, 32), value: big };
}

function checkYParity(yParity: unknown): 0 | 1 {
  if (yParity !== 0 && yParity !== 1) {
    throw new BaseError('PROTOCOL_SIGNATURE_INVALID', `authorization yParity must be 0 or 1, got ${String(yParity)}`, {
      details: { yParity: String(yParity) },
    });
  }
  return yParity;
}

/** The signature part of an authorization, as the wire carries it. */
export interface Authorization7702Signed extends Authorization7702Request {
  readonly yParity: number;
  readonly r: Hex;
  readonly s: Hex;
}

/**
 * The lowercase authority that signed an authorization. Refuses r or s that are not exactly 32
 * bytes, r = 0 or ≥ n, high-s, and yParity other than 0/1 (PROTOCOL_SIGNATURE_INVALID).
 */
export async function recoverAuthorization7702Authority(authorization: Authorization7702Signed): Promise<Address> {
  const yParity = checkYParity(authorization.yParity);
  const r = parseScalar(authorization.r, 'r', true);
  const s = parseScalar(authorization.s, 's', true);
  assertCanonicalScalars(r.value, s.value, `${r.hex}${s.hex.slice(2)}`);
  const hash = hashAuthorization7702(authorization);
  return recoverDigestAddress(hash, { r: r.hex, s: s.hex, yParity });
}

/** Throws PROTOCOL_SIGNATURE_INVALID unless the authorization is canonical and recovers to its `authority`. */
export async function verifyAuthorization7702(authorization: Authorization7702): Promise<void> {
  const authority = checkAddress(authorization.authority, 'authority');
  const recovered = await recoverAuthorization7702Authority(authorization);
  if (recovered !== authority) {
    throw new BaseError('PROTOCOL_SIGNATURE_INVALID', 'authorization does not recover to its authority', {
      details: { authority, recovered },
    });
  }
}

/**
 * Signs an EIP-7702 authorization with `signer` (the trading wallet) and returns its wire form.
 * The signer's output is normalised (r, s padded to 32 bytes, lowercase), checked low-s and
 * recovered: it must recover to `signer.address`.
 *
 * @example const authorization7702 = await signAuthorization7702(wallet, { chainId: 10143n, delegate, nonce: 0n })
 */
export async function signAuthorization7702(signer: AuthorizationSigner, request: Authorization7702Request): Promise<Authorization7702> {
  const { chainId, delegate, nonce } = checkRequest(request);
  const authority = checkAddress(signer.address, 'signer address');
  // viem's AuthorizationRequest carries plain numbers.
  if (chainId > BigInt(Number.MAX_SAFE_INTEGER) || nonce > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new BaseError('UNITS_OUT_OF_RANGE', 'authorization chainId and nonce must be safe integers for the signer', {
      details: { chainId: chainId.toString(), nonce: nonce.toString() },
    });
  }
  const signed = await signer.signAuthorization({ address: delegate, chainId: Number(chainId), nonce: Number(nonce) });
  const parity = signed.yParity ?? (signed.v === 27n ? 0 : signed.v === 28n ? 1 : undefined);
  const r = parseScalar(signed.r, 'r', false);
  const s = parseScalar(signed.s, 's', false);
  const authorization: Authorization7702 = { authority, chainId, delegate, nonce, yParity: checkYParity(parity), r: r.hex, s: s.hex };
  await verifyAuthorization7702(authorization);
  return authorization;
}
