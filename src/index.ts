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
export { loadConfig, loadConfigOrThrow, validateYamlSource, type ConfigResult } from './config/load-config.ts';
export type { YamlSource } from './config/yaml-source.ts';
export { formatConfigIssue, type ConfigIssue } from './config/config-issue.ts';
export { runConfigSchema, resolveRunNetwork, runMarketSymbol, strategyModuleKind, type RunConfig, type RunMarket, type RunMarketSpec, type StrategyConfig } from './config/run-config.ts';
export { simConfigSchema, type SimConfig } from './config/sim-config.ts';
export { NETWORK_NAMES, resolveNetwork, type NetworkName, type ResolvedNetwork } from './config/network-config.ts';

// clients: one per host, over the transport seam
export { createFetchTransport, type HttpTransport } from './clients/http-transport.ts';
export type { ClientContext } from './clients/send-request.ts';
export { ClientError, isClientError } from './clients/client-error.ts';
export { MarketDataError } from './clients/market-data-error.ts';
export { UserDataError } from './clients/user-data-error.ts';
export type { MarketDataSource } from './clients/market-data-source.ts';
export { createMarketDataClient } from './clients/market-data-client.ts';
export { createTokenClient } from './clients/token-client.ts';
export { createQuoteClient } from './clients/quote-client.ts';
export { createOrderEventsClient } from './clients/order-events-client.ts';
export { orderEvents, orderEvents$, type OrderEventsBatch, type OrderEventsCursor } from './clients/order-events.ts';
export { createActiveOrdersClient } from './clients/active-orders-client.ts';
export { createRelayAuthClient } from './clients/relay-auth-client.ts';
export { createRelayRestClient } from './clients/relay-rest-client.ts';

// market streams
export { createMarketFeed, type MarketFeed, type MarketFeedOptions } from './market/create-market-feed.ts';
export type { MarketFeedPlan } from './market/market-feed-plan.ts';
export type { FeedHealth, SourceHealth } from './market/feed-health.ts';
export { OrderBook, type BookLevel, type OrderBookView } from './market/order-book-model.ts';
export type { Bbo } from './market/bbo.ts';
export { parseDepthBody } from './market/parse-depth-body.ts';
export { BarBuilder, WEEKLY_OFFSET_MS, type BarBuilderParameters, type BarTrade } from './market/bar-builder.ts';
export { buildBars, type BuildBarsParameters } from './market/operators/build-bars.ts';
export { candleToKline, klineToCandle, type Candle } from './market/candle.ts';
export type { MarketPrecision } from './market/market-precision.ts';
export type { UnitTrade } from './market/unit-trade.ts';

// strategies: definition, loading, context, intents, quotes
export { z } from 'zod';
export { decimalAmount, durationMs } from './config/fields.ts';
export { signedDecimalAmount, toSignedUnits } from './strategy/signed-decimal-amount.ts';
export {
  isRiskReducing,
  type CancelAll,
  type CancelTrigger,
  type CreateBatchTrigger,
  type CreateReplaceTrigger,
  type Intent,
  type IntentType,
  type OrderRequest,
  type PlaceAndCancel,
  type ReplaceSlots,
} from './strategy/intents.ts';
export type { IntentFateReport, KillSwitchTrigger, OwnFill, OwnMarketState, OwnOrder, StrategyContext, StrategyMarket, TradingState } from './strategy/strategy-context.ts';
export { defineStrategy, isStrategyDefinition, type DefineStrategyParameters, type StrategyDefinition } from './strategy/define-strategy.ts';
export {
  loadRunStrategies,
  loadStrategy,
  validateStrategyParams,
  type LoadedStrategy,
  type LoadedStrategyModule,
  type LoadStrategyOptions,
} from './strategy/load-strategy.ts';
export {
  createQuoteManager,
  planQuotes,
  type DesiredQuotes,
  type PlannedOrder,
  type PlanQuotesOptions,
  type QuoteLevel,
  type QuoteManager,
  type QuoteMarket,
  type QuotePlan,
  type QuoteSlotsState,
  type RequoteThreshold,
} from './strategy/quote-manager.ts';
export { priceAtOffset, priceOnTick } from './strategy/tick-price.ts';

// the local simulated venue
export { createMarketSpec, type MarketSpec, type TokenSpec } from './protocol/market-spec.ts';
export { createSimVenue } from './venue/create-sim-venue.ts';
export { createSimServer, type SimServer } from './sim/sim-server.ts';

// feeds: recorded and imported market data
export { eventAt, FeedEventKind, feedEventKindName, Side as FeedSide, type FeedColumns, type FeedEvent } from './feeds/feed-event.ts';
export { openEventFeed, type EventFeedReader } from './feeds/event-feed-reader.ts';
export { createEventFeedWriter, type EventFeedWriter } from './feeds/event-feed-writer.ts';
export { candleAt, openCandleFeed, type Candle as FeedCandle, type CandleColumns, type CandleFeedReader } from './feeds/candle-feed.ts';
export type { ClockCorrection, FeedHeader, FeedMarket, FeedSource } from './feeds/feed-header.ts';
export { describeFeed, type FeedDescription } from './feeds/describe-feed.ts';
export { normalizedFeedFor } from './feeds/feed-cache.ts';
export { normalizeRawFeed } from './feeds/normalize-raw-feed.ts';
export { exportFeed, type ExportFeedOptions } from './feeds/export-feed.ts';

// execution
export { createExecutionEngine } from './execution/create-execution-engine.ts';
export type { EngineStats, ExecutionEngine, ExecutionEngineParameters, IntentFate, IntentReport } from './execution/execution-engine.ts';
export { loadSigner } from './execution/signer-source.ts';
