/**
 * What a market feed polls and how often, checked at creation: its shape (a strict zod schema) and
 * its cost in request weight per minute against a budget.
 */
import { z } from 'zod';
import { BaseError } from '../core/base-error.ts';
import { deepFreeze } from '../config/deep-freeze.ts';
import {
  KLINE_INTERVALS,
  MARKET_DATA_WEIGHT_PER_MINUTE,
  MarketDataLimits,
  ORDERBOOK_STATES,
  RequestWeight,
} from '../protocol/constants.ts';
import { precisionDecimals } from './market-precision.ts';

const everyMs = z.int().min(1);
const powerOfTen = (name: string) =>
  z.bigint().refine(
    (value) => {
      try {
        precisionDecimals(value, name);
        return true;
      } catch {
        return false;
      }
    },
    { message: `${name} must be a power of ten` },
  );
const limit = (bounds: { readonly min: number; readonly max: number }) => z.int().min(bounds.min).max(bounds.max);

/** The plan of `createMarketFeed`. Unknown fields are refused, except in `market` (a `MarketSpec` may be passed). */
export const marketFeedPlanSchema = z.strictObject({
  /** Trading pair, e.g. `MON_USDC`. */
  symbol: z.string().min(1),
  /** The market's precisions (only these two fields are kept). */
  market: z.object({ pricePrecision: powerOfTen('pricePrecision'), sizePrecision: powerOfTen('sizePrecision') }),
  depth: z.strictObject({
    everyMs,
    /** Levels per side, 1..5000 (default 100); sets the request weight. */
    limit: limit(MarketDataLimits.depth).default(MarketDataLimits.depth.default),
    /** Orderbook state, default `committed`. */
    state: z.enum(ORDERBOOK_STATES).default('committed'),
  }),
  trades: z.strictObject({
    everyMs,
    /** Trades per poll, 1..1000; unset: the server's default (500). */
    limit: limit(MarketDataLimits.trades).optional(),
  }),
  ticker: z.strictObject({ everyMs }),
  klines: z
    .strictObject({
      everyMs,
      interval: z.enum(KLINE_INTERVALS),
      /** Candles per poll, 1..1000; unset: the server's default (500). */
      limit: limit(MarketDataLimits.klines).optional(),
    })
    .optional(),
});

/**
 * A plan as written (defaults may be left out).
 *
 * @useDeclaredType
 */
export type MarketFeedPlan = z.input<typeof marketFeedPlanSchema>;
/** A checked, frozen plan with defaults filled in. */
export type ResolvedMarketFeedPlan = z.output<typeof marketFeedPlanSchema>;

export type PolledSource = 'depth' | 'trades' | 'ticker' | 'klines';

export interface SourceWeight {
  /** Request weight of one call. */
  readonly weight: number;
  readonly everyMs: number;
  /** weight * 60 000 / everyMs. */
  readonly perMinute: number;
}

export interface PlanWeight {
  /** Sum over the sources: the most the feed spends when every stream is subscribed. */
  readonly perMinute: number;
  readonly sources: Readonly<Partial<Record<PolledSource, SourceWeight>>>;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/**
 * Request weight per minute of a plan with every source polled at its period (polls never come
 * faster: the poller waits `everyMs` after each answer and backs off after failures).
 *
 * @example planWeight(plan).perMinute // depth limit 1000 every 1s (600) + trades every 1s (60) + ticker every 5s (12) = 672
 */
export function planWeight(plan: ResolvedMarketFeedPlan): PlanWeight {
  const source = (weight: number, period: number): SourceWeight => ({ weight, everyMs: period, perMinute: (weight * 60_000) / period });
  const sources: Partial<Record<PolledSource, SourceWeight>> = {
    depth: source(RequestWeight.depth(plan.depth.limit), plan.depth.everyMs),
    trades: source(RequestWeight.trades(), plan.trades.everyMs),
    ticker: source(RequestWeight.ticker(), plan.ticker.everyMs),
  };
  if (plan.klines) {
    sources.klines = source(RequestWeight.klines(plan.klines.limit ?? MarketDataLimits.klines.default), plan.klines.everyMs);
  }
  const perMinute = Object.values(sources).reduce((sum, s) => sum + s.perMinute, 0);
  return { perMinute, sources };
}

/**
 * Checks a plan and its weight: a malformed plan is `MARKET_PLAN_INVALID`; one that would spend
 * more than `budgetPerMinute` request weight (default `MARKET_DATA_WEIGHT_PER_MINUTE`, 1200) is
 * `MARKET_PLAN_OVER_BUDGET`, whose message states the computed weight per minute. Returns the
 * frozen plan with defaults.
 */
export function resolveMarketFeedPlan(
  plan: MarketFeedPlan,
  params: { readonly budgetPerMinute?: number } = {},
): { readonly plan: ResolvedMarketFeedPlan; readonly weight: PlanWeight } {
  const budget = params.budgetPerMinute ?? MARKET_DATA_WEIGHT_PER_MINUTE;
  const parsed = marketFeedPlanSchema.safeParse(plan);
  if (!parsed.success || !(budget > 0)) {
    const issues = parsed.success
      ? [{ path: 'weightBudgetPerMinute', message: 'must be a positive number' }]
      : parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
    throw new BaseError('MARKET_PLAN_INVALID', `invalid market feed plan: ${issues.map((i) => `${i.path || '(plan)'}: ${i.message}`).join('; ')}`, {
      details: { issues },
    });
  }
  const resolved = deepFreeze(parsed.data);
  const weight = planWeight(resolved);
  // A hair of tolerance: 1200 spread over periods that do not divide a minute must not fail on rounding.
  if (weight.perMinute > budget + 1e-9) {
    const perSource = Object.entries(weight.sources)
      .map(([name, s]) => `${name} ${round2(s.perMinute)}`)
      .join(', ');
    throw new BaseError(
      'MARKET_PLAN_OVER_BUDGET',
      `market feed plan needs ${round2(weight.perMinute)} request weight per minute (${perSource}), over the budget of ${budget}`,
      {
        details: {
          weightPerMinute: round2(weight.perMinute),
          budgetPerMinute: budget,
          sources: Object.fromEntries(Object.entries(weight.sources).map(([name, s]) => [name, { ...s, perMinute: round2(s.perMinute) }])),
        },
      },
    );
  }
  return { plan: resolved, weight };
}
