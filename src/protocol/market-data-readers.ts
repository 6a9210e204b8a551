/**
 * Fast readers (fast-reader.ts) of the market-data answer the feed polls all the time: the trades
 * (every poll, up to hundreds of records). Each mirrors its schema in market-data.ts field for
 * field; test/protocol/market-data-readers.prop.test.ts holds them to the schemas.
 */
import { isDecimalString } from './decimal-string.ts';
import { anyBoolean, arrayOf, intIn, looseObject, stringWhere, type FastReader } from './fast-reader.ts';
import type { Trade } from './market-data.ts';

const count = intIn(0);
// One reader per field (each remembers its last value): a price repeats more often than it equals a size.
const decimal = () => stringWhere(isDecimalString);

/** `tradesSchema`. */
export const readTrades: FastReader<Trade[]> = arrayOf(looseObject<Trade>({ id: count, price: decimal(), qty: decimal(), time: count, isBuyerMaker: anyBoolean }));
