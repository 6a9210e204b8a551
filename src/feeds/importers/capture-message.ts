/**
 * One line of a Binance capture (`<local_receive_ns> <json>`) as a typed message, checked by hand
 * rather than with zod: this runs for every line, twice, and the hand checks cost a fraction of a
 * schema's. Update and trade ids stay JS numbers (Binance's are far below 2^53, which is checked);
 * prices and sizes stay the decimal texts Binance sent, for exact conversion to ticks and lots.
 */
import { BaseError } from '../../core/base-error.ts';
import { invalidRecord } from './importer.ts';

/** A price and a size, as Binance sends them (`["61837.63000000","3.78826000"]`). */
export type CaptureLevel = readonly [price: string, qty: string];

/** The REST depth snapshot (`GET /api/v3/depth`): no symbol and no exchange time. */
export interface CaptureSnapshot {
  readonly type: 'snapshot';
  readonly lastUpdateId: number;
  readonly bids: readonly CaptureLevel[];
  readonly asks: readonly CaptureLevel[];
}

/** A `<symbol>@depth` / `<symbol>@depth@100ms` diff: the levels changed by updates U..u. */
export interface CaptureDiff {
  readonly type: 'diff';
  readonly symbol: string;
  /** Event time, ms. */
  readonly E: number;
  readonly U: number;
  readonly u: number;
  readonly b: readonly CaptureLevel[];
  readonly a: readonly CaptureLevel[];
}

/** A `<symbol>@trade` message. */
export interface CaptureTrade {
  readonly type: 'trade';
  readonly symbol: string;
  readonly t: number;
  readonly p: string;
  readonly q: string;
  /** Trade time, ms. */
  readonly T: number;
  /** Event time (when the message was sent), ms: never before T. */
  readonly E: number;
  /** The buyer was the maker: the taker sold. */
  readonly m: boolean;
}

/** A `<symbol>@bookTicker` message: best bid and ask at update u, with no time of its own. */
export interface CaptureBookTicker {
  readonly type: 'bookTicker';
  readonly symbol: string;
  readonly u: number;
  readonly b: string;
  readonly B: string;
  readonly a: string;
  readonly A: string;
}

/** A stream this importer does not use (`@aggTrade`, `@depth20`, …): counted, not refused. */
export interface CaptureOther {
  readonly type: 'other';
  readonly stream: string;
}

export type CaptureMessage = CaptureSnapshot | CaptureDiff | CaptureTrade | CaptureBookTicker | CaptureOther;

/** A parsed line: its local receive time (ns, as in the file) and its message. */
export interface CaptureLine {
  readonly localNs: bigint;
  readonly message: CaptureMessage;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** Thrown inside the checks, turned into FEED_RECORD_INVALID with the file and line by the caller. */
class Bad extends Error {}

function id(data: Json, field: string): number {
  const value = data[field];
  if (!isId(value)) throw new Bad(`${field} must be a non-negative integer, got ${JSON.stringify(value)}`);
  return value;
}

function text(data: Json, field: string): string {
  const value = data[field];
  if (typeof value !== 'string') throw new Bad(`${field} must be a string, got ${JSON.stringify(value)}`);
  return value;
}

function levels(data: Json, field: string): readonly CaptureLevel[] {
  const value = data[field];
  if (!Array.isArray(value)) throw new Bad(`${field} must be an array of [price, qty]`);
  for (let i = 0; i < value.length; i += 1) {
    const level: unknown = value[i];
    if (!Array.isArray(level) || level.length < 2 || typeof level[0] !== 'string' || typeof level[1] !== 'string') {
      throw new Bad(`${field}[${i}] must be [price, qty] as strings, got ${JSON.stringify(level)}`);
    }
  }
  return value as CaptureLevel[];
}

/** `btcusdt@depth@100ms` → { symbol: 'BTCUSDT', kind: 'depth@100ms' }. */
function splitStream(stream: string): { symbol: string; kind: string } {
  const at = stream.indexOf('@');
  if (at <= 0) throw new Bad(`stream ${JSON.stringify(stream)} is not <symbol>@<stream>`);
  return { symbol: stream.slice(0, at).toUpperCase(), kind: stream.slice(at + 1) };
}

function checkSymbol(data: Json, symbol: string): void {
  const s = data.s;
  if (s !== undefined && (typeof s !== 'string' || s.toUpperCase() !== symbol)) throw new Bad(`s ${JSON.stringify(s)} is not the stream's symbol ${symbol}`);
}

function streamMessage(json: Json): CaptureMessage {
  const stream = json.stream;
  const data = json.data;
  if (typeof stream !== 'string' || !isObject(data)) throw new Bad('a stream message needs "stream" (string) and "data" (object)');
  const { symbol, kind } = splitStream(stream);
  if (kind === 'depth@100ms' || kind === 'depth') {
    if (data.e !== 'depthUpdate') throw new Bad(`${stream}: e must be "depthUpdate", got ${JSON.stringify(data.e)}`);
    checkSymbol(data, symbol);
    const U = id(data, 'U');
    const u = id(data, 'u');
    if (U > u) throw new Bad(`depth diff U ${U} is after its u ${u}`);
    return { type: 'diff', symbol, E: id(data, 'E'), U, u, b: levels(data, 'b'), a: levels(data, 'a') };
  }
  if (kind === 'trade') {
    if (data.e !== 'trade') throw new Bad(`${stream}: e must be "trade", got ${JSON.stringify(data.e)}`);
    checkSymbol(data, symbol);
    const m = data.m;
    if (typeof m !== 'boolean') throw new Bad(`m must be a boolean, got ${JSON.stringify(m)}`);
    return { type: 'trade', symbol, t: id(data, 't'), p: text(data, 'p'), q: text(data, 'q'), T: id(data, 'T'), E: id(data, 'E'), m };
  }
  if (kind === 'bookTicker') {
    checkSymbol(data, symbol);
    return { type: 'bookTicker', symbol, u: id(data, 'u'), b: text(data, 'b'), B: text(data, 'B'), a: text(data, 'a'), A: text(data, 'A') };
  }
  return { type: 'other', stream };
}

/**
 * True when `line` starts like a capture line (`<digits> {`): what tells a capture from a foreign file.
 *
 * @example
 * looksLikeCaptureLine('1723161254087896568 {"stream":…}') // true
 * looksLikeCaptureLine('id,price,qty,quote_qty,time')       // false
 */
export function looksLikeCaptureLine(line: string): boolean {
  const space = line.indexOf(' ');
  if (space <= 0 || space > 24 || line.charCodeAt(space + 1) !== 123 /* { */) return false;
  for (let i = 0; i < space; i += 1) {
    const c = line.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * Parses one capture line. FEED_RECORD_INVALID (with `file:line`) when it is not `<digits> <json>`,
 * the JSON is bad, or a field is missing or of the wrong type; on the first line of a file,
 * FEED_FOREIGN instead when the line is no capture line at all (another format altogether).
 *
 * @example
 * parseCaptureLine('1723161254087896568 {"stream":"btcusdt@trade","data":{…}}', 'spot.gz', 4, false)
 * // { localNs: 1723161254087896568n, message: { type: 'trade', t: 3735683259, … } }
 */
export function parseCaptureLine(line: string, file: string, lineNumber: number, firstOfFile: boolean): CaptureLine {
  if (!looksLikeCaptureLine(line)) {
    if (firstOfFile) throw foreign(file, lineNumber, line);
    throw invalidRecord(file, lineNumber, `not \`<local_receive_ns> <json>\`: ${JSON.stringify(line.slice(0, 60))}`);
  }
  const space = line.indexOf(' ');
  let json: unknown;
  try {
    json = JSON.parse(line.slice(space + 1));
  } catch (cause) {
    throw invalidRecord(file, lineNumber, `bad JSON (${(cause as Error).message})`);
  }
  if (!isObject(json)) throw invalidRecord(file, lineNumber, 'the JSON is not an object');
  try {
    let message: CaptureMessage;
    if ('stream' in json) message = streamMessage(json);
    else if ('lastUpdateId' in json) message = { type: 'snapshot', lastUpdateId: id(json, 'lastUpdateId'), bids: levels(json, 'bids'), asks: levels(json, 'asks') };
    else if (firstOfFile) throw foreign(file, lineNumber, line);
    else throw new Bad('neither a stream message ("stream", "data") nor a depth snapshot ("lastUpdateId")');
    return { localNs: BigInt(line.slice(0, space)), message };
  } catch (error) {
    if (error instanceof Bad) throw invalidRecord(file, lineNumber, error.message);
    throw error;
  }
}

function foreign(file: string, lineNumber: number, line: string): BaseError {
  return new BaseError('FEED_FOREIGN', `${file}:${lineNumber}: not a Binance capture: lines are \`<local_receive_ns> <json>\`, this one starts ${JSON.stringify(line.slice(0, 40))}`, {
    details: { file, line: lineNumber },
  });
}
