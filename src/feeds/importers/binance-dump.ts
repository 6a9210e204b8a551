/**
 * What the Binance public data dumps (data.binance.vision) have in common, for the trades and the
 * klines importers: zipped or plain CSV inputs checked against the `.CHECKSUM` beside them, their
 * lines streamed with the location a user can open (`x.zip/x.csv:12`), the symbol and interval in
 * their file names, an optional header row, and timestamps in milliseconds or, for spot files from
 * 2025-01-01 on, microseconds.
 */
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { BaseError } from '../../core/base-error.ts';
import { inferStep, parseStep, type DecimalStep } from '../decimal-scale.ts';
import { describeInput, invalidRecord } from './importer.ts';
import { splitLines, type TextLine } from './text-lines.ts';
import { readZipEntry, zipEntryStream } from './zip-entry.ts';

/** One line of a dump: its text without the line end, and its 1-based number in the CSV. */
export type DumpLine = TextLine;

/** An input file, checked and ready to be read (as many times as an importer needs passes). */
export interface DumpInput {
  readonly path: string;
  /** Where its rows are, for messages: the path, or `path/entry.csv` inside a zip. */
  readonly location: string;
  /** The `source.files` entry: base name and SHA-256. */
  readonly source: { readonly name: string; readonly sha256: string };
  /** Its lines in order, blank ones left out; each call reads the file again. */
  lines(): AsyncGenerator<DumpLine>;
  /** Bytes of text read so far over every call of lines() (for progress reports). */
  readonly bytesRead: () => number;
  /** Reads a zip entry to its end to check its CRC-32 and size (FEED_UNREADABLE when damaged); nothing for a plain CSV. */
  checkIntegrity(): Promise<void>;
}

/** The `.CHECKSUM` file Binance publishes beside a dump: `<sha256 hex>  <file name>`. */
const CHECKSUM_LINE = /^([0-9a-fA-F]{64})(?:\s+\*?(.+))?\s*$/;

/**
 * Refuses `path` when a `<path>.CHECKSUM` beside it names another SHA-256 (FEED_CHECKSUM_MISMATCH,
 * naming both files); true when a checksum file was there and matched, false when there was none.
 *
 * @example verifyChecksum('BTCUSDT-trades-2024-08-08.zip', describeInput('BTCUSDT-trades-2024-08-08.zip').sha256) // true
 */
export function verifyChecksum(path: string, sha256: string): boolean {
  const checksumPath = `${path}.CHECKSUM`;
  if (!existsSync(checksumPath)) return false;
  const text = readFileSync(checksumPath, 'utf8').split('\n')[0] ?? '';
  const match = CHECKSUM_LINE.exec(text.trim());
  if (!match) throw invalidRecord(checksumPath, 1, `not "<sha256 hex>  <file name>": ${JSON.stringify(text.slice(0, 100))}`);
  const expected = match[1]!.toLowerCase();
  if (expected !== sha256) {
    throw new BaseError('FEED_CHECKSUM_MISMATCH', `${path}: its SHA-256 is ${sha256}, but ${checksumPath} says ${expected}: the download is damaged or not the file it names`, {
      details: { path, checksumFile: checksumPath, expected, actual: sha256 },
    });
  }
  return true;
}


/**
 * Opens one dump input: checks it against its `.CHECKSUM` when there is one, and reads the single
 * CSV of a zip (streamed, never whole in memory) or a plain CSV.
 *
 * @example
 * const input = await openDumpInput('BTCUSDT-trades-2024-08-08.zip');
 * for await (const { text, line } of input.lines()) console.log(input.location, line, text);
 */
export async function openDumpInput(path: string): Promise<DumpInput> {
  const source = describeInput(path);
  verifyChecksum(path, source.sha256);
  let bytes = 0;
  const count = (n: number) => (bytes += n);
  if (path.toLowerCase().endsWith('.zip')) {
    const entry = await readZipEntry(path);
    return {
      path,
      location: `${path}/${entry.name}`,
      source,
      lines: () => splitLines(zipEntryStream(entry), count),
      bytesRead: () => bytes,
      async checkIntegrity() {
        for await (const chunk of zipEntryStream(entry)) void chunk;
      },
    };
  }
  return { path, location: path, source, lines: () => splitLines(createReadStream(path) as AsyncIterable<Buffer>, count), bytesRead: () => bytes, checkIntegrity: async () => undefined };
}

/**
 * Runs `read` over an input. A refused row of a zip is often a damaged entry whose CRC-32 is only
 * checked at its end: the whole entry is checked then, so that the user hears FEED_UNREADABLE (the
 * download is damaged) rather than about a garbled row.
 *
 * @example await readChecked(input, async () => { for await (const line of input.lines()) parse(line); });
 */
export async function readChecked<T>(input: DumpInput, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof BaseError && (error.code === 'FEED_RECORD_INVALID' || error.code === 'FEED_FOREIGN')) await input.checkIntegrity();
    throw error;
  }
}

/** What a dump's file name says: `BTCUSDT-trades-2024-08-08.zip`, `BTCUSDT-1m-2024-08.zip`. */
export interface DumpName {
  readonly symbol: string;
  /** `trades`, `aggTrades`, or a kline interval such as `1m`. */
  readonly dataType: string;
  readonly date: string;
}

const DUMP_NAME = /^([A-Z0-9_]+)-([A-Za-z]+|[1-9][0-9]*[smhdwM])-([0-9]{4}-[0-9]{2}(?:-[0-9]{2})?)\.(?:zip|csv)$/;

/**
 * The symbol, data type and date in a Binance dump's file name; undefined when it is not named as Binance names them.
 *
 * @example parseDumpName('data/BTCUSDT-1m-2024-08-08.zip') // { symbol: 'BTCUSDT', dataType: '1m', date: '2024-08-08' }
 */
export function parseDumpName(path: string): DumpName | undefined {
  const match = DUMP_NAME.exec(basename(path));
  return match ? { symbol: match[1]!, dataType: match[2]!, date: match[3]! } : undefined;
}

/** The symbol of the inputs: `params.symbol`, else their file names (which must agree); CLI_USAGE when neither says. */
export function dumpSymbol(paths: readonly string[], symbol: string | undefined): string {
  if (symbol !== undefined) return symbol;
  const named = new Set(paths.map((path) => parseDumpName(path)?.symbol));
  if (named.size === 1 && !named.has(undefined)) return [...named][0]!;
  if (named.size > 1 && !named.has(undefined)) {
    throw new BaseError('FEED_FOREIGN', `the inputs are dumps of different symbols (${[...named].join(', ')}): import one symbol at a time`, { details: { inputs: paths } });
  }
  throw new BaseError('CLI_USAGE', `${paths.find((path) => parseDumpName(path) === undefined)}: the file name does not say the symbol (Binance names dumps SYMBOL-trades-DATE.zip): pass --symbol`, { details: { inputs: paths } });
}

/** True when the first line is a header row: data rows start with a digit (an id or an open time). */
export function isHeaderRow(text: string): boolean {
  const first = text.charCodeAt(0);
  return !(first >= 48 && first <= 57);
}

export type TimeUnit = 'ms' | 'us';

const DIGITS = /^[0-9]+$/;

/**
 * The unit of a Binance timestamp by its number of digits: milliseconds since the epoch have 13
 * digits from 2001-09-09 (1e12) until 2286 (1e13), microseconds 16 (1e15 .. 1e16) over the same
 * years. Spot dumps switched from ms to µs on 2025-01-01, futures dumps still use ms. Anything else
 * is undefined (not a Binance time).
 *
 * @example timeUnit('1723161255342') // 'ms'; timeUnit('1735689600000123') // 'us'
 */
export function timeUnit(text: string): TimeUnit | undefined {
  if (!DIGITS.test(text)) return undefined;
  if (text.length === 13) return 'ms';
  if (text.length === 16) return 'us';
  return undefined;
}

/** A Binance timestamp in `unit` as ns since the epoch; undefined when it is not one of that unit. */
export function timeToNs(text: string, unit: TimeUnit): bigint | undefined {
  if (timeUnit(text) !== unit) return undefined;
  return BigInt(text) * (unit === 'ms' ? 1_000_000n : 1_000n);
}

/** The note that records the unit found in a file. */
export function timeUnitNote(location: string, unit: TimeUnit): string {
  return `${location}: timestamps in ${unit === 'ms' ? 'milliseconds' : 'microseconds'} (${unit === 'ms' ? '13' : '16'} digits)`;
}

/** `True`/`true` and `False`/`false` as Binance writes booleans; undefined otherwise. */
export function parseBinanceBool(text: string): boolean | undefined {
  if (text === 'True' || text === 'true') return true;
  if (text === 'False' || text === 'false') return false;
  return undefined;
}

/** An unsigned decimal as Binance writes prices and sizes (`61837.63000000`). */
export const PLAIN_DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * The step (tick or lot size) that every value added is a multiple of, computed a few thousand
 * values at a time so that a day of trades never sits in memory: the decimal GCD of the steps of the
 * parts is the step of the whole.
 *
 * @example
 * const ticks = new StepInference();
 * ticks.add('61837.63'); ticks.add('61837.60');
 * ticks.result()?.text // '0.01'
 */
export class StepInference {
  private pending: string[] = [];
  private step: DecimalStep | undefined;

  add(value: string): void {
    this.pending.push(value);
    if (this.pending.length >= 4096) this.flush();
  }

  result(): DecimalStep | undefined {
    this.flush();
    return this.step;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    if (this.step !== undefined) this.pending.push(this.step.text);
    this.step = inferStep(this.pending) ?? this.step;
    this.pending = [];
  }
}

/** The step given on the command line, else the one inferred; UNITS_PRECISION_INVALID when neither exists (every value zero). */
export function chooseStep(given: string | undefined, inferred: StepInference | undefined, what: string): { step: DecimalStep; inferred: boolean } {
  if (given !== undefined) return { step: parseStep(given), inferred: false };
  const step = inferred?.result();
  if (step === undefined) throw new BaseError('UNITS_PRECISION_INVALID', `cannot infer the ${what} from the data (every value is zero): pass it`, { details: { what } });
  return { step, inferred: true };
}
