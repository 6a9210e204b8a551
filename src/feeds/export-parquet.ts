/**
 * The Parquet side of `clobbot feed export`: one row group per batch, written straight to
 * `<out>.partial` so memory stays bounded by a batch, and renamed only when the footer is written.
 * Types are the ones pandas, polars and DuckDB read without help: timestamps as TIMESTAMP(NANOS),
 * `kind` as an unsigned 8-bit integer, `side` as a signed one, integers as INT64, and the feed
 * header as key-value metadata under `clobbot.feed`.
 *
 * Timestamps are UTC instants but are not flagged isAdjustedToUTC: DuckDB reads a UTC-adjusted
 * timestamp as TIMESTAMPTZ, which holds microseconds, and would drop the last three digits of every
 * time; unflagged, it reads TIMESTAMP_NS exactly (pandas and polars read a naive ns datetime).
 * The 8-bit integers carry only the legacy converted type (UINT_8, INT_8): hyparquet-writer writes
 * the INTEGER logical type's bit width as a 32-bit field, which DuckDB refuses as invalid Thrift.
 */
import { closeSync, fstatSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { ByteWriter, ParquetWriter, type ColumnSource, type SchemaElement } from 'hyparquet-writer';
import { feedEventKindName } from './feed-event.ts';
import { FEED_METADATA_KEY, type FeedHeader } from './feed-header.ts';
import type { ColumnArray } from './arrow-file.ts';
import type { ExportColumn, ExportColumnType, ExportSink } from './export-columns.ts';

/** Parquet compressions that need no extra package: Snappy is built into hyparquet-writer. */
export type ParquetCodec = 'SNAPPY' | 'UNCOMPRESSED';

/** Bytes buffered before they go to the file: few system calls, bounded memory. */
const FLUSH_BYTES = 1 << 20;

/** A hyparquet-writer output that writes to a file descriptor as it fills, instead of growing one buffer. */
class FileByteWriter extends ByteWriter {
  constructor(private readonly fd: number) {
    super(FLUSH_BYTES * 2);
  }
  private flushBuffer(): void {
    const bytes = new Uint8Array(this.buffer, 0, this.index);
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written);
    this.index = 0;
  }
  override ensure(size: number): void {
    if (this.index > FLUSH_BYTES) this.flushBuffer();
    super.ensure(size);
  }
  override finish(): void {
    this.flushBuffer();
  }
}

function schemaElement(column: ExportColumn): SchemaElement {
  const base = { name: column.name, repetition_type: 'REQUIRED' } as const;
  switch (column.type) {
    case 'uint8':
      return { ...base, type: 'INT32', converted_type: 'UINT_8' };
    case 'int8':
      return { ...base, type: 'INT32', converted_type: 'INT_8' };
    case 'int32':
      return { ...base, type: 'INT32' };
    case 'int64':
      return { ...base, type: 'INT64' };
    case 'timestamp-ns':
      return { ...base, type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'NANOS' } };
    case 'float64':
      return { ...base, type: 'DOUBLE' };
    case 'kind-name':
      return { ...base, type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } };
  }
}

/** The kind names by value, looked up once per kind rather than once per row. */
const KIND_NAMES: readonly string[] = Array.from({ length: 256 }, (_, kind) => feedEventKindName(kind) ?? `KIND_${kind}`);

/** A column's values in a form hyparquet-writer encodes (it takes no Int8Array; 8-bit values widen to INT32 anyway). */
function columnValues(type: ExportColumnType, values: ColumnArray, length: number): ColumnSource['data'] {
  const used = values.subarray(0, length);
  if (used instanceof Int8Array || used instanceof Uint8Array) {
    if (type !== 'kind-name') return Int32Array.from(used);
    const names = new Array<string>(length);
    for (let i = 0; i < length; i += 1) names[i] = KIND_NAMES[used[i]!]!;
    return names;
  }
  return used;
}

/**
 * @example
 * const sink = createParquetSink('btcusdt.parquet', columns, header, 'SNAPPY');
 * sink.write(batch);
 * const bytes = sink.finish();
 */
export function createParquetSink(out: string, columns: readonly ExportColumn[], header: FeedHeader, codec: ParquetCodec = 'SNAPPY'): ExportSink {
  const partial = `${out}.partial`;
  const fd = openSync(partial, 'w');
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    closeSync(fd);
  };
  const writer = new ParquetWriter({
    writer: new FileByteWriter(fd),
    schema: [{ name: 'root', num_children: columns.length }, ...columns.map(schemaElement)],
    codec,
    kvMetadata: [{ key: FEED_METADATA_KEY, value: JSON.stringify(header) }],
    createdBy: 'clobbot feed export (hyparquet-writer)',
  });
  return {
    write(batch) {
      if (batch.length === 0) return;
      const columnData = columns.map((column): ColumnSource => ({
        name: column.name,
        data: columnValues(column.type, batch.columns[column.source]!, batch.length),
        // Times rise row by row: delta encoding stores them in a few bits each (half the file size).
        ...(column.type === 'timestamp-ns' ? { encoding: 'DELTA_BINARY_PACKED' as const } : {}),
      }));
      // The writer's output has no async flush, so write() completes synchronously.
      void writer.write({ columnData, rowGroupSize: batch.length });
    },
    finish() {
      void writer.finish();
      fsyncSync(fd);
      const bytes = fstatSync(fd).size;
      close();
      renameSync(partial, out);
      return bytes;
    },
    abort() {
      close();
      rmSync(partial, { force: true });
    },
  };
}
