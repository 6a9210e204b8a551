/**
 * The hashes the simulated chain makes up for itself: block hashes and the hashes of its system
 * transactions (the background flow's orders). Both are keccak256 of an ABI encoding
 * (docs/protocol.md, "Local venue"), written into a buffer and hashed with our keccak rather than
 * through viem's generic encoder: a virtual hour makes tens of thousands of them.
 */
import { bytesToHex } from 'viem';
import type { Address, Hex } from '../protocol/encoding.ts';
import { writeHexWord, writeUintWord } from '../protocol/eip712-hasher.ts';
import { keccak256Bytes } from '../protocol/keccak256.ts';

const WORD = 32;

/**
 * `keccak256(abi.encode(uint256 chainId, uint256 number, bytes32 parentHash, uint256 timestampMs, bytes32[] txHashes))`.
 *
 * @example blockHash(31337, 1n, parent.hash, clock.now(), ['0x…'])
 */
export function blockHash(chainId: number, number: bigint, parentHash: Hex, timestamp: number, transactions: readonly Hex[]): Hex {
  const bytes = new Uint8Array(WORD * (6 + transactions.length));
  writeUintWord(bytes, 0, chainId);
  writeUintWord(bytes, WORD, number);
  writeHexWord(bytes, 2 * WORD, parentHash, 32);
  writeUintWord(bytes, 3 * WORD, timestamp);
  // The dynamic array: its offset (after the five head words), its length, its items.
  writeUintWord(bytes, 4 * WORD, 5 * WORD);
  writeUintWord(bytes, 5 * WORD, transactions.length);
  for (let i = 0; i < transactions.length; i++) writeHexWord(bytes, (6 + i) * WORD, transactions[i]!, 32);
  return bytesToHex(keccak256Bytes(bytes));
}

const systemTx = new Uint8Array(3 * WORD);

/**
 * `keccak256(abi.encode(uint256 chainId, address sender, uint256 nonce))`: a system transaction's hash.
 *
 * @example systemTxHash(31337, SYSTEM_SENDER, 0n)
 */
export function systemTxHash(chainId: number, sender: Address, nonce: bigint): Hex {
  writeUintWord(systemTx, 0, chainId);
  writeHexWord(systemTx, WORD, sender, 20);
  writeUintWord(systemTx, 2 * WORD, nonce);
  return bytesToHex(keccak256Bytes(systemTx));
}
