/**
 * `clobbot import binance-klines`: Binance's klines dumps (data.binance.vision) into a candle feed
 * (candle-feed.ts). Columns `open_time,open,high,low,close,volume,close_time,quote_volume,count,
 * taker_buy_volume,taker_buy_quote_volume,ignore`; spot files have no header row, newer futures files
 * have one. The taker-buy columns are checked but not stored: the candle feed has no column for them.
 */
import { BaseError } from '../../core/base-error.ts';
import { decimalScale, type DecimalStep } from '../decimal-scale.ts';
import { FEED_FORMAT, FEED_VERSION, type FeedHeader } from '../feed-header.ts';
import { createCandleFeedWriter, type Candle, type CandleFeedWriter } from '../candle-feed.ts';
import {
  chooseStep,
  dumpSymbol,
  isHeaderRow,
  openDumpInput,
  parseDumpName,
  PLAIN_DECIMAL,
  StepInference,
  timeToNs,
  timeUnit,
  timeUnitNote,
  readChecked,
  type DumpInput,
  type TimeUnit,
} from './binance-dump.ts';
import { invalidRecord, type Importer, type ImportParameters, type ImportResult } from './importer.ts';

const KLINE_COLUMNS = ['open_time', 'open', 'high', 'low', 'close', 'volume', 'close_time', 'quote_volume', 'count', 'taker_buy_volume', 'taker_buy_quote_volume', 'ignore'];
const DIGITS = /^[0-9]+$/;
const INTERVAL = /^([1-9][0-9]*)([smhdwM])$/;
const SECOND_NS = 1_000_000_000n;
const MAX_INT64 = (1n << 63n) - 1n;
const UNIT_NS: Readonly<Record<string, bigint>> = { s: SECOND_NS, m: 60n * SECOND_NS, h: 3_600n * SECOND_NS, d: 86_400n * SECOND_NS, w: 604_800n * SECOND_NS };

/** One kline of a dump, checked, decimals still in text. */
interface KlineRow {
  readonly line: number;
  readonly openTime: bigint;
  readonly closeTime: bigint;
  readonly unit: TimeUnit;
  readonly open: string;
  readonly high: string;
  readonly low: string;
  readonly close: string;
  readonly volume: string;
  readonly quoteVolume: string;
  readonly trades: bigint;
  readonly takerBuyVolume: string;
}

/** The rows of one klines dump, each checked; the header row, when there is one, must be Binance's. */
async function* klineRows(input: DumpInput): AsyncGenerator<KlineRow> {
  let unit: TimeUnit | undefined;
  let first = true;
  for await (const { text, line } of input.lines()) {
    const fields = text.split(',');
    if (first) {
      first = false;
      if (isHeaderRow(text)) {
        if (fields.map((field) => field.trim()).join(',') !== KLINE_COLUMNS.join(',')) {
          throw new BaseError('FEED_FOREIGN', `${input.location}:${line}: not a Binance klines dump: header ${JSON.stringify(text.slice(0, 160))}, expected ${KLINE_COLUMNS.join(',')}`, { details: { file: input.location, line } });
        }
        continue;
      }
      if (fields.length !== KLINE_COLUMNS.length) {
        throw new BaseError('FEED_FOREIGN', `${input.location}:${line}: not a Binance klines dump: ${fields.length} columns, expected the 12 of ${KLINE_COLUMNS.join(',')}`, { details: { file: input.location, line } });
      }
    }
    if (fields.length !== KLINE_COLUMNS.length) throw invalidRecord(input.location, line, `${fields.length} columns, expected ${KLINE_COLUMNS.length} (${KLINE_COLUMNS.join(',')})`);
    const [openTime, open, high, low, close, volume, closeTime, quoteVolume, count, takerBuyVolume, takerBuyQuoteVolume] = fields as [string, string, string, string, string, string, string, string, string, string, string];
    unit ??= timeUnit(openTime);
    const openNs = unit === undefined ? undefined : timeToNs(openTime, unit);
    if (openNs === undefined) throw invalidRecord(input.location, line, `open_time ${JSON.stringify(openTime)} is not a Binance timestamp${unit === undefined ? ' (13 digits of ms or 16 of µs)' : ` in ${unit} like the file's first row`}`);
    const closeNs = timeToNs(closeTime, unit!);
    if (closeNs === undefined || closeNs < openNs) throw invalidRecord(input.location, line, `close_time ${JSON.stringify(closeTime)} is not a timestamp in ${unit} at or after open_time`);
    const decimals: readonly (readonly [string, string])[] = [
      ['open', open],
      ['high', high],
      ['low', low],
      ['close', close],
      ['volume', volume],
      ['quote_volume', quoteVolume],
      ['taker_buy_volume', takerBuyVolume],
      ['taker_buy_quote_volume', takerBuyQuoteVolume],
    ];
    for (const [name, value] of decimals) if (!PLAIN_DECIMAL.test(value)) throw invalidRecord(input.location, line, `${name} ${JSON.stringify(value)} is not a decimal number`);
    if (!DIGITS.test(count)) throw invalidRecord(input.location, line, `count ${JSON.stringify(count)} is not an integer`);
    yield { line, openTime: openNs, closeTime: closeNs, unit: unit!, open, high, low, close, volume, quoteVolume, trades: BigInt(count), takerBuyVolume };
  }
}

/** The length of an interval in ns; undefined for months (their length varies). */
function intervalNs(interval: string): bigint | undefined {
  const match = INTERVAL.exec(interval)!;
  const unit = UNIT_NS[match[2]!];
  return unit === undefined ? undefined : BigInt(match[1]!) * unit;
}

/** The interval a spacing of open times is (`1m` for 60 s): the largest unit that divides it; 28 to 31 days is `1M`. */
function intervalOf(spacingNs: bigint): string | undefined {
  if (spacingNs <= 0n || spacingNs % SECOND_NS !== 0n) return undefined;
  if (spacingNs >= 28n * UNIT_NS.d! && spacingNs <= 31n * UNIT_NS.d!) return '1M';
  for (const unit of ['w', 'd', 'h', 'm', 's']) {
    const size = UNIT_NS[unit]!;
    if (spacingNs % size === 0n) return `${spacingNs / size}${unit}`;
  }
  return undefined;
}

/**
 * `text` in units of `step` (tick × lot), rounded down when it is not a whole number of them.
 * Exact digits are kept: the text is scaled as an integer, never through a float.
 */
function floorUnits(text: string, step: DecimalStep): { units: bigint; exact: boolean } {
  const dot = text.indexOf('.');
  const whole = dot < 0 ? text : text.slice(0, dot);
  const fraction = dot < 0 ? '' : text.slice(dot + 1);
  const kept = fraction.slice(0, step.decimals).padEnd(step.decimals, '0');
  const dropped = fraction.slice(step.decimals);
  const scaled = BigInt(whole + kept);
  return { units: scaled / step.mantissa, exact: scaled % step.mantissa === 0n && !/[1-9]/.test(dropped) };
}

/**
 * Imports Binance klines dumps, zipped (checked against their `.CHECKSUM`) or plain CSV, of one
 * symbol and interval, given in time order, into one candle feed.
 *
 * Klines files are small (1440 rows a day at 1m), so they are read up to three times: to check the
 * rows and infer the steps and the interval, to count the quote volumes that must be rounded (the
 * header notes say how many before the first row is written), and to write.
 *
 * @example
 * const result = await importBinanceKlines({ inputs: ['BTCUSDT-1m-2024-08-08.zip'], out: 'btcusdt-1m.arrow' });
 * result.header.source.interval // '1m'
 */
export const importBinanceKlines: Importer = async (params: ImportParameters): Promise<ImportResult> => {
  const symbol = dumpSymbol(params.inputs, params.symbol);
  const inputs: DumpInput[] = [];
  for (const path of params.inputs) inputs.push(await openDumpInput(path));
  const notes: string[] = [];

  // The interval the file names give, which must agree.
  const named = new Set(params.inputs.map((path) => parseDumpName(path)?.dataType).filter((type) => type !== undefined && INTERVAL.test(type)));
  if (named.size > 1) throw new BaseError('FEED_FOREIGN', `the inputs are klines of different intervals (${[...named].join(', ')}): import one interval at a time`, { details: { inputs: params.inputs } });

  // Pass 1: check every row, and gather what the steps and the interval are inferred from.
  const prices = params.tickSize === undefined ? new StepInference() : undefined;
  const sizes = params.lotSize === undefined ? new StepInference() : undefined;
  let spacing: bigint | undefined;
  let lastOpen: bigint | undefined;
  let firstLength: bigint | undefined;
  let candles = 0;
  for (const input of inputs) {
    const unit = await readChecked(input, async () => {
      let found: TimeUnit | undefined;
      for await (const row of klineRows(input)) {
        found ??= row.unit;
        candles += 1;
        if (lastOpen !== undefined && row.openTime <= lastOpen) throw invalidRecord(input.location, row.line, `open_time ${row.openTime} ns not after the previous candle's ${lastOpen} ns (inputs out of order or repeated?)`);
        if (lastOpen !== undefined && (spacing === undefined || row.openTime - lastOpen < spacing)) spacing = row.openTime - lastOpen;
        firstLength ??= row.closeTime - row.openTime + (row.unit === 'ms' ? 1_000_000n : 1_000n);
        lastOpen = row.openTime;
        for (const price of [row.open, row.high, row.low, row.close]) prices?.add(price);
        sizes?.add(row.volume);
        sizes?.add(row.takerBuyVolume);
      }
      return found;
    });
    notes.push(unit === undefined ? `${input.location}: no candles` : timeUnitNote(input.location, unit));
  }
  const interval = named.size === 1 ? [...named][0]! : intervalOf(spacing ?? firstLength ?? 0n);
  if (interval === undefined) {
    throw new BaseError('FEED_RECORD_INVALID', `${inputs[0]?.location ?? 'input'}: cannot tell the candles' interval: the file names do not say it and the open times are ${spacing ?? firstLength ?? 0n} ns apart`, {
      details: { file: inputs[0]?.location },
    });
  }
  if (named.size === 0) notes.push(`interval ${interval} inferred from the spacing of the open times`);
  const tick = chooseStep(params.tickSize, prices, 'tick size');
  const lot = chooseStep(params.lotSize, sizes, 'lot size');
  if (tick.inferred) notes.push(`tick size ${tick.step.text} inferred from the prices`);
  if (lot.inferred) notes.push(`lot size ${lot.step.text} inferred from the volumes`);
  const ticks = decimalScale(tick.step);
  const lots = decimalScale(lot.step);
  const quoteStep: DecimalStep = { text: '', mantissa: tick.step.mantissa * lot.step.mantissa, decimals: tick.step.decimals + lot.step.decimals };
  const length = intervalNs(interval);

  /**
   * quote_volume is Binance's sum of price × qty over the candle's trades, an exact multiple of
   * tick × lot whenever the steps are the market's: stored exactly then. When it is not (Binance
   * printed it to 8 decimals and tick × lot has more, or an inferred step is coarser than the real
   * one) it is rounded down to a whole tick × lot: the error is below the feed's own resolution, the
   * column keeps one integer unit (so quote_volume / volume stays a VWAP in ticks), and a real file is
   * not refused for Binance's rounding. The header notes count the candles rounded.
   */
  const convert = (input: DumpInput, row: KlineRow): { candle: Candle; exact: boolean } => {
    const price = (name: string, text: string): bigint => {
      const units = ticks.units(text);
      if (units === undefined) throw invalidRecord(input.location, row.line, `${name} ${text} is not a multiple of the tick size ${tick.step.text}`);
      return units;
    };
    const open = price('open', row.open);
    const high = price('high', row.high);
    const low = price('low', row.low);
    const close = price('close', row.close);
    if (high < low || open < low || open > high || close < low || close > high) throw invalidRecord(input.location, row.line, `open ${row.open}, high ${row.high}, low ${row.low}, close ${row.close} are not a candle (high ≥ open, close ≥ low)`);
    const volume = lots.units(row.volume);
    if (volume === undefined) throw invalidRecord(input.location, row.line, `volume ${row.volume} is not a multiple of the lot size ${lot.step.text}`);
    const quote = floorUnits(row.quoteVolume, quoteStep);
    if (quote.units > MAX_INT64) throw invalidRecord(input.location, row.line, `quote_volume ${row.quoteVolume} is more than an int64 of tick × lot (${tick.step.text} × ${lot.step.text}) holds`);
    return { candle: { openTime: row.openTime, closeTime: row.closeTime, open, high, low, close, volume, quoteVolume: quote.units, trades: row.trades }, exact: quote.exact };
  };

  // Pass 2: convert without writing, so that every refusal comes before the file exists and the rounding count is in the header.
  let rounded = 0;
  let missing = 0n;
  let previous: bigint | undefined;
  for (const input of inputs) {
    for await (const row of klineRows(input)) {
      if (!convert(input, row).exact) rounded += 1;
      if (length !== undefined && previous !== undefined && row.openTime - previous > length) missing += (row.openTime - previous) / length - 1n;
      previous = row.openTime;
    }
  }
  if (rounded > 0) notes.push(`quote_volume rounded down to a whole tick × lot (${tick.step.text} × ${lot.step.text}) in ${rounded} of ${candles} candles: Binance's figure is finer`);
  if (missing > 0n) notes.push(`${missing} candle${missing === 1n ? '' : 's'} of ${interval} missing between the open times (no rows for them)`);

  const header: FeedHeader = {
    format: FEED_FORMAT,
    version: FEED_VERSION,
    kind: 'candles',
    market: { symbol, tickSize: tick.step.text, lotSize: lot.step.text, ...(tick.inferred || lot.inferred ? { inferred: true } : {}) },
    source: { kind: 'binance-klines', files: inputs.map((input) => input.source), interval, notes: [...notes] },
  };
  let writer: CandleFeedWriter | undefined;
  try {
    writer = createCandleFeedWriter(params.out, header);
    for (const input of inputs) {
      for await (const row of klineRows(input)) {
        writer.appendCandle(convert(input, row).candle);
        if (params.onProgress !== undefined && writer.rows % 65_536 === 0) params.onProgress({ rows: writer.rows, inputBytes: inputs.reduce((sum, each) => sum + each.bytesRead(), 0) });
      }
    }
    writer.finish();
  } catch (error) {
    writer?.abort();
    throw error;
  }
  return { header, rows: writer.rows, gaps: [], notes };
};
