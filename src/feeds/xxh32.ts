/**
 * XXH32 (xxHash's 32-bit hash, the LZ4 frame format's header and content checksum). Ours because a
 * feed's every batch is hashed as it is read, and the hash must keep up with the replay: four lanes in
 * locals, 32-bit words read straight from a Uint32Array view when the bytes are 4-aligned on a
 * little-endian machine (every machine Node runs on in practice; the byte path covers the rest).
 */

const PRIME1 = 0x9e3779b1;
const PRIME2 = 0x85ebca77;
const PRIME3 = 0xc2b2ae3d;
const PRIME4 = 0x27d4eb2f;
const PRIME5 = 0x165667b1;

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r));
const round = (acc: number, word: number) => Math.imul(rotl((acc + Math.imul(word, PRIME2)) | 0, 13), PRIME1);
const wordAt = (bytes: Uint8Array, at: number) => bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);

/**
 * The XXH32 of `bytes[from, from + length)` with `seed`, as an unsigned 32-bit number.
 *
 * @example xxh32(new Uint8Array(0)) // 0x02cc5d05
 */
export function xxh32(bytes: Uint8Array, from = 0, length = bytes.length - from, seed = 0): number {
  const end = from + length;
  let at = from;
  let hash: number;
  if (length >= 16) {
    let v1 = (seed + PRIME1 + PRIME2) | 0;
    let v2 = (seed + PRIME2) | 0;
    let v3 = seed | 0;
    let v4 = (seed - PRIME1) | 0;
    const stripes = end - 15;
    if (LITTLE_ENDIAN && (bytes.byteOffset + at) % 4 === 0) {
      const words = new Uint32Array(bytes.buffer, bytes.byteOffset + at, (length - (length % 16)) / 4);
      for (let w = 0; w < words.length; w += 4) {
        v1 = round(v1, words[w]!);
        v2 = round(v2, words[w + 1]!);
        v3 = round(v3, words[w + 2]!);
        v4 = round(v4, words[w + 3]!);
      }
      at += words.length * 4;
    } else {
      for (; at < stripes; at += 16) {
        v1 = round(v1, wordAt(bytes, at));
        v2 = round(v2, wordAt(bytes, at + 4));
        v3 = round(v3, wordAt(bytes, at + 8));
        v4 = round(v4, wordAt(bytes, at + 12));
      }
    }
    hash = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) | 0;
  } else {
    hash = (seed + PRIME5) | 0;
  }
  hash = (hash + length) | 0;
  for (; at + 4 <= end; at += 4) hash = Math.imul(rotl((hash + Math.imul(wordAt(bytes, at), PRIME3)) | 0, 17), PRIME4);
  for (; at < end; at += 1) hash = Math.imul(rotl((hash + Math.imul(bytes[at]!, PRIME5)) | 0, 11), PRIME1);
  hash = Math.imul(hash ^ (hash >>> 15), PRIME2);
  hash = Math.imul(hash ^ (hash >>> 13), PRIME3);
  return (hash ^ (hash >>> 16)) >>> 0;
}
