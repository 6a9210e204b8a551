import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { depthSchema } from '../../src/protocol/market-data.ts';
import { OrderBook } from '../../src/market/order-book-model.ts';
import { parseDepthBody } from '../../src/market/parse-depth-body.ts';
import { BTCUSDT, snapshotBody } from './support/capture.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const market = { pricePrecision: 100n, sizePrecision: 1000n };
const code = (text: string) => {
  try {
    parseDepthBody(text, market);
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code;
  }
};

describe('parseDepthBody', () => {
  it('reads the real 1000-level Binance snapshot into the same book as JSON.parse + fromDepth', () => {
    const body = snapshotBody();
    const fast = parseDepthBody(body, BTCUSDT);
    const slow = OrderBook.fromDepth(JSON.parse(body) as never, BTCUSDT);
    expect(fast.lastUpdateId).toBe(50_093_239_218);
    expect(fast.levelCount('bid')).toBe(1000);
    expect(fast.levelCount('ask')).toBe(1000);
    expect(fast.bestBid()).toEqual({ price: 6_183_763n, size: 378_826_000n });
    expect(fast.bestAsk()).toEqual({ price: 6_183_764n, size: 154_698_000n });
    expect(fast.toHuman()).toEqual(slow.toHuman());
  });

  it('accepts JSON whitespace anywhere, fields in any order, E/T and unknown fields', () => {
    const body = ' {\n "asks" : [ ] ,\t"E": 1723161255208, "x": {"a": [1, "]}", null]}, "bids" :\r\n [ [ "2.5" , "1" ] , ["1","0.5"]] , "lastUpdateId" : 7, "T": 1723161255 } ';
    const book = parseDepthBody(body, market);
    expect(book.lastUpdateId).toBe(7);
    expect(book.toHuman()).toEqual({ lastUpdateId: 7, bids: [['2.5', '1'], ['1', '0.5']], asks: [] });
  });

  it('tells apart text that is not JSON, JSON that is not a depth record, and decimals finer than the market', () => {
    expect(code('')).toBe('PROTOCOL_INVALID_JSON');
    expect(code('{"lastUpdateId":1,"bids":[],"asks":[]')).toBe('PROTOCOL_INVALID_JSON');
    expect(code('{"lastUpdateId":1,"bids":[["1","1"]]"asks":[]}')).toBe('PROTOCOL_INVALID_JSON');
    expect(code('{"lastUpdateId":1,"bids":[["1","1"],],"asks":[]}')).toBe('PROTOCOL_INVALID_JSON');
    expect(code('{"lastUpdateId":1,"bids":[],"asks":[]} x')).toBe('PROTOCOL_INVALID_JSON');
    expect(code('{"lastUpdateId":01,"bids":[],"asks":[]}')).toBe('PROTOCOL_INVALID_JSON');
    expect(code('[1,2]')).toBe('PROTOCOL_SCHEMA_MISMATCH');
    expect(code('42')).toBe('PROTOCOL_SCHEMA_MISMATCH');
    expect(code('{"lastUpdateId":1,"asks":[]}')).toBe('PROTOCOL_SCHEMA_MISMATCH');
    expect(code('{"bids":[],"asks":[]}')).toBe('PROTOCOL_SCHEMA_MISMATCH');
    expect(code('{"lastUpdateId":"1","bids":[],"asks":[]}')).toBe('PROTOCOL_SCHEMA_MISMATCH');
    expect(code('{"lastUpdateId":-1,"bids":[],"asks":[]}')).toBe('PROTOCOL_SCHEMA_MISMATCH');
    expect(code('{"lastUpdateId":1,"E":"x","bids":[],"asks":[]}')).toBe('PROTOCOL_SCHEMA_MISMATCH');
    expect(code('{"lastUpdateId":1,"bids":{},"asks":[]}')).toBe('PROTOCOL_SCHEMA_MISMATCH');
    expect(code('{"lastUpdateId":1,"bids":[[1,"1"]],"asks":[]}')).toBe('PROTOCOL_SCHEMA_MISMATCH');
    expect(code('{"lastUpdateId":1,"bids":[["1","1","1"]],"asks":[]}')).toBe('PROTOCOL_SCHEMA_MISMATCH');
    expect(code('{"lastUpdateId":1,"bids":[["1"]],"asks":[]}')).toBe('PROTOCOL_SCHEMA_MISMATCH');
    expect(code('{"lastUpdateId":1,"bids":[["-1","1"]],"asks":[]}')).toBe('PROTOCOL_SCHEMA_MISMATCH');
    expect(code('{"lastUpdateId":1,"bids":[["1e2","1"]],"asks":[]}')).toBe('PROTOCOL_SCHEMA_MISMATCH');
    expect(code('{"lastUpdateId":1,"bids":[["1.","1"]],"asks":[]}')).toBe('PROTOCOL_SCHEMA_MISMATCH');
    expect(code('{"lastUpdateId":1,"bids":[["1\\u0030","1"]],"asks":[]}')).toBe('PROTOCOL_SCHEMA_MISMATCH');
    expect(code('{"lastUpdateId":1,"bids":[["1","2"],["1","2"]],"asks":[]}')).toBe('PROTOCOL_SCHEMA_MISMATCH');
    expect(code('{"lastUpdateId":1,"bids":[],"bids":[],"asks":[]}')).toBe('PROTOCOL_DUPLICATE_FIELD');
    expect(code('{"lastUpdateId":1,"bids":[["1.001","1"]],"asks":[]}')).toBe('UNITS_NOT_REPRESENTABLE');
    expect(code('{"lastUpdateId":1,"bids":[],"asks":[["1.00","1.0000"]]}')).toBe('ok');
  });

  it('names the bad value by its JSON path', () => {
    expect(() => parseDepthBody('{"lastUpdateId":1,"bids":[["1","1"]],"asks":[["2","1"],["3","0.0001"]]}', market)).toThrowError(
      expect.objectContaining({ code: 'UNITS_NOT_REPRESENTABLE', details: expect.objectContaining({ path: '$.asks[1][1]', value: '0.0001' }) }),
    );
    expect(() => parseDepthBody('{"lastUpdateId":1,"bids":[["1","x"]],"asks":[]}', market)).toThrowError(
      expect.objectContaining({ code: 'PROTOCOL_SCHEMA_MISMATCH', details: expect.objectContaining({ path: '$.bids[0][1]' }) }),
    );
  });

  it('treats a __proto__ field as data', () => {
    const book = parseDepthBody('{"__proto__":{"lastUpdateId":5},"lastUpdateId":1,"bids":[],"asks":[]}', market);
    expect(book.lastUpdateId).toBe(1);
  });

  it('takes from the envelope exactly what depthSchema takes (lastUpdateId, E, T, other fields), with or without its fast check', () => {
    const numbers = fc.oneof(fc.nat(), fc.constantFrom(-1, 0, 1.5, 2 ** 53, 2 ** 53 - 1, 1e300, -0), fc.integer({ min: -5, max: 5 }));
    const values = fc.oneof(numbers, fc.constantFrom('1', null, true, [], {}));
    fc.assert(
      fc.property(
        fc.record({ lastUpdateId: values, E: values, T: values, other: values }, { requiredKeys: [] }),
        fc.constantFrom('lastUpdateId', 'E', 'T', 'other'),
        (fields, rename) => {
          const envelope: Record<string, unknown> = { ...fields };
          if (rename in envelope && rename !== 'other') {
            envelope[`${rename}x`] = envelope[rename];
            delete envelope[rename];
          }
          const body = JSON.stringify({ ...envelope, bids: [['1', '1']], asks: [] });
          const expected = depthSchema.safeParse(JSON.parse(body));
          if (expected.success) expect(parseDepthBody(body, market).lastUpdateId).toBe(expected.data.lastUpdateId);
          else expect(code(body)).toBe('PROTOCOL_SCHEMA_MISMATCH');
        },
      ),
      fuzzSettings({ numRuns: 1_000 }),
    );
  });
});
