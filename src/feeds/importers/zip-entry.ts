/**
 * Reads the one file inside a zip archive (Binance's data dumps are zips of one CSV each) without a
 * zip library: the end-of-central-directory record says where the central directory is, its only
 * entry says where the compressed bytes are, and those bytes stream through zlib's raw inflater, so
 * a 100 MB daily trades file never sits in memory whole. The CRC-32 and size of the entry are
 * checked at its end. Only what Binance's zips use is supported: one entry, stored or deflated, no
 * encryption (ZIP64 sizes and offsets are understood, should a dump ever need them).
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInflateRaw, crc32 } from 'node:zlib';
import type { Readable } from 'node:stream';
import { BaseError } from '../../core/base-error.ts';

const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
/** The EOCD record is 22 bytes plus a comment of at most 65535 bytes. */
const EOCD_SEARCH = 22 + 0xffff;

export interface ZipEntry {
  /** The archive's path. */
  readonly zipPath: string;
  /** The entry's name inside the archive (`BTCUSDT-trades-2024-08-08.csv`). */
  readonly name: string;
  /** 0 stored, 8 deflated. */
  readonly method: number;
  /** Where the entry's compressed bytes start in the archive, and how many there are. */
  readonly dataOffset: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  readonly crc32: number;
}

function unreadable(path: string, message: string, details: Record<string, unknown> = {}): BaseError {
  return new BaseError('FEED_UNREADABLE', `${path}: ${message}`, { details: { path, ...details } });
}

/** A 64-bit little-endian field as a safe integer (zips of more than 2^53 bytes do not exist here). */
function readU64(buffer: Buffer, offset: number): number {
  return Number(buffer.readBigUInt64LE(offset));
}

/**
 * The only entry of the zip at `path`: FEED_NOT_FOUND when it cannot be opened, FEED_FOREIGN when
 * it is not a zip (or holds several files, or uses a method other than stored/deflate),
 * FEED_UNREADABLE with the byte position when it is truncated or its structures are damaged.
 *
 * @example
 * const entry = await readZipEntry('BTCUSDT-trades-2024-08-08.zip');
 * for await (const chunk of zipEntryStream(entry)) process(chunk);
 */
export async function readZipEntry(path: string): Promise<ZipEntry> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (cause) {
    throw new BaseError('FEED_NOT_FOUND', `${path}: cannot open: ${(cause as NodeJS.ErrnoException).code ?? String(cause)}`, { details: { path }, cause });
  }
  try {
    const { size } = await handle.stat();
    const read = async (position: number, length: number): Promise<Buffer> => {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, position);
      if (bytesRead < length) throw unreadable(path, `truncated: ${length} bytes wanted at byte ${position}, the file ends at ${size}`, { position });
      return buffer;
    };
    const magic = size >= 4 ? (await read(0, 4)).readUInt32LE(0) : 0;
    if (magic !== LOCAL_SIGNATURE && magic !== EOCD_SIGNATURE) throw new BaseError('FEED_FOREIGN', `${path}: not a zip archive (no PK signature at its start)`, { details: { path } });

    // The EOCD is the last record; search backwards over the largest possible comment.
    const tailStart = Math.max(0, size - EOCD_SEARCH);
    const tail = await read(tailStart, size - tailStart);
    let eocd = -1;
    for (let i = tail.length - 22; i >= 0; i -= 1) {
      if (tail.readUInt32LE(i) === EOCD_SIGNATURE && i + 22 + tail.readUInt16LE(i + 20) === tail.length) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw unreadable(path, `truncated or corrupted zip: no end-of-central-directory record in its last ${tail.length} bytes (the file has ${size})`, { position: size });
    let entries = tail.readUInt16LE(eocd + 10);
    let directorySize = tail.readUInt32LE(eocd + 12);
    let directoryOffset = tail.readUInt32LE(eocd + 16);
    // ZIP64: the real values are in the ZIP64 EOCD record that the locator just before the EOCD points at.
    if ((entries === 0xffff || directoryOffset === 0xffffffff || directorySize === 0xffffffff) && eocd >= 20 && tail.readUInt32LE(eocd - 20) === ZIP64_LOCATOR_SIGNATURE) {
      const recordOffset = readU64(tail, eocd - 20 + 8);
      const record = await read(recordOffset, 56);
      if (record.readUInt32LE(0) !== ZIP64_EOCD_SIGNATURE) throw unreadable(path, `corrupted zip: no ZIP64 end-of-central-directory record at byte ${recordOffset}`, { position: recordOffset });
      entries = readU64(record, 32);
      directorySize = readU64(record, 40);
      directoryOffset = readU64(record, 48);
    }
    if (entries !== 1) throw new BaseError('FEED_FOREIGN', `${path}: a zip of ${entries} files; a Binance dump holds exactly one CSV`, { details: { path, entries } });
    if (directoryOffset + directorySize > size) throw unreadable(path, `truncated zip: its central directory (bytes ${directoryOffset}..${directoryOffset + directorySize}) lies past its end (${size})`, { position: directoryOffset });

    const central = await read(directoryOffset, directorySize);
    if (central.length < 46 || central.readUInt32LE(0) !== CENTRAL_SIGNATURE) throw unreadable(path, `corrupted zip: no central directory entry at byte ${directoryOffset}`, { position: directoryOffset });
    const flags = central.readUInt16LE(8);
    const method = central.readUInt16LE(10);
    const crc = central.readUInt32LE(16);
    let compressedSize = central.readUInt32LE(20);
    let uncompressedSize = central.readUInt32LE(24);
    const nameLength = central.readUInt16LE(28);
    const extraLength = central.readUInt16LE(30);
    let localOffset = central.readUInt32LE(42);
    const name = central.toString('utf8', 46, 46 + nameLength);
    // ZIP64 extended information: the 64-bit values of the fields that are 0xffffffff, in this order.
    const extra = central.subarray(46 + nameLength, 46 + nameLength + extraLength);
    for (let at = 0; at + 4 <= extra.length; at += 4 + extra.readUInt16LE(at + 2)) {
      if (extra.readUInt16LE(at) !== 0x0001) continue;
      let field = at + 4;
      if (uncompressedSize === 0xffffffff) (uncompressedSize = readU64(extra, field)), (field += 8);
      if (compressedSize === 0xffffffff) (compressedSize = readU64(extra, field)), (field += 8);
      if (localOffset === 0xffffffff) localOffset = readU64(extra, field);
    }
    if ((flags & 1) !== 0) throw new BaseError('FEED_FOREIGN', `${path}: ${name} is encrypted`, { details: { path, entry: name } });
    if (method !== 0 && method !== 8) throw new BaseError('FEED_FOREIGN', `${path}: ${name} uses compression method ${method}; only stored (0) and deflate (8) are read`, { details: { path, entry: name, method } });

    const local = await read(localOffset, 30);
    if (local.readUInt32LE(0) !== LOCAL_SIGNATURE) throw unreadable(path, `corrupted zip: no local header of ${name} at byte ${localOffset}`, { position: localOffset });
    const dataOffset = localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
    if (dataOffset + compressedSize > size) throw unreadable(path, `truncated zip: ${name}'s ${compressedSize} bytes from byte ${dataOffset} run past its end (${size})`, { position: size });
    return { zipPath: path, name, method, dataOffset, compressedSize, uncompressedSize, crc32: crc };
  } finally {
    await handle.close();
  }
}

/**
 * The entry's uncompressed bytes, a chunk at a time, read and inflated as they are consumed. The
 * last step checks the CRC-32 and the size: FEED_UNREADABLE (with the position) when the data is
 * corrupted.
 *
 * @example
 * for await (const chunk of zipEntryStream(await readZipEntry('x.zip'))) bytes += chunk.length;
 */
export async function* zipEntryStream(entry: ZipEntry): AsyncGenerator<Buffer> {
  const where = `${entry.zipPath}/${entry.name}`;
  const raw = entry.compressedSize === 0 ? undefined : createReadStream(entry.zipPath, { start: entry.dataOffset, end: entry.dataOffset + entry.compressedSize - 1 });
  let consumed = 0;
  raw?.on('data', (chunk: Buffer | string) => (consumed += chunk.length));
  const inflate = raw !== undefined && entry.method === 8 ? createInflateRaw() : undefined;
  const source: Readable | undefined = inflate === undefined ? raw : raw!.pipe(inflate);
  let crc = 0;
  let produced = 0;
  try {
    if (source !== undefined) {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        crc = crc32(chunk, crc);
        produced += chunk.length;
        yield chunk;
      }
    }
  } catch (cause) {
    if (cause instanceof BaseError) throw cause;
    const reason = cause instanceof Error ? cause.message : String(cause);
    // The inflater has finished the compressed bytes before `from`; the bad one is in the chunk read after them.
    const from = inflate?.bytesWritten ?? 0;
    throw new BaseError('FEED_UNREADABLE', `${where}: corrupted deflate data in compressed bytes ${from}..${consumed} (archive bytes ${entry.dataOffset + from}..${entry.dataOffset + consumed}), after ${produced} bytes of the entry: ${reason}`, {
      details: { path: entry.zipPath, entry: entry.name, position: entry.dataOffset + from },
      cause,
    });
  } finally {
    raw?.destroy();
    if (source !== raw) source?.destroy();
  }
  if (produced !== entry.uncompressedSize) {
    throw new BaseError('FEED_UNREADABLE', `${where}: ${produced} bytes inflated, the zip says ${entry.uncompressedSize}: the entry is corrupted`, { details: { path: entry.zipPath, entry: entry.name, position: entry.dataOffset + consumed } });
  }
  if (crc >>> 0 !== entry.crc32) {
    throw new BaseError('FEED_UNREADABLE', `${where}: CRC-32 ${(crc >>> 0).toString(16)} of the inflated entry differs from the zip's ${entry.crc32.toString(16)}: the entry is corrupted`, {
      details: { path: entry.zipPath, entry: entry.name },
    });
  }
}
