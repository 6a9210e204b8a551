/** The chain's own hashes, against viem's ABI encoding and keccak (the forms docs/protocol.md gives). */
import fc from 'fast-check';
import { encodeAbiParameters, keccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import type { Address, Hex } from '../../src/protocol/encoding.ts';
import { blockHash, sponsoredTxHash, systemTxHashes } from '../../src/venue/venue-hashes.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => `0x${Buffer.from(bytes).toString('hex')}` as Hex);
const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => `0x${Buffer.from(bytes).toString('hex')}` as Address);

describe('venue hashes', () => {
  it('blockHash = keccak256(abi.encode(uint256, uint256, bytes32, uint256, bytes32[]))', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 40 }), fc.bigInt({ min: 0n, max: 2n ** 64n }), bytes32, fc.integer({ min: 0, max: 2 ** 45 }), fc.array(bytes32, { maxLength: 12 }), (chainId, number, parent, timestamp, txs) => {
        const expected = keccak256(
          encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }, { type: 'bytes32' }, { type: 'uint256' }, { type: 'bytes32[]' }], [BigInt(chainId), number, parent, BigInt(timestamp), txs]),
        );
        expect(blockHash(chainId, number, parent, timestamp, txs)).toBe(expected);
      }),
      fuzzSettings(),
    );
  });

  it('sponsoredTxHash = keccak256(abi.encode(uint256, address, uint256))', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 40 }), address, fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), (chainId, sponsor, nonce) => {
        const expected = keccak256(encodeAbiParameters([{ type: 'uint256' }, { type: 'address' }, { type: 'uint256' }], [BigInt(chainId), sponsor, nonce]));
        expect(sponsoredTxHash(chainId, sponsor, nonce)).toBe(expected);
      }),
      fuzzSettings(),
    );
  });

  it('system transaction hashes: the keccak of (chainId, sender) cut to 24 bytes, then the nonce; unique per nonce', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 40 }), address, fc.uniqueArray(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), { minLength: 2, maxLength: 20 }), (chainId, sender, nonces) => {
        const prefix = keccak256(encodeAbiParameters([{ type: 'uint256' }, { type: 'address' }], [BigInt(chainId), sender])).slice(0, 50);
        const hashOf = systemTxHashes(chainId, sender);
        const hashes = nonces.map((nonce) => hashOf(nonce));
        hashes.forEach((hash, index) => expect(hash).toBe(`${prefix}${nonces[index]!.toString(16).padStart(16, '0')}`));
        expect(new Set(hashes).size).toBe(nonces.length);
        for (const hash of hashes) expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
      }),
      fuzzSettings(),
    );
  });
});
