import fc from 'fast-check';
import { describe } from 'vitest';
import { readTrades } from '../../src/protocol/market-data-readers.ts';
import { tradesSchema } from '../../src/protocol/market-data.ts';
import { itAgreesWithSchema, type Json } from './support/fast-reader-check.ts';

const count = fc.oneof(fc.nat(), fc.constantFrom(0, Number.MAX_SAFE_INTEGER));
const decimal = fc.oneof(fc.constantFrom('0', '0.0350', '42574.30000000', '1.5', '007'), fc.tuple(fc.nat(), fc.option(fc.nat(), { nil: undefined })).map(([whole, fraction]) => (fraction === undefined ? `${whole}` : `${whole}.${fraction}`)));
const extras = fc.dictionary(fc.constantFrom('quoteQty', 'isBestMatch', 'x', '1'), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)) as fc.Arbitrary<Json>, { maxKeys: 2 });
const trade = fc.tuple(fc.record({ id: count, price: decimal, qty: decimal, time: count, isBuyerMaker: fc.boolean() }), extras).map(([value, extra]) => ({ ...extra, ...value }));

describe('the fast reader of trades', () => {
  itAgreesWithSchema(readTrades, tradesSchema, fc.array(trade, { maxLength: 3 }), 5);
});
