/**
 * `clobbot feed info`: what a normalized feed holds, from its header and one pass over the columns
 * that say it (kind and times for events, open and close times for candles). Built to run on feeds
 * of millions of rows: per-row work is a few typed-array reads, nothing is kept per row.
 */
import { statSync } from 'node:fs';
import { openArrowFile } from './arrow-file.ts';
import { FeedEventKind, feedEventKindName } from './feed-event.ts';
import { readHeader, type ClockCorrection, type FeedHeader, type FeedMarket } from './feed-header.ts';

/** An instant: ns since the epoch, and the same as ISO 8601 UTC with all nine fraction digits. */
export interface FeedTime {
  readonly ns: bigint;
  readonly iso: string;
}

/** The earliest and latest value of a time column (not the first and last row: exchange times can step back). */
export interface FeedTimeRange {
  readonly earliest: FeedTime;
  readonly latest: FeedTime;
}

export interface FeedGapPosition {
  readonly kind: 'BOOK_GAP' | 'TRADE_GAP';
  /** The gap row's index in the file, from 0. */
  readonly row: number;
  readonly localTs: FeedTime;
  /** BOOK_GAP: the first missing update id; TRADE_GAP: the first missing trade id. */
  readonly id: bigint;
  /** TRADE_GAP: how many trades were never seen. */
  readonly missing?: bigint;
}

export interface EventFeedSummary {
  readonly exchTs: FeedTimeRange | null;
  readonly localTs: FeedTimeRange | null;
  /** Rows by kind name (`TRADE`, `LEVEL`, …; `KIND_<n>` for a value that is no kind), in kind order. */
  readonly counts: Readonly<Record<string, number>>;
  readonly gaps: {
    readonly count: number;
    readonly book: number;
    readonly trades: number;
    /** The first few gaps, in file order. */
    readonly first: readonly FeedGapPosition[];
  };
}

export interface CandleFeedSummary {
  /** The candle interval the header states (`1m`), when it does. */
  readonly interval: string | null;
  readonly count: number;
  readonly openTime: FeedTimeRange | null;
  readonly closeTime: FeedTimeRange | null;
  /** Candles absent between the first and the last open time, when the interval has a fixed length. */
  readonly missing: number | null;
}

export interface FeedDescription {
  readonly path: string;
  /** File size. */
  readonly bytes: number;
  readonly batches: number;
  readonly rows: number;
  readonly format: string;
  readonly version: number;
  readonly kind: FeedHeader['kind'];
  readonly columns: readonly string[];
  /** Where the data came from: kind, input files (name and SHA-256), notes, network and interval when stated. */
  readonly source: {
    readonly kind: FeedHeader['source']['kind'];
    readonly files: readonly { readonly name: string; readonly sha256: string }[];
    readonly notes: readonly string[];
    readonly network?: string;
    readonly interval?: string;
  };
  readonly market: FeedMarket;
  readonly clockCorrection: ClockCorrection | null;
  /** Event feeds only. */
  readonly events?: EventFeedSummary;
  /** Candle feeds only. */
  readonly candles?: CandleFeedSummary;
}

/** How many gap positions a description lists. */
export const LISTED_GAPS = 10;

const NS_PER_S = 1_000_000_000n;

/** `2024-08-08T23:54:13.937085768Z`: Date gives the seconds, the nanoseconds are appended exactly. */
export function nsToIso(ns: bigint): string {
  let seconds = ns / NS_PER_S;
  let fraction = ns % NS_PER_S;
  if (fraction < 0n) {
    fraction += NS_PER_S;
    seconds -= 1n;
  }
  const whole = new Date(Number(seconds) * 1000).toISOString().slice(0, -5);
  return `${whole}.${fraction.toString().padStart(9, '0')}Z`;
}

const time = (ns: bigint): FeedTime => ({ ns, iso: nsToIso(ns) });

/** Tracks the earliest and latest value of a bigint column. */
class Range {
  min = 0n;
  max = 0n;
  seen = false;
  add(values: BigInt64Array, length: number): void {
    let { min, max } = this;
    let start = 0;
    if (!this.seen && length > 0) {
      min = max = values[0]!;
      start = 1;
      this.seen = true;
    }
    for (let i = start; i < length; i += 1) {
      const value = values[i]!;
      if (value < min) min = value;
      else if (value > max) max = value;
    }
    this.min = min;
    this.max = max;
  }
  result(): FeedTimeRange | null {
    return this.seen ? { earliest: time(this.min), latest: time(this.max) } : null;
  }
}

const INTERVAL_NS: Readonly<Record<string, bigint>> = { s: NS_PER_S, m: 60n * NS_PER_S, h: 3_600n * NS_PER_S, d: 86_400n * NS_PER_S, w: 604_800n * NS_PER_S };

/** The length of a candle interval (`15m`) in ns; null for months, whose length varies. */
function intervalNs(interval: string): bigint | null {
  const match = /^([1-9][0-9]*)([smhdw])$/.exec(interval);
  return match === null ? null : BigInt(match[1]!) * INTERVAL_NS[match[2]!]!;
}

/**
 * Describes the feed at `path`. FEED_NOT_FOUND, FEED_FOREIGN, FEED_VERSION_UNSUPPORTED and
 * FEED_UNREADABLE (truncated or corrupted) as when opening it for a replay.
 *
 * @example
 * const description = await describeFeed('btcusdt.feed.arrow');
 * process.stdout.write(formatFeedDescription(description));
 * description.events?.counts.TRADE; // 2570
 */
export async function describeFeed(path: string): Promise<FeedDescription> {
  const file = await openArrowFile(path);
  try {
    const header = readHeader(path, file.metadata);
    const names = file.columnNames;
    const column = (name: string): number => names.indexOf(name);
    const kindColumn = column('kind');
    const exchColumn = column('exch_ts');
    const localColumn = column('local_ts');
    const idColumn = column('id');
    const qtyColumn = column('qty');
    const openColumn = column('open_time');
    const closeColumn = column('close_time');
    const isEvents = header.kind === 'events';

    const counts = new Float64Array(256);
    const exch = new Range();
    const local = new Range();
    const opens = new Range();
    const closes = new Range();
    const gaps: FeedGapPosition[] = [];
    let bookGaps = 0;
    let tradeGaps = 0;
    let rows = 0;
    for await (const batch of file.batches()) {
      const { length, columns } = batch;
      if (isEvents) {
        const kinds = kindColumn < 0 ? undefined : (columns[kindColumn] as Uint8Array);
        if (exchColumn >= 0) exch.add(columns[exchColumn] as BigInt64Array, length);
        if (localColumn >= 0) local.add(columns[localColumn] as BigInt64Array, length);
        if (kinds !== undefined) {
          for (let i = 0; i < length; i += 1) {
            const kind = kinds[i]!;
            counts[kind] = counts[kind]! + 1;
            if (kind !== FeedEventKind.BOOK_GAP && kind !== FeedEventKind.TRADE_GAP) continue;
            const isBook = kind === FeedEventKind.BOOK_GAP;
            if (isBook) bookGaps += 1;
            else tradeGaps += 1;
            if (gaps.length >= LISTED_GAPS) continue;
            const localTs = localColumn < 0 ? 0n : (columns[localColumn] as BigInt64Array)[i]!;
            const id = idColumn < 0 ? 0n : (columns[idColumn] as BigInt64Array)[i]!;
            const missing = !isBook && qtyColumn >= 0 ? (columns[qtyColumn] as BigInt64Array)[i]! : undefined;
            gaps.push({ kind: isBook ? 'BOOK_GAP' : 'TRADE_GAP', row: rows + i, localTs: time(localTs), id, ...(missing === undefined ? {} : { missing }) });
          }
        }
      } else {
        if (openColumn >= 0) opens.add(columns[openColumn] as BigInt64Array, length);
        if (closeColumn >= 0) closes.add(columns[closeColumn] as BigInt64Array, length);
      }
      rows += length;
    }

    const { source } = header;
    const description: FeedDescription = {
      path,
      bytes: statSync(path).size,
      batches: file.batchCount,
      rows,
      format: header.format,
      version: header.version,
      kind: header.kind,
      columns: names,
      source: {
        kind: source.kind,
        files: source.files,
        notes: source.notes ?? [],
        ...(source.network === undefined ? {} : { network: source.network }),
        ...(source.interval === undefined ? {} : { interval: source.interval }),
      },
      market: header.market,
      clockCorrection: header.clockCorrection ?? null,
    };
    if (isEvents) {
      const byName: Record<string, number> = {};
      counts.forEach((count, kind) => {
        if (count > 0) byName[feedEventKindName(kind) ?? `KIND_${kind}`] = count;
      });
      return {
        ...description,
        events: { exchTs: exch.result(), localTs: local.result(), counts: byName, gaps: { count: bookGaps + tradeGaps, book: bookGaps, trades: tradeGaps, first: gaps } },
      };
    }
    const interval = source.interval ?? null;
    const step = interval === null ? null : intervalNs(interval);
    const missing = step === null || !opens.seen ? null : Number((opens.max - opens.min) / step + 1n) - rows;
    return { ...description, candles: { interval, count: rows, openTime: opens.result(), closeTime: closes.result(), missing } };
  } finally {
    await file.close();
  }
}

/**
 * The description as JSON for `feed info --json`: bigints (ns times, ids) as decimal strings, so
 * that no value is rounded by a JSON reader's doubles.
 *
 * @example
 * process.stdout.write(`${feedDescriptionJson(await describeFeed('btcusdt.feed.arrow'))}\n`);
 */
export function feedDescriptionJson(description: FeedDescription): string {
  return JSON.stringify(description, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value), 2);
}

const count = (n: number): string => n.toLocaleString('en-US');

function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** `2h 3m 4.500s`: a span in the units a reader takes in at a glance. */
function span(ns: bigint): string {
  const seconds = Number(ns) / 1e9;
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3_600);
  const minutes = Math.floor((seconds % 3_600) / 60);
  const rest = seconds % 60;
  const parts = [days > 0 ? `${days}d` : '', days + hours > 0 ? `${hours}h` : '', days + hours + minutes > 0 ? `${minutes}m` : ''].filter((part) => part !== '');
  return [...parts, `${rest.toFixed(3)}s`].join(' ');
}

function rangeLine(range: FeedTimeRange | null): string {
  return range === null ? '(no rows)' : `${range.earliest.iso} .. ${range.latest.iso} (${span(range.latest.ns - range.earliest.ns)})`;
}

/** Signed ns as seconds with all nine digits (`+1.271000000 s`). */
function seconds(nsText: string): string {
  const ns = BigInt(nsText);
  const magnitude = ns < 0n ? -ns : ns;
  return `${ns < 0n ? '-' : '+'}${magnitude / NS_PER_S}.${(magnitude % NS_PER_S).toString().padStart(9, '0')} s`;
}

/**
 * The description as readable lines for `clobbot feed info`, ending in a newline.
 *
 * @example
 * process.stdout.write(formatFeedDescription(await describeFeed('btcusdt.feed.arrow')));
 * // btcusdt.feed.arrow: clobbot-feed v1, events feed
 * //   rows         3,974 in 1 batch, 96.3 KiB
 * //   …
 */
export function formatFeedDescription(d: FeedDescription): string {
  const lines: string[] = [`${d.path}: ${d.format} v${d.version}, ${d.kind} feed`];
  const field = (label: string, text: string) => lines.push(`  ${label.padEnd(12)} ${text}`);
  const more = (text: string) => lines.push(`  ${''.padEnd(12)} ${text}`);
  field('rows', `${count(d.rows)} in ${count(d.batches)} batch${d.batches === 1 ? '' : 'es'}, ${byteSize(d.bytes)}`);
  field('columns', d.columns.join(', '));

  const files = d.source.files.map((f) => `${f.name} (sha256 ${f.sha256.slice(0, 12)}…)`);
  field('source', `${d.source.kind}${d.source.network === undefined ? '' : ` on ${d.source.network}`}${files.length === 0 ? '' : `: ${files[0]}`}`);
  for (const f of files.slice(1)) more(f);
  for (const note of d.source.notes) more(`note: ${note}`);

  const m = d.market;
  const assets = m.baseAsset !== undefined && m.quoteAsset !== undefined ? ` (${m.baseAsset}/${m.quoteAsset})` : '';
  field('market', `${m.symbol}${assets}, tick ${m.tickSize}, lot ${m.lotSize}${m.inferred === true ? ' (inferred from the data)' : ''}`);
  if (m.makerFee !== undefined || m.takerFee !== undefined) more(`fees: maker ${m.makerFee ?? '?'}, taker ${m.takerFee ?? '?'}`);
  if (m.venue !== undefined) {
    const v = m.venue;
    more(`venue ${v.address}: ${v.baseToken.symbol}/${v.quoteToken.symbol}, price precision ${v.pricePrecision}, size precision ${v.sizePrecision}, tick ${v.tickSize}`);
    more(`sizes ${v.minSize} .. ${v.maxSize}, fees maker ${v.makerFeePps} / taker ${v.takerFeePps} pps`);
  }

  if (d.events !== undefined) {
    const e = d.events;
    field('local time', rangeLine(e.localTs));
    field('exch time', rangeLine(e.exchTs));
    const kinds = Object.entries(e.counts).map(([name, n]) => `${name} ${count(n)}`);
    field('rows by kind', kinds.length === 0 ? '(none)' : kinds.join(', '));
    field('gaps', e.gaps.count === 0 ? 'none' : `${count(e.gaps.count)} (${count(e.gaps.book)} book, ${count(e.gaps.trades)} trades)`);
    for (const gap of e.gaps.first) {
      const what = gap.kind === 'BOOK_GAP' ? `updates from ${gap.id}` : `${gap.missing ?? '?'} trades from ${gap.id}`;
      more(`${gap.kind} at row ${count(gap.row)}, ${gap.localTs.iso}: ${what}`);
    }
    if (e.gaps.count > e.gaps.first.length) more(`… and ${count(e.gaps.count - e.gaps.first.length)} more`);
  }
  if (d.candles !== undefined) {
    const c = d.candles;
    field('candles', `${count(c.count)}${c.interval === null ? '' : ` of ${c.interval}`}${c.missing === null || c.missing <= 0 ? '' : `, ${count(c.missing)} missing`}`);
    field('open time', rangeLine(c.openTime));
    field('close time', rangeLine(c.closeTime));
  }
  if (d.clockCorrection !== null) {
    const cc = d.clockCorrection;
    field('clock', `${cc.method} correction: local times moved by ${seconds(cc.addedNs)} (min latency seen ${seconds(cc.minLatencyNs)}, base latency ${seconds(cc.baseLatencyNs)})`);
  }
  return `${lines.join('\n')}\n`;
}
