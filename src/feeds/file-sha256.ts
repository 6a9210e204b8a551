/**
 * The SHA-256 of a file's content, read in chunks (a day of trades or a recorded week need not fit in
 * memory): how feeds name their inputs, how the normalization cache keys recordings, and what a
 * backtest's manifest records. A file that cannot be read is FEED_NOT_FOUND.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { BaseError } from '../core/base-error.ts';

const CHUNK = 1 << 20;

/** @example fileSha256('btcusdt.arrow') // '5d263f4c5379…' */
export function fileSha256(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (cause) {
    throw new BaseError('FEED_NOT_FOUND', `${path}: cannot read: ${(cause as NodeJS.ErrnoException).code ?? String(cause)}`, { details: { path }, cause });
  }
  try {
    const hash = createHash('sha256');
    const buffer = Buffer.alloc(CHUNK);
    for (let read = readSync(fd, buffer, 0, CHUNK, null); read > 0; read = readSync(fd, buffer, 0, CHUNK, null)) hash.update(buffer.subarray(0, read));
    return hash.digest('hex');
  } finally {
    closeSync(fd);
  }
}
