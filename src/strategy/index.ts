/**
 * `clobbot/strategy`: what a strategy module imports, and nothing heavier. The same bindings as
 * `clobbot` (which exports all of these too), without its clients, venue, feeds, engine and viem:
 * `clobbot validate` loads a strategy in a fraction of the time `import … from 'clobbot'` takes
 * (issue 16). Only zod, decimal.js and rxjs come with it.
 *
 * @module clobbot/strategy
 */

// errors, money, units
export { BaseError, isBaseError, type BaseErrorOptions, type ErrorDetails } from '../core/base-error.ts';
export type { ErrorCode } from '../core/error-codes.ts';
export { Decimal, type DecimalInput } from '../core/decimal.ts';
export {
  MAX_PRICE_UNITS,
  MAX_SIZE_UNITS,
  fromUnits,
  roundPriceToTick,
  toPriceUnits,
  toSizeUnits,
  toUnits,
  type PriceGrid,
  type Rounding,
  type Side,
} from '../core/units.ts';
export { priceToHuman, sizeToHuman } from '../core/denomination.ts';
export type { Clock } from '../core/clock.ts';
export type { Logger, LogLevel } from '../core/logger.ts';
export type { RandomSource } from '../core/random.ts';

// what the context hands a strategy: markets, books, its own orders
export { MAKER_SLOTS, type ExecutionInstruction, type OrderSide, type TimeInForce } from '../protocol/constants.ts';
export type { Address, Hex } from '../protocol/encoding.ts';
export type { PackedOp } from '../protocol/packed-ops.ts';
export type { MarketSpec, TokenSpec } from '../protocol/market-spec.ts';
export type { MarketFeed } from '../market/create-market-feed.ts';
export type { BookLevel, OrderBookView } from '../market/order-book-model.ts';
export type { Bbo } from '../market/bbo.ts';
export type { Candle } from '../market/candle.ts';
export type { MarketPrecision } from '../market/market-precision.ts';
export type { UnitTrade } from '../market/unit-trade.ts';
export { BarBuilder, type BarBuilderParameters, type BarTrade } from '../market/bar-builder.ts';
export { buildBars, type BuildBarsParameters } from '../market/operators/build-bars.ts';

// params
export { z } from 'zod';
export { decimalAmount, durationMs } from '../config/fields.ts';
export { signedDecimalAmount, toSignedUnits } from './signed-decimal-amount.ts';

// definition, context, intents, quotes
export { defineStrategy, isStrategyDefinition, type DefineStrategyParameters, type StrategyDefinition } from './define-strategy.ts';
export type { IntentFateReport, KillSwitchTrigger, OwnFill, OwnMarketState, OwnOrder, StrategyContext, StrategyMarket, TradingState } from './strategy-context.ts';
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
} from './intents.ts';
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
} from './quote-manager.ts';
export { priceAtOffset, priceOnTick } from './tick-price.ts';
