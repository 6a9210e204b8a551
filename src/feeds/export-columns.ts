/**
 * The table an export writes (`clobbot feed export`): the feed file's own columns with their Arrow
 * types, read from its schema so that any clobbot feed (events, candles) exports without this code
 * knowing its columns, plus `kind_name` beside an event feed's `kind` (TRADE, LEVEL, …) so that a
 * reader of the Parquet or CSV file need not know the kind numbers.
 */
import { open } from 'node:fs/promises';
import { DataType, Precision, RecordBatchReader, TimeUnit } from 'apache-arrow';
import { BaseError } from '../core/base-error.ts';
import type { ColumnArray } from './arrow-file.ts';
import type { FeedHeader } from './feed-header.ts';

/** How a column's values are typed, as far as an export cares. */
export type ExportColumnType = 'uint8' | 'int8' | 'int32' | 'int64' | 'timestamp-ns' | 'float64' | 'kind-name';

export interface ExportColumn {
  readonly name: string;
  readonly type: ExportColumnType;
  /** The index of the feed column whose values this column holds (for `kind-name`: the `kind` column it names). */
  readonly source: number;
}

/** A run of the feed's rows: one array per feed column (not per export column), `length` values used in each. */
export interface ExportBatch {
  readonly length: number;
  readonly columns: readonly ColumnArray[];
}

/** A format's writer: batches in, one file (and its sidecar) at `out` when finished, nothing when aborted. */
export interface ExportSink {
  write(batch: ExportBatch): void;
  /** Completes the file, moves it to its name, and returns its size in bytes. */
  finish(): number;
  /** Leaves no file behind. Idempotent. */
  abort(): void;
}

/** The column's export type, or undefined for an Arrow type no clobbot feed uses. */
function exportType(type: DataType): ExportColumnType | undefined {
  if (DataType.isInt(type)) {
    if (type.bitWidth === 8) return type.isSigned ? 'int8' : 'uint8';
    if (type.bitWidth === 32 && type.isSigned) return 'int32';
    if (type.bitWidth === 64 && type.isSigned) return 'int64';
    return undefined;
  }
  if (DataType.isTimestamp(type)) return type.unit === TimeUnit.NANOSECOND ? 'timestamp-ns' : undefined;
  if (DataType.isFloat(type)) return type.precision === Precision.DOUBLE ? 'float64' : undefined;
  return undefined;
}

/**
 * The columns of the feed at `path` as exported: its schema's columns in order, with `kind_name`
 * after `kind` in an event feed. FEED_FOREIGN for a column type no export format here writes.
 * (openArrowFile gives names and arrays only; the schema's types say which int64 is a timestamp.)
 *
 * @example
 * const columns = await readExportColumns('btcusdt.feed.arrow', header);
 * columns.map((c) => c.name); // ['kind', 'kind_name', 'side', 'exch_ts', 'local_ts', 'price', 'qty', 'id']
 */
export async function readExportColumns(path: string, header: FeedHeader): Promise<ExportColumn[]> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (cause) {
    throw new BaseError('FEED_NOT_FOUND', `${path}: cannot open: ${(cause as NodeJS.ErrnoException).code ?? String(cause)}`, { details: { path }, cause });
  }
  let fields;
  try {
    const reader = await RecordBatchReader.from(handle);
    await reader.open();
    fields = reader.schema.fields;
  } catch (cause) {
    throw new BaseError('FEED_UNREADABLE', `${path}: schema: ${cause instanceof Error ? cause.message.split('\n')[0] : String(cause)}`, { details: { path, where: 'schema' }, cause });
  } finally {
    await handle.close();
  }
  const columns: ExportColumn[] = [];
  fields.forEach((field, index) => {
    const type = exportType(field.type);
    if (type === undefined) {
      throw new BaseError('FEED_FOREIGN', `${path}: column ${field.name} is ${String(field.type)}, which a feed export does not write`, { details: { path, column: field.name } });
    }
    columns.push({ name: field.name, type, source: index });
    if (header.kind === 'events' && field.name === 'kind' && type === 'uint8') columns.push({ name: 'kind_name', type: 'kind-name', source: index });
  });
  return columns;
}

/** The column rows are filtered on: local receive time for events, the candle's open time for candles. */
export function timeColumnName(header: FeedHeader): string {
  return header.kind === 'events' ? 'local_ts' : 'open_time';
}
