/**
 * The Tardis importer on real data: the two minutes of Binance BTCUSDT streams of
 * test/fixtures/binance-capture rewritten as Tardis.dev's incremental_book_L2 CSV (the REST snapshot,
 * then the diffs as absolute amounts) and trades CSV, gzipped as Tardis serves them.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEvents, refusal } from './feed-rows.ts';
import { decimalScale, formatScaled, parseStep } from '../../src/feeds/decimal-scale.ts';
import { FeedEventKind, Side, type FeedEvent } from '../../src/feeds/feed-event.ts';
import { importTardis } from '../../src/feeds/importers/tardis.ts';
import { captureDiffs, captureSnapshot, captureTrades, tardisBookCsv, tardisTradesCsv } from './csv-fixtures.ts';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'clobbot-tardis-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const bookCsv = tardisBookCsv(captureSnapshot, captureDiffs);
const tradesCsv = tardisTradesCsv(captureTrades);

function write(name: string, text: string, gzip = true): string {
  const path = join(dir, name);
  writeFileSync(path, gzip ? gzipSync(text) : text);
  return path;
}

type Book = { bids: Map<bigint, bigint>; asks: Map<bigint, bigint> };

/** The book the capture leaves: the snapshot, then every diff after it by Binance's procedure, in ticks and lots. */
function capturedBook(tick: string, lot: string): Book {
  const ticks = decimalScale(parseStep(tick));
  const lots = decimalScale(parseStep(lot));
  const book: Book = { bids: new Map(), asks: new Map() };
  const apply = (side: Map<bigint, bigint>, levels: readonly (readonly [string, string])[]) => {
    for (const [price, qty] of levels) {
      const size = lots.units(qty)!;
      if (size === 0n) side.delete(ticks.units(price)!);
      else side.set(ticks.units(price)!, size);
    }
  };
  apply(book.bids, captureSnapshot.bids);
  apply(book.asks, captureSnapshot.asks);
  for (const diff of captureDiffs) {
    if (diff.lastId <= captureSnapshot.lastUpdateId) continue;
    apply(book.bids, diff.bids);
    apply(book.asks, diff.asks);
  }
  return book;
}

/** The book a replay of the feed's rows builds. */
function replayedBook(events: readonly FeedEvent[]): { book: Book; clears: number } {
  const book: Book = { bids: new Map(), asks: new Map() };
  let clears = 0;
  for (const event of events) {
    if (event.kind === FeedEventKind.BOOK_CLEAR) {
      book.bids.clear();
      book.asks.clear();
      clears += 1;
    }
    if (event.kind !== FeedEventKind.LEVEL) continue;
    const side = event.side === Side.BUY ? book.bids : book.asks;
    if (event.qty === 0n) side.delete(event.price);
    else side.set(event.price, event.qty);
  }
  return { book, clears };
}

const sorted = (side: Map<bigint, bigint>) => [...side].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

const keptDiffs = captureDiffs.filter((diff) => diff.lastId > captureSnapshot.lastUpdateId);
const levelRows = captureSnapshot.bids.length + captureSnapshot.asks.length + keptDiffs.reduce((sum, diff) => sum + diff.bids.length + diff.asks.length, 0);

describe('import tardis', () => {
  it('merges an incremental_book_L2 and a trades file by local time, and the replayed book is the captured one', async () => {
    const book = write('binance_incremental_book_L2_2024-08-08_BTCUSDT.csv.gz', bookCsv);
    const trades = write('binance_trades_2024-08-08_BTCUSDT.csv.gz', tradesCsv);
    const out = join(dir, 'btcusdt.arrow');
    // Trades first on the command line: the header row tells the files apart, not their order.
    const result = await importTardis({ inputs: [trades, book], out });
    // The depth data has sizes of 6 decimals, finer than the trades' 5: the lot inferred over both is 0.000001.
    expect(result.header.market).toEqual({ symbol: 'BTCUSDT', tickSize: '0.01', lotSize: '0.000001', inferred: true });
    expect(result.header.source.kind).toBe('tardis');
    expect(result.header.source.notes).toEqual(expect.arrayContaining([expect.stringContaining('Tardis has no update ids')]));
    const events = await readEvents(out);
    const count = (kind: number) => events.filter((event) => event.kind === kind).length;

    expect(count(FeedEventKind.LEVEL)).toBe(levelRows);
    expect(count(FeedEventKind.BOOK_CLEAR)).toBe(1);
    // A few trades were received before the snapshot: they come first, then the snapshot opens the book.
    expect(events.find((event) => event.kind !== FeedEventKind.TRADE)!.kind).toBe(FeedEventKind.BOOK_CLEAR);
    expect(events[0]!.kind).toBe(FeedEventKind.TRADE);
    // One update per diff (each has its own receive time) plus the snapshot.
    expect(count(FeedEventKind.CHECKPOINT)).toBe(keptDiffs.length + 1);
    const checkpoints = events.filter((event) => event.kind === FeedEventKind.CHECKPOINT).map((event) => event.id);
    expect(checkpoints).toEqual(checkpoints.map((_, index) => BigInt(index + 1)));
    expect(result.rows).toBe(events.length);

    const tradeRows = events.filter((event) => event.kind === FeedEventKind.TRADE);
    expect(tradeRows.map((event) => event.id)).toEqual(captureTrades.map((trade) => BigInt(trade.id)));
    expect(tradeRows[0]).toEqual({
      kind: FeedEventKind.TRADE,
      side: Side.SELL,
      exchTs: 1_723_161_255_342_000_000n,
      localTs: (captureTrades[0]!.localNs / 1_000n) * 1_000n,
      price: 6_183_763n,
      qty: 20_000n,
      id: 3_735_683_259n,
    });
    for (let i = 1; i < events.length; i += 1) expect(events[i]!.localTs >= events[i - 1]!.localTs, `row ${i}`).toBe(true);

    const { book: replayed } = replayedBook(events);
    const expected = capturedBook('0.01', '0.000001');
    expect(sorted(replayed.bids)).toEqual(sorted(expected.bids));
    expect(sorted(replayed.asks)).toEqual(sorted(expected.asks));
  });

  it('resets the book at a snapshot that follows updates, and reads plain CSV and a book file alone', async () => {
    const expected = capturedBook('0.01', '0.000001');
    // The book at the end, written again as a snapshot a second later, then one update.
    const lastUs = BigInt(captureDiffs[captureDiffs.length - 1]!.localNs / 1_000n) + 1_000_000n;
    const snapshotRows = [...sorted(expected.bids).map(([p, q]) => ['bid', p, q] as const), ...sorted(expected.asks).map(([p, q]) => ['ask', p, q] as const)].map(
      ([side, p, q]) => `binance,BTCUSDT,${lastUs},${lastUs},true,${side},${formatScaled(p, 2)},${formatScaled(q, 6)}`,
    );
    const [bestAsk] = sorted(expected.asks);
    const update = `binance,BTCUSDT,${lastUs + 5n},${lastUs + 7n},false,ask,${formatScaled(bestAsk![0], 2)},0`;
    const path = write('book.csv', `${bookCsv}${snapshotRows.join('\n')}\n${update}\n`, false);
    const out = join(dir, 'book.arrow');
    await importTardis({ inputs: [path], out, tickSize: '0.01', lotSize: '0.000001' });
    const events = await readEvents(out);
    const { book, clears } = replayedBook(events);
    expect(clears).toBe(2);
    expected.asks.delete(bestAsk![0]);
    expect(sorted(book.bids)).toEqual(sorted(expected.bids));
    expect(sorted(book.asks)).toEqual(sorted(expected.asks));
    expect(events.filter((event) => event.kind === FeedEventKind.TRADE)).toEqual([]);
    expect(events[events.length - 1]).toMatchObject({ kind: FeedEventKind.CHECKPOINT, exchTs: (lastUs + 5n) * 1_000n, localTs: (lastUs + 7n) * 1_000n });
  });

  it('numbers trades whose ids are not integers, and reads amounts in exponent form', async () => {
    const text = 'exchange,symbol,timestamp,local_timestamp,id,side,price,amount\nderibit,BTC-PERPETUAL,1723161255342000,1723161255400000,ETH-1,buy,61837.5,1e-7\nderibit,BTC-PERPETUAL,1723161255343000,1723161255401000,ETH-2,unknown,61838,2.5e-6\n';
    const out = join(dir, 't.arrow');
    const result = await importTardis({ inputs: [write('t.csv.gz', text)], out });
    expect(result.header.market).toMatchObject({ symbol: 'BTC-PERPETUAL', tickSize: '0.5', lotSize: '0.0000001' });
    expect(result.notes).toEqual(expect.arrayContaining([expect.stringContaining('running count')]));
    expect((await readEvents(out)).map((event) => [event.id, event.side, event.price, event.qty])).toEqual([
      [1n, Side.BUY, 123_675n, 1n],
      [2n, Side.NONE, 123_676n, 25n],
    ]);
  });

  it('refuses a bad row with its file and line, and a CSV of another dataset, writing nothing', async () => {
    const lines = tradesCsv.split('\n');
    lines[7] = lines[7]!.replace(/,(buy|sell),/, ',both,');
    const bad = write('trades.csv.gz', lines.join('\n'));
    const out = join(dir, 'x.arrow');
    expect(await refusal(() => importTardis({ inputs: [bad], out }))).toEqual({ code: 'FEED_RECORD_INVALID', message: `${bad}:8: side "both" is not buy, sell or unknown` });

    const bookLines = bookCsv.split('\n');
    bookLines[2500] = bookLines[2500]!.replace(/,[0-9.e-]+$/, ',0.0000x');
    const badBook = write('book.csv.gz', bookLines.join('\n'));
    expect(await refusal(() => importTardis({ inputs: [badBook], out }))).toMatchObject({ code: 'FEED_RECORD_INVALID', message: expect.stringContaining(`${badBook}:2501: amount`) });

    const foreign = write('quotes.csv.gz', 'exchange,symbol,timestamp,local_timestamp,ask_amount,ask_price,bid_price,bid_amount\nbinance,BTCUSDT,1,1,1,1,1,1\n');
    expect((await refusal(() => importTardis({ inputs: [foreign], out }))).code).toBe('FEED_FOREIGN');

    const two = write('book2.csv.gz', bookCsv);
    expect((await refusal(() => importTardis({ inputs: [two, two], out }))).code).toBe('CLI_USAGE');

    const truncated = write('cut.csv.gz', '');
    writeFileSync(truncated, gzipSync(bookCsv).subarray(0, 20_000));
    expect((await refusal(() => importTardis({ inputs: [truncated], out }))).code).toBe('FEED_UNREADABLE');
    expect(readdirSync(dir).filter((name) => name.startsWith('x.arrow'))).toEqual([]);
  });
});
