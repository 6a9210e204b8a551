/**
 * Synchronous signature recovery against viem's, and the memo of signatures made by a local key:
 * it answers only for the exact digest and signature it was told of, and always what recovery would.
 */
import fc from 'fast-check';
import { keccak256, recoverAddress, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import type { Hex } from '../../src/protocol/encoding.ts';
import { localAccount } from '../../src/protocol/local-account.ts';
import { recoverDigestAddress } from '../../src/protocol/recover-address.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const privateKey = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => toHex(bytes)).filter((hex) => BigInt(hex) > 0n && BigInt(hex) < 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n);
const digest = fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => keccak256(bytes));

describe('recoverDigestAddress', () => {
  it('recovers what viem recovers, from the 65-byte form and from r, s and yParity (signatures viem made)', async () => {
    await fc.assert(
      fc.asyncProperty(privateKey, digest, async (key, hash) => {
        const account = privateKeyToAccount(key as Hex);
        const signature = await account.sign({ hash });
        const expected = (await recoverAddress({ hash, signature })).toLowerCase();
        expect(recoverDigestAddress(hash, signature)).toBe(expected);
        expect(expected).toBe(account.address.toLowerCase());
        const v = Number.parseInt(signature.slice(130), 16);
        expect(recoverDigestAddress(hash, { r: `0x${signature.slice(2, 66)}`, s: `0x${signature.slice(66, 130)}`, yParity: v - 27 })).toBe(expected);
      }),
      fuzzSettings({ numRuns: 30 }),
    );
  });

  it('a local account signs as viem does, and its remembered signatures answer only for their own digest', async () => {
    await fc.assert(
      fc.asyncProperty(privateKey, digest, digest, async (key, hash, other) => {
        fc.pre(hash !== other);
        const signature = await localAccount(key as Hex).sign({ hash });
        expect(signature).toBe(await privateKeyToAccount(key as Hex).sign({ hash }));
        expect(recoverDigestAddress(hash, signature)).toBe(privateKeyToAccount(key as Hex).address.toLowerCase());
        // The same signature over another digest recovers someone else, as recovery says, not the memo.
        const recovered = (await recoverAddress({ hash: other, signature })).toLowerCase();
        expect(recoverDigestAddress(other, signature)).toBe(recovered);
        expect(recovered).not.toBe(privateKeyToAccount(key as Hex).address.toLowerCase());
        // The other recovery bit recovers another address too.
        const flipped = `${signature.slice(0, 130)}${signature.endsWith('1b') ? '1c' : '1b'}` as Hex;
        expect(recoverDigestAddress(hash, flipped)).toBe((await recoverAddress({ hash, signature: flipped })).toLowerCase());
      }),
      fuzzSettings({ numRuns: 30 }),
    );
  });
});
