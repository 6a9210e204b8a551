/**
 * The order of events of a Binance capture: which depth diffs make the book (capture-book-sync.ts),
 * where the book or the trade ids have gaps, and what was dropped. It decides and counts; a sink
 * turns its decisions into rows. The importer runs it twice over the same lines: once without a
 * sink (so that gaps are refused and the notes known before a file is created), once writing.
 */
import { BaseError } from '../../core/base-error.ts';
import { CaptureBookSync, type SyncGap } from './capture-book-sync.ts';
import type { CaptureBookTicker, CaptureDiff, CaptureMessage, CaptureSnapshot, CaptureTrade } from './capture-message.ts';
import type { ImportGap } from './importer.ts';

/** Where a line came from: the file's base name and the 1-based line. */
export interface LinePlace {
  readonly file: string;
  readonly line: number;
}

/** A depth diff with its place and local time, as the sync machine buffers it. */
interface PlacedDiff extends LinePlace {
  readonly U: number;
  readonly u: number;
  readonly diff: CaptureDiff;
  readonly localNs: bigint;
}

/** What becomes rows. `localNs` is the time the capture's owner knew the event (before any clock correction). */
export interface CaptureSink {
  /** The book is replaced by the snapshot. */
  snapshot(localNs: bigint, snapshot: CaptureSnapshot, place: LinePlace): void;
  /** A diff is applied to the book. */
  diff(localNs: bigint, diff: CaptureDiff, place: LinePlace): void;
  /** The book is unknown from update `firstMissing` on; `exchMs` the time of the diff that showed it. */
  bookGap(localNs: bigint, exchMs: number, firstMissing: number): void;
  trade(localNs: bigint, trade: CaptureTrade, place: LinePlace): void;
  /** Trades `firstMissing .. firstMissing + count - 1` were never seen; `exchMs` the time of the trade after them. */
  tradeGap(localNs: bigint, exchMs: number, firstMissing: number, count: number): void;
  bookTicker(localNs: bigint, ticker: CaptureBookTicker, place: LinePlace): void;
}

/**
 * @example
 * const replay = new CaptureReplay({ allowGaps: false, sink });
 * replay.handle(localNs, message, { file: 'spot_btcusdt_20240808.gz', line: 8 });
 * const notes = replay.notes();
 */
export class CaptureReplay {
  readonly gaps: ImportGap[] = [];
  private readonly sync = new CaptureBookSync<PlacedDiff>();
  private readonly sink: CaptureSink | undefined;
  private readonly allowGaps: boolean;
  private lastTradeId: number | undefined;
  private stale = 0;
  private snapshots = 0;
  private ignoredSnapshots = 0;
  private appliedDiffs = 0;
  private duplicateTrades = 0;
  private tickers = 0;
  private readonly otherStreams = new Map<string, number>();

  constructor(options: { readonly allowGaps: boolean; readonly sink?: CaptureSink }) {
    this.allowGaps = options.allowGaps;
    this.sink = options.sink;
  }

  handle(localNs: bigint, message: CaptureMessage, place: LinePlace): void {
    switch (message.type) {
      case 'diff':
        return this.onDiff(localNs, message, place);
      case 'trade':
        return this.onTrade(localNs, message, place);
      case 'bookTicker':
        this.tickers += 1;
        this.sink?.bookTicker(localNs, message, place);
        return;
      case 'snapshot':
        return this.onSnapshot(localNs, message, place);
      case 'other':
        this.otherStreams.set(message.stream, (this.otherStreams.get(message.stream) ?? 0) + 1);
        return;
    }
  }

  private onDiff(localNs: bigint, diff: CaptureDiff, place: LinePlace): void {
    const placed: PlacedDiff = { U: diff.U, u: diff.u, diff, localNs, file: place.file, line: place.line };
    const decision = this.sync.onDiff(placed);
    if (decision.action === 'apply') {
      this.appliedDiffs += 1;
      this.sink?.diff(localNs, diff, place);
    } else if (decision.action === 'stale') this.stale += 1;
    else if (decision.action === 'gap') this.bookGap(localNs, decision.gap);
  }

  private onSnapshot(localNs: bigint, snapshot: CaptureSnapshot, place: LinePlace): void {
    const decision = this.sync.onSnapshot(snapshot.lastUpdateId);
    if (decision.action === 'ignore') {
      this.ignoredSnapshots += 1;
      return;
    }
    this.snapshots += 1;
    this.stale += decision.stale;
    this.sink?.snapshot(localNs, snapshot, place);
    // Buffered diffs become part of the book only now, when the snapshot arrives: their rows carry
    // the snapshot's local time (the first moment the book they make was known), their own E.
    for (const placed of decision.apply) {
      this.appliedDiffs += 1;
      this.sink?.diff(localNs, placed.diff, placed);
    }
    if (decision.gap) this.bookGap(localNs, decision.gap);
  }

  private bookGap(localNs: bigint, gap: SyncGap<PlacedDiff>): void {
    const { diff, file, line } = gap.diff;
    const what = gap.afterSnapshot
      ? `depth diff U ${diff.U}..u ${diff.u} does not straddle the snapshot's lastUpdateId ${gap.after} + 1`
      : `depth diff U ${diff.U} does not follow u ${gap.after}`;
    if (!this.allowGaps) {
      throw new BaseError('FEED_SEQUENCE_GAP', `${file}:${line}: ${what} (updates from ${gap.firstMissing} missing); allowGaps resynchronises at the next snapshot instead`, {
        details: { file, line, U: diff.U, u: diff.u, after: gap.after, firstMissing: gap.firstMissing },
      });
    }
    this.gaps.push({ kind: 'book', file, line, message: `U ${diff.U} after ${gap.afterSnapshot ? 'lastUpdateId' : 'u'} ${gap.after}` });
    this.sink?.bookGap(localNs, diff.E, gap.firstMissing);
  }

  private onTrade(localNs: bigint, trade: CaptureTrade, place: LinePlace): void {
    const last = this.lastTradeId;
    if (last !== undefined && trade.t <= last) {
      // Seen already (or reported missing already): writing it again would count its volume twice.
      this.duplicateTrades += 1;
      return;
    }
    if (last !== undefined && trade.t !== last + 1) {
      const count = trade.t - last - 1;
      this.gaps.push({ kind: 'trades', file: place.file, line: place.line, message: `trade id ${trade.t} after ${last}: ${count} missing` });
      this.sink?.tradeGap(localNs, trade.T, last + 1, count);
    }
    this.lastTradeId = trade.t;
    this.sink?.trade(localNs, trade, place);
  }

  /** What was dropped or done that the user should know, once every line was handled. */
  notes(): string[] {
    const notes: string[] = [];
    notes.push(`book: ${this.snapshots} REST snapshot(s) and ${this.appliedDiffs} depth diffs applied by Binance's procedure`);
    if (this.stale > 0) notes.push(`${this.stale} depth diff(s) older than their snapshot dropped (u <= lastUpdateId)`);
    const unused = this.sync.discarded + this.sync.buffered;
    if (unused > 0) notes.push(`${unused} depth diff(s) dropped while no snapshot was in force (before the first one, or after a gap until the next one)`);
    if (this.ignoredSnapshots > 0) notes.push(`${this.ignoredSnapshots} REST snapshot(s) not applied: the book was already in sync`);
    if (this.duplicateTrades > 0) notes.push(`${this.duplicateTrades} trade(s) dropped: their id was not after the last trade's`);
    if (this.tickers > 0) notes.push('bookTicker carries no exchange time: its BBO rows have the local receive time as exch_ts');
    if (this.snapshots > 0) notes.push('a REST depth snapshot carries no exchange time: its BOOK_CLEAR, LEVEL and CHECKPOINT rows have the local receive time as exch_ts');
    for (const [stream, count] of this.otherStreams) notes.push(`${count} message(s) of stream ${stream} ignored`);
    return notes;
  }
}
