/**
 * Real data in the layouts of public CSV datasets, for the importers' tests: the two minutes of
 * Binance BTCUSDT streams (test/fixtures/binance-capture) rewritten as Binance's data dumps
 * (data.binance.vision trades and klines) and as Tardis.dev's incremental_book_L2 and trades CSVs.
 * Decimals are handled as scaled bigints, never floats.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

const fixtures = new URL('../fixtures/binance-capture/', import.meta.url);

/** A `<local_ns> <json>` line of a capture. */
interface CaptureLine {
  readonly localNs: bigint;
  readonly json: Record<string, unknown>;
}

function readLines(name: string): CaptureLine[] {
  return gunzipSync(readFileSync(new URL(name, fixtures)))
    .toString('utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => ({ localNs: BigInt(line.slice(0, line.indexOf(' '))), json: JSON.parse(line.slice(line.indexOf(' ') + 1)) as Record<string, unknown> }));
}

export interface CaptureTrade {
  readonly localNs: bigint;
  readonly id: number;
  readonly price: string;
  readonly qty: string;
  readonly timeMs: number;
  readonly buyerMaker: boolean;
}

export interface CaptureDiff {
  readonly localNs: bigint;
  readonly eventMs: number;
  readonly firstId: number;
  readonly lastId: number;
  readonly bids: readonly (readonly [string, string])[];
  readonly asks: readonly (readonly [string, string])[];
}

export interface CaptureSnapshot {
  readonly localNs: bigint;
  readonly lastUpdateId: number;
  readonly bids: readonly (readonly [string, string])[];
  readonly asks: readonly (readonly [string, string])[];
}

const stream = readLines('btcusdt_20240808_2min.txt.gz');

/** The 2570 trades of the capture (ids 3735683259 onwards, no gaps), in order. */
export const captureTrades: readonly CaptureTrade[] = stream
  .filter((line) => line.json['stream'] === 'btcusdt@trade')
  .map(({ localNs, json }) => {
    const d = json['data'] as { t: number; p: string; q: string; T: number; m: boolean };
    return { localNs, id: d.t, price: d.p, qty: d.q, timeMs: d.T, buyerMaker: d.m };
  });

/** Every depth diff of the capture, in order (the first ones end before the snapshot). */
export const captureDiffs: readonly CaptureDiff[] = stream
  .filter((line) => line.json['stream'] === 'btcusdt@depth@100ms')
  .map(({ localNs, json }) => {
    const d = json['data'] as { E: number; U: number; u: number; b: [string, string][]; a: [string, string][] };
    return { localNs, eventMs: d.E, firstId: d.U, lastId: d.u, bids: d.b, asks: d.a };
  });

/** The REST depth snapshot (1000 levels a side) and when it was received. */
export const captureSnapshot: CaptureSnapshot = (() => {
  const [line] = readLines('btcusdt_depth_snapshot_20240808.txt.gz');
  const json = line!.json as { lastUpdateId: number; bids: [string, string][]; asks: [string, string][] };
  return { localNs: line!.localNs, lastUpdateId: json.lastUpdateId, bids: json.bids, asks: json.asks };
})();

/** A decimal text as an integer of 10^-decimals. */
export function scaled(text: string, decimals: number): bigint {
  const [whole, fraction = ''] = text.split('.');
  return BigInt(whole! + fraction.padEnd(decimals, '0').slice(0, decimals));
}

/** An integer of 10^-decimals as Binance prints it: exactly `decimals` decimals. */
export function fixed(value: bigint, decimals: number): string {
  const digits = value.toString().padStart(decimals + 1, '0');
  return `${digits.slice(0, digits.length - decimals)}.${digits.slice(digits.length - decimals)}`;
}

/** Trailing zeros dropped (`61837.63000000` → `61837.63`), as futures dumps and Tardis print numbers. */
export function trimmed(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** price × qty with 8 decimals, as Binance's quote_qty (exact for BTCUSDT: 2 + 5 decimals). */
export function quoteQty(price: string, qty: string): string {
  const product = scaled(price, 8) * scaled(qty, 8);
  if (product % 10n ** 8n !== 0n) throw new Error(`${price} × ${qty} has more than 8 decimals`);
  return fixed(product / 10n ** 8n, 8);
}

/** A spot trades dump: no header, `trade_id,price,qty,quote_qty,time,is_buyer_maker,is_best_match`, time in ms (before 2025) or µs. */
export function spotTradesCsv(trades: readonly CaptureTrade[], unit: 'ms' | 'us'): string {
  return trades
    .map((t) => `${t.id},${t.price},${t.qty},${quoteQty(t.price, t.qty)},${unit === 'ms' ? t.timeMs : `${t.timeMs}000`},${t.buyerMaker ? 'True' : 'False'},True\n`)
    .join('');
}

/** A USD-M futures trades dump: a header row, six columns, lower-case booleans, trimmed decimals. */
export function futuresTradesCsv(trades: readonly CaptureTrade[]): string {
  return `id,price,qty,quote_qty,time,is_buyer_maker\n${trades.map((t) => `${t.id},${trimmed(t.price)},${trimmed(t.qty)},${trimmed(quoteQty(t.price, t.qty))},${t.timeMs},${t.buyerMaker}\n`).join('')}`;
}

/** One kline as Binance's dumps hold it (decimals with 8 places). */
export interface Kline {
  readonly openTimeMs: number;
  readonly closeTimeMs: number;
  readonly open: string;
  readonly high: string;
  readonly low: string;
  readonly close: string;
  readonly volume: string;
  readonly quoteVolume: string;
  readonly count: number;
  readonly takerBuyVolume: string;
  readonly takerBuyQuoteVolume: string;
}

/** Klines of `intervalMs` computed from trades the way Binance does: by floor(time / interval). */
export function klinesFromTrades(trades: readonly CaptureTrade[], intervalMs: number): Kline[] {
  const groups = new Map<number, CaptureTrade[]>();
  for (const trade of trades) {
    const open = Math.floor(trade.timeMs / intervalMs) * intervalMs;
    groups.set(open, [...(groups.get(open) ?? []), trade]);
  }
  return [...groups].map(([open, group]) => {
    const prices = group.map((t) => scaled(t.price, 8));
    const sum = (items: readonly CaptureTrade[], value: (t: CaptureTrade) => bigint) => items.reduce((total, t) => total + value(t), 0n);
    const takerBuys = group.filter((t) => !t.buyerMaker);
    const quote = (t: CaptureTrade) => scaled(quoteQty(t.price, t.qty), 8);
    return {
      openTimeMs: open,
      closeTimeMs: open + intervalMs - 1,
      open: group[0]!.price,
      high: fixed(prices.reduce((a, b) => (a > b ? a : b)), 8),
      low: fixed(prices.reduce((a, b) => (a < b ? a : b)), 8),
      close: group[group.length - 1]!.price,
      volume: fixed(sum(group, (t) => scaled(t.qty, 8)), 8),
      quoteVolume: fixed(sum(group, quote), 8),
      count: group.length,
      takerBuyVolume: fixed(sum(takerBuys, (t) => scaled(t.qty, 8)), 8),
      takerBuyQuoteVolume: fixed(sum(takerBuys, quote), 8),
    };
  });
}

export const KLINES_HEADER = 'open_time,open,high,low,close,volume,close_time,quote_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore';

/** A klines dump: spot files have no header; newer futures files have one. */
export function klinesCsv(klines: readonly Kline[], options: { readonly header: boolean; readonly unit: 'ms' | 'us' }): string {
  const time = (ms: number, last: boolean) => (options.unit === 'ms' ? `${ms}` : `${ms}${last ? '999' : '000'}`);
  const rows = klines.map(
    (k) =>
      `${time(k.openTimeMs, false)},${k.open},${k.high},${k.low},${k.close},${k.volume},${time(k.closeTimeMs, true)},${k.quoteVolume},${k.count},${k.takerBuyVolume},${k.takerBuyQuoteVolume},0\n`,
  );
  return `${options.header ? `${KLINES_HEADER}\n` : ''}${rows.join('')}`;
}

/** A number as Tardis prints it (a JavaScript number's shortest form). */
const tardisNumber = (text: string): string => String(Number(text));

/**
 * The depth data as a Tardis incremental_book_L2 CSV: the snapshot (is_snapshot true, at its
 * receive time), then every diff that follows it by Binance's procedure (u > lastUpdateId), each
 * level an absolute amount. A diff received before the snapshot gets the snapshot's receive time,
 * as Tardis's local times never go back.
 */
export function tardisBookCsv(snapshot: CaptureSnapshot, diffs: readonly CaptureDiff[]): string {
  const lines = ['exchange,symbol,timestamp,local_timestamp,is_snapshot,side,price,amount'];
  const snapshotUs = snapshot.localNs / 1_000n;
  for (const [side, levels] of [['bid', snapshot.bids], ['ask', snapshot.asks]] as const) {
    for (const [price, amount] of levels) lines.push(`binance,BTCUSDT,${snapshotUs},${snapshotUs},true,${side},${tardisNumber(price)},${tardisNumber(amount)}`);
  }
  for (const diff of diffs) {
    if (diff.lastId <= snapshot.lastUpdateId) continue;
    const localUs = diff.localNs / 1_000n > snapshotUs ? diff.localNs / 1_000n : snapshotUs;
    for (const [side, levels] of [['bid', diff.bids], ['ask', diff.asks]] as const) {
      for (const [price, amount] of levels) lines.push(`binance,BTCUSDT,${diff.eventMs}000,${localUs},false,${side},${tardisNumber(price)},${tardisNumber(amount)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The trades as a Tardis trades CSV: side is the taker's. */
export function tardisTradesCsv(trades: readonly CaptureTrade[]): string {
  const rows = trades.map((t) => `binance,BTCUSDT,${t.timeMs}000,${t.localNs / 1_000n},${t.id},${t.buyerMaker ? 'sell' : 'buy'},${tardisNumber(t.price)},${tardisNumber(t.qty)}`);
  return `exchange,symbol,timestamp,local_timestamp,id,side,price,amount\n${rows.join('\n')}\n`;
}
