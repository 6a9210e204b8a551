/**
 * `clobbot feed info` of a raw recording: what it records, how many records of each kind over what
 * time, its gaps (failed polls, trades missed between two polls), and where it ends: closed by the
 * recorder, or cut short (killed), with the bytes of a cut last line.
 */
import { statSync } from 'node:fs';
import type { RawHeader, RawRecordKind } from './raw-feed-format.ts';
import { openRawFeed, type RawFeedEnd } from './raw-feed-reader.ts';

export interface RawFeedDescription {
  readonly path: string;
  readonly header: RawHeader;
  readonly bytes: number;
  readonly counts: Readonly<Partial<Record<RawRecordKind, number>>>;
  /** Local times of the first and last records, ms. */
  readonly firstAtMs: number | undefined;
  readonly lastAtMs: number | undefined;
  readonly failedPolls: number;
  /** Trade polls whose oldest new trade was not the one after the last seen. */
  readonly tradeGaps: number;
  readonly end: RawFeedEnd;
}

/** @example formatRawFeedDescription(describeRawFeed('recordings/MON_USDC-1767225600160.raw')) */
export function describeRawFeed(path: string): RawFeedDescription {
  const raw = openRawFeed(path);
  const counts: Partial<Record<RawRecordKind, number>> = { header: 1 };
  let firstAtMs: number | undefined;
  let failedPolls = 0;
  let tradeGaps = 0;
  let lastTradeId: number | undefined;
  for (const record of raw.records()) {
    counts[record.kind] = (counts[record.kind] ?? 0) + 1;
    firstAtMs ??= record.atMs;
    if (record.kind === 'fail') failedPolls += 1;
    if (record.kind === 'trades') {
      const ids = (JSON.parse(record.body) as { id: number }[]).map((trade) => trade.id).filter((id) => lastTradeId === undefined || id > lastTradeId);
      if (ids.length === 0) continue;
      const first = Math.min(...ids);
      if (lastTradeId !== undefined && first > lastTradeId + 1) tradeGaps += 1;
      lastTradeId = Math.max(...ids);
    }
  }
  const end = raw.end();
  return { path, header: raw.header, bytes: statSync(path).size, counts, firstAtMs, lastAtMs: end.lastAtMs, failedPolls, tradeGaps, end };
}

const iso = (ms: number | undefined) => (ms === undefined ? '-' : new Date(ms).toISOString());

export function formatRawFeedDescription(description: RawFeedDescription): string {
  const { header, end } = description;
  const market = header.market;
  const lines = [
    `${description.path}: raw recording (format ${header.version}) of ${header.symbol} on ${header.network}${header.own ? ', with the bot\'s own orders' : ''}`,
    `  market      ${market === undefined ? 'not stated (normalize infers tick and lot)' : `tick ${market.tickSize} ${market.quoteAsset ?? ''}, lot ${market.lotSize} ${market.baseAsset ?? ''}`.trimEnd()}`,
    `  polls       depth every ${header.plan.depth.everyMs} ms (${header.plan.depth.limit} levels, ${header.plan.depth.state}), trades every ${header.plan.trades.everyMs} ms, ticker every ${header.plan.ticker.everyMs} ms`,
    `  time        ${iso(description.firstAtMs)} .. ${iso(description.lastAtMs)} (local receive time)`,
    `  records     ${Object.entries(description.counts).map(([kind, count]) => `${kind} ${count.toLocaleString('en-US')}`).join(', ')}`,
    `  gaps        ${description.failedPolls} failed polls, ${description.tradeGaps} trade polls that missed trades`,
    `  size        ${description.bytes.toLocaleString('en-US')} bytes`,
    end.closed !== undefined
      ? `  ends        closed by the recorder (${end.closed}) after ${end.records.toLocaleString('en-US')} records`
      : `  ends        cut short: readable up to record ${end.records.toLocaleString('en-US')} (${end.bytes.toLocaleString('en-US')} bytes)${end.tailBytes > 0 ? `; a cut last line of ${end.tailBytes} bytes is dropped` : ''}`,
  ];
  return `${lines.join('\n')}\n`;
}
