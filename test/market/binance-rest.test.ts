/**
 * Real data: the ccxt-recorded Binance REST responses (test/fixtures/binance-rest) parse into the
 * book model and the candle type. ccxt's recorder stringified `lastUpdateId`, `E` and `T`; they are
 * turned back into the JSON numbers Binance sends, and the stringified form is refused.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { depthSchema, klinesSchema } from '../../src/protocol/market-data.ts';
import { candleToKline, klineToCandle } from '../../src/market/candle.ts';
import { OrderBook } from '../../src/market/order-book-model.ts';
import { parseDepthBody } from '../../src/market/parse-depth-body.ts';
import { BTCUSDT } from './support/capture.ts';

const ccxt = JSON.parse(readFileSync(new URL('../fixtures/binance-rest/ccxt-binance-fixtures.json', import.meta.url), 'utf8')) as Record<
  string,
  { readonly httpResponse: unknown }
>;
const response = (name: string) => {
  const entry = ccxt[name];
  if (!entry) throw new Error(`fixture entry ${name} missing`);
  return entry.httpResponse as Record<string, unknown>;
};
/** `lastUpdateId`, `E`, `T` back to numbers, as Binance sends them. */
const numbered = (record: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, ['lastUpdateId', 'E', 'T'].includes(key) ? Number(value) : value]));

describe('ccxt-recorded Binance REST responses', () => {
  it('spot depth parses into the book model, from the body and from the parsed record alike', () => {
    const body = JSON.stringify(numbered(response('fetchOrderBook')));
    const book = parseDepthBody(body, BTCUSDT);
    expect(book.lastUpdateId).toBe(25_445_101);
    expect(book.bestBid()).toEqual({ price: 4_257_430n, size: 1_070_000n });
    expect(book.bestAsk()).toEqual({ price: 4_257_431n, size: 870_000n });
    expect(book.spread()).toBe(1n);
    expect(book.toHuman()).toEqual({
      lastUpdateId: 25_445_101,
      bids: [
        ['42574.3', '0.0107'],
        ['42574.2', '0.00646'],
      ],
      asks: [
        ['42574.31', '0.0087'],
        ['42574.8', '0.00893'],
      ],
    });
    expect(OrderBook.fromDepth(depthSchema.parse(JSON.parse(body)), BTCUSDT).toHuman()).toEqual(book.toHuman());
  });

  it('futures depth with E and T parses at its own precisions (0.1 USDT, 0.001 BTC)', () => {
    const body = JSON.stringify(numbered(response('fetchOrderBook_usdm_swap_with_E_T')), null, 1);
    const book = parseDepthBody(body, { pricePrecision: 10n, sizePrecision: 1000n });
    expect(book.lastUpdateId).toBe(35_263_532_345);
    expect(book.bestBid()).toEqual({ price: 426_511n, size: 470_672n });
    expect(book.bestAsk()).toEqual({ price: 428_780n, size: 7_011n });
    expect(book.volumeTo('bid', 426_468n)).toBe(470_672n + 66_452n + 126_261n);
    // "42651.10" is exact at one decimal (a trailing zero); "42878.05" is not
    expect(() => parseDepthBody(body.replace('"42878.00"', '"42878.05"'), { pricePrecision: 10n, sizePrecision: 1000n })).toThrowError(
      expect.objectContaining({ code: 'UNITS_NOT_REPRESENTABLE' }),
    );
  });

  it('refuses the recorder-stringified lastUpdateId', () => {
    expect(() => parseDepthBody(JSON.stringify(response('fetchOrderBook')), BTCUSDT)).toThrowError(
      expect.objectContaining({ code: 'PROTOCOL_SCHEMA_MISMATCH', details: expect.objectContaining({ path: '$.lastUpdateId' }) }),
    );
  });

  it('klines convert to candles in units and back', () => {
    const klines = klinesSchema.parse(response('fetchOHLCV'));
    const candles = klines.map((kline) => klineToCandle(kline, BTCUSDT));
    expect(candles[0]).toEqual({
      openTime: 1_706_630_400_000,
      closeTime: 1_706_633_999_999,
      open: 4_351_934n,
      high: 4_393_600n,
      low: 4_317_100n,
      close: 4_348_871n,
      volume: 2_055_495_000n,
      quoteVolume: 8_914_284_285_807_000n,
      numTrades: 3_743,
    });
    // a 1h candle: closeTime = openTime + interval - 1
    for (const candle of candles) expect(candle.closeTime - candle.openTime + 1).toBe(3_600_000);
    expect(candleToKline(candles[1]!, BTCUSDT)).toEqual({
      openTime: 1_706_634_000_000,
      open: '43488.71',
      high: '43832.08',
      low: '43084',
      close: '43374.8',
      volume: '21.80865',
      closeTime: 1_706_637_599_999,
      quoteVolume: '946546.0494168',
      numTrades: 4_365,
    });
  });
});
