/** The order-rate rule alone: the orders signed in the window plus the intent's may reach the capacity, not pass it. */
import { describe, expect, it } from 'vitest';
import { orderRate } from '../../../src/execution/risk/order-rate.ts';
import { order, place, refusal, setup } from './risk-support.ts';

const one = place([order('BUY', 100n, 10n)]);

describe('risk rule order-rate', () => {
  it('at 2 per second: passes one order after one signed, refuses one after two until the first is 1000 ms old', () => {
    const { risk, clock } = setup({ rules: [orderRate], limits: { maxOrdersPerSecond: 2 } });
    risk.record(one);
    clock.advanceBy(400);
    expect(risk.check(one)).toEqual({ ok: true });
    expect(refusal(orderRate, risk.check(place([order('BUY', 100n, 10n), order('BUY', 99n, 10n)])))).toEqual({
      code: 'RISK_ORDER_RATE',
      message: '1 orders in the last 1000 ms plus 2 would exceed 2 per second',
      details: { recent: 1, orders: 2, capacity: 2, windowMs: 1000 },
    });
    risk.record(one);
    expect(refusal(orderRate, risk.check(one))?.code).toBe('RISK_ORDER_RATE');
    clock.advanceBy(600);
    expect(risk.check(one)).toEqual({ ok: true });
  });

  it('at 0.5 per second: one order per 2000 ms', () => {
    const { risk, clock } = setup({ rules: [orderRate], limits: { maxOrdersPerSecond: 0.5 } });
    risk.record(one);
    clock.advanceBy(1_999);
    expect(refusal(orderRate, risk.check(one))?.details).toEqual({ recent: 1, orders: 1, capacity: 1, windowMs: 2000 });
    clock.advanceBy(1);
    expect(risk.check(one)).toEqual({ ok: true });
  });

  it('counts neither checks nor cancels, and keeps one window per risk check', () => {
    const { risk } = setup({ rules: [orderRate], limits: { maxOrdersPerSecond: 1 } });
    const other = setup({ rules: [orderRate], limits: { maxOrdersPerSecond: 1 } }).risk;
    for (let i = 0; i < 3; i++) expect(risk.check(one)).toEqual({ ok: true });
    risk.record({ type: 'CancelAll', purpose: 'x' });
    risk.record(place([], [0]));
    expect(risk.check(one)).toEqual({ ok: true });
    risk.record(one);
    expect(refusal(orderRate, risk.check(one))?.code).toBe('RISK_ORDER_RATE');
    expect(other.check(one)).toEqual({ ok: true });
  });
});
