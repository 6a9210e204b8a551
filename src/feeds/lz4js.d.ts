/** Types of the parts of lz4js that clobbot uses (the package ships none). */
declare module 'lz4js' {
  /** LZ4 frame of `data` (no checksums). */
  export function compress(data: Uint8Array, maxSize?: number): Uint8Array;
  /** The content of an LZ4 frame (checks nothing). */
  export function decompress(data: Uint8Array, maxSize?: number): Uint8Array;
  /** The worst-case compressed size of `n` bytes. */
  export function compressBound(n: number): number;
  /** Compresses `src[sIndex .. sIndex + sLength)` into `dst` from 0 as one LZ4 block; returns its length (0: not compressible). */
  export function compressBlock(src: Uint8Array, dst: Uint8Array, sIndex: number, sLength: number, hashTable: Uint32Array): number;
  const lz4: { compress: typeof compress; decompress: typeof decompress; compressBound: typeof compressBound; compressBlock: typeof compressBlock };
  export default lz4;
}


/** lz4js's own XXH32 (the tests hold ours to it). */
declare module 'lz4js/xxh32.js' {
  /** XXH32 of `src[index .. index + length)`, as a signed 32-bit number. */
  export function hash(seed: number, src: Uint8Array, index: number, length: number): number;
}
