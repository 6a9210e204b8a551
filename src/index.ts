/**
 * The public API of clobbot (`import { … } from 'clobbot'`). Exports by name only, so every change
 * to the API shows in review: `test/index.test.ts` snapshots this list.
 */

// core: errors, time, ids, randomness, money
export { BaseError, isBaseError, type BaseErrorOptions, type ErrorDetails } from './core/base-error.ts';
export { errorCodes, type ErrorCode } from './core/error-codes.ts';
export { liveClock, type Clock } from './core/clock.ts';
export { VirtualClock } from './core/virtual-clock.ts';
export { createIdSource, type IdSource } from './core/ids.ts';
export { seededRandom, type RandomSource } from './core/random.ts';
export { Decimal, type DecimalInput } from './core/decimal.ts';
export {
  MAX_PRICE_UNITS,
  MAX_SIZE_UNITS,
  UINT32_MAX,
  UINT40_MAX,
  UINT64_MAX,
  UINT96_MAX,
  UINT256_MAX,
  fromUnits,
  roundPriceToTick,
  toPriceUnits,
  toSizeUnits,
  toUnits,
  type PriceGrid,
  type Rounding,
  type Side,
} from './core/units.ts';
export { FIXED18, baseTokenToHuman, fixed18ToHuman, priceToHuman, sizeToHuman } from './core/denomination.ts';
export { createLogger, type Logger, type LogLevel } from './core/logger.ts';

// protocol: the wire contract
export {
  KLINE_INTERVALS,
  KLINE_INTERVAL_MS,
  MAKER_SLOTS,
  MarketErrorCode,
  ORDERBOOK_STATES,
  ORDER_EVENT_TYPES,
  Permission,
  RELAY_PENDING_OUTCOME_LIMIT,
  RelayErrorCode,
  RelayMethod,
  RequestWeight,
  type ExecutionInstruction,
  type KlineInterval,
  type OrderEventType,
  type OrderSide,
  type OrderbookState,
  type OutcomeStatus,
  type RelayErrorCodeName,
  type RelayMethodName,
  type TimeInForce,
} from './protocol/constants.ts';
export { decodeUint, encodeUint, type Address, type Hex } from './protocol/encoding.ts';
export type {
  AuthorizeAccountSignerIntent,
  Authorization7702,
  BatchIntent,
  CancelTriggerIntent,
  IntentHeader,
  OrderIntent,
  ReplaceBySlotIntent,
} from './protocol/intent-types.ts';
export { accountCoreDomain, tradingWalletDomain, type AccountCoreDomain, type TradingWalletDomain } from './protocol/eip712-types.ts';
export {
  recoverAuthorizeAccountSignerSigner,
  recoverBatchIntentSigner,
  recoverCancelTriggerIntentSigner,
  recoverReplaceBySlotIntentSigner,
  signAuthorizeAccountSigner,
  signBatchIntent,
  signCancelTriggerIntent,
  signReplaceBySlotIntent,
  type IntentSigner,
} from './protocol/intent-signing.ts';
export { personalSign, recoverPersonalSignSigner } from './protocol/personal-sign.ts';
export { hashAuthorization7702, signAuthorization7702 } from './protocol/eip7702.ts';
export { decodePackedOps, encodePackedOps, type PackedOp } from './protocol/packed-ops.ts';
export { EXPECT_EMPTY_SLOT } from './protocol/relay-payloads.ts';
export {
  encodeRelayRestRequest,
  encodeRelayWsMessage,
  parseRelayRestRequest,
  parseRelayWsMessage,
  type RelayCall,
  type RelayRequestError,
  type RelayRestRequest,
  type RelayWsRequest,
} from './protocol/relay-request.ts';
export { relayRestResponseSchema, wsServerMessageSchema, type RelayRestResponse, type WsServerMessage } from './protocol/relay-response.ts';
export { parseStrictJson, type JsonValue } from './protocol/strict-json.ts';
export { BoundJwt, JwtStore } from './protocol/jwt-store.ts';
export {
  depthSchema,
  exchangeInfoSchema,
  klinesSchema,
  ticker24hrSchema,
  tradesSchema,
  type Depth,
  type ExchangeInfo,
  type Kline,
  type Ticker24hr,
  type Trade,
} from './protocol/market-data.ts';
export {
  activeOrdersResponseSchema,
  orderEventsResponseSchema,
  type ActiveOrder,
  type OrderEvent,
} from './protocol/user-data.ts';
export { tokenEnvelopeSchema, type Token } from './protocol/tokens.ts';
export { quoteRequestSchema, quoteResponseSchema, type QuoteRequest, type QuoteResponse } from './protocol/quote.ts';

// config
export { loadConfig, loadConfigOrThrow, type ConfigResult } from './config/load-config.ts';
export { formatConfigIssue, type ConfigIssue } from './config/config-issue.ts';
export { runConfigSchema, resolveRunNetwork, type RunConfig } from './config/run-config.ts';
export { simConfigSchema, type SimConfig } from './config/sim-config.ts';
export { NETWORK_NAMES, resolveNetwork, type NetworkName, type ResolvedNetwork } from './config/network-config.ts';
