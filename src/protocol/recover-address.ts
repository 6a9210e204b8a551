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

/**
 * @example recoverDigestAddress(digest, signature) // '0x…' (lowercase)
 */
export function recoverDigestAddress(digest: Hex, signature: RecoverableSignature): Address {
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
