/**
 * The rows of a Binance capture (feed-event.ts): a CaptureSink that converts Binance's decimal
 * texts to ticks and lots exactly and appends rows to an event feed writer. Exchange times are ms
 * and become ns; local times get the clock correction added.
 */
import { decimalScale, type DecimalStep } from '../decimal-scale.ts';
import type { EventFeedWriter } from '../event-feed-writer.ts';
import { FeedEventKind, Side } from '../feed-event.ts';
import type { CaptureBookTicker, CaptureDiff, CaptureLevel, CaptureSnapshot, CaptureTrade } from './capture-message.ts';
import type { CaptureSink, LinePlace } from './capture-replay.ts';
import { invalidRecord } from './importer.ts';

const MS = 1_000_000n;
/** Ticks and lots are Int64 columns: a larger count would wrap silently. */
const INT64_MAX = (1n << 63n) - 1n;
/** Distinct texts remembered per converter: prices near the top of the book repeat endlessly. */
const CACHE_LIMIT = 1 << 16;
const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/** Text → count of `step`, cached; undefined when not a multiple (or not a decimal, or too large). */
function cachedUnits(step: DecimalStep): (text: string) => bigint | undefined {
  const scale = decimalScale(step);
  let cache = new Map<string, bigint>();
  return (text) => {
    const hit = cache.get(text);
    if (hit !== undefined) return hit;
    const units = scale.units(text);
    if (units === undefined || units > INT64_MAX) return undefined;
    if (cache.size === CACHE_LIMIT) cache = new Map();
    cache.set(text, units);
    return units;
  };
}

export interface CaptureRowsOptions {
  readonly tick: DecimalStep;
  readonly lot: DecimalStep;
  /** Added to every local time, ns (the clock correction; 0n for none). */
  readonly addedNs: bigint;
}

/**
 * @example
 * const rows = new CaptureRows(writer, { tick: parseStep('0.01'), lot: parseStep('0.00001'), addedNs: 1_271_000_000n });
 * const replay = new CaptureReplay({ allowGaps: false, sink: rows });
 */
export class CaptureRows implements CaptureSink {
  private readonly writer: EventFeedWriter;
  private readonly ticks: (text: string) => bigint | undefined;
  private readonly lots: (text: string) => bigint | undefined;
  private readonly tick: DecimalStep;
  private readonly lot: DecimalStep;
  private readonly addedNs: bigint;

  constructor(writer: EventFeedWriter, options: CaptureRowsOptions) {
    this.writer = writer;
    this.tick = options.tick;
    this.lot = options.lot;
    this.ticks = cachedUnits(options.tick);
    this.lots = cachedUnits(options.lot);
    this.addedNs = options.addedNs;
  }

  snapshot(localNs: bigint, snapshot: CaptureSnapshot, place: LinePlace): void {
    const local = localNs + this.addedNs;
    const id = BigInt(snapshot.lastUpdateId);
    // No exchange time in a REST snapshot: the local time stands in (the feed header's notes say so).
    this.writer.append(FeedEventKind.BOOK_CLEAR, Side.NONE, local, local, 0n, 0n, id);
    this.levels(snapshot.bids, Side.BUY, local, local, place);
    this.levels(snapshot.asks, Side.SELL, local, local, place);
    this.writer.append(FeedEventKind.CHECKPOINT, Side.NONE, local, local, 0n, 0n, id);
  }

  diff(localNs: bigint, diff: CaptureDiff, place: LinePlace): void {
    const local = localNs + this.addedNs;
    const exch = BigInt(diff.E) * MS;
    this.levels(diff.b, Side.BUY, exch, local, place);
    this.levels(diff.a, Side.SELL, exch, local, place);
    this.writer.append(FeedEventKind.CHECKPOINT, Side.NONE, exch, local, 0n, 0n, BigInt(diff.u));
  }

  bookGap(localNs: bigint, exchMs: number, firstMissing: number): void {
    this.writer.append(FeedEventKind.BOOK_GAP, Side.NONE, BigInt(exchMs) * MS, localNs + this.addedNs, 0n, 0n, BigInt(firstMissing));
  }

  trade(localNs: bigint, trade: CaptureTrade, place: LinePlace): void {
    // m: the buyer was the maker, so the taker sold.
    const side = trade.m ? Side.SELL : Side.BUY;
    const price = this.price(trade.p, place);
    const qty = this.qty(trade.q, place);
    this.writer.append(FeedEventKind.TRADE, side, BigInt(trade.T) * MS, localNs + this.addedNs, price, qty, BigInt(trade.t));
  }

  tradeGap(localNs: bigint, exchMs: number, firstMissing: number, count: number): void {
    this.writer.append(FeedEventKind.TRADE_GAP, Side.NONE, BigInt(exchMs) * MS, localNs + this.addedNs, 0n, BigInt(count), BigInt(firstMissing));
  }

  bookTicker(localNs: bigint, ticker: CaptureBookTicker, place: LinePlace): void {
    // bookTicker has no exchange time: the (corrected) local time stands in for exch_ts.
    const local = localNs + this.addedNs;
    const id = BigInt(ticker.u);
    this.writer.append(FeedEventKind.BBO, Side.BUY, local, local, this.price(ticker.b, place), this.qty(ticker.B, place), id);
    this.writer.append(FeedEventKind.BBO, Side.SELL, local, local, this.price(ticker.a, place), this.qty(ticker.A, place), id);
  }

  private levels(levels: readonly CaptureLevel[], side: number, exch: bigint, local: bigint, place: LinePlace): void {
    for (let i = 0; i < levels.length; i += 1) {
      const level = levels[i]!;
      this.writer.append(FeedEventKind.LEVEL, side, exch, local, this.price(level[0], place), this.qty(level[1], place), 0n);
    }
  }

  private price(text: string, place: LinePlace): bigint {
    const units = this.ticks(text);
    if (units === undefined) throw this.refuse(text, 'price', this.tick, place);
    return units;
  }

  private qty(text: string, place: LinePlace): bigint {
    const units = this.lots(text);
    if (units === undefined) throw this.refuse(text, 'quantity', this.lot, place);
    return units;
  }

  private refuse(text: string, what: string, step: DecimalStep, place: LinePlace) {
    const shown = JSON.stringify(text.slice(0, 40));
    if (!DECIMAL.test(text)) return invalidRecord(place.file, place.line, `${what} ${shown} is not a decimal number`);
    const size = what === 'price' ? 'tick size' : 'lot size';
    return invalidRecord(place.file, place.line, `${what} ${shown} is not a multiple of the ${size} ${step.text} (or too large)`);
  }
}
