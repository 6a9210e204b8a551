/**
 * Fast readers (fast-reader.ts) of the two user-data answers the bot polls all the time: order
 * events (every couple of seconds, dozens of events each) and active orders, and of the
 * order-events request the venue answers. Each mirrors its schema in user-data.ts field for
 * field; test/protocol/user-data-readers.prop.test.ts holds them to the schemas.
 */
import { ORDER_EVENTS_DEFAULT_LIMIT, ORDER_EVENT_TYPES } from './constants.ts';
import { ANY_CASE_ADDRESS, isCanonicalUint, type Address, type Hex } from './encoding.ts';
import {
  anyBoolean,
  anyString,
  arrayOf,
  byDiscriminator,
  intIn,
  literal,
  looseObject,
  matching,
  nonEmptyString,
  NO_MATCH,
  nullableString,
  stringWhere,
  type FastReader,
} from './fast-reader.ts';
import {
  ANY_CASE_TX_HASH,
  isoTimestamp,
  orderCanceledDataSchema,
  orderCreatedDataSchema,
  tradeDataSchema,
  type ActiveOrdersResponse,
  type OrderEvent,
  type OrderEventsPath,
  type OrderEventsQuery,
  type OrderEventsResponse,
} from './user-data.ts';

const count = intIn(0);
const units = () => stringWhere((text) => isCanonicalUint(text, 256));
const uint64 = stringWhere((text) => isCanonicalUint(text, 64));
// One reader per field (each remembers its last value): a field repeats its value from one
// record to the next far more often than two fields share one.
const address = () => matching<Address>(ANY_CASE_ADDRESS, true);
const txHash = matching<Hex>(ANY_CASE_TX_HASH, true);
// The very pattern zod checks the ISO date-time with (were it missing, never match: zod decides).
const timestamp = matching<string>(isoTimestamp.def.pattern ?? /(?!)/, false);

const pagination = looseObject({ total: count, page: count, pageSize: count });

const eventToken = () =>
  looseObject({
    address: address(),
    name: anyString,
    symbol: anyString,
    decimal: intIn(0, 255),
    logoUrl: nullableString,
  });

const eventDataBase = {
  orderId: nonEmptyString,
  marketAddress: address(),
  owner: address(),
  isBuy: anyBoolean,
  sizePrecision: units(),
  pricePrecision: units(),
  baseToken: eventToken(),
  quoteToken: eventToken(),
};

/**
 * An event of `eventType`: the envelope, and eventData whose own fields (named and ordered as in
 * `schema`) are all amounts but a trade's `marketId`.
 */
function event(eventType: OrderEvent['eventType'], schema: { readonly shape: object }): FastReader<OrderEvent> {
  const own = Object.keys(schema.shape).filter((key) => !Object.hasOwn(eventDataBase, key));
  const eventData = looseObject({ ...eventDataBase, ...Object.fromEntries(own.map((key) => [key, key === 'marketId' ? count : units()])) });
  return looseObject({ eventType: literal(eventType), transactionHash: txHash, blockTimestamp: timestamp, eventData });
}

const orderEvent = byDiscriminator<OrderEvent>('eventType', {
  'order-created': event('order-created', orderCreatedDataSchema),
  'order-canceled': event('order-canceled', orderCanceledDataSchema),
  trade: event('trade', tradeDataSchema),
});

/** `orderEventsResponseSchema`'s output, or NO_MATCH. */
export const readOrderEventsResponse: FastReader<OrderEventsResponse> = looseObject({
  data: looseObject({ data: arrayOf(orderEvent), pagination }),
});

const activeOrder = looseObject({
  orderid: count,
  marketaddress: address(),
  owner: address(),
  size: units(),
  price: units(),
  isbuy: anyBoolean,
  remainingsize: units(),
  iscanceled: anyBoolean,
  blocknumber: uint64,
  txindex: uint64,
  logindex: uint64,
  transactionhash: txHash,
  triggertime: timestamp,
  fliporderid: count,
  flipprice: count,
  lpid: anyString,
  sizeprecision: units(),
  priceprecision: units(),
});

/** `activeOrdersResponseSchema`'s output, or NO_MATCH. */
export const readActiveOrdersResponse: FastReader<ActiveOrdersResponse> = looseObject({
  success: anyBoolean,
  code: intIn(Number.MIN_SAFE_INTEGER),
  timestamp: count,
  data: looseObject({ data: arrayOf(activeOrder), pagination }),
});

const pathAddress = address();
const queryAddress = address();

/** `orderEventsPathSchema`'s output, or NO_MATCH. */
export const readOrderEventsPath: FastReader<OrderEventsPath> = (value) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return NO_MATCH;
  const userAddress = pathAddress((value as Record<string, unknown>).userAddress);
  return userAddress === NO_MATCH ? NO_MATCH : { userAddress };
};

const QUERY_INTEGER = /^[0-9]{1,15}$/;
const EVENT_TYPES: ReadonlySet<unknown> = new Set(ORDER_EVENT_TYPES);

/** An optional query integer of `orderEventsQuerySchema`: undefined when absent, NO_MATCH when bad. */
function queryInteger(value: unknown, min: number): number | undefined | typeof NO_MATCH {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !QUERY_INTEGER.test(value)) return NO_MATCH;
  const number = Number(value);
  return number >= min ? number : NO_MATCH;
}

/** `orderEventsQuerySchema`'s output (unknown parameters dropped, defaults applied), or NO_MATCH. */
export const readOrderEventsQuery: FastReader<OrderEventsQuery> = (value) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return NO_MATCH;
  const raw = value as Record<string, unknown>;
  const limit = queryInteger(raw.limit, 1);
  const offset = queryInteger(raw.offset, 0);
  const fromTimestamp = queryInteger(raw.fromTimestamp, 0);
  const toTimestamp = queryInteger(raw.toTimestamp, 0);
  const marketAddress = raw.marketAddress === undefined ? undefined : queryAddress(raw.marketAddress);
  const { eventType } = raw;
  if (limit === NO_MATCH || offset === NO_MATCH || fromTimestamp === NO_MATCH || toTimestamp === NO_MATCH || marketAddress === NO_MATCH) return NO_MATCH;
  if (eventType !== undefined && !EVENT_TYPES.has(eventType)) return NO_MATCH;
  if (fromTimestamp !== undefined && toTimestamp !== undefined && fromTimestamp >= toTimestamp) return NO_MATCH;
  // Absent optional parameters are absent from the output, as zod leaves them.
  const query: { -readonly [K in keyof OrderEventsQuery]: OrderEventsQuery[K] } = { limit: limit ?? ORDER_EVENTS_DEFAULT_LIMIT, offset: offset ?? 0 };
  if (eventType !== undefined) query.eventType = eventType as OrderEventsQuery['eventType'];
  if (fromTimestamp !== undefined) query.fromTimestamp = fromTimestamp;
  if (toTimestamp !== undefined) query.toTimestamp = toTimestamp;
  if (marketAddress !== undefined) query.marketAddress = marketAddress;
  return query;
};
