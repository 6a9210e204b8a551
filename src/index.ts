/**
 * The public API of clobbot (`import { … } from 'clobbot'`). Exports by name only, so every change
 * to the API shows in review: `test/index.test.ts` snapshots this list.
 *
 * @module clobbot
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
export { createLogger, type CreateLoggerParameters, type Logger, type LogLevel } from './core/logger.ts';

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
export {
  accountCoreDomain,
  tradingWalletDomain,
  type AccountCoreDomain,
  type AccountCoreDomainParameters,
  type TradingWalletDomain,
  type TradingWalletDomainParameters,
} from './protocol/eip712-types.ts';
export {
  recoverAuthorizeAccountSignerSigner,
  recoverBatchIntentSigner,
  recoverCancelTriggerIntentSigner,
  recoverReplaceBySlotIntentSigner,
  signAuthorizeAccountSigner,
  signBatchIntent,
  signCancelTriggerIntent,
  signReplaceBySlotIntent,
  type AccountCoreIntentParameters,
  type IntentSigner,
  type RecoverIntentParameters,
  type TradingWalletIntentParameters,
} from './protocol/intent-signing.ts';
export {
  personalSign,
  recoverPersonalSignSigner,
  type MessageSigner,
  type PersonalSignMessage,
  type PersonalSignParameters,
  type RecoverPersonalSignParameters,
} from './protocol/personal-sign.ts';
export {
  hashAuthorization7702,
  signAuthorization7702,
  type Authorization7702Request,
  type AuthorizationSigner,
} from './protocol/eip7702.ts';
export { decodePackedOps, encodePackedOps, type PackedCancelOp, type PackedOp, type PackedPlaceOp } from './protocol/packed-ops.ts';
export { EXPECT_EMPTY_SLOT, type Signed } from './protocol/relay-payloads.ts';
export {
  encodeRelayRestRequest,
  encodeRelayWsMessage,
  parseRelayRestRequest,
  parseRelayWsMessage,
  type ParseResult,
  type RelayCall,
  type RelayRequestError,
  type RelayRestRequest,
  type RelayWsRequest,
} from './protocol/relay-request.ts';
export {
  relayRestResponseSchema,
  wsServerMessageSchema,
  type BroadcastResponse,
  type FailedResponse,
  type RelayRestResponse,
  type WsServerMessage,
} from './protocol/relay-response.ts';
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
export { loadConfig, loadConfigOrThrow, validateYamlSource, type ConfigResult, type LoadConfigOptions } from './config/load-config.ts';
export type { YamlSource } from './config/yaml-source.ts';
export { formatConfigIssue, type ConfigIssue, type ConfigIssueKind, type ConfigPath } from './config/config-issue.ts';
export {
  runConfigSchema,
  resolveRunNetwork,
  runMarketSymbol,
  strategyModuleKind,
  type ResolveRunNetworkOptions,
  type RiskConfig,
  type RunConfig,
  type RunMarket,
  type RunMarketSpec,
  type StrategyConfig,
  type WalletSource,
} from './config/run-config.ts';
export { simConfigSchema, type SimConfig } from './config/sim-config.ts';
export type { FaultActionInput, SimFaults } from './config/fault-config.ts';
export {
  NETWORK_NAMES,
  resolveNetwork,
  type NetworkHosts,
  type NetworkName,
  type NetworkOverrides,
  type ResolvedNetwork,
} from './config/network-config.ts';

// clients: one per host, over the transport seam
export {
  createFetchTransport,
  type CreateFetchTransportParameters,
  type HttpMethod,
  type HttpRequest,
  type HttpResponse,
  type HttpTransport,
} from './clients/http-transport.ts';
export type { ClientContext } from './clients/send-request.ts';
export type { RetryPolicy } from './clients/retry-policy.ts';
export type { WeightBudget } from './clients/weight-budget.ts';
export { ClientError, isClientError, type ClientErrorCode, type ClientErrorOptions } from './clients/client-error.ts';
export { MarketDataError, type MarketDataErrorOptions } from './clients/market-data-error.ts';
export { UserDataError } from './clients/user-data-error.ts';
export type { CallOptions, DepthParameters, KlinesParameters, MarketDataSource, TradesParameters } from './clients/market-data-source.ts';
export { createMarketDataClient, type MarketDataClient, type MarketDataClientParameters } from './clients/market-data-client.ts';
export { createTokenClient, type TokenClient, type TokenClientParameters } from './clients/token-client.ts';
export { createQuoteClient, type QuoteClient, type QuoteClientParameters } from './clients/quote-client.ts';
export {
  createOrderEventsClient,
  type OrderEventsClient,
  type OrderEventsClientParameters,
  type OrderEventsPage,
  type OrderEventsPageParameters,
} from './clients/order-events-client.ts';
export type { OrderEventAmounts } from './clients/order-event-amounts.ts';
export {
  orderEvents,
  orderEvents$,
  type OrderEventsBatch,
  type OrderEventsCursor,
  type OrderEventsOptions,
  type OrderEventsParameters,
  type OrderEventsStart,
  type ReceivedOrderEvent,
} from './clients/order-events.ts';
export {
  createActiveOrdersClient,
  type ActiveOrders,
  type ActiveOrdersClient,
  type ActiveOrdersClientParameters,
  type ActiveOrdersParameters,
} from './clients/active-orders-client.ts';
export { createRelayAuthClient, type RelayAuthClient, type RelayAuthClientParameters } from './clients/relay-auth-client.ts';
export { createRelayRestClient, type RelayRestClient, type RelayRestClientParameters } from './clients/relay-rest-client.ts';
export type { ChainReader } from './clients/chain-reader.ts';

// market streams
export { createMarketFeed, type MarketFeed, type MarketFeedOptions } from './market/create-market-feed.ts';
export type { BackoffParameters } from './market/operators/poll.ts';
export type { MarketFeedPlan, PlanWeight, PolledSource, SourceWeight } from './market/market-feed-plan.ts';
export type { FeedHealth, SourceHealth } from './market/feed-health.ts';
export type { DepthDiff, DiffResult } from './market/depth-diff.ts';
export {
  OrderBook,
  type BookLevel,
  type BookSideName,
  type Fraction,
  type HumanBook,
  type OrderBookView,
  type WireOrderLevels,
} from './market/order-book-model.ts';
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
export type { StrategyFigure, StrategyFigures } from './strategy/strategy-figures.ts';
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
export { createSimVenue, type CreateSimVenueParameters } from './venue/create-sim-venue.ts';
export type { OutsideLiquidity } from './venue/outside-liquidity.ts';
export { createSimServer, type CreateSimServerParameters, type SimServer, type StartParameters } from './sim/sim-server.ts';
export type { CreateSimServiceParameters } from './sim/sim-service.ts';
export type { RawSimRequest, SimAnswer } from './sim/route-dispatch.ts';
export type { ListeningAddress } from './sim/http-server.ts';

// feeds: recorded and imported market data
export { eventAt, FeedEventKind, feedEventKindName, Side as FeedSide, type FeedColumns, type FeedEvent } from './feeds/feed-event.ts';
export { openEventFeed, type EventFeedReader } from './feeds/event-feed-reader.ts';
export { createEventFeedWriter, type EventFeedWriter } from './feeds/event-feed-writer.ts';
export { candleAt, openCandleFeed, type Candle as FeedCandle, type CandleColumns, type CandleFeedReader } from './feeds/candle-feed.ts';
export type { ClockCorrection, FeedHeader, FeedMarket, FeedSource } from './feeds/feed-header.ts';
export {
  describeFeed,
  type CandleFeedSummary,
  type EventFeedSummary,
  type FeedDescription,
  type FeedGapPosition,
  type FeedTime,
  type FeedTimeRange,
} from './feeds/describe-feed.ts';
export { normalizedFeedFor } from './feeds/feed-cache.ts';
export { normalizeRawFeed, type NormalizeResult } from './feeds/normalize-raw-feed.ts';
export { exportFeed, type ExportFeedOptions, type ExportFeedResult, type ExportFormat } from './feeds/export-feed.ts';
export type { ParquetCodec } from './feeds/export-parquet.ts';

// execution
export { createExecutionEngine } from './execution/create-execution-engine.ts';
export type {
  CarriedOverStats,
  EngineStats,
  EngineTuning,
  ExecutionEngine,
  ExecutionEngineContext,
  ExecutionEngineParameters,
  IntentFate,
  IntentReport,
  ReceiptReader,
  UserDataReader,
} from './execution/execution-engine.ts';
export type { BalanceDisagreement } from './execution/account-truth.ts';
export type { JournalFs } from './execution/journal.ts';
export type { KillSwitch, KillSwitchTrip } from './execution/kill-switch.ts';
export type { LateResponse, RelayTransport, SubmitAnswer, TransportConnectionEvent, TransportRoute } from './execution/relay-transport.ts';
export type { RelayWsClosedState, WsCloseKind } from './clients/relay-ws-client.ts';
export type { TransportOutcome, TransportOutcomeStatus } from './execution/relay-receipts.ts';
export { loadSigner, type LoadSignerParameters, type SignerFs, type SignerSource, type WalletSigner } from './execution/signer-source.ts';
export type { Env } from './config/env-interpolation.ts';
