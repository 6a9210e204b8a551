/**
 * The hashes the simulated chain makes up for itself: block hashes (keccak256 of an ABI encoding,
 * written into a buffer and hashed with our keccak rather than through viem's generic encoder: a
 * virtual hour makes nine thousand), the relay sponsor's transaction hashes and the hashes of its
 * system transactions.
 */
import { bytesToHex } from 'viem';
import type { Address, Hex } from '../protocol/encoding.ts';
import { writeHexWord, writeUintWord } from '../protocol/eip712-hasher.ts';
import { keccak256Bytes, keccak256Into } from '../protocol/keccak256.ts';

const WORD = 32;
/** The encoding of a block, reused (grown when a block holds more transactions): a block a few hundred ms. */
let blockScratch = new Uint8Array(WORD * 64);
const blockDigest = new Uint8Array(WORD);

/**
 * `keccak256(abi.encode(uint256 chainId, uint256 number, bytes32 parentHash, uint256 timestampMs, bytes32[] txHashes))`.
 *
 * @example blockHash(31337, 1n, parent.hash, clock.now(), ['0x…'])
 */
export function blockHash(chainId: number, number: bigint, parentHash: Hex, timestamp: number, transactions: readonly Hex[]): Hex {
  const size = WORD * (6 + transactions.length);
  if (blockScratch.length < size) blockScratch = new Uint8Array(Math.max(size, 2 * blockScratch.length));
  const bytes = blockScratch;
  writeUintWord(bytes, 0, chainId);
  writeUintWord(bytes, WORD, number);
  writeHexWord(bytes, 2 * WORD, parentHash, 32);
  writeUintWord(bytes, 3 * WORD, timestamp);
  // The dynamic array: its offset (after the five head words), its length, its items.
  writeUintWord(bytes, 4 * WORD, 5 * WORD);
  writeUintWord(bytes, 5 * WORD, transactions.length);
  for (let i = 0; i < transactions.length; i++) writeHexWord(bytes, (6 + i) * WORD, transactions[i]!, 32);
  // Every word is written in full, so the scratch needs no clearing.
  keccak256Into(bytes.subarray(0, size), blockDigest);
  return bytesToHex(blockDigest);
}

const sponsoredScratch = new Uint8Array(3 * WORD);

/**
 * The hash of the relay sponsor's transaction with `sponsorNonce`:
 * `keccak256(abi.encode(uint256 chainId, address sponsor, uint256 sponsorNonce))`.
 *
 * @example sponsoredTxHash(31337, sponsor, 0n) // '0x…'
 */
export function sponsoredTxHash(chainId: number, sponsor: Address, sponsorNonce: bigint): Hex {
  writeUintWord(sponsoredScratch, 0, chainId);
  writeHexWord(sponsoredScratch, WORD, sponsor, 20);
  writeUintWord(sponsoredScratch, 2 * WORD, sponsorNonce);
  keccak256Into(sponsoredScratch, blockDigest);
  return bytesToHex(blockDigest);
}

/**
 * The hashes of a venue's system transactions (the background flow's orders): 24 bytes that name
 * the chain and the sender, `keccak256(abi.encode(uint256 chainId, address sender))[0..24)`, then the
 * sender's nonce as 8 bytes, big-endian. Unique by construction (the nonce) and free to make: the
 * flow sends tens of thousands an hour, and nothing outside the venue derives them (ours:
 * docs/protocol.md, "Local venue").
 *
 * @example const hashOf = systemTxHashes(31337, SYSTEM_SENDER); hashOf(0n) // '0x…0000000000000000'
 */
export function systemTxHashes(chainId: number, sender: Address): (nonce: bigint) => Hex {
  const bytes = new Uint8Array(2 * WORD);
  writeUintWord(bytes, 0, chainId);
  writeHexWord(bytes, WORD, sender, 20);
  const prefix = bytesToHex(keccak256Bytes(bytes)).slice(0, 2 + 48);
  return (nonce) => `${prefix}${BigInt.asUintN(64, nonce).toString(16).padStart(16, '0')}` as Hex;
}
