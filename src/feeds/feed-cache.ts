/**
 * Raw recordings are replayed through their normalized form, made on first use and cached by the
 * SHA-256 of the recording's content: `<cacheDir>/<sha256>.arrow`. A recording that grows (still
 * being written) or changes gets a new entry; the same one is never normalized twice.
 */
import { existsSync, mkdirSync, openSync, readSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { BaseError } from '../core/base-error.ts';
import { fileSha256 } from './file-sha256.ts';
import { normalizeRawFeed } from './normalize-raw-feed.ts';
import { looksLikeRawFeed } from './raw-feed-reader.ts';

export const DEFAULT_FEED_CACHE_DIR = '.clobbot/feeds';

/** True when `path` starts like a raw recording (rather than a normalized feed). */
export function isRawFeedFile(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (cause) {
    throw new BaseError('FEED_NOT_FOUND', `${path}: cannot open: ${(cause as NodeJS.ErrnoException).code ?? String(cause)}`, { details: { path }, cause });
  }
  const head = Buffer.alloc(80);
  const read = readSync(fd, head, 0, 80, 0);
  closeSync(fd);
  return looksLikeRawFeed(head.toString('utf8', 0, read));
}

/**
 * The normalized feed to replay for `path`: `path` itself when it is one, else the cached
 * normalization of the raw recording (made now if missing).
 *
 * @example
 * const { path } = await normalizedFeedFor('recordings/MON_USDC-1767225600160.raw');
 */
export async function normalizedFeedFor(path: string, options: { readonly cacheDir?: string } = {}): Promise<{ readonly path: string; readonly normalizedNow: boolean }> {
  if (!isRawFeedFile(path)) return { path, normalizedNow: false };
  const cacheDir = options.cacheDir ?? DEFAULT_FEED_CACHE_DIR;
  const cached = join(cacheDir, `${fileSha256(path)}.arrow`);
  if (existsSync(cached)) return { path: cached, normalizedNow: false };
  mkdirSync(cacheDir, { recursive: true });
  await normalizeRawFeed(path, cached);
  return { path: cached, normalizedNow: true };
}
