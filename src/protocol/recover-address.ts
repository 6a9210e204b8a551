/**
 * The address that signed a 32-byte digest (Ethereum's `ecrecover`), computed synchronously.
 *
 * viem's `recoverAddress` imports its curve code lazily on every call; under a module loader that
 * round trip takes event-loop turns and most of the time of a recovery, and on virtual time it made
 * when a venue answered depend on the machine. This calls the same library (`@noble/curves`, the one
 * viem signs with) directly. Canonical-form checks (length, low-s, v) stay with the callers.
 */
import { secp256k1 } from '@noble/curves/secp256k1';
import { publicKeyToAddress } from 'viem/accounts';
import type { Address, Hex } from './encoding.ts';

/** A signature as r, s and the recovery bit, or its 65-byte form `r ‖ s ‖ v` (v 27/28 or 0/1). */
export type RecoverableSignature = Hex | { readonly r: Hex; readonly s: Hex; readonly yParity: number };

function recoveryBit(v: number): number {
  if (v === 0 || v === 1) return v;
  if (v === 27 || v === 28) return v - 27;
  throw new RangeError(`invalid recovery byte ${v}`);
}

/** Signatures made in this process by a key whose address is known, so their recovery is known too. */
const KNOWN_SIGNATURES_MAX = 4_096;
const knownSignatures = new Map<string, { readonly digest: Hex; readonly address: Address }>();

/**
 * Records that `address`'s key signed `digest` as `signature` (65-byte hex), so recovering it in
 * this process needs no curve arithmetic. Only signers that hold the key call this (src/protocol/
 * local-account.ts): ECDSA recovery of what a key signed gives that key, so the memo never changes
 * an answer, it only skips the ~1 ms of recovery when the in-process venue checks a signature the
 * bot made a moment earlier (a virtual hour recovers thousands). Bounded: the oldest are forgotten.
 */
export function rememberSignature(digest: Hex, signature: Hex, address: Address): void {
  if (knownSignatures.size >= KNOWN_SIGNATURES_MAX) knownSignatures.delete(knownSignatures.keys().next().value!);
  knownSignatures.set(signature.toLowerCase(), { digest: digest.toLowerCase() as Hex, address: address.toLowerCase() as Address });
}

/**
 * @example recoverDigestAddress(digest, signature) // '0x…' (lowercase)
 */
export function recoverDigestAddress(digest: Hex, signature: RecoverableSignature): Address {
  if (typeof signature === 'string') {
    const known = knownSignatures.get(signature.toLowerCase());
    if (known !== undefined && known.digest === digest.toLowerCase()) return known.address;
  }
  let r: bigint;
  let s: bigint;
  let bit: number;
  if (typeof signature === 'string') {
    if (signature.length !== 132) throw new RangeError('a signature is 65 bytes');
    r = BigInt(`0x${signature.slice(2, 66)}`);
    s = BigInt(`0x${signature.slice(66, 130)}`);
    bit = recoveryBit(Number.parseInt(signature.slice(130), 16));
  } else {
    r = BigInt(signature.r);
    s = BigInt(signature.s);
    bit = recoveryBit(signature.yParity);
  }
  const publicKey = new secp256k1.Signature(r, s).addRecoveryBit(bit).recoverPublicKey(digest.slice(2)).toHex(false);
  return publicKeyToAddress(`0x${publicKey}`).toLowerCase() as Address;
}
