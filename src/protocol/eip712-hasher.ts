/**
 * A fast EIP-712 hasher for the venue's intents, whose structs have only static fields (uintN,
 * address, bytes32). It writes each struct's words into one reused buffer and hashes it once, and
 * caches type hashes and domain separators, so signing an intent costs little more than the
 * secp256k1 signature itself. viem's generic `hashTypedData` gives the same digests (a property
 * test checks it); this is only the hot path.
 */
import { bytesToHex, keccak256 } from 'viem';
import { BaseError } from '../core/base-error.ts';
import type { Eip712Domain } from './eip712-types.ts';
import type { Hex } from './encoding.ts';
import { keccak256Bytes, keccak256Into } from './keccak256.ts';

export interface StaticField {
  readonly name: string;
  readonly type: string;
}

const textEncoder = new TextEncoder();
const hexValues = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  hexValues['0123456789abcdef'.charCodeAt(i)] = i;
  hexValues['0123456789ABCDEF'.charCodeAt(i)] = i;
}

/** Writes `hex` (0x + 2*length hex chars) into `target` at `offset + 32 - length` (left-padded word). */
export function writeHexWord(target: Uint8Array, offset: number, hex: string, length: number): void {
  if (hex.length !== 2 + length * 2) {
    throw new BaseError('PROTOCOL_SCHEMA_MISMATCH', `expected ${length} bytes of hex`, { details: { length } });
  }
  const start = offset + 32 - length;
  target.fill(0, offset, start);
  for (let i = 0; i < length; i++) {
    const high = hexValues[hex.charCodeAt(2 + i * 2)] ?? -1;
    const low = hexValues[hex.charCodeAt(3 + i * 2)] ?? -1;
    if (high < 0 || low < 0) throw new BaseError('PROTOCOL_SCHEMA_MISMATCH', 'not a hex string');
    target[start + i] = (high << 4) | low;
  }
}

/** Writes a non-negative integer as a big-endian 32-byte word (range checks are the caller's). */
export function writeUintWord(target: Uint8Array, offset: number, value: bigint | number): void {
  target.fill(0, offset, offset + 32);
  if (typeof value === 'number' || value <= 9_007_199_254_740_991n) {
    let rest = Number(value);
    for (let i = offset + 31; rest > 0; i--) {
      target[i] = rest % 256;
      rest = Math.floor(rest / 256);
    }
    return;
  }
  let rest = value;
  for (let i = offset + 31; rest > 0n; i--) {
    target[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
}

/** `keccak256(encodeType)` of a struct with static fields: `Name(type name,…)`. */
export function typeHash(name: string, fields: readonly StaticField[]): Uint8Array {
  return keccak256(textEncoder.encode(`${name}(${fields.map((f) => `${f.type} ${f.name}`).join(',')})`), 'bytes');
}

const domainTypeHash = typeHash('EIP712Domain', [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
]);
const domainSeparators = new Map<string, Uint8Array>();

/** The domain separator, cached per (name, version, chainId, verifyingContract). */
export function domainSeparator(domain: Eip712Domain): Uint8Array {
  const key = `${domain.name}\u0000${domain.version}\u0000${domain.chainId}\u0000${domain.verifyingContract.toLowerCase()}`;
  let separator = domainSeparators.get(key);
  if (separator === undefined) {
    const words = new Uint8Array(160);
    words.set(domainTypeHash, 0);
    words.set(keccak256(textEncoder.encode(domain.name), 'bytes'), 32);
    words.set(keccak256(textEncoder.encode(domain.version), 'bytes'), 64);
    writeUintWord(words, 96, domain.chainId);
    writeHexWord(words, 128, domain.verifyingContract, 20);
    separator = keccak256(words, 'bytes');
    domainSeparators.set(key, separator);
  }
  return separator;
}

/**
 * Hashes one struct of static fields: `values` are already range-checked, in field order; bytes32
 * values may be given as hex or as 32 raw bytes.
 */
export function hashStaticStruct(
  structTypeHash: Uint8Array,
  fields: readonly StaticField[],
  values: readonly (bigint | number | string | Uint8Array)[],
): Uint8Array {
  const words = new Uint8Array(32 * (fields.length + 1));
  words.set(structTypeHash, 0);
  for (let i = 0; i < fields.length; i++) {
    const value = values[i]!;
    const offset = 32 * (i + 1);
    if (value instanceof Uint8Array) words.set(value, offset);
    else if (typeof value === 'string') writeHexWord(words, offset, value, fields[i]!.type === 'address' ? 20 : 32);
    else writeUintWord(words, offset, value);
  }
  return keccak256Bytes(words);
}

const digestBytes = new Uint8Array(32);

/** The EIP-712 digest `keccak256(0x1901 ‖ domainSeparator ‖ structHash)`. */
export function eip712Digest(domain: Eip712Domain, structHash: Uint8Array): Hex {
  const bytes = new Uint8Array(66);
  bytes[0] = 0x19;
  bytes[1] = 0x01;
  bytes.set(domainSeparator(domain), 2);
  bytes.set(structHash, 34);
  keccak256Into(bytes, digestBytes, 0);
  return bytesToHex(digestBytes);
}
