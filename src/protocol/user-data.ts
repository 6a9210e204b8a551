/**
 * User order data (`{user_url}`): order events (`/api/v3/{userAddress}/user/order-events`) and active
 * orders (`/api/v2/{userAddress}/user/orders/active/{marketAddress}`), their path and query
 * parameters, and the `{error}` body for a refused query.
 *
 * Responses are inbound data: they accept unknown extra fields and keep them. Amounts in
 * precision units or raw token units are canonical unsigned decimal strings (the denomination
 * rules make them integers; `core/denomination.ts` turns them into human decimals). Addresses in
 * responses are accepted in any case and normalised to lowercase.
 */
import { z } from 'zod';
import { ACTIVE_ORDERS_DEFAULT_LIMIT, ORDER_EVENTS_DEFAULT_LIMIT, ORDER_EVENT_TYPES } from './constants.ts';
import { anyCaseAddress, uintText, type Hex } from './encoding.ts';
import type { UserDataErrorBody } from './error-bodies.ts';

/** A non-negative safe integer. */
const count = z.int().min(0);
/** An integer amount in precision units or raw token units (uint256 range, canonical decimal). */
const units = uintText(256);
/** A 32-byte transaction hash in any case. */
export const ANY_CASE_TX_HASH = /^0x[0-9a-fA-F]{64}$/;
/** The same, normalised to lowercase. */
const txHash = z
  .string()
  .regex(ANY_CASE_TX_HASH, 'expected a transaction hash: 0x and 64 hex characters')
  .transform((text) => text.toLowerCase() as Hex);
/** ISO 8601 date-time with `Z` or an offset; a time without zone would be ambiguous. */
export const isoTimestamp = z.iso.datetime({ offset: true });

// ---------------------------------------------------------------------------------------------
// Order events
// ---------------------------------------------------------------------------------------------

/** `{total, page, pageSize}` of both user-data envelopes (spec). */
export const paginationSchema = z.looseObject({
  total: count,
  page: count,
  pageSize: count,
});
export type Pagination = z.output<typeof paginationSchema>;

/** A token as embedded in order events (`baseToken`, `quoteToken`) (spec). */
export const eventTokenSchema = z.looseObject({
  address: anyCaseAddress,
  name: z.string(),
  symbol: z.string(),
  /** Token decimals (the spec's field name is `decimal`). */
  decimal: z.int().min(0).max(255),
  logoUrl: z.string().nullable(),
});
export type EventToken = z.output<typeof eventTokenSchema>;

/** Fields every eventData carries: which order, on which market, of whom, and the market's precisions. */
const eventDataBase = {
  orderId: z.string().min(1),
  marketAddress: anyCaseAddress,
  owner: anyCaseAddress,
  isBuy: z.boolean(),
  sizePrecision: units,
  pricePrecision: units,
  baseToken: eventTokenSchema,
  quoteToken: eventTokenSchema,
};

/**
 * eventData of `order-created`. The spec leaves open which of the named fields go to which
 * event; our assignment (ours), consistent with the denomination rules:
 * - `size` (size-precision units) and `price` (price-precision units): the order as placed;
 * - `baseDeposited` (raw base units; a buy normalised to its base equivalent, rule 6) and
 *   `baseDepositedInUsd` (1e18): what the order locked when it was created.
 */
export const orderCreatedDataSchema = z.looseObject({
  ...eventDataBase,
  size: units,
  price: units,
  baseDeposited: units,
  baseDepositedInUsd: units,
});
export type OrderCreatedData = z.output<typeof orderCreatedDataSchema>;

/**
 * eventData of `order-canceled` (assignment ours, see `orderCreatedDataSchema`):
 * - `size` (size-precision units): the order as placed; `remainingSize`: the unfilled part that
 *   the cancel removed; `price` (price-precision units);
 * - `basePositionValue` (raw base units, base equivalent whatever the side) and
 *   `basePositionValueInUsd` (1e18): the value of the canceled remainder, released.
 */
export const orderCanceledDataSchema = z.looseObject({
  ...eventDataBase,
  size: units,
  remainingSize: units,
  price: units,
  basePositionValue: units,
  basePositionValueInUsd: units,
});
export type OrderCanceledData = z.output<typeof orderCanceledDataSchema>;

/**
 * eventData of `trade` (fields from the spec): sizes in size-precision units, `fillPrice` 1e18,
 * `baseFilled` raw base units (base equivalent), `baseFilledInUsd` 1e18.
 */
export const tradeDataSchema = z.looseObject({
  ...eventDataBase,
  marketId: count,
  orderSize: units,
  filledSize: units,
  fillPrice: units,
  updatedSize: units,
  baseFilled: units,
  baseFilledInUsd: units,
});
export type TradeData = z.output<typeof tradeDataSchema>;

const eventEnvelope = {
  transactionHash: txHash,
  blockTimestamp: isoTimestamp,
};

const ALLOWED_EVENT_TYPES = ORDER_EVENT_TYPES.join(', ');
const INVALID_EVENT_TYPE = `eventType must be one of ${ALLOWED_EVENT_TYPES}`;

/** One order event, discriminated by `eventType` (spec). */
export const orderEventSchema = z.discriminatedUnion(
  'eventType',
  [
    z.looseObject({ eventType: z.literal('order-created'), ...eventEnvelope, eventData: orderCreatedDataSchema }),
    z.looseObject({ eventType: z.literal('order-canceled'), ...eventEnvelope, eventData: orderCanceledDataSchema }),
    z.looseObject({ eventType: z.literal('trade'), ...eventEnvelope, eventData: tradeDataSchema }),
  ],
  { error: INVALID_EVENT_TYPE },
);
/**
 * One order event (`order-created`, `order-canceled` or `trade`), discriminated by `eventType`.
 *
 * @useDeclaredType
 */
export type OrderEvent = z.output<typeof orderEventSchema>;

/**
 * Order-events response `{data: {data: [event], pagination}}` (spec); events newest first.
 *
 * @example orderEventsResponseSchema.parse(body).data.data.filter((event) => event.eventType === 'trade')
 */
export const orderEventsResponseSchema = z.looseObject({
  data: z.looseObject({
    data: z.array(orderEventSchema),
    pagination: paginationSchema,
  }),
});
export type OrderEventsResponse = z.output<typeof orderEventsResponseSchema>;

/** Path parameters of order events: `userAddress`, case-insensitive (spec). */
export const orderEventsPathSchema = z.object({
  userAddress: anyCaseAddress,
});
export type OrderEventsPath = z.output<typeof orderEventsPathSchema>;

/** A non-negative integer query parameter (a URL string of digits) that is at least `min`. */
function queryInteger(name: string, min: number) {
  const message = `${name} must be an integer >= ${min}`;
  return z
    .string({ error: message })
    .regex(/^[0-9]{1,15}$/, message)
    .transform(Number)
    .pipe(z.int().min(min, message));
}

/**
 * Order-events query (spec; `marketAddress` and the default limit from the venue): `limit` >= 1
 * (default 50), `offset` >= 0 (default 0, ours), `eventType`, `fromTimestamp`/`toTimestamp`
 * (Unix seconds, from < to when both are given), `marketAddress`.
 */
export const orderEventsQuerySchema = z
  .object({
    limit: queryInteger('limit', 1).optional().default(ORDER_EVENTS_DEFAULT_LIMIT),
    offset: queryInteger('offset', 0).optional().default(0),
    eventType: z.enum(ORDER_EVENT_TYPES, { error: INVALID_EVENT_TYPE }).optional(),
    fromTimestamp: queryInteger('fromTimestamp', 0).optional(),
    toTimestamp: queryInteger('toTimestamp', 0).optional(),
    marketAddress: anyCaseAddress.optional(),
  })
  .refine(
    (query) => query.fromTimestamp === undefined || query.toTimestamp === undefined || query.fromTimestamp < query.toTimestamp,
    { message: 'fromTimestamp must be less than toTimestamp', path: ['fromTimestamp'] },
  );
export type OrderEventsQuery = z.output<typeof orderEventsQuerySchema>;

// ---------------------------------------------------------------------------------------------
// Active orders
// ---------------------------------------------------------------------------------------------

/**
 * One active order, field names lowercase exactly as the spec lists them. `size`, `price`,
 * `remainingsize` are precision units; `lpid` may be empty. The upstream `baseAsset`/`quoteAsset`
 * are not part of the contract (an upstream that still sends them is tolerated).
 */
export const activeOrderSchema = z.looseObject({
  orderid: count,
  marketaddress: anyCaseAddress,
  owner: anyCaseAddress,
  size: units,
  price: units,
  isbuy: z.boolean(),
  remainingsize: units,
  iscanceled: z.boolean(),
  blocknumber: uintText(64),
  txindex: uintText(64),
  logindex: uintText(64),
  transactionhash: txHash,
  triggertime: isoTimestamp,
  fliporderid: count,
  flipprice: count,
  lpid: z.string(),
  sizeprecision: units,
  priceprecision: units,
});
/**
 * One active order, field names lowercase as the spec lists them; `size`, `price` and
 * `remainingsize` in precision units.
 *
 * @useDeclaredType
 */
export type ActiveOrder = z.output<typeof activeOrderSchema>;

/** Active-orders envelope `{success, code, timestamp (ms), data: {data, pagination}}` (spec). */
export const activeOrdersResponseSchema = z.looseObject({
  success: z.boolean(),
  code: z.int(),
  timestamp: count,
  data: z.looseObject({
    data: z.array(activeOrderSchema),
    pagination: paginationSchema,
  }),
});
export type ActiveOrdersResponse = z.output<typeof activeOrdersResponseSchema>;

/** Path parameters of active orders: `userAddress` (case-insensitive) and `marketAddress` (spec). */
export const activeOrdersPathSchema = z.object({
  userAddress: anyCaseAddress,
  marketAddress: anyCaseAddress,
});
export type ActiveOrdersPath = z.output<typeof activeOrdersPathSchema>;

/** Active-orders query: `limit` >= 1, default 100 (venue). */
export const activeOrdersQuerySchema = z.object({
  limit: queryInteger('limit', 1).optional().default(ACTIVE_ORDERS_DEFAULT_LIMIT),
});
export type ActiveOrdersQuery = z.output<typeof activeOrdersQuerySchema>;

/**
 * The `{error}` body for a refused user-data query: the first issue's message, which names the
 * parameter (for `eventType`, the three allowed values).
 *
 * @example
 * const result = orderEventsQuerySchema.safeParse({ eventType: 'fill' });
 * if (!result.success) userDataQueryErrorBody(result.error)
 * // { error: 'eventType must be one of order-created, order-canceled, trade' }
 */
export function userDataQueryErrorBody(error: z.ZodError): UserDataErrorBody {
  const first = error.issues[0];
  if (first === undefined) return { error: 'invalid query' };
  // Address failures carry a generic message; prefix the parameter so the caller knows which.
  const parameter = first.path.map(String).join('.');
  return { error: parameter !== '' && !first.message.startsWith(parameter) ? `${parameter}: ${first.message}` : first.message };
}
