import { describe, expect, it } from 'vitest';
import { planWeight, resolveMarketFeedPlan, type MarketFeedPlan } from '../../src/market/market-feed-plan.ts';

const base: MarketFeedPlan = {
  symbol: 'MON_USDC',
  market: { pricePrecision: 10_000n, sizePrecision: 1_000n },
  depth: { everyMs: 1_000 },
  trades: { everyMs: 1_000 },
  ticker: { everyMs: 5_000 },
};

describe('market feed plan', () => {
  it('fills defaults, freezes, and computes the weight per minute of every source', () => {
    const { plan, weight } = resolveMarketFeedPlan({ ...base, klines: { everyMs: 30_000, interval: '1m' } });
    expect(plan.depth).toEqual({ everyMs: 1_000, limit: 100, state: 'committed' });
    expect(Object.isFrozen(plan.depth)).toBe(true);
    // depth 1 x 60 + trades 1 x 60 + ticker 1 x 12 + klines (limit 500: weight 2) x 2
    expect(weight.perMinute).toBe(136);
    expect(weight.sources.klines).toEqual({ weight: 2, everyMs: 30_000, perMinute: 4 });
    expect(planWeight({ ...plan, depth: { ...plan.depth, limit: 1_000 } }).perMinute).toBe(600 + 60 + 12 + 4);
  });

  it('refuses a plan over the budget, stating the computed weight per minute', () => {
    const heavy = { ...base, depth: { everyMs: 1_000, limit: 5_000 } }; // 20 x 60 = 1200, + 72
    expect(() => resolveMarketFeedPlan(heavy)).toThrowError(
      expect.objectContaining({
        code: 'MARKET_PLAN_OVER_BUDGET',
        message: expect.stringContaining('needs 1272 request weight per minute'),
        details: expect.objectContaining({ weightPerMinute: 1272, budgetPerMinute: 1200 }),
      }),
    );
    expect(() => resolveMarketFeedPlan(base, { budgetPerMinute: 100 })).toThrowError(
      expect.objectContaining({ code: 'MARKET_PLAN_OVER_BUDGET', message: expect.stringContaining('needs 132 request weight per minute') }),
    );
    // exactly at the budget is fine, also when the periods do not divide a minute
    expect(resolveMarketFeedPlan(base, { budgetPerMinute: 132 }).weight.perMinute).toBe(132);
    const thirds = { ...base, depth: { everyMs: 7_000 }, trades: { everyMs: 7_000 }, ticker: { everyMs: 7_000 } };
    expect(() => resolveMarketFeedPlan(thirds, { budgetPerMinute: (3 * 60_000) / 7_000 })).not.toThrow();
    expect(() => resolveMarketFeedPlan(thirds, { budgetPerMinute: 25.7 })).toThrowError(
      expect.objectContaining({ message: expect.stringContaining('needs 25.71 request weight') }),
    );
  });

  it('refuses malformed plans with the path of each problem', () => {
    const bad: unknown[] = [
      { ...base, depth: { everyMs: 1_000, limit: 5_001 } },
      { ...base, depth: { everyMs: 0 } },
      { ...base, trades: { everyMs: 1_000, limit: 0 } },
      { ...base, ticker: { everyMs: 1.5 } },
      { ...base, klines: { everyMs: 1_000, interval: '2m' } },
      { ...base, depth: { everyMs: 1_000, state: 'pending' } },
      { ...base, market: { pricePrecision: 20n, sizePrecision: 1n } },
      { ...base, extra: true },
      { ...base, symbol: '' },
    ];
    for (const plan of bad) {
      expect(() => resolveMarketFeedPlan(plan as MarketFeedPlan), JSON.stringify(plan, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))).toThrowError(
        expect.objectContaining({ code: 'MARKET_PLAN_INVALID' }),
      );
    }
    expect(() => resolveMarketFeedPlan({ ...base, depth: { everyMs: 1_000, limit: 5_001 } })).toThrowError(/depth\.limit/);
    expect(() => resolveMarketFeedPlan(base, { budgetPerMinute: 0 })).toThrowError(expect.objectContaining({ code: 'MARKET_PLAN_INVALID' }));
  });

  it('accepts a full market spec as market and keeps only the precisions', () => {
    const spec = { ...base.market, symbol: 'MON_USDC', tickSize: 5n };
    expect(resolveMarketFeedPlan({ ...base, market: spec }).plan.market).toEqual({ pricePrecision: 10_000n, sizePrecision: 1_000n });
  });
});
