/** A risk check over a real portfolio, kill switch and mids of MON_USDC, and intents to put to it. */
import { expect } from 'vitest';
import { VirtualClock } from '../../../src/core/virtual-clock.ts';
import { createKillSwitch } from '../../../src/execution/kill-switch.ts';
import { createPortfolio } from '../../../src/execution/portfolio.ts';
import { createRiskCheck, type RiskResult } from '../../../src/execution/risk/risk-check.ts';
import type { RiskLimits } from '../../../src/execution/risk/risk-limits.ts';
import type { RiskRule } from '../../../src/execution/risk/risk-rule.ts';
import type { Address } from '../../../src/protocol/encoding.ts';
import type { OrderRequest, PlaceAndCancel } from '../../../src/strategy/intents.ts';
import { created, monUsdc, T0, trade, tx } from '../portfolio-fixtures.ts';

export const M = monUsdc.address;
export const at = (n: number) => ({ tx: tx(n), timeMs: T0 + n * 1000 });

/** MON_USDC units: sizes 0.001 MON, prices 0.01 USDC, quote raw 1e-6 USDC. */
export const LIMITS: RiskLimits = {
  maxPosition: 10_000n, // 10 MON
  maxOrderSize: 5_000n, // 5 MON
  maxNotional: 10_000_000n, // 10 USDC
  priceBandBps: 500, // 5 %
  maxOrdersPerSecond: 2,
  maxOpenOrders: 3,
};

export function order(side: 'BUY' | 'SELL', price: bigint, size: bigint, tif: 'GTC' | 'IOC' = 'GTC'): OrderRequest {
  return { side, price, size, tif, executionInstruction: 'NONE', minSizeAfterBlock: 0n };
}

export function place(orders: OrderRequest[], cancelSlots: number[] = [], market: Address = M): PlaceAndCancel {
  return { type: 'PlaceAndCancel', purpose: 'quotes', market, cancelSlots, orders };
}

/** The risk check at mid 100 (1.00 USDC) and flat, unless told; `rules`: only these (default: the engine's list). */
export function setup(options: { limits?: Partial<RiskLimits>; mid?: bigint | undefined; position?: bigint; rules?: readonly RiskRule[] } = {}) {
  const clock = new VirtualClock(T0);
  const portfolio = createPortfolio({ clock }, { markets: [monUsdc] });
  const killSwitch = createKillSwitch({ clock });
  const mids = new Map<Address, bigint>();
  const mid = 'mid' in options ? options.mid : 100n;
  if (mid !== undefined) mids.set(M, mid);
  const markets = [{ spec: monUsdc, limits: { ...LIMITS, ...options.limits } }];
  const risk = createRiskCheck({ clock, portfolio, mid: (market) => mids.get(market), killSwitch }, { markets, rules: options.rules });
  const position = options.position ?? 0n;
  if (position !== 0n) {
    const side = position > 0n ? 'BUY' : 'SELL';
    const size = position > 0n ? position : -position;
    portfolio.applyOrderEvent(trade(at(1), { orderId: 900n, side, price: 100n, orderSize: size, filled: size, remaining: 0n }));
  }
  return { clock, portfolio, killSwitch, risk, mids };
}

export function codeOf(result: RiskResult): string | undefined {
  return result.ok ? undefined : result.error.code;
}

/** A live resting order in slot 0 (and more), confirmed and with its id. */
export function rest(portfolio: ReturnType<typeof setup>['portfolio'], orders: OrderRequest[], n = 2) {
  portfolio.markPending(`rest${n}`, place(orders));
  portfolio.applyOutcome(`rest${n}`, 'CONFIRMED', { txHash: tx(n) });
  portfolio.applyOrderEvents(orders.map((o, i) => created(at(n), BigInt(n * 100 + i), o.side, o.price, o.size)));
}

/** A refusal's code, message and details (its code checked to be one of `rule`'s), or undefined when the intent passed. */
export function refusal(rule: RiskRule, result: RiskResult) {
  if (result.ok) return undefined;
  expect(rule.codes).toContain(result.error.code);
  return result.error.toJSON();
}
