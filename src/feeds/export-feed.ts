/**
 * `clobbot feed export`: a normalized feed (events or candles) as a Parquet or CSV file for pandas,
 * polars, DuckDB or a spreadsheet. It streams the feed a record batch at a time, so memory is bounded
 * by a batch however long the feed, keeps the rows in [from, to) of the feed's time column, and
 * writes under `<out>.partial`, renamed only when complete: a file at `out` is always whole.
 */
import { existsSync } from 'node:fs';
import { BaseError } from '../core/base-error.ts';
import { openArrowFile, type ColumnArray } from './arrow-file.ts';
import { readHeader } from './feed-header.ts';
import { readExportColumns, timeColumnName, type ExportBatch, type ExportSink } from './export-columns.ts';
import { createCsvSink, csvSidecarPath } from './export-csv.ts';
import { createParquetSink, type ParquetCodec } from './export-parquet.ts';

export type ExportFormat = 'parquet' | 'csv';

export interface ExportFeedOptions {
  /** The feed file (`.arrow`). */
  readonly path: string;
  /** The file to write. CSV exports also write `<out>.json`, the feed header. */
  readonly out: string;
  readonly format: ExportFormat;
  /** Keep rows whose time (local_ts of events, open_time of candles) is at least this, ns since the epoch. */
  readonly from?: bigint;
  /** Keep rows whose time is before this (exclusive), ns since the epoch. */
  readonly to?: bigint;
  /** Replace `out` (and its sidecar) when it exists; otherwise FEED_OUTPUT_EXISTS. */
  readonly force?: boolean;
  /** Parquet only: SNAPPY (default) or UNCOMPRESSED. */
  readonly codec?: ParquetCodec;
  /** Called after each batch with the rows read and written so far. */
  readonly onProgress?: (progress: { readonly rowsRead: number; readonly rows: number }) => void;
}

export interface ExportFeedResult {
  /** Rows written. */
  readonly rows: number;
  /** Size of the file at `out`. */
  readonly bytes: number;
  /** The exported columns in file order. */
  readonly columns: readonly string[];
  /** CSV: the JSON file holding the feed header. */
  readonly sidecar?: string;
}

/** The rows of `batch` whose `times` value is in [from, to): the batch itself, a view of a run, or a copy. */
function selectRows(batch: ExportBatch, times: BigInt64Array, from: bigint | undefined, to: bigint | undefined): ExportBatch {
  const keep = (t: bigint) => (from === undefined || t >= from) && (to === undefined || t < to);
  let count = 0;
  let first = -1;
  let last = -1;
  for (let row = 0; row < batch.length; row += 1) {
    if (!keep(times[row]!)) continue;
    count += 1;
    if (first < 0) first = row;
    last = row;
  }
  if (count === batch.length) return batch;
  if (count === 0) return { length: 0, columns: batch.columns };
  // Feeds are in time order, so the kept rows are nearly always one run: views, no copy.
  if (last - first + 1 === count) return { length: count, columns: batch.columns.map((array) => array.subarray(first, last + 1)) };
  const rows = new Int32Array(count);
  for (let row = first, n = 0; row <= last; row += 1) if (keep(times[row]!)) rows[n++] = row;
  return { length: count, columns: batch.columns.map((array) => gather(array, rows)) };
}

function gather(array: ColumnArray, rows: Int32Array): ColumnArray {
  if (array instanceof BigInt64Array) {
    const out = new BigInt64Array(rows.length);
    for (let i = 0; i < rows.length; i += 1) out[i] = array[rows[i]!]!;
    return out;
  }
  const out = new (array.constructor as new (length: number) => Exclude<ColumnArray, BigInt64Array>)(rows.length);
  for (let i = 0; i < rows.length; i += 1) out[i] = array[rows[i]!]!;
  return out;
}

/**
 * Exports the feed at `path` to `out` as Parquet or CSV (see export-parquet.ts and export-csv.ts
 * for the column types). FEED_OUTPUT_EXISTS when `out` (or a CSV's sidecar) exists and `force` is
 * not set; the feed's own refusals (FEED_NOT_FOUND, FEED_FOREIGN, FEED_UNREADABLE, …) otherwise.
 * On any failure nothing is left at `out` or beside it, and an existing `out` is untouched.
 *
 * @example
 * const { rows, bytes } = await exportFeed({ path: 'btcusdt.feed.arrow', out: 'btcusdt.parquet', format: 'parquet' });
 * // duckdb: select kind_name, count(*) from 'btcusdt.parquet' group by all;
 */
export async function exportFeed(options: ExportFeedOptions): Promise<ExportFeedResult> {
  const { path, out, format, from, to } = options;
  const targets = format === 'csv' ? [out, csvSidecarPath(out)] : [out];
  const existing = targets.find((target) => existsSync(target));
  if (existing !== undefined && options.force !== true) {
    throw new BaseError('FEED_OUTPUT_EXISTS', `${existing} already exists (pass --force to replace it)`, { details: { path: existing } });
  }
  const file = await openArrowFile(path);
  try {
    const header = readHeader(path, file.metadata);
    const columns = await readExportColumns(path, header);
    const timeName = timeColumnName(header);
    const timeIndex = file.columnNames.indexOf(timeName);
    const filtering = from !== undefined || to !== undefined;
    if (filtering && timeIndex < 0) {
      throw new BaseError('FEED_FOREIGN', `${path}: a ${header.kind} feed without its ${timeName} column: cannot select a time range`, { details: { path, column: timeName } });
    }
    const sink: ExportSink = format === 'parquet' ? createParquetSink(out, columns, header, options.codec) : createCsvSink(out, columns, header);
    let rows = 0;
    let rowsRead = 0;
    try {
      for await (const batch of file.batches()) {
        rowsRead += batch.length;
        const kept = filtering ? selectRows(batch, batch.columns[timeIndex] as BigInt64Array, from, to) : batch;
        sink.write(kept);
        rows += kept.length;
        options.onProgress?.({ rowsRead, rows });
      }
      const bytes = sink.finish();
      return { rows, bytes, columns: columns.map((column) => column.name), ...(format === 'csv' ? { sidecar: csvSidecarPath(out) } : {}) };
    } catch (error) {
      sink.abort();
      throw error;
    }
  } finally {
    await file.close();
  }
}
