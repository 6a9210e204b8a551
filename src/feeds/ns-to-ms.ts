/**
 * Numbers from int64 columns without a bigint per value. Milliseconds of a column of nanosecond
 * timestamps: the int64 is read as
 * its two 32-bit halves and divided exactly in doubles. (Reading a BigInt64Array element allocates a
 * bigint; dividing it allocates another; a replay does this for every row.)
 */

/** Reads `column[index]` (ns since the epoch, not negative) as whole ms, floored. */
export type MsReader = (index: number) => number;

/**
 * @example const exchMs = msReader(rows.exchTs); exchMs(0) // 1723161255208
 */
export function msReader(column: BigInt64Array): MsReader {
  const words = new Uint32Array(column.buffer, column.byteOffset, column.length * 2);
  // ns = hi * 2^32 + lo, and 2^32 = 4294 * 10^6 + 967296: ms = hi * 4294 + floor((hi * 967296 + lo) / 10^6),
  // where hi < 2^31 (a non-negative int64) keeps hi * 967296 + lo below 2^53: exact.
  return (index) => {
    const lo = words[2 * index]!;
    const hi = words[2 * index + 1]!;
    return hi * 4294 + Math.floor((hi * 967_296 + lo) / 1_000_000);
  };
}

/**
 * Reads `column[index]` (a non-negative int64 below 2^53: ticks, lots) as a number, without a bigint.
 *
 * @example const ticksAt = numberReader(rows.price); ticksAt(0) // 6180001
 */
export function numberReader(column: BigInt64Array): (index: number) => number {
  const words = new Uint32Array(column.buffer, column.byteOffset, column.length * 2);
  return (index) => words[2 * index + 1]! * 4_294_967_296 + words[2 * index]!;
}
