/**
 * The Binance data-dump importers on real trades: the two minutes of BTCUSDT trades of
 * test/fixtures/binance-capture written in the dumps' exact layouts (spot without header in ms and
 * in µs, futures with a header), zipped with their .CHECKSUM, and klines computed from them.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEvents, refusal } from './feed-rows.ts';
import { candleAt, openCandleFeed, type Candle } from '../../src/feeds/candle-feed.ts';
import { decimalScale, parseStep } from '../../src/feeds/decimal-scale.ts';
import { FeedEventKind, Side, type FeedEvent } from '../../src/feeds/feed-event.ts';
import { importBinanceKlines } from '../../src/feeds/importers/binance-klines.ts';
import { importBinanceTrades } from '../../src/feeds/importers/binance-trades.ts';
import type { ImportParameters, ImportResult } from '../../src/feeds/importers/importer.ts';
import { captureTrades, futuresTradesCsv, klinesCsv, klinesFromTrades, scaled, spotTradesCsv, type CaptureTrade } from './csv-fixtures.ts';
import { zipOf } from './zip-fixture.ts';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'clobbot-dumps-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `<name>.zip` holding `<name>.csv`, and its .CHECKSUM as Binance publishes it. */
function writeDump(name: string, csv: string, options: { readonly checksum?: string } = {}): string {
  const zip = zipOf(`${basename(name)}.csv`, Buffer.from(csv));
  const path = join(dir, `${name}.zip`);
  writeFileSync(path, zip);
  const sha = options.checksum ?? createHash('sha256').update(zip).digest('hex');
  writeFileSync(`${path}.CHECKSUM`, `${sha}  ${basename(name)}.zip\n`);
  return path;
}

async function readCandles(path: string): Promise<Candle[]> {
  const feed = await openCandleFeed(path);
  const rows: Candle[] = [];
  for await (const columns of feed.batches()) for (let i = 0; i < columns.length; i += 1) rows.push(candleAt(columns, i));
  await feed.close();
  return rows;
}

const half = Math.floor(captureTrades.length / 2);
const days = [captureTrades.slice(0, half), captureTrades.slice(half)] as const;

/** The rows the trades must become at tick 0.01 and lot 0.00001. */
function expectedTrades(trades: readonly CaptureTrade[]): FeedEvent[] {
  return trades.map((t) => ({
    kind: FeedEventKind.TRADE,
    side: t.buyerMaker ? Side.SELL : Side.BUY,
    exchTs: BigInt(t.timeMs) * 1_000_000n,
    localTs: BigInt(t.timeMs) * 1_000_000n,
    price: scaled(t.price, 2),
    qty: scaled(t.qty, 5),
    id: BigInt(t.id),
  }));
}

describe('import binance-trades', () => {
  it('reads spot dumps in ms and in µs and futures dumps with a header row into the same rows, over consecutive files', async () => {
    const layouts = {
      spotMs: (trades: readonly CaptureTrade[]) => spotTradesCsv(trades, 'ms'),
      spotUs: (trades: readonly CaptureTrade[]) => spotTradesCsv(trades, 'us'),
      futures: futuresTradesCsv,
    };
    const results: Record<string, { result: ImportResult; events: FeedEvent[] }> = {};
    for (const [layout, write] of Object.entries(layouts)) {
      mkdirSync(join(dir, layout));
      const inputs = days.map((trades, day) => writeDump(`${layout}/BTCUSDT-trades-2024-08-0${8 + day}`, write(trades)));
      const out = join(dir, `${layout}.arrow`);
      const result = await importBinanceTrades({ inputs, out });
      results[layout] = { result, events: await readEvents(out) };
    }
    const expected = expectedTrades(captureTrades);
    for (const [layout, { result, events }] of Object.entries(results)) {
      expect(events, layout).toEqual(expected);
      expect(result.rows).toBe(captureTrades.length);
      expect(result.gaps).toEqual([]);
      expect(result.header.market).toEqual({ symbol: 'BTCUSDT', tickSize: '0.01', lotSize: '0.00001', inferred: true });
      expect(result.header.source.kind).toBe('binance-trades');
      expect(result.header.source.files.map((file) => file.name)).toEqual(['BTCUSDT-trades-2024-08-08.zip', 'BTCUSDT-trades-2024-08-09.zip']);
    }
    expect(results['spotUs']!.result.header.source.notes).toEqual(expect.arrayContaining([expect.stringMatching(/\.csv: timestamps in microseconds/), expect.stringContaining('local_ts is exch_ts')]));
    expect(results['spotMs']!.result.header.source.notes).toEqual(expect.arrayContaining([expect.stringMatching(/\.csv: timestamps in milliseconds/)]));
  });

  it('reads a plain CSV too, with the steps given', async () => {
    const path = join(dir, 'BTCUSDT-trades-2024-08-08.csv');
    writeFileSync(path, futuresTradesCsv(captureTrades));
    const out = join(dir, 'plain.arrow');
    const result = await importBinanceTrades({ inputs: [path], out, tickSize: '0.01', lotSize: '0.00001' });
    expect(result.header.market.inferred).toBeUndefined();
    expect(await readEvents(out)).toEqual(expectedTrades(captureTrades));
  });

  it('writes a TRADE_GAP row where the ids skip', async () => {
    const kept = captureTrades.filter((_, index) => index < 100 || index >= 105);
    const path = writeDump('BTCUSDT-trades-2024-08-08', spotTradesCsv(kept, 'ms'));
    const out = join(dir, 'gap.arrow');
    const result = await importBinanceTrades({ inputs: [path], out });
    const events = await readEvents(out);
    const gap = events.find((event) => event.kind === FeedEventKind.TRADE_GAP)!;
    expect(gap).toMatchObject({ id: BigInt(captureTrades[100]!.id), qty: 5n, exchTs: BigInt(captureTrades[105]!.timeMs) * 1_000_000n });
    expect(events.indexOf(gap)).toBe(100);
    expect(events.length).toBe(kept.length + 1);
    expect(result.gaps).toEqual([{ kind: 'trades', file: `${path}/BTCUSDT-trades-2024-08-08.csv`, line: 101, message: `trade id ${captureTrades[105]!.id} after ${captureTrades[99]!.id}: 5 trades missing` }]);
  });

  it('refuses a zip whose SHA-256 differs from its .CHECKSUM, writing nothing', async () => {
    const path = writeDump('BTCUSDT-trades-2024-08-08', spotTradesCsv(captureTrades, 'ms'), { checksum: 'ab'.repeat(32) });
    const out = join(dir, 'out', 'f.arrow');
    const refused = await refusal(() => importBinanceTrades({ inputs: [path], out }));
    expect(refused.code).toBe('FEED_CHECKSUM_MISMATCH');
    expect(refused.message).toContain('BTCUSDT-trades-2024-08-08.zip');
    expect(refused.message).toContain('BTCUSDT-trades-2024-08-08.zip.CHECKSUM');
    expect(readdirSync(dir).filter((name) => name.endsWith('.arrow') || name.endsWith('.partial'))).toEqual([]);
  });

  it('refuses a bad row with its file and line, inside the zip, and leaves no output', async () => {
    const csv = spotTradesCsv(captureTrades, 'ms').split('\n');
    const out = join(dir, 'bad.arrow');
    const cases: [string, string][] = [
      [csv[41]!.replace(/,[0-9.]+,/, ',61837.6x,'), 'is not a decimal number'],
      [csv[41]!.split(',').slice(0, 5).join(','), '5 columns, expected 7'],
      [csv[41]!.replace(/True,True$/, 'Yes,True'), 'is_buyer_maker'],
    ];
    for (const [line, reason] of cases) {
      const path = writeDump('BTCUSDT-trades-2024-08-08', [...csv.slice(0, 41), line, ...csv.slice(42)].join('\n'));
      const refused = await refusal(() => importBinanceTrades({ inputs: [path], out }));
      expect(refused).toMatchObject({ code: 'FEED_RECORD_INVALID', message: expect.stringContaining(`${path}/BTCUSDT-trades-2024-08-08.csv:42: `) });
      expect(refused.message).toContain(reason);
    }
    // A price off the tick given on the command line.
    const offTick = writeDump('BTCUSDT-trades-2024-08-08', [...csv.slice(0, 9), csv[9]!.replace(/^([0-9]+),([0-9]+)\.([0-9]{2})/, '$1,$2.$35'), ...csv.slice(10)].join('\n'));
    const refused = await refusal(() => importBinanceTrades({ inputs: [offTick], out, tickSize: '0.01', lotSize: '0.00001' }));
    expect(refused).toMatchObject({ code: 'FEED_RECORD_INVALID', message: expect.stringMatching(/\.csv:10: price [0-9.]+ is not a multiple of the tick size 0\.01/) });
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.partial`)).toBe(false);
  });

  it('refuses a truncated or corrupted zip with FEED_UNREADABLE and the position', async () => {
    const path = writeDump('BTCUSDT-trades-2024-08-08', spotTradesCsv(captureTrades, 'ms'));
    const bytes = readFileSync(path);
    rmSync(`${path}.CHECKSUM`);
    const out = join(dir, 'z.arrow');

    writeFileSync(path, bytes.subarray(0, Math.floor(bytes.length * 0.7)));
    const truncated = await refusal(() => importBinanceTrades({ inputs: [path], out }));
    expect(truncated).toMatchObject({ code: 'FEED_UNREADABLE', message: expect.stringContaining('truncated') });

    const damaged = Buffer.from(bytes);
    for (let i = 2_000; i < 2_100; i += 1) damaged[i] = damaged[i]! ^ 0x5a;
    writeFileSync(path, damaged);
    const corrupted = await refusal(() => importBinanceTrades({ inputs: [path], out }));
    expect(corrupted).toMatchObject({ code: 'FEED_UNREADABLE', message: expect.stringMatching(/corrupted/) });
    // Damage near the end garbles a late row before the CRC-32 is reached: the CRC is what gets reported.
    const tail = Buffer.from(bytes);
    tail[bytes.length - 200] = tail[bytes.length - 200]! ^ 0x5a;
    writeFileSync(path, tail);
    expect(await refusal(() => importBinanceTrades({ inputs: [path], out, tickSize: '0.01', lotSize: '0.00001' }))).toMatchObject({ code: 'FEED_UNREADABLE', message: expect.stringContaining('CRC-32') });
    expect(readdirSync(dir).filter((name) => name.includes('z.arrow'))).toEqual([]);

    writeFileSync(path, 'not a zip at all\n');
    expect((await refusal(() => importBinanceTrades({ inputs: [path], out }))).code).toBe('FEED_FOREIGN');
  });

  it('refuses a klines dump given as trades', async () => {
    const path = writeDump('BTCUSDT-trades-2024-08-08', klinesCsv(klinesFromTrades(captureTrades, 60_000), { header: false, unit: 'ms' }));
    expect((await refusal(() => importBinanceTrades({ inputs: [path], out: join(dir, 'k.arrow') }))).code).toBe('FEED_FOREIGN');
  });
});

describe('import binance-klines', () => {
  const klines = klinesFromTrades(captureTrades, 60_000);

  /** The candles of the 1m klines computed independently from the trades, in ticks and lots. */
  function expectedCandles(tick: string, lot: string, lastInstantNs = 1_000_000n): Candle[] {
    const ticks = decimalScale(parseStep(tick));
    const lots = decimalScale(parseStep(lot));
    const minutes = new Map<number, CaptureTrade[]>();
    for (const t of captureTrades) minutes.set(Math.floor(t.timeMs / 60_000), [...(minutes.get(Math.floor(t.timeMs / 60_000)) ?? []), t]);
    return [...minutes].map(([minute, trades]) => {
      const prices = trades.map((t) => ticks.units(t.price)!);
      return {
        openTime: BigInt(minute) * 60_000_000_000n,
        // Binance's close_time is the candle's last instant in the file's unit: open + 1m − 1 ms (or − 1 µs).
        closeTime: BigInt(minute + 1) * 60_000_000_000n - lastInstantNs,
        open: prices[0]!,
        high: prices.reduce((a, b) => (a > b ? a : b)),
        low: prices.reduce((a, b) => (a < b ? a : b)),
        close: prices[prices.length - 1]!,
        volume: trades.reduce((sum, t) => sum + lots.units(t.qty)!, 0n),
        quoteVolume: trades.reduce((sum, t) => sum + ticks.units(t.price)! * lots.units(t.qty)!, 0n),
        trades: BigInt(trades.length),
      };
    });
  }

  it('reads spot (no header, ms and µs) and futures (header) klines into the same candles', async () => {
    expect(klines.length).toBe(3);
    const variants = [
      { name: 'BTCUSDT-1m-2024-08-08', csv: klinesCsv(klines, { header: false, unit: 'ms' }), lastInstantNs: 1_000_000n },
      { name: 'BTCUSDT-1m-2025-08-08', csv: klinesCsv(klines, { header: false, unit: 'us' }), lastInstantNs: 1_000n },
      { name: 'BTCUSDT-1m-2024-08-09', csv: klinesCsv(klines, { header: true, unit: 'ms' }), lastInstantNs: 1_000_000n },
    ];
    for (const variant of variants) {
      const out = join(dir, `${variant.name}.arrow`);
      const result = await importBinanceKlines({ inputs: [writeDump(variant.name, variant.csv)], out });
      expect(result.header).toMatchObject({ kind: 'candles', market: { symbol: 'BTCUSDT', inferred: true }, source: { kind: 'binance-klines', interval: '1m' } });
      const { tickSize, lotSize } = result.header.market;
      expect(await readCandles(out), variant.name).toEqual(expectedCandles(tickSize, lotSize, variant.lastInstantNs));
      expect(result.header.source.notes?.some((note) => note.includes('rounded'))).toBe(false);
    }
  });

  it('infers the interval from the open times when the file name does not say it', async () => {
    const path = join(dir, 'klines.csv');
    writeFileSync(path, klinesCsv(klines, { header: false, unit: 'ms' }));
    const params: ImportParameters = { inputs: [path], out: join(dir, 'k.arrow'), tickSize: '0.01', lotSize: '0.00001' };
    expect((await refusal(() => importBinanceKlines(params))).code).toBe('CLI_USAGE');
    const result = await importBinanceKlines({ ...params, symbol: 'BTCUSDT' });
    expect(result.header.source.interval).toBe('1m');
    expect(await readCandles(params.out)).toEqual(expectedCandles('0.01', '0.00001'));
  });

  it("stores Binance's recorded quote volumes exactly, and rounds down (noted) one that is finer than tick × lot", async () => {
    // GET /api/v3/klines?interval=1h recorded by ccxt: real Binance figures.
    const fixture = JSON.parse(readFileSync(new URL('../fixtures/binance-rest/ccxt-binance-fixtures.json', import.meta.url), 'utf8')) as { fetchOHLCV: { httpResponse: (string | number)[][] } };
    const rows = fixture.fetchOHLCV.httpResponse.map((row) => row.join(','));
    const path = join(dir, 'BTCUSDT-klines.csv');
    writeFileSync(path, `${rows.join('\n')}\n`);
    const out = join(dir, 'h.arrow');
    const result = await importBinanceKlines({ inputs: [path], out, symbol: 'BTCUSDT', tickSize: '0.01', lotSize: '0.00001' });
    expect(result.header.source.interval).toBe('1h');
    const candles = await readCandles(out);
    expect(candles[0]).toEqual({
      openTime: 1_706_630_400_000_000_000n,
      closeTime: 1_706_633_999_999_000_000n,
      open: 4_351_934n,
      high: 4_393_600n,
      low: 4_317_100n,
      close: 4_348_871n,
      volume: 2_055_495n,
      quoteVolume: 8_914_284_285_807n,
      trades: 3_743n,
    });

    writeFileSync(path, `${[rows[0]!.replace('891428.42858070', '891428.42858079'), ...rows.slice(1)].join('\n')}\n`);
    const rounded = await importBinanceKlines({ inputs: [path], out: join(dir, 'r.arrow'), symbol: 'BTCUSDT', tickSize: '0.01', lotSize: '0.00001' });
    expect((await readCandles(join(dir, 'r.arrow')))[0]!.quoteVolume).toBe(8_914_284_285_807n);
    expect(rounded.header.source.notes).toEqual(expect.arrayContaining([expect.stringContaining('quote_volume rounded down to a whole tick × lot (0.01 × 0.00001) in 1 of 3 candles')]));
  });

  it('refuses a bad row with its file and line, writing nothing', async () => {
    const lines = klinesCsv(klines, { header: true, unit: 'ms' }).split('\n');
    lines[2] = lines[2]!.replace(/^([0-9]+),([0-9.]+),/, '$1,$2,x');
    const path = writeDump('BTCUSDT-1m-2024-08-08', lines.join('\n'));
    const out = join(dir, 'bad.arrow');
    expect(await refusal(() => importBinanceKlines({ inputs: [path], out }))).toMatchObject({ code: 'FEED_RECORD_INVALID', message: expect.stringContaining(`${path}/BTCUSDT-1m-2024-08-08.csv:3: high`) });
    expect(readdirSync(dir).filter((name) => name.startsWith('bad.arrow'))).toEqual([]);
  });
});
