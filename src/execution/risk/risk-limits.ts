/** The risk limits of one market, in its integer units, from the run file's `risk` section. */
import { toUnits } from '../../core/units.ts';
import type { RiskConfig } from '../../config/run-config.ts';
import type { MarketSpec } from '../../protocol/market-spec.ts';

/** The limits of one market in its integer units. */
export interface RiskLimits {
  /** Size units: largest absolute exposure on either side. */
  readonly maxPosition: bigint;
  /** Size units: largest single order. */
  readonly maxOrderSize: bigint;
  /** Raw quote units: largest quote value of the market's open orders together. */
  readonly maxNotional: bigint;
  /** 1..10000. */
  readonly priceBandBps: number;
  /** Orders per second, > 0. */
  readonly maxOrdersPerSecond: number;
  readonly maxOpenOrders: number;
}

/**
 * A market's limits from the run file's `risk` section: human amounts to units, rounded down (a
 * limit is never loosened by rounding).
 *
 * @example riskLimits(config.risk, monUsdc).maxPosition // '100' MON at sizePrecision 1000 -> 100_000n
 */
export function riskLimits(risk: RiskConfig, spec: MarketSpec): RiskLimits {
  return {
    maxPosition: toUnits(risk.maxPosition, spec.sizePrecision, 'down'),
    maxOrderSize: toUnits(risk.maxOrderSize, spec.sizePrecision, 'down'),
    maxNotional: toUnits(risk.maxNotional, 10n ** BigInt(spec.quoteToken.decimals), 'down'),
    priceBandBps: risk.priceBandBps,
    maxOrdersPerSecond: risk.maxOrdersPerSecond,
    maxOpenOrders: risk.maxOpenOrders,
  };
}
