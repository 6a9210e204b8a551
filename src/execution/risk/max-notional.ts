/** `max-notional`: the quote value (raw, at each order's price) of the market's open orders stays within `maxNotional`. */
import { worse } from './open-exposure.ts';
import type { RiskRule } from './risk-rule.ts';

export const maxNotional: RiskRule = {
  name: 'max-notional',
  reads: ['maxNotional'],
  codes: ['RISK_MAX_NOTIONAL'],
  check({ limits, exposure }) {
    const { before, after } = exposure();
    if (!worse(before.notional, after.notional, limits.maxNotional)) return undefined;
    return {
      code: 'RISK_MAX_NOTIONAL',
      message: `open orders would be worth ${after.notional}, above the limit ${limits.maxNotional} (raw quote units)`,
      details: { notional: after.notional.toString(), maxNotional: limits.maxNotional.toString() },
    };
  },
};
