/**
 * personal_sign of the relay challenge: UTF-8 text versus raw bytes, round trips, the verifier.
 * (The published vectors are in signing-vectors.test.ts.)
 */
import { concat, keccak256, stringToHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { isBaseError } from '../../src/core/base-error.ts';
import type { Hex } from '../../src/protocol/encoding.ts';
import { SECP256K1_N } from '../../src/protocol/intent-signing.ts';
import {
  personalSign,
  personalSignHash,
  recoverPersonalSignSigner,
  verifyPersonalSign,
  type MessageSigner,
} from '../../src/protocol/personal-sign.ts';

const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const other = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const challenge = 'Sign in to the relay\nwallet: 0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266\nchallenge: 0123456789abcdef0123456789abcdef';

/** EIP-191 by hand: "\x19Ethereum Signed Message:\n" ‖ decimal byte length ‖ bytes. */
const eip191 = (bytes: Hex): Hex => keccak256(concat([stringToHex(`\x19Ethereum Signed Message:\n${(bytes.length - 2) / 2}`), bytes]));

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('personal_sign', () => {
  it('hashes a string as its UTF-8 bytes, even when it looks like hex', () => {
    const looksLikeHex = '0x68656c6c6f20776f726c64';
    expect(personalSignHash(looksLikeHex)).toBe(eip191(stringToHex(looksLikeHex)));
    expect(personalSignHash({ raw: looksLikeHex })).toBe(eip191(looksLikeHex));
    expect(personalSignHash({ raw: looksLikeHex })).toBe(personalSignHash('hello world'));
    expect(personalSignHash('🥵')).toBe(eip191(stringToHex('🥵')));
  });

  it('takes raw bytes as hex or as a byte array', () => {
    const bytes = new Uint8Array([0, 1, 2, 255]);
    expect(personalSignHash({ raw: bytes })).toBe(personalSignHash({ raw: '0x000102ff' }));
    expect(personalSignHash({ raw: '0x000102FF' })).toBe(eip191('0x000102ff'));
  });

  it('refuses raw hex that is not whole bytes', () => {
    expect(isBaseError(rejectionSync(() => personalSignHash({ raw: '0x123' as Hex })), 'PROTOCOL_SCHEMA_MISMATCH')).toBe(true);
    expect(isBaseError(rejectionSync(() => personalSignHash({ raw: '0xgg' as Hex })), 'PROTOCOL_SCHEMA_MISMATCH')).toBe(true);
  });

  it('signs the exact challenge and recovers the wallet', async () => {
    const signature = await personalSign(account, { message: challenge });
    expect(signature).toMatch(/^0x[0-9a-f]{128}(1b|1c)$/);
    expect(signature).toBe(await account.signMessage({ message: challenge }));
    expect(await recoverPersonalSignSigner({ message: challenge, signature })).toBe(account.address.toLowerCase());
    expect(await recoverPersonalSignSigner({ message: `${challenge} `, signature })).not.toBe(account.address.toLowerCase());
    await expect(verifyPersonalSign({ message: challenge, signature, signer: account.address })).resolves.toBeUndefined();
    const mismatch = await rejectionOf(verifyPersonalSign({ message: challenge, signature, signer: other.address }));
    expect(isBaseError(mismatch, 'PROTOCOL_SIGNATURE_INVALID')).toBe(true);
  });

  it('a remote signer fits and its v 0/1 output is normalised', async () => {
    const remote: MessageSigner = {
      address: account.address,
      signMessage: async ({ message }) => {
        const signature = await account.signMessage({ message });
        return `${signature.slice(0, 130)}${signature.endsWith('1b') ? '00' : '01'}` as Hex;
      },
    };
    expect(await personalSign(remote, { message: challenge })).toBe(await personalSign(account, { message: challenge }));
  });

  it('refuses the high-s twin of a valid signature', async () => {
    const signature = await personalSign(account, { message: challenge });
    const s = SECP256K1_N - BigInt(`0x${signature.slice(66, 130)}`);
    const twin = `${signature.slice(0, 66)}${s.toString(16).padStart(64, '0')}${signature.endsWith('1b') ? '1c' : '1b'}`;
    const error = await rejectionOf(recoverPersonalSignSigner({ message: challenge, signature: twin }));
    expect(isBaseError(error, 'PROTOCOL_SIGNATURE_INVALID')).toBe(true);
  });
});

function rejectionSync(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
