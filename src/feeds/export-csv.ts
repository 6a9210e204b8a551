/**
 * The CSV side of `clobbot feed export`: a header row of column names, then one line per row.
 * Integers are written as integers and timestamps as integer ns since the Unix epoch (exact, where
 * an ISO text or a float would round); `kind_name` carries the kind's name (TRADE, LEVEL, …) beside
 * its number. The feed header (market, tick and lot sizes, source) has no place in CSV, so it goes
 * to a JSON sidecar `<out>.json`. Both are written under `.partial` names and renamed when complete,
 * the sidecar first, so a CSV at `out` always has its header beside it.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import type { ColumnArray } from './arrow-file.ts';
import { feedEventKindName } from './feed-event.ts';
import type { FeedHeader } from './feed-header.ts';
import type { ExportColumn, ExportSink } from './export-columns.ts';

/** The sidecar that holds the feed header of a CSV export. */
export const csvSidecarPath = (out: string): string => `${out}.json`;

const KIND_NAMES: readonly string[] = Array.from({ length: 256 }, (_, kind) => feedEventKindName(kind) ?? `KIND_${kind}`);

/** Column names are clobbot's own (snake_case), but quote any that CSV would misread. */
function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * @example
 * const sink = createCsvSink('btcusdt.csv', columns, header);
 * sink.write(batch);
 * const bytes = sink.finish(); // btcusdt.csv and btcusdt.csv.json
 */
export function createCsvSink(out: string, columns: readonly ExportColumn[], header: FeedHeader): ExportSink {
  const partial = `${out}.partial`;
  const sidecar = csvSidecarPath(out);
  const sidecarPartial = `${sidecar}.partial`;
  const fd = openSync(partial, 'w');
  let open = true;
  let bytes = 0;
  const close = () => {
    if (!open) return;
    open = false;
    closeSync(fd);
  };
  const put = (text: string) => {
    const chunk = Buffer.from(text, 'utf8');
    let written = 0;
    while (written < chunk.length) written += writeSync(fd, chunk, written);
    bytes += chunk.length;
  };
  put(`${columns.map((column) => csvField(column.name)).join(',')}\n`);
  return {
    write(batch) {
      const arrays: ColumnArray[] = columns.map((column) => batch.columns[column.source]!);
      const names = columns.map((column) => column.type === 'kind-name');
      const lines = new Array<string>(batch.length);
      for (let row = 0; row < batch.length; row += 1) {
        let line = '';
        for (let c = 0; c < arrays.length; c += 1) {
          const value = arrays[c]![row]!;
          const text = names[c] ? KIND_NAMES[value as number]! : String(value);
          line = c === 0 ? text : `${line},${text}`;
        }
        lines[row] = line;
      }
      if (batch.length > 0) put(`${lines.join('\n')}\n`);
    },
    finish() {
      fsyncSync(fd);
      close();
      writeFileSync(sidecarPartial, `${JSON.stringify(header, null, 2)}\n`);
      renameSync(sidecarPartial, sidecar);
      renameSync(partial, out);
      return bytes;
    },
    abort() {
      close();
      rmSync(partial, { force: true });
      rmSync(sidecarPartial, { force: true });
    },
  };
}
