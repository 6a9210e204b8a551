/**
 * The LZ4 frame format (lz4_Frame_format.md, what Arrow's `LZ4_FRAME` codec, pyarrow and the `lz4`
 * tool use), with the integrity checks that make a corrupted feed an error rather than wrong data:
 * frames we write carry their content size and an XXH32 content checksum; a frame we read has its
 * header checksum, every block's bounds, its content size and (when present) its content checksum
 * checked. Blocks are compressed with lz4js; decoding and XXH32 are ours, with bounds checks.
 */
import lz4 from 'lz4js';
import { xxh32 } from './xxh32.ts';

const MAGIC = 0x184d2204;
const FLG_VERSION = 0x40;
const FLG_BLOCK_CHECKSUM = 0x10;
const FLG_CONTENT_SIZE = 0x08;
const FLG_CONTENT_CHECKSUM = 0x04;
/** Block maximum size index 7: 4 MiB. */
const BD_4MB = 0x70;
const BLOCK_MAX = 4 << 20;
const MIN_MATCH = 4;
const UNCOMPRESSED = 0x80000000;
/** Copies shorter than this go byte by byte: a typed-array copy (and its subarray) costs more. */
const SHORT_COPY = 32;
/**
 * LZ4 turns one input byte into at most 255 output bytes (a match-length byte), so no frame decodes
 * to more than this many times its own length: a larger stated size is damage, refused unallocated.
 */
export const LZ4_MAX_EXPANSION = 256;

/** Why a frame cannot be decoded. */
export class Lz4FrameError extends Error {
  override readonly name = 'Lz4FrameError';
}

const hashTable = new Uint32Array(1 << 16);
let blockBuffer = new Uint8Array(0);

/** `data` as one LZ4 frame with its content size and content checksum. */
export function encodeLz4Frame(data: Uint8Array): Uint8Array {
  const bound = lz4.compressBound(Math.min(data.length, BLOCK_MAX));
  if (blockBuffer.length < bound) blockBuffer = new Uint8Array(bound);
  const out = new Uint8Array(7 + 8 + 4 * (Math.ceil(data.length / BLOCK_MAX) + 2) + lz4.compressBound(data.length));
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  out[4] = FLG_VERSION | FLG_CONTENT_SIZE | FLG_CONTENT_CHECKSUM;
  out[5] = BD_4MB;
  view.setBigUint64(6, BigInt(data.length), true);
  out[14] = (xxh32(out, 4, 10) >>> 8) & 0xff;
  let at = 15;
  hashTable.fill(0);
  for (let start = 0; start < data.length; start += BLOCK_MAX) {
    const length = Math.min(BLOCK_MAX, data.length - start);
    const compressed = lz4.compressBlock(data, blockBuffer, start, length, hashTable);
    if (compressed === 0 || compressed >= length) {
      view.setUint32(at, (UNCOMPRESSED | length) >>> 0, true);
      out.set(data.subarray(start, start + length), at + 4);
      at += 4 + length;
    } else {
      view.setUint32(at, compressed, true);
      out.set(blockBuffer.subarray(0, compressed), at + 4);
      at += 4 + compressed;
    }
  }
  view.setUint32(at, 0, true);
  view.setUint32(at + 4, xxh32(data), true);
  return out.slice(0, at + 8);
}

/** Decodes one LZ4 block of `src[from, to)` into `dst` at `at`; returns the new end of `dst`. */
function decodeBlock(src: Uint8Array, from: number, to: number, dst: Uint8Array, at: number): number {
  let s = from;
  let d = at;
  while (s < to) {
    const token = src[s++]!;
    let literals = token >>> 4;
    if (literals === 15) {
      let byte: number;
      do {
        if (s >= to) throw new Lz4FrameError('a literal length runs past its block');
        byte = src[s++]!;
        literals += byte;
      } while (byte === 255);
    }
    if (s + literals > to || d + literals > dst.length) throw new Lz4FrameError('literals run past their block or the content size');
    if (literals < SHORT_COPY) {
      for (const end = s + literals; s < end; s += 1, d += 1) dst[d] = src[s]!;
    } else {
      dst.set(src.subarray(s, s + literals), d);
      s += literals;
      d += literals;
    }
    if (s === to) break;
    if (s + 2 > to) throw new Lz4FrameError('a match offset runs past its block');
    const offset = src[s]! | (src[s + 1]! << 8);
    s += 2;
    if (offset === 0 || offset > d) throw new Lz4FrameError('a match refers before the start of the content');
    let length = (token & 15) + MIN_MATCH;
    if ((token & 15) === 15) {
      let byte: number;
      do {
        if (s >= to) throw new Lz4FrameError('a match length runs past its block');
        byte = src[s++]!;
        length += byte;
      } while (byte === 255);
    }
    if (d + length > dst.length) throw new Lz4FrameError('a match runs past the content size');
    if (offset >= length && length >= SHORT_COPY) {
      dst.copyWithin(d, d - offset, d - offset + length);
      d += length;
    } else {
      // Byte by byte: an overlapping match repeats what it copies; a short one is faster so.
      for (const end = d + length; d < end; d += 1) dst[d] = dst[d - offset]!;
    }
  }
  return d;
}

/**
 * The content of one LZ4 frame. `expectedLength` (Arrow stores it before each buffer) bounds the
 * output when the frame does not state its content size.
 */
export function decodeLz4Frame(src: Uint8Array, expectedLength?: number): Uint8Array {
  if (src.length < 7) throw new Lz4FrameError('shorter than a frame header');
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw new Lz4FrameError('no LZ4 frame magic');
  const flg = src[4]!;
  if ((flg & 0xc0) !== FLG_VERSION) throw new Lz4FrameError('unknown frame version');
  let at = 6;
  let contentSize: number | undefined;
  if (flg & FLG_CONTENT_SIZE) {
    if (src.length < 15) throw new Lz4FrameError('shorter than its header');
    contentSize = Number(view.getBigUint64(6, true));
    at = 14;
  }
  if (src[at] !== ((xxh32(src, 4, at - 4) >>> 8) & 0xff)) throw new Lz4FrameError('frame header checksum mismatch');
  at += 1;
  const size = contentSize ?? expectedLength;
  if (size === undefined) throw new Lz4FrameError('frame states no content size');
  if (size > src.length * LZ4_MAX_EXPANSION) throw new Lz4FrameError(`content size ${size} is more than a ${src.length}-byte frame can hold`);
  if (expectedLength !== undefined && contentSize !== undefined && contentSize !== expectedLength) throw new Lz4FrameError(`content size ${contentSize} is not the expected ${expectedLength}`);
  const out = new Uint8Array(size);
  let written = 0;
  for (;;) {
    if (at + 4 > src.length) throw new Lz4FrameError('a block header runs past the frame');
    const word = view.getUint32(at, true);
    at += 4;
    if (word === 0) break;
    const length = word & 0x7fffffff;
    if (at + length > src.length) throw new Lz4FrameError('a block runs past the frame');
    if (word & UNCOMPRESSED) {
      if (written + length > size) throw new Lz4FrameError('a stored block runs past the content size');
      out.set(src.subarray(at, at + length), written);
      written += length;
    } else {
      written = decodeBlock(src, at, at + length, out, written);
    }
    at += length + (flg & FLG_BLOCK_CHECKSUM ? 4 : 0);
  }
  if (written !== size) throw new Lz4FrameError(`content is ${written} bytes, not ${size}`);
  if (flg & FLG_CONTENT_CHECKSUM) {
    if (at + 4 > src.length) throw new Lz4FrameError('the content checksum runs past the frame');
    if (view.getUint32(at, true) !== xxh32(out)) throw new Lz4FrameError('content checksum mismatch');
  }
  return out;
}
