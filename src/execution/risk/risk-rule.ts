/**
 * What a pre-signing risk rule is: a name (its file's), the limits it reads, the codes it refuses
 * with, and a check that reads the intent's market and gives a refusal or nothing. A rule that
 * counts something over time (the order rate) keeps it in a state of its own: `newState` makes one
 * per engine, `record` updates it when an intent is signed, and `check` reads it.
 */
import type { ErrorCode } from '../../core/error-codes.ts';
import type { ErrorDetails } from '../../core/base-error.ts';
import type { MarketSpec } from '../../protocol/market-spec.ts';
import type { IntentOrder } from './intent-orders.ts';
import type { ExposureChange } from './open-exposure.ts';
import type { RiskLimits } from './risk-limits.ts';

/** What a rule refuses an intent with; the engine's fate carries the same code, message and details. */
export interface RiskRefusal {
  readonly code: ErrorCode;
  readonly message: string;
  readonly details: ErrorDetails;
}

/** What a rule reads of an intent and its market. */
export interface RiskRuleContext {
  readonly spec: MarketSpec;
  readonly limits: RiskLimits;
  /** The orders the intent places, in its order. */
  readonly orders: readonly IntentOrder[];
  /** The clock's time, ms. */
  readonly now: number;
  /** The market's mid in price units, or undefined while none is known. */
  mid(): bigint | undefined;
  /** The market's exposure before and after the intent (worked out once, when first asked). */
  exposure(): ExposureChange;
}

/** A signed intent's orders, as `record` sees them. */
export interface SignedOrders {
  readonly orders: readonly IntentOrder[];
  /** When it was signed, ms. */
  readonly now: number;
}

/**
 * @example
 * const maxOrderSize: RiskRule = {
 *   name: 'max-order-size', reads: ['maxOrderSize'], codes: ['RISK_MAX_ORDER_SIZE'],
 *   check: ({ orders, limits }) => orders.some((order) => order.size > limits.maxOrderSize) ? { code: 'RISK_MAX_ORDER_SIZE', message: '…', details: {} } : undefined,
 * };
 */
export interface RiskRule<State = unknown> {
  /** kebab-case: the name of its file in src/execution/risk/. */
  readonly name: string;
  /** The RiskLimits fields (the run file's `risk` section) it reads. */
  readonly reads: readonly (keyof RiskLimits)[];
  /** The codes it refuses with (src/core/error-codes.ts). */
  readonly codes: readonly ErrorCode[];
  /** A fresh state for one engine; a rule without it keeps none. */
  newState?(): State;
  /** The first problem of the intent, or undefined. Changes nothing. */
  check(context: RiskRuleContext, state: State): RiskRefusal | undefined;
  /** An intent was signed with these orders. */
  record?(signed: SignedOrders, state: State): void;
}
