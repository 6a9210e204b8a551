/**
 * The engine's pre-signing risk check. `check(intent)` returns `{ ok: true }` or `{ ok: false, error }`
 * with a BaseError of a stable code, and changes nothing; `record(intent)` tells the rules that
 * count over time (the order rate) that an intent was signed. In order (the first refusal wins):
 *
 * 1. Risk-reducing intents (`isRiskReducing`: cancels only) always pass, kill switch included.
 * 2. RISK_KILL_SWITCH: the kill switch is tripped.
 * 3. RISK_MARKET_UNKNOWN: the intent's market has no limits.
 * 4. The rules of `RISK_RULES` (rules.ts), one file each, against the market's limits.
 *
 * Steps 1-3 are not limits but decide whether the limits apply, so they stay here.
 */
import { BaseError } from '../../core/base-error.ts';
import type { Clock } from '../../core/clock.ts';
import type { Address } from '../../protocol/encoding.ts';
import { amountScale, type AmountScale, type MarketSpec } from '../../protocol/market-spec.ts';
import { intentMarket } from '../../strategy/intent-problems.ts';
import { isRiskReducing, type Intent } from '../../strategy/intents.ts';
import type { KillSwitchTrip } from '../kill-switch.ts';
import type { MarketState } from '../portfolio.ts';
import { newOrders } from './intent-orders.ts';
import { exposureChange, type ExposureChange } from './open-exposure.ts';
import type { RiskLimits } from './risk-limits.ts';
import type { RiskRefusal, RiskRule, RiskRuleContext } from './risk-rule.ts';
import { RISK_RULES } from './rules.ts';

export type RiskResult = { readonly ok: true } | { readonly ok: false; readonly error: BaseError };

const OK: RiskResult = Object.freeze({ ok: true });

export interface RiskMarket {
  readonly spec: MarketSpec;
  readonly limits: RiskLimits;
}

export interface RiskContext {
  readonly clock: Pick<Clock, 'now'>;
  /** The portfolio (or anything that gives a market's state). */
  readonly portfolio: { state(market: Address): MarketState };
  /** The current mid of a market in price units, or undefined when none is known. */
  readonly mid: (market: Address) => bigint | undefined;
  readonly killSwitch?: { readonly tripped: KillSwitchTrip | undefined };
}

export interface RiskParameters {
  readonly markets: readonly RiskMarket[];
  /** The rules, in order. Default `RISK_RULES`. */
  readonly rules?: readonly RiskRule[];
}

function refused({ code, message, details }: RiskRefusal): RiskResult {
  return { ok: false, error: new BaseError(code, message, { details }) };
}

/**
 * The risk check of the engine.
 *
 * @example
 * const risk = createRiskCheck({ clock, portfolio, mid: (m) => mids.get(m), killSwitch }, { markets: [{ spec, limits }] });
 * const verdict = risk.check(intent);
 * if (!verdict.ok) return refuse(verdict.error); // e.g. verdict.error.code === 'RISK_PRICE_BAND'
 * risk.record(intent); // once signed
 */
export class RiskCheck {
  readonly #context: RiskContext;
  readonly #markets = new Map<Address, RiskMarket & { readonly scale: AmountScale }>();
  /** Each rule with its state for this engine. */
  readonly #rules: readonly { readonly rule: RiskRule; readonly state: unknown }[];

  constructor(context: RiskContext, params: RiskParameters) {
    this.#context = context;
    for (const market of params.markets) this.#markets.set(market.spec.address, { ...market, scale: amountScale(market.spec) });
    this.#rules = (params.rules ?? RISK_RULES).map((rule) => ({ rule, state: rule.newState?.() }));
  }

  /** Checks `intent` against every rule; changes nothing. */
  check(intent: Intent): RiskResult {
    if (isRiskReducing(intent)) return OK;
    const trip = this.#context.killSwitch?.tripped;
    if (trip !== undefined) {
      return refused({ code: 'RISK_KILL_SWITCH', message: `kill switch tripped (${trip.trigger}): ${trip.reason}`, details: { trigger: trip.trigger, reason: trip.reason } });
    }
    const address = intentMarket(intent);
    const market = address === undefined ? undefined : this.#markets.get(address);
    if (address === undefined || market === undefined) {
      return refused({ code: 'RISK_MARKET_UNKNOWN', message: `no risk limits for market ${address ?? '(none)'}`, details: { market: address ?? null } });
    }
    const orders = newOrders(intent);
    let exposure: ExposureChange | undefined;
    const context: RiskRuleContext = {
      spec: market.spec,
      limits: market.limits,
      orders,
      now: this.#context.clock.now(),
      mid: () => this.#context.mid(address),
      exposure: () => (exposure ??= exposureChange(this.#context.portfolio.state(address), market.scale, intent, orders)),
    };
    for (const { rule, state } of this.#rules) {
      const refusal = rule.check(context, state);
      if (refusal !== undefined) return refused(refusal);
    }
    return OK;
  }

  /** Tells the rules that `intent` was signed. */
  record(intent: Intent): void {
    const signed = { orders: newOrders(intent), now: this.#context.clock.now() };
    for (const { rule, state } of this.#rules) rule.record?.(signed, state);
  }
}

/**
 * @example const risk = createRiskCheck({ clock, portfolio, mid, killSwitch }, { markets: [{ spec: monUsdc, limits: riskLimits(config.risk, monUsdc) }] });
 */
export function createRiskCheck(context: RiskContext, params: RiskParameters): RiskCheck {
  return new RiskCheck(context, params);
}
