/**
 * `clobbot import tardis`: Tardis.dev's normalized CSV datasets (header row, gzipped `.csv.gz` or
 * plain) into an event feed. One `incremental_book_L2` file and/or one `trades` file; given both,
 * their rows are merged by local_timestamp as they stream, a book update at a time.
 *
 * - incremental_book_L2 `exchange,symbol,timestamp,local_timestamp,is_snapshot,side,price,amount`:
 *   amount is the absolute size at the price (0 removes it). Rows sharing a local_timestamp are one
 *   update; the rows of a snapshot (is_snapshot true) are one update whatever their times, and a
 *   snapshot that follows non-snapshot rows replaces the book (BOOK_CLEAR).
 * - trades `exchange,symbol,timestamp,local_timestamp,id,side,price,amount`: side is the taker's
 *   (buy, sell, or unknown).
 * Timestamps are µs since the epoch; local_timestamp is Tardis's receive time.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { BaseError } from '../../core/base-error.ts';
import { decimalScale } from '../decimal-scale.ts';
import { FeedEventKind, Side } from '../feed-event.ts';
import { FEED_FORMAT, FEED_VERSION, type FeedHeader } from '../feed-header.ts';
import { createEventFeedWriter, type EventFeedWriter } from '../event-feed-writer.ts';
import { chooseStep, StepInference } from './binance-dump.ts';
import { splitLines, type TextLine } from './text-lines.ts';
import { describeInput, invalidRecord, type Importer, type ImportParameters, type ImportResult } from './importer.ts';

const BOOK_HEADER = 'exchange,symbol,timestamp,local_timestamp,is_snapshot,side,price,amount';
const TRADES_HEADER = 'exchange,symbol,timestamp,local_timestamp,id,side,price,amount';
const MICROS = /^[0-9]{1,18}$/;
const PLAIN = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;
/** JavaScript's shortest form of small and large numbers, which Tardis files can hold (`1e-7`). */
const EXPONENT = /^([0-9]+)(?:\.([0-9]+))?[eE]([+-]?[0-9]+)$/;
const MAX_INT64 = (1n << 63n) - 1n;

type TardisKind = 'book' | 'trades';

type TardisLine = TextLine;

interface TardisInput {
  readonly path: string;
  readonly kind: TardisKind;
  readonly source: { readonly name: string; readonly sha256: string };
  /** The data lines (the header row left out), read again on each call. */
  lines(): AsyncGenerator<TardisLine>;
}

interface BookRow {
  readonly line: number;
  readonly exchTs: bigint;
  readonly localTs: bigint;
  readonly snapshot: boolean;
  readonly side: number;
  readonly price: string;
  readonly amount: string;
}

interface TradeRow {
  readonly line: number;
  readonly exchTs: bigint;
  readonly localTs: bigint;
  readonly id: string;
  readonly side: number;
  readonly price: string;
  readonly amount: string;
}

/** The rows of one book update: one local_timestamp, or a whole snapshot. */
interface BookUpdate {
  readonly clear: boolean;
  readonly localTs: bigint;
  readonly rows: readonly BookRow[];
}

/** `1.5e-7` as `0.00000015`, exactly; plain decimals unchanged; undefined when it is no number. */
function plainDecimal(text: string): string | undefined {
  if (PLAIN.test(text)) return text;
  const match = EXPONENT.exec(text);
  if (!match) return undefined;
  const digits = `${match[1]}${match[2] ?? ''}`;
  const point = match[1]!.length + Number(match[3]);
  const padded = point <= 0 ? `${'0'.repeat(1 - point)}${digits}` : digits.padEnd(point, '0');
  const at = point <= 0 ? 1 : point;
  const whole = padded.slice(0, at).replace(/^0+(?=[0-9])/, '');
  const fraction = padded.slice(at).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/** The bytes of `path`, gunzipped when they start with gzip's magic, as numbered lines. */
async function* fileLines(path: string): AsyncGenerator<TardisLine> {
  const handle = await open(path, 'r');
  const magic = Buffer.alloc(2);
  await handle.read(magic, 0, 2, 0);
  await handle.close();
  const raw = createReadStream(path);
  let consumed = 0;
  raw.on('data', (chunk: Buffer | string) => (consumed += chunk.length));
  const gzipped = magic[0] === 0x1f && magic[1] === 0x8b;
  const source: Readable = gzipped ? raw.pipe(createGunzip()) : raw;
  let line = 0;
  try {
    for await (const row of splitLines(source as AsyncIterable<Buffer>)) {
      line = row.line;
      yield row;
    }
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new BaseError('FEED_UNREADABLE', `${path}: truncated or corrupted gzip near byte ${consumed}, after line ${line}: ${reason}`, { details: { path, position: consumed, line }, cause });
  } finally {
    raw.destroy();
    if (source !== raw) source.destroy();
  }
}

/** Opens one input and tells a book file from a trades file by its header row; FEED_FOREIGN for any other. */
async function openTardisInput(path: string): Promise<TardisInput> {
  const source = describeInput(path);
  const lines = fileLines(path);
  const first = await lines.next();
  await lines.return(undefined);
  const header = first.done === true ? '' : first.value.text.trim();
  const kind: TardisKind | undefined = header === BOOK_HEADER ? 'book' : header === TRADES_HEADER ? 'trades' : undefined;
  if (kind === undefined) {
    throw new BaseError('FEED_FOREIGN', `${path}:1: not a Tardis incremental_book_L2 or trades CSV: header ${JSON.stringify(header.slice(0, 120))}, expected ${BOOK_HEADER} or ${TRADES_HEADER}`, {
      details: { path },
    });
  }
  return {
    path,
    kind,
    source,
    async *lines() {
      let header = true;
      for await (const line of fileLines(path)) {
        if (header) header = false;
        else yield line;
      }
    },
  };
}

/** Fields shared by both datasets, checked: timestamps (µs) in ns, the symbol, and price and amount as plain decimals. */
function commonFields(path: string, line: number, fields: readonly string[]) {
  if (fields.length !== 8) throw invalidRecord(path, line, `${fields.length} columns, expected 8`);
  const [exchange, symbol, timestamp, localTimestamp, , , priceText, amountText] = fields as [string, string, string, string, string, string, string, string];
  if (!MICROS.test(timestamp)) throw invalidRecord(path, line, `timestamp ${JSON.stringify(timestamp)} is not µs since the epoch`);
  if (!MICROS.test(localTimestamp)) throw invalidRecord(path, line, `local_timestamp ${JSON.stringify(localTimestamp)} is not µs since the epoch`);
  const price = plainDecimal(priceText);
  if (price === undefined) throw invalidRecord(path, line, `price ${JSON.stringify(priceText)} is not a decimal number`);
  const amount = plainDecimal(amountText);
  if (amount === undefined) throw invalidRecord(path, line, `amount ${JSON.stringify(amountText)} is not a decimal number`);
  return { exchange, symbol, exchTs: BigInt(timestamp) * 1_000n, localTs: BigInt(localTimestamp) * 1_000n, price, amount };
}

/** Checks what every row of the import shares: one symbol and exchange, local times that never go back. */
class RowOrder {
  private symbol: string | undefined;
  private exchange: string | undefined;
  private readonly lastLocal = new Map<string, bigint>();

  check(path: string, line: number, row: { exchange: string; symbol: string; localTs: bigint }): void {
    this.symbol ??= row.symbol;
    this.exchange ??= row.exchange;
    if (row.symbol !== this.symbol) throw invalidRecord(path, line, `symbol ${row.symbol}, but earlier rows are ${this.symbol}: import one market at a time`);
    if (row.exchange !== this.exchange) throw invalidRecord(path, line, `exchange ${row.exchange}, but earlier rows are ${this.exchange}`);
    const last = this.lastLocal.get(path);
    if (last !== undefined && row.localTs < last) throw invalidRecord(path, line, `local_timestamp ${row.localTs / 1_000n} µs before the previous row's ${last / 1_000n} µs`);
    this.lastLocal.set(path, row.localTs);
  }

  get names(): { symbol: string | undefined; exchange: string | undefined } {
    return { symbol: this.symbol, exchange: this.exchange };
  }
}

async function* bookRows(input: TardisInput, order: RowOrder): AsyncGenerator<BookRow> {
  for await (const { text, line } of input.lines()) {
    const fields = text.split(',');
    const common = commonFields(input.path, line, fields);
    const snapshotText = fields[4]!;
    const sideText = fields[5]!;
    if (snapshotText !== 'true' && snapshotText !== 'false') throw invalidRecord(input.path, line, `is_snapshot ${JSON.stringify(snapshotText)} is not true or false`);
    if (sideText !== 'bid' && sideText !== 'ask') throw invalidRecord(input.path, line, `side ${JSON.stringify(sideText)} is not bid or ask`);
    order.check(input.path, line, common);
    yield { line, exchTs: common.exchTs, localTs: common.localTs, snapshot: snapshotText === 'true', side: sideText === 'bid' ? Side.BUY : Side.SELL, price: common.price, amount: common.amount };
  }
}

const TRADE_SIDES: Readonly<Record<string, number>> = { buy: Side.BUY, sell: Side.SELL, unknown: Side.NONE };

async function* tradeRows(input: TardisInput, order: RowOrder): AsyncGenerator<TradeRow> {
  for await (const { text, line } of input.lines()) {
    const fields = text.split(',');
    const common = commonFields(input.path, line, fields);
    const id = fields[4]!;
    const side = TRADE_SIDES[fields[5]!];
    if (side === undefined) throw invalidRecord(input.path, line, `side ${JSON.stringify(fields[5])} is not buy, sell or unknown`);
    order.check(input.path, line, common);
    yield { line, exchTs: common.exchTs, localTs: common.localTs, id, side, price: common.price, amount: common.amount };
  }
}

/** The book rows grouped into updates: rows of one local_timestamp, or a whole snapshot. */
async function* bookUpdates(rows: AsyncIterable<BookRow>): AsyncGenerator<BookUpdate> {
  let group: BookRow[] = [];
  let snapshot = false;
  for await (const row of rows) {
    const continues = group.length > 0 && (snapshot ? row.snapshot : !row.snapshot && row.localTs === group[0]!.localTs);
    if (group.length > 0 && !continues) {
      yield { clear: snapshot, localTs: group[0]!.localTs, rows: group };
      group = [];
    }
    if (group.length === 0) snapshot = row.snapshot;
    group.push(row);
  }
  if (group.length > 0) yield { clear: snapshot, localTs: group[0]!.localTs, rows: group };
}

/**
 * Imports a Tardis incremental_book_L2 CSV and/or a trades CSV of one market into one event feed.
 *
 * @example
 * const result = await importTardis({ inputs: ['binance_incremental_book_L2_2024-08-08_BTCUSDT.csv.gz', 'binance_trades_2024-08-08_BTCUSDT.csv.gz'], out: 'btcusdt.arrow' });
 * result.header.source.kind // 'tardis'
 */
export const importTardis: Importer = async (params: ImportParameters): Promise<ImportResult> => {
  if (params.inputs.length === 0 || params.inputs.length > 2) {
    throw new BaseError('CLI_USAGE', `import tardis takes one incremental_book_L2 file and/or one trades file, not ${params.inputs.length} files`, { details: { inputs: params.inputs } });
  }
  const inputs: TardisInput[] = [];
  for (const path of params.inputs) inputs.push(await openTardisInput(path));
  const book = inputs.find((input) => input.kind === 'book');
  const trades = inputs.find((input) => input.kind === 'trades');
  if (inputs.length === 2 && (book === undefined || trades === undefined)) {
    throw new BaseError('CLI_USAGE', `${params.inputs.join(' and ')} are both ${inputs[0]!.kind} files: give one incremental_book_L2 file and/or one trades file`, { details: { inputs: params.inputs } });
  }

  // Pass 1: check every row, and learn the market's name, steps and trade id style before writing.
  const probe = new RowOrder();
  const inferring = params.tickSize === undefined || params.lotSize === undefined;
  // The step inference of the Binance dumps: a chunked decimal GCD, bounded memory whatever the file size.
  const prices = inferring ? new StepInference() : undefined;
  const amounts = inferring ? new StepInference() : undefined;
  let numericIds = true;
  let firstId: string | undefined;
  let tradeCount = 0;
  if (book !== undefined) {
    for await (const row of bookRows(book, probe)) {
      prices?.add(row.price);
      amounts?.add(row.amount);
    }
  }
  if (trades !== undefined) {
    for await (const row of tradeRows(trades, probe)) {
      tradeCount += 1;
      firstId ??= row.id;
      if (numericIds && !(MICROS.test(row.id) && BigInt(row.id) <= MAX_INT64)) numericIds = false;
      prices?.add(row.price);
      amounts?.add(row.amount);
    }
  }
  const { symbol: rowSymbol, exchange } = probe.names;
  const symbol = params.symbol ?? rowSymbol;
  if (symbol === undefined) throw new BaseError('CLI_USAGE', `${params.inputs.join(', ')}: no rows name the symbol: pass --symbol`, { details: { inputs: params.inputs } });
  const tick = chooseStep(params.tickSize, prices, 'tick size');
  const lot = chooseStep(params.lotSize, amounts, 'lot size');

  const notes: string[] = [`exchange ${exchange ?? 'unknown'}; timestamps are Tardis µs, local_ts is Tardis's receive time (local_timestamp)`];
  if (book !== undefined) notes.push('CHECKPOINT and LEVEL ids are a running count of book updates from 1 (an update: the rows of one local_timestamp, or a whole snapshot): Tardis has no update ids');
  if (trades !== undefined && !numericIds && tradeCount > 0) notes.push(`trade ids are not all integers (first ${JSON.stringify(firstId)}): TRADE ids are a running count from 1`);
  if (tick.inferred) notes.push(`tick size ${tick.step.text} inferred from the prices`);
  if (lot.inferred) notes.push(`lot size ${lot.step.text} inferred from the amounts`);
  const header: FeedHeader = {
    format: FEED_FORMAT,
    version: FEED_VERSION,
    kind: 'events',
    market: { symbol, tickSize: tick.step.text, lotSize: lot.step.text, ...(tick.inferred || lot.inferred ? { inferred: true } : {}) },
    source: { kind: 'tardis', files: inputs.map((input) => input.source), notes: [...notes] },
  };

  const ticks = decimalScale(tick.step);
  const lots = decimalScale(lot.step);
  const units = (path: string, line: number, price: string, amount: string): [bigint, bigint] => {
    const p = ticks.units(price);
    if (p === undefined) throw invalidRecord(path, line, `price ${price} is not a multiple of the tick size ${tick.step.text}`);
    const q = lots.units(amount);
    if (q === undefined) throw invalidRecord(path, line, `amount ${amount} is not a multiple of the lot size ${lot.step.text}`);
    return [p, q];
  };

  let writer: EventFeedWriter | undefined;
  let updates = 0n;
  let tradeSequence = 0n;
  let reported = 0;
  const progress = () => {
    if (params.onProgress === undefined || writer === undefined || writer.rows - reported < 65_536) return;
    reported = writer.rows;
    params.onProgress({ rows: writer.rows, inputBytes: 0 });
  };
  const writeUpdate = (feed: EventFeedWriter, update: BookUpdate) => {
    updates += 1n;
    const first = update.rows[0]!;
    if (update.clear) feed.append(FeedEventKind.BOOK_CLEAR, Side.NONE, first.exchTs, first.localTs, 0n, 0n, updates);
    for (const row of update.rows) {
      const [price, qty] = units(book!.path, row.line, row.price, row.amount);
      feed.append(FeedEventKind.LEVEL, row.side, row.exchTs, row.localTs, price, qty, updates);
    }
    const last = update.rows[update.rows.length - 1]!;
    feed.append(FeedEventKind.CHECKPOINT, Side.NONE, last.exchTs, last.localTs, 0n, 0n, updates);
    progress();
  };
  const writeTrade = (feed: EventFeedWriter, row: TradeRow) => {
    const [price, qty] = units(trades!.path, row.line, row.price, row.amount);
    tradeSequence += 1n;
    feed.append(FeedEventKind.TRADE, row.side, row.exchTs, row.localTs, price, qty, numericIds ? BigInt(row.id) : tradeSequence);
    progress();
  };

  try {
    writer = createEventFeedWriter(params.out, header);
    const order = new RowOrder();
    const updateStream = book === undefined ? undefined : bookUpdates(bookRows(book, order));
    const tradeStream = trades === undefined ? undefined : tradeRows(trades, order);
    let update = await updateStream?.next();
    let trade = await tradeStream?.next();
    // Two-way merge by local time; at equal times the book update goes first.
    for (;;) {
      const nextUpdate = update !== undefined && update.done !== true ? update.value : undefined;
      const nextTrade = trade !== undefined && trade.done !== true ? trade.value : undefined;
      if (nextUpdate === undefined && nextTrade === undefined) break;
      if (nextUpdate !== undefined && (nextTrade === undefined || nextUpdate.localTs <= nextTrade.localTs)) {
        writeUpdate(writer, nextUpdate);
        update = await updateStream!.next();
      } else {
        writeTrade(writer, nextTrade!);
        trade = await tradeStream!.next();
      }
    }
    writer.finish();
  } catch (error) {
    writer?.abort();
    throw error;
  }
  return { header, rows: writer.rows, gaps: [], notes };
};
