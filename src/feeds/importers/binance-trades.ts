/**
 * `clobbot import binance-trades`: Binance's daily or monthly trades dumps (data.binance.vision) into
 * an event feed of TRADE rows. Spot files have no header row and seven columns
 * (`trade_id,price,qty,quote_qty,time,is_buyer_maker,is_best_match`); USD-M futures files have a
 * header row and six (`id,price,qty,quote_qty,time,is_buyer_maker`). Ids that skip become TRADE_GAP
 * rows. A dump has no receive time, so each row's local time is its exchange time.
 */
import { BaseError } from '../../core/base-error.ts';
import { decimalScale } from '../decimal-scale.ts';
import { FeedEventKind, Side } from '../feed-event.ts';
import { FEED_FORMAT, FEED_VERSION, type FeedHeader } from '../feed-header.ts';
import { createEventFeedWriter, type EventFeedWriter } from '../event-feed-writer.ts';
import {
  chooseStep,
  dumpSymbol,
  isHeaderRow,
  openDumpInput,
  parseBinanceBool,
  PLAIN_DECIMAL,
  StepInference,
  timeToNs,
  timeUnit,
  timeUnitNote,
  readChecked,
  type DumpInput,
  type TimeUnit,
} from './binance-dump.ts';
import { invalidRecord, type ImportGap, type Importer, type ImportParameters, type ImportResult } from './importer.ts';

/** One trade of a dump, checked but still in text where it is a decimal. */
interface TradeRow {
  readonly line: number;
  readonly id: bigint;
  readonly price: string;
  readonly qty: string;
  readonly timeNs: bigint;
  readonly unit: TimeUnit;
  readonly buyerMaker: boolean;
}

const FUTURES_HEADER = ['id', 'price', 'qty', 'quote_qty', 'time', 'is_buyer_maker'];
const SPOT_COLUMNS = [...FUTURES_HEADER, 'is_best_match'];
const DIGITS = /^[0-9]+$/;
const MAX_INT64 = (1n << 63n) - 1n;

/** The rows of one trades dump, each checked against the layout its first line shows. */
async function* tradeRows(input: DumpInput): AsyncGenerator<TradeRow> {
  let columns: readonly string[] | undefined;
  let unit: TimeUnit | undefined;
  for await (const { text, line } of input.lines()) {
    const fields = text.split(',');
    if (columns === undefined) {
      if (isHeaderRow(text)) {
        const names = fields.map((field) => field.trim());
        if (names.join(',') !== FUTURES_HEADER.join(',') && names.join(',') !== SPOT_COLUMNS.join(',')) {
          throw new BaseError('FEED_FOREIGN', `${input.location}:${line}: not a Binance trades dump: header ${JSON.stringify(text.slice(0, 120))}, expected ${FUTURES_HEADER.join(',')}[,is_best_match]`, {
            details: { file: input.location, line },
          });
        }
        columns = names;
        continue;
      }
      // No header: spot files have 7 columns, early futures files 6; anything else is another dump.
      if (fields.length !== 6 && fields.length !== 7) {
        throw new BaseError('FEED_FOREIGN', `${input.location}:${line}: not a Binance trades dump: ${fields.length} columns, expected ${SPOT_COLUMNS.join(',')} (7) or the 6 of futures`, {
          details: { file: input.location, line },
        });
      }
      columns = SPOT_COLUMNS.slice(0, fields.length);
    }
    if (fields.length !== columns.length) throw invalidRecord(input.location, line, `${fields.length} columns, expected ${columns.length} (${columns.join(',')})`);
    const [id, price, qty, quoteQty, time, buyerMaker, bestMatch] = fields as [string, string, string, string, string, string, string | undefined];
    if (!DIGITS.test(id) || BigInt(id) > MAX_INT64) throw invalidRecord(input.location, line, `trade id ${JSON.stringify(id)} is not an integer`);
    if (!PLAIN_DECIMAL.test(price)) throw invalidRecord(input.location, line, `price ${JSON.stringify(price)} is not a decimal number`);
    if (!PLAIN_DECIMAL.test(qty)) throw invalidRecord(input.location, line, `qty ${JSON.stringify(qty)} is not a decimal number`);
    if (!PLAIN_DECIMAL.test(quoteQty)) throw invalidRecord(input.location, line, `quote_qty ${JSON.stringify(quoteQty)} is not a decimal number`);
    // The unit is the file's, found on its first row: a row in the other unit is a broken row.
    unit ??= timeUnit(time);
    const timeNs = unit === undefined ? undefined : timeToNs(time, unit);
    if (timeNs === undefined) throw invalidRecord(input.location, line, `time ${JSON.stringify(time)} is not a Binance timestamp${unit === undefined ? ' (13 digits of ms or 16 of µs)' : ` in ${unit} like the file's first row`}`);
    const maker = parseBinanceBool(buyerMaker);
    if (maker === undefined) throw invalidRecord(input.location, line, `is_buyer_maker ${JSON.stringify(buyerMaker)} is not True or False`);
    if (bestMatch !== undefined && parseBinanceBool(bestMatch) === undefined) throw invalidRecord(input.location, line, `is_best_match ${JSON.stringify(bestMatch)} is not True or False`);
    yield { line, id: BigInt(id), price, qty, timeNs, unit: unit!, buyerMaker: maker };
  }
}

/** The unit of a file's timestamps, from its first row only (undefined for a file without trades). */
async function probeUnit(input: DumpInput): Promise<TimeUnit | undefined> {
  return readChecked(input, async () => {
    const rows = tradeRows(input);
    const first = await rows.next();
    await rows.return(undefined);
    return first.done === true ? undefined : first.value.unit;
  });
}

/**
 * Imports Binance trades dumps, zipped (checked against their `.CHECKSUM`) or plain CSV, given in
 * time order (consecutive days), into one event feed.
 *
 * @example
 * const result = await importBinanceTrades({ inputs: ['BTCUSDT-trades-2024-08-08.zip'], out: 'btcusdt-trades.arrow' });
 * result.rows; // TRADE rows plus a TRADE_GAP row per skip of the ids
 */
export const importBinanceTrades: Importer = async (params: ImportParameters): Promise<ImportResult> => {
  const symbol = dumpSymbol(params.inputs, params.symbol);
  const inputs: DumpInput[] = [];
  for (const path of params.inputs) inputs.push(await openDumpInput(path));

  const notes: string[] = [];
  for (const input of inputs) {
    const unit = await probeUnit(input);
    notes.push(unit === undefined ? `${input.location}: no trades` : timeUnitNote(input.location, unit));
  }
  notes.push('local_ts is exch_ts: a dump has no receive time');

  // A first pass over the rows only when a step must be inferred: the whole data decides it.
  let prices: StepInference | undefined;
  let quantities: StepInference | undefined;
  if (params.tickSize === undefined || params.lotSize === undefined) {
    prices = new StepInference();
    quantities = new StepInference();
    for (const input of inputs) {
      await readChecked(input, async () => {
        for await (const row of tradeRows(input)) {
          prices!.add(row.price);
          quantities!.add(row.qty);
        }
      });
    }
  }
  const tick = chooseStep(params.tickSize, prices, 'tick size');
  const lot = chooseStep(params.lotSize, quantities, 'lot size');
  if (tick.inferred) notes.push(`tick size ${tick.step.text} inferred from the prices`);
  if (lot.inferred) notes.push(`lot size ${lot.step.text} inferred from the quantities`);

  const header: FeedHeader = {
    format: FEED_FORMAT,
    version: FEED_VERSION,
    kind: 'events',
    market: { symbol, tickSize: tick.step.text, lotSize: lot.step.text, ...(tick.inferred || lot.inferred ? { inferred: true } : {}) },
    source: { kind: 'binance-trades', files: inputs.map((input) => input.source), notes: [...notes] },
  };
  const ticks = decimalScale(tick.step);
  const lots = decimalScale(lot.step);
  const gaps: ImportGap[] = [];
  let writer: EventFeedWriter | undefined;
  try {
    const feed = createEventFeedWriter(params.out, header);
    writer = feed;
    let lastId: bigint | undefined;
    let lastTime = -1n;
    for (const input of inputs) {
      await readChecked(input, async () => {
        for await (const row of tradeRows(input)) {
          const price = ticks.units(row.price);
          if (price === undefined) throw invalidRecord(input.location, row.line, `price ${row.price} is not a multiple of the tick size ${tick.step.text}`);
          const qty = lots.units(row.qty);
          if (qty === undefined) throw invalidRecord(input.location, row.line, `qty ${row.qty} is not a multiple of the lot size ${lot.step.text}`);
          if (lastId !== undefined && row.id <= lastId) throw invalidRecord(input.location, row.line, `trade id ${row.id} after ${lastId}: the ids must increase (inputs out of order or repeated?)`);
          if (row.timeNs < lastTime) throw invalidRecord(input.location, row.line, `time ${row.timeNs} ns before the previous trade's ${lastTime} ns`);
          if (lastId !== undefined && row.id > lastId + 1n) {
            const missing = row.id - lastId - 1n;
            feed.append(FeedEventKind.TRADE_GAP, Side.NONE, row.timeNs, row.timeNs, 0n, missing, lastId + 1n);
            gaps.push({ kind: 'trades', file: input.location, line: row.line, message: `trade id ${row.id} after ${lastId}: ${missing} trade${missing === 1n ? '' : 's'} missing` });
          }
          // is_buyer_maker True: the buyer's order rested, so the taker sold.
          feed.append(FeedEventKind.TRADE, row.buyerMaker ? Side.SELL : Side.BUY, row.timeNs, row.timeNs, price, qty, row.id);
          lastId = row.id;
          lastTime = row.timeNs;
          if (params.onProgress !== undefined && feed.rows % 65_536 === 0) params.onProgress({ rows: feed.rows, inputBytes: inputs.reduce((sum, each) => sum + each.bytesRead(), 0) });
        }
      });
    }
    writer.finish();
  } catch (error) {
    writer?.abort();
    throw error;
  }
  if (gaps.length > 0) notes.push(`${gaps.length} gap${gaps.length === 1 ? '' : 's'} in the trade ids, written as TRADE_GAP rows`);
  return { header, rows: writer.rows, gaps, notes };
};
