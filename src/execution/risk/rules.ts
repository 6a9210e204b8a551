/**
 * The pre-signing risk rules, in the order the engine checks them (the first refusal wins). Each is
 * one file of this folder (risk-rule.ts says what a rule is). Adding a rule: its file, and a line
 * here; test/execution/risk/rules.test.ts fails while a rule file of the folder is not listed.
 */
import { maxNotional } from './max-notional.ts';
import { maxOpenOrders } from './max-open-orders.ts';
import { maxOrderSize } from './max-order-size.ts';
import { maxPosition } from './max-position.ts';
import { orderRate } from './order-rate.ts';
import { priceBand } from './price-band.ts';
import type { RiskRule } from './risk-rule.ts';

export const RISK_RULES: readonly RiskRule[] = Object.freeze([maxOrderSize, priceBand, maxPosition, maxNotional, maxOpenOrders, orderRate]);
