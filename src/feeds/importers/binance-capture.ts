/**
 * `clobbot import binance-capture`: Binance market-data captures (hftbacktest's collector format:
 * gzipped `<local_receive_ns> <json>` lines of a REST depth snapshot and the combined streams
 * `<symbol>@depth@100ms`, `<symbol>@trade`, `<symbol>@bookTicker`) into one normalized event feed.
 * Several inputs are one capture continued: the book and the trade ids carry over.
 *
 * Two streaming passes over the inputs. The first checks every line, replays the book's sequence
 * rules without writing (so that a gap is refused before any file exists), finds the clock
 * correction, the symbol and, unless given, the tick and lot sizes. The second writes the rows.
 */
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { BaseError } from '../../core/base-error.ts';
import { parseStep, type DecimalStep } from '../decimal-scale.ts';
import { createEventFeedWriter, type EventFeedWriter } from '../event-feed-writer.ts';
import { FEED_FORMAT, FEED_VERSION, type ClockCorrection, type FeedHeader } from '../feed-header.ts';
import { captureLines } from './capture-lines.ts';
import { parseCaptureLine, type CaptureMessage } from './capture-message.ts';
import { CaptureReplay, type LinePlace } from './capture-replay.ts';
import { CaptureRows } from './capture-rows.ts';
import { StepInference } from './capture-step-inference.ts';
import { clockCorrection, MinLatencyTracker } from './clock-correction.ts';
import { describeInput, invalidRecord, type Importer, type ImportParameters } from './importer.ts';

const MS = 1_000_000n;
const PROGRESS_EVERY_ROWS = 100_000;

type LineHandler = (localNs: bigint, message: CaptureMessage, place: LinePlace) => void;

/**
 * Every line of every input, parsed, in order. `afterChunk` runs between chunks of lines with the
 * compressed bytes read so far over all inputs.
 */
async function forEachLine(inputs: readonly string[], handle: LineHandler, afterChunk?: (inputBytes: number) => void): Promise<void> {
  let bytesBefore = 0;
  for (const path of inputs) {
    const file = basename(path);
    let seen = false;
    for await (const chunk of captureLines(path)) {
      for (let i = 0; i < chunk.lines.length; i += 1) {
        const text = chunk.lines[i]!;
        if (text.length === 0) continue;
        const line = chunk.firstLine + i;
        const parsed = parseCaptureLine(text, file, line, !seen);
        seen = true;
        handle(parsed.localNs, parsed.message, { file, line });
      }
      afterChunk?.(bytesBefore + chunk.inputBytes);
    }
    if (!seen) throw new BaseError('FEED_FOREIGN', `${file}: no capture lines (an empty gzip stream)`, { details: { path } });
    bytesBefore += statSync(path).size;
  }
}

/** What the first pass finds. */
interface CaptureScan {
  readonly symbol: string | undefined;
  readonly minLatencyNs: bigint | undefined;
  readonly tick: DecimalStep | undefined;
  readonly lot: DecimalStep | undefined;
  readonly notes: readonly string[];
}

async function scan(params: ImportParameters, inferTick: boolean, inferLot: boolean): Promise<CaptureScan> {
  const replay = new CaptureReplay({ allowGaps: params.allowGaps ?? false });
  const latency = new MinLatencyTracker();
  const prices = new StepInference();
  const sizes = new StepInference();
  const expected = params.symbol?.toUpperCase();
  let symbol: string | undefined;
  const levels = (list: readonly (readonly [string, string])[]) => {
    for (const [price, qty] of list) {
      if (inferTick) prices.add(price);
      if (inferLot) sizes.add(qty);
    }
  };
  await forEachLine(params.inputs, (localNs, message, place) => {
    if (message.type !== 'snapshot' && message.type !== 'other') {
      if (symbol === undefined) {
        if (expected !== undefined && message.symbol !== expected) throw invalidRecord(place.file, place.line, `the capture is of ${message.symbol}, not of ${expected} (the symbol asked for)`);
        symbol = message.symbol;
      } else if (message.symbol !== symbol) throw invalidRecord(place.file, place.line, `a message of ${message.symbol} in a capture of ${symbol}`);
    }
    switch (message.type) {
      case 'diff':
        latency.observe(localNs, BigInt(message.E) * MS);
        levels(message.b);
        levels(message.a);
        break;
      case 'trade':
        // E (when the message was sent) rather than T (when the trade happened, never after E): it is
        // the time the latency runs from, and local >= E implies local >= T for the TRADE rows.
        latency.observe(localNs, BigInt(message.E) * MS);
        if (inferTick) prices.add(message.p);
        if (inferLot) sizes.add(message.q);
        break;
      case 'bookTicker':
        if (inferTick) (prices.add(message.b), prices.add(message.a));
        if (inferLot) (sizes.add(message.B), sizes.add(message.A));
        break;
      case 'snapshot':
        levels(message.bids);
        levels(message.asks);
        break;
      case 'other':
        break;
    }
    replay.handle(localNs, message, place);
  });
  return { symbol, minLatencyNs: latency.minLatencyNs, tick: inferTick ? prices.result() : undefined, lot: inferLot ? sizes.result() : undefined, notes: replay.notes() };
}

/** The given step, else the inferred one; FEED_FOREIGN when there was nothing to infer it from. */
function stepOf(given: DecimalStep | undefined, inferred: DecimalStep | undefined, what: 'tick' | 'lot'): DecimalStep {
  const step = given ?? inferred;
  if (step === undefined) throw new BaseError('FEED_FOREIGN', `the capture has no ${what === 'tick' ? 'price' : 'quantity'} other than 0 to infer its ${what} size from: give it`, { details: {} });
  return step;
}

function correctionNote(correction: ClockCorrection | undefined, minLatencyNs: bigint | undefined): string {
  if (correction !== undefined) {
    return `clock: the local clock was behind the exchange's (smallest local − E ${correction.minLatencyNs} ns over depth diffs and trades): ${correction.addedNs} ns added to every local time`;
  }
  if (minLatencyNs === undefined) return 'clock: no message with an exchange time, local times as captured';
  return `clock: local times as captured (smallest local − E ${minLatencyNs} ns: the local clock is not behind)`;
}

/**
 * Imports a Binance capture. FEED_NOT_FOUND (an input cannot be read), FEED_FOREIGN (not a gzipped
 * capture), FEED_UNREADABLE (a truncated or corrupted gzip stream, with the byte position),
 * FEED_RECORD_INVALID (a bad line, or a price off the given tick size, with file:line) and
 * FEED_SEQUENCE_GAP (a depth diff that does not follow the last, with file:line and the ids; with
 * `allowGaps` a BOOK_GAP row instead, the book resynchronised at the next REST snapshot) are the
 * refusals; none leaves an output file behind.
 *
 * Times: exch_ts is Binance's E for depth diffs (ms → ns) and T for trades; a REST snapshot and
 * bookTicker carry no exchange time, so their rows have the local time as exch_ts. local_ts is the
 * capture's receive time plus the clock correction (hftbacktest's `correct_local_timestamp`, base
 * latency 0) when the local clock was behind.
 *
 * @example
 * const result = await importBinanceCapture({
 *   inputs: ['spot_btcusdt_20240808.gz', 'spot_btcusdt_20240809.gz'],
 *   out: 'btcusdt.feed.arrow',
 * });
 * result.header.market.tickSize // '0.01' (inferred)
 */
export const importBinanceCapture: Importer = async (params) => {
  if (params.inputs.length === 0) throw new BaseError('CLI_USAGE', 'import binance-capture: no input files', { details: {} });
  const files = params.inputs.map(describeInput);
  const givenTick = params.tickSize === undefined ? undefined : parseStep(params.tickSize);
  const givenLot = params.lotSize === undefined ? undefined : parseStep(params.lotSize);

  const found = await scan(params, givenTick === undefined, givenLot === undefined);
  const symbol = found.symbol ?? params.symbol?.toUpperCase();
  if (symbol === undefined) throw new BaseError('FEED_FOREIGN', 'the capture names no symbol (no stream message): give it', { details: {} });
  const tick = stepOf(givenTick, found.tick, 'tick');
  const lot = stepOf(givenLot, found.lot, 'lot');
  const correction = clockCorrection(found.minLatencyNs);
  const inferred = givenTick === undefined || givenLot === undefined;
  const notes = [...found.notes, correctionNote(correction, found.minLatencyNs)];
  if (inferred) {
    const which = [givenTick === undefined ? `tick size ${tick.text}` : '', givenLot === undefined ? `lot size ${lot.text}` : ''].filter(Boolean).join(' and ');
    notes.push(`${which} inferred from the data (the largest step every value is a multiple of)`);
  }
  const header: FeedHeader = {
    format: FEED_FORMAT,
    version: FEED_VERSION,
    kind: 'events',
    market: { symbol, tickSize: tick.text, lotSize: lot.text, ...(inferred ? { inferred: true } : {}) },
    source: { kind: 'binance-capture', files, notes },
    ...(correction === undefined ? {} : { clockCorrection: correction }),
  };

  let writer: EventFeedWriter | undefined;
  try {
    writer = createEventFeedWriter(params.out, header);
    const out = writer;
    const replay = new CaptureReplay({ allowGaps: params.allowGaps ?? false, sink: new CaptureRows(out, { tick, lot, addedNs: correction === undefined ? 0n : BigInt(correction.addedNs) }) });
    let nextProgress = PROGRESS_EVERY_ROWS;
    await forEachLine(
      params.inputs,
      (localNs, message, place) => replay.handle(localNs, message, place),
      (inputBytes) => {
        if (params.onProgress === undefined || out.rows < nextProgress) return;
        nextProgress = out.rows + PROGRESS_EVERY_ROWS;
        params.onProgress({ rows: out.rows, inputBytes });
      },
    );
    out.finish();
    return { header, rows: out.rows, gaps: replay.gaps, notes };
  } catch (error) {
    writer?.abort();
    throw error;
  }
};
