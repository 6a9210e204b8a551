/** `max-open-orders`: the market's resting (GTC) open orders stay within `maxOpenOrders`; IOC and FOK orders do not rest. */
import { worse } from './open-exposure.ts';
import type { RiskRule } from './risk-rule.ts';

export const maxOpenOrders: RiskRule = {
  name: 'max-open-orders',
  reads: ['maxOpenOrders'],
  codes: ['RISK_MAX_OPEN_ORDERS'],
  check({ limits, exposure }) {
    const { before, after } = exposure();
    if (!worse(BigInt(before.resting), BigInt(after.resting), BigInt(limits.maxOpenOrders))) return undefined;
    return {
      code: 'RISK_MAX_OPEN_ORDERS',
      message: `${after.resting} open orders would exceed the limit ${limits.maxOpenOrders}`,
      details: { openOrders: after.resting, maxOpenOrders: limits.maxOpenOrders },
    };
  },
};
