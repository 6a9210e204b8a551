/** The max-open-orders rule alone (3): resting orders, live or in flight, may reach the limit, not pass it; IOC orders do not rest. */
import { describe, expect, it } from 'vitest';
import { maxOpenOrders } from '../../../src/execution/risk/max-open-orders.ts';
import { order, place, refusal, rest, setup } from './risk-support.ts';

describe('risk rule max-open-orders (3)', () => {
  it('passes a second and a third resting order, refuses a fourth', () => {
    const { risk, portfolio } = setup({ rules: [maxOpenOrders] });
    rest(portfolio, [order('BUY', 98n, 10n)]);
    expect(risk.check(place([order('BUY', 99n, 10n)]))).toEqual({ ok: true });
    portfolio.markPending('r9', place([order('BUY', 97n, 10n)]));
    expect(risk.check(place([order('BUY', 99n, 10n)]))).toEqual({ ok: true });
    expect(refusal(maxOpenOrders, risk.check(place([order('BUY', 99n, 10n), order('SELL', 101n, 10n)])))).toEqual({
      code: 'RISK_MAX_OPEN_ORDERS',
      message: '4 open orders would exceed the limit 3',
      details: { openOrders: 4, maxOpenOrders: 3 },
    });
  });

  it('does not count IOC orders, and frees the slots an intent cancels', () => {
    const { risk, portfolio } = setup({ rules: [maxOpenOrders] });
    rest(portfolio, [order('BUY', 98n, 10n), order('BUY', 97n, 10n), order('BUY', 96n, 10n)]);
    expect(risk.check(place([order('SELL', 101n, 10n, 'IOC')]))).toEqual({ ok: true });
    expect(risk.check(place([order('SELL', 101n, 10n)], [0]))).toEqual({ ok: true });
  });
});
