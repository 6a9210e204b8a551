/**
 * Arrow IPC files (Feather v2) written and read a record batch at a time, so memory stays bounded
 * by one batch however long the feed. Bodies are LZ4-frame compressed. The writer goes to
 * `<path>.partial` and renames it only when finished: a file at `path` is always complete. The
 * format's own knowledge (columns, metadata) is in the modules that use these two functions.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { open } from 'node:fs/promises';
import {
  AsyncByteQueue,
  CompressionType,
  Field,
  makeData,
  RecordBatch,
  RecordBatchFileWriter,
  RecordBatchReader,
  Schema,
  Struct,
  type Data,
  type DataType,
} from 'apache-arrow';
import { BaseError } from '../core/base-error.ts';
import { checkArrowLayout, checkRecordBatchMessage } from './arrow-layout.ts';
import { registerLz4Codec } from './lz4-codec.ts';

/** Rows per record batch: large enough that per-batch costs vanish, small enough to stay in cache-sized memory. */
export const DEFAULT_BATCH_ROWS = 65_536;

/** A typed array that backs one column. */
export type ColumnArray = Uint8Array | Int8Array | Int32Array | BigInt64Array | Float64Array;

export interface ArrowColumn {
  readonly name: string;
  readonly type: DataType;
}

/** Writes the Arrow bytes straight to a file descriptor: nothing piles up in memory. */
class FileSink extends AsyncByteQueue {
  constructor(private readonly fd: number) {
    super();
  }
  override write(value: Uint8Array): void {
    let offset = 0;
    while (offset < value.byteLength) offset += writeSync(this.fd, value, offset);
  }
}

export interface ArrowFileWriter {
  /** Appends one record batch of `length` rows; each column's array holds at least `length` values. */
  writeBatch(columns: readonly ColumnArray[], length: number): void;
  /** Writes the footer, syncs, and moves the file to its name. */
  finish(): void;
  /** Drops what was written: no file is left at the name or beside it. Idempotent. */
  abort(): void;
}

/**
 * @example
 * const writer = createArrowFileWriter('feed.arrow', [{ name: 'price', type: new Int64() }], { 'clobbot.feed': '{…}' });
 * writer.writeBatch([prices], prices.length);
 * writer.finish();
 */
export function createArrowFileWriter(path: string, columns: readonly ArrowColumn[], metadata: ReadonlyMap<string, string>): ArrowFileWriter {
  registerLz4Codec();
  const partial = `${path}.partial`;
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(partial, 'w');
  const schema = new Schema(
    columns.map((column) => new Field(column.name, column.type, false)),
    new Map(metadata),
  );
  const writer = new RecordBatchFileWriter({ compressionType: CompressionType.LZ4_FRAME });
  writer.reset(new FileSink(fd), schema);
  let open = true;
  return {
    writeBatch(arrays, length) {
      const children = columns.map((column, index) => makeData({ type: column.type, length, nullCount: 0, data: arrays[index]!.subarray(0, length) } as never) as Data);
      const struct = makeData({ type: new Struct(schema.fields), length, nullCount: 0, children });
      writer.write(new RecordBatch(schema, struct));
    },
    finish() {
      writer.finish();
      fsyncSync(fd);
      closeSync(fd);
      open = false;
      renameSync(partial, path);
    },
    abort() {
      if (open) {
        open = false;
        closeSync(fd);
      }
      rmSync(partial, { force: true });
    },
  };
}

/**
 * Column buffers a feed writer fills row by row: `at` is the row being written; `next()` moves on and
 * writes the buffers as one record batch when they are full.
 */
export interface BatchBuffer {
  readonly at: number;
  next(): void;
  /** Rows written so far. */
  readonly rows: number;
  /** Writes the last batch and finishes the file. */
  finish(): void;
  abort(): void;
}

/** @example const buffer = createBatchBuffer(file, [prices], 65_536); prices[buffer.at] = 6_183_763n; buffer.next(); */
export function createBatchBuffer(file: ArrowFileWriter, arrays: readonly ColumnArray[], capacity: number): BatchBuffer {
  let at = 0;
  let rows = 0;
  const flush = () => {
    if (at === 0) return;
    file.writeBatch(arrays, at);
    at = 0;
  };
  return {
    get at() {
      return at;
    },
    next() {
      at += 1;
      rows += 1;
      if (at === capacity) flush();
    },
    get rows() {
      return rows;
    },
    finish() {
      flush();
      file.finish();
    },
    abort: () => file.abort(),
  };
}

export interface ArrowBatch {
  readonly length: number;
  /** The column arrays in schema order (views into the decoded batch). */
  readonly columns: readonly ColumnArray[];
}

export interface ArrowFileReader {
  readonly path: string;
  readonly metadata: ReadonlyMap<string, string>;
  readonly columnNames: readonly string[];
  /** The columns' Arrow types in schema order (a reader checks them: a damaged schema can change a type and keep the file readable). */
  readonly columnTypes: readonly DataType[];
  readonly batchCount: number;
  /** The batches in order, one decoded at a time. */
  batches(): AsyncIterableIterator<ArrowBatch>;
  /** One batch by its index (0 .. batchCount - 1). */
  batch(index: number): Promise<ArrowBatch>;
  close(): Promise<void>;
}

/** What went wrong reading `path`, as the typed error users see. */
function unreadable(path: string, where: string, cause: unknown): BaseError {
  const reason = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
  return new BaseError('FEED_UNREADABLE', `${path}: ${where}: ${reason}`, { details: { path, where }, cause });
}

/**
 * Opens an Arrow IPC file lazily: the footer and schema now, each batch when iterated.
 * A missing file is FEED_NOT_FOUND; one that is not an Arrow IPC file FEED_FOREIGN; a truncated or
 * corrupted one FEED_UNREADABLE naming the batch where reading stopped. The structure apache-arrow
 * would trust (the footer, each batch's message header) is checked first, bounds and all
 * (arrow-layout.ts): a damaged one is FEED_UNREADABLE naming the byte, never a huge allocation or a hang.
 */
export async function openArrowFile(path: string): Promise<ArrowFileReader> {
  registerLz4Codec();
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (cause) {
    throw new BaseError('FEED_NOT_FOUND', `${path}: cannot open: ${(cause as NodeJS.ErrnoException).code ?? String(cause)}`, { details: { path }, cause });
  }
  const head = Buffer.alloc(8);
  const { size } = await handle.stat();
  await handle.read(head, 0, 8, 0);
  const tail = Buffer.alloc(6);
  if (size >= 6) await handle.read(tail, 0, 6, size - 6);
  if (head.subarray(0, 6).toString('latin1') !== 'ARROW1') {
    await handle.close();
    throw new BaseError('FEED_FOREIGN', `${path}: not an Arrow IPC file (no ARROW1 magic at its start)`, { details: { path } });
  }
  if (tail.toString('latin1') !== 'ARROW1') {
    await handle.close();
    throw new BaseError('FEED_UNREADABLE', `${path}: truncated: no Arrow footer at its end (${size} bytes); it was not finished`, { details: { path, bytes: size } });
  }
  // apache-arrow trusts the file's flatbuffer metadata: check it first (arrow-layout.ts).
  let layout;
  try {
    layout = await checkArrowLayout(handle, size, path);
  } catch (error) {
    await handle.close();
    throw error;
  }
  let reader;
  try {
    reader = await RecordBatchReader.from(handle);
    await reader.open();
  } catch (cause) {
    await handle.close();
    throw unreadable(path, 'footer', cause);
  }
  if (!reader.isFile()) {
    await handle.close();
    throw new BaseError('FEED_FOREIGN', `${path}: an Arrow stream, not an Arrow file`, { details: { path } });
  }
  const schema = reader.schema;
  const fileReader = reader;
  const batchCount = fileReader.numRecordBatches;
  if (batchCount !== layout.recordBatches.length) {
    await handle.close();
    throw unreadable(path, 'footer', `apache-arrow reads ${batchCount} record batches, the footer lists ${layout.recordBatches.length}`);
  }
  const readBatch = async (index: number): Promise<ArrowBatch> => {
    if (!Number.isInteger(index) || index < 0 || index >= batchCount) throw unreadable(path, `record batch ${index + 1} of ${batchCount}`, 'no such batch');
    await checkRecordBatchMessage(handle, layout, index, path);
    let batch;
    try {
      batch = await fileReader.readRecordBatch(index);
    } catch (cause) {
      throw unreadable(path, `record batch ${index + 1} of ${batchCount}`, cause);
    }
    if (batch === null) throw unreadable(path, `record batch ${index + 1} of ${batchCount}`, 'missing');
    const columns = schema.fields.map((_, column) => {
      const values = batch.getChildAt(column)?.data[0]?.values as ColumnArray | undefined;
      if (values === undefined || values.length < batch.numRows) throw unreadable(path, `record batch ${index + 1} of ${batchCount}, column ${column}`, 'shorter than the batch');
      return values;
    });
    return { length: batch.numRows, columns };
  };
  return {
    path,
    metadata: schema.metadata,
    columnNames: schema.fields.map((field) => field.name),
    columnTypes: schema.fields.map((field) => field.type),
    batchCount,
    async *batches() {
      for (let index = 0; index < batchCount; index += 1) yield await readBatch(index);
    },
    batch: readBatch,
    close: () => handle.close(),
  };
}
