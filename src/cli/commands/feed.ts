/**
 * `clobbot feed info|normalize|export`: describe a feed (raw recording or normalized), convert a
 * raw recording to the normalized format, export a feed for pandas, polars and DuckDB (docs/feeds.md).
 */
import { existsSync } from 'node:fs';
import { BaseError } from '../../core/base-error.ts';
import { describeFeed, feedDescriptionJson, formatFeedDescription } from '../../feeds/describe-feed.ts';
import { describeRawFeed, formatRawFeedDescription } from '../../feeds/describe-raw-feed.ts';
import { exportFeed } from '../../feeds/export-feed.ts';
import { isRawFeedFile, normalizedFeedFor } from '../../feeds/feed-cache.ts';
import { normalizeRawFeed } from '../../feeds/normalize-raw-feed.ts';
import type { CliIo } from '../cli-io.ts';
import { ExitCode, type Command } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';

const usage = [
  'clobbot feed info <file> [--json]',
  'clobbot feed normalize <raw file> [--out <file.arrow>] [--force]',
  'clobbot feed export <file> --format parquet|csv [--out <file>] [--from <t>] [--to <t>] [--force]',
  '',
  '  info        source, market, time range, counts by kind, gaps, clock correction, size; of a raw',
  '              recording also where it ends (closed, or cut short and readable up to which record)',
  '  normalize   a raw recording to the normalized feed (Arrow IPC, LZ4): default <raw without .raw>.arrow',
  '  export      Parquet or CSV (with <out>.json holding the header) of a feed; a raw recording is',
  '              normalized first (cached in .clobbot/feeds by content hash)',
  '  --from, --to  keep rows with local time in [from, to): an ISO 8601 instant, or ms since the epoch',
  '  --force     replace an existing output file',
].join('\n');

const usageError = (message: string) => new BaseError('CLI_USAGE', `feed: ${message}`, { details: { command: 'feed' } });

/** `--from`/`--to`: an ISO 8601 instant or integer ms since the epoch, as ns. */
export function parseTimeBound(text: string, option: string): bigint {
  if (/^[0-9]{1,16}$/.test(text)) return BigInt(text) * 1_000_000n;
  const ms = /^\d{4}-\d{2}-\d{2}(T[0-9:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(text) ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(ms)) throw usageError(`${option} must be an ISO 8601 instant (2024-08-09T00:00:00Z) or ms since the epoch`);
  return BigInt(ms) * 1_000_000n;
}

const withoutExtension = (path: string) => path.replace(/\.(raw|arrow)$/, '');

async function info(file: string, json: boolean, io: CliIo): Promise<number> {
  if (isRawFeedFile(file)) {
    const description = describeRawFeed(file);
    io.stdout.write(json ? `${JSON.stringify(description, null, 2)}\n` : formatRawFeedDescription(description));
  } else {
    const description = await describeFeed(file);
    io.stdout.write(json ? `${feedDescriptionJson(description)}\n` : formatFeedDescription(description));
  }
  return ExitCode.ok;
}

async function normalize(file: string, out: string | undefined, force: boolean, io: CliIo): Promise<number> {
  if (!isRawFeedFile(file)) throw new BaseError('FEED_FOREIGN', `${file}: not a raw recording (it is already normalized, or not a feed)`, { details: { path: file } });
  const target = out ?? `${withoutExtension(file)}.arrow`;
  if (existsSync(target) && !force) throw new BaseError('FEED_OUTPUT_EXISTS', `${target} already exists (pass --force to replace it)`, { details: { path: target } });
  const started = performance.now();
  const result = await normalizeRawFeed(file, target);
  const seconds = (performance.now() - started) / 1_000;
  io.stdout.write(`normalized ${file} -> ${target}: ${result.records.toLocaleString('en-US')} records, ${result.rows.toLocaleString('en-US')} rows in ${seconds.toFixed(1)} s\n`);
  for (const note of result.notes) io.stdout.write(`  note: ${note}\n`);
  if (result.staleDepth > 0) io.stdout.write(`  note: ${result.staleDepth} depth answers of an update id already seen added nothing\n`);
  return ExitCode.ok;
}

export const feedCommand: Command = {
  name: 'feed',
  summary: 'describe, normalize or export a recorded or imported feed',
  usage,
  async run(args, io) {
    const [action, ...rest] = args;
    if (action === 'info') {
      const { values, positionals } = parseCommandArgs(rest, { command: 'feed info', options: { json: { type: 'boolean' } }, positionals: ['file'] });
      return info(positionals[0]!, values.json === true, io);
    }
    if (action === 'normalize') {
      const { values, positionals } = parseCommandArgs(rest, { command: 'feed normalize', options: { out: { type: 'string' }, force: { type: 'boolean' } }, positionals: ['raw file'] });
      return normalize(positionals[0]!, values.out, values.force === true, io);
    }
    if (action === 'export') {
      const { values, positionals } = parseCommandArgs(rest, {
        command: 'feed export',
        options: { format: { type: 'string' }, out: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, force: { type: 'boolean' } },
        positionals: ['file'],
      });
      const format = values.format;
      if (format !== 'parquet' && format !== 'csv') throw usageError('export needs --format parquet or --format csv');
      const from = values.from === undefined ? undefined : parseTimeBound(values.from, '--from');
      const to = values.to === undefined ? undefined : parseTimeBound(values.to, '--to');
      const file = positionals[0]!;
      const { path } = await normalizedFeedFor(file);
      const out = values.out ?? `${withoutExtension(file)}.${format}`;
      const result = await exportFeed({ path, out, format, ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }), force: values.force === true });
      io.stdout.write(`exported ${file} -> ${out}: ${result.rows.toLocaleString('en-US')} rows, ${result.bytes.toLocaleString('en-US')} bytes${result.sidecar === undefined ? '' : ` (header in ${result.sidecar})`}\n`);
      return ExitCode.ok;
    }
    throw usageError(action === undefined ? 'expected info, normalize or export' : `unknown action ${JSON.stringify(action.slice(0, 20))}: expected info, normalize or export`);
  },
};
