/**
 * Ethereum `personal_sign` (EIP-191 version 0x45) of the relay challenge: the signature is over
 * keccak256("\x19Ethereum Signed Message:\n" ‖ byteLength ‖ bytes).
 *
 * A string message is always its UTF-8 bytes, even when it looks like hex (the relay challenge is
 * text: sign the exact `message`). Raw bytes are passed as `{ raw: '0x…' }`. Wallets such as
 * MetaMask decide by the look of the string instead; this module never guesses.
 */
import { hashMessage, type LocalAccount, type SignableMessage } from 'viem';
import { recoverDigestAddress } from './recover-address.ts';
import { BaseError } from '../core/base-error.ts';
import type { Address, Hex } from './encoding.ts';
import { assertCanonicalSignature, normalizeSignature } from './intent-signing.ts';

/** Anything that can `personal_sign`: a viem LocalAccount or a remote signer with the same members. */
export type MessageSigner = Pick<LocalAccount, 'address' | 'signMessage'>;

/** A UTF-8 text, or raw bytes as hex or a byte array. */
export type PersonalSignMessage = string | { readonly raw: Hex | Uint8Array };

const hexBytesPattern = /^0x(?:[0-9a-fA-F]{2})*$/;

function signable(message: PersonalSignMessage): SignableMessage {
  if (typeof message === 'string') return message;
  const { raw } = message;
  if (typeof raw === 'string' && !hexBytesPattern.test(raw)) {
    throw new BaseError('PROTOCOL_SCHEMA_MISMATCH', 'raw personal_sign message is not 0x and whole bytes of hex', {
      details: { raw: raw.slice(0, 100) },
    });
  }
  return { raw };
}

/**
 * The EIP-191 hash that `personal_sign` signs.
 *
 * @example personalSignHash('hello world') // '0xd9eb…7d68'
 */
export function personalSignHash(message: PersonalSignMessage): Hex {
  return hashMessage(signable(message));
}

export interface PersonalSignParameters {
  readonly message: PersonalSignMessage;
}

/**
 * `personal_sign` with `signer`; returns the canonical 65-byte lowercase low-s signature.
 *
 * @example const signature = await personalSign(account, { message: challenge.message })
 */
export async function personalSign(signer: MessageSigner, parameters: PersonalSignParameters): Promise<Hex> {
  return normalizeSignature(await signer.signMessage({ message: signable(parameters.message) }));
}

export interface RecoverPersonalSignParameters extends PersonalSignParameters {
  readonly signature: string;
}

/**
 * The lowercase address that `personal_sign`ed `message`. Non-canonical signatures (bad length,
 * high-s, v not 27/28) throw PROTOCOL_SIGNATURE_INVALID.
 */
export async function recoverPersonalSignSigner(parameters: RecoverPersonalSignParameters): Promise<Address> {
  const signature = assertCanonicalSignature(parameters.signature);
  return recoverDigestAddress(personalSignHash(parameters.message), signature);
}

/** Throws PROTOCOL_SIGNATURE_INVALID unless `signature` is canonical and recovers to `signer`. */
export async function verifyPersonalSign(parameters: RecoverPersonalSignParameters & { readonly signer: Address }): Promise<void> {
  const recovered = await recoverPersonalSignSigner(parameters);
  if (recovered !== parameters.signer.toLowerCase()) {
    throw new BaseError('PROTOCOL_SIGNATURE_INVALID', 'personal_sign signature does not recover to the expected signer', {
      details: { expected: parameters.signer.toLowerCase(), recovered },
    });
  }
}
