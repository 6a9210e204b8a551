/**
 * The max-position rule alone (10 MON): the position plus the open and new orders of a side, if all
 * filled, may reach the limit but not pass it; an intent that makes no side worse passes.
 */
import { describe, expect, it } from 'vitest';
import { maxPosition } from '../../../src/execution/risk/max-position.ts';
import { order, place, refusal, rest, setup } from './risk-support.ts';

describe('risk rule max-position (10 MON)', () => {
  it('long 6 MON: passes buys just under and up to the limit, refuses one unit over', () => {
    const { risk } = setup({ rules: [maxPosition], position: 6_000n });
    expect(risk.check(place([order('BUY', 100n, 3_999n)]))).toEqual({ ok: true });
    expect(risk.check(place([order('BUY', 100n, 4_000n)]))).toEqual({ ok: true });
    expect(refusal(maxPosition, risk.check(place([order('BUY', 100n, 4_001n)])))).toEqual({
      code: 'RISK_MAX_POSITION',
      message: 'if every order filled the long exposure would be 10001, above the limit 10000 (size units)',
      details: { side: 'long', position: '6000', exposure: '10001', maxPosition: '10000' },
    });
  });

  it('short 6 MON: the same on the sell side', () => {
    const { risk } = setup({ rules: [maxPosition], position: -6_000n });
    expect(risk.check(place([order('SELL', 100n, 4_000n)]))).toEqual({ ok: true });
    expect(refusal(maxPosition, risk.check(place([order('SELL', 100n, 4_001n)])))?.details).toMatchObject({ side: 'short', position: '-6000', exposure: '10001' });
  });

  it('counts resting and in-flight buys, less those the intent cancels', () => {
    const { risk, portfolio } = setup({ rules: [maxPosition], position: 6_000n });
    rest(portfolio, [order('BUY', 99n, 2_000n)]);
    portfolio.markPending('r9', place([order('BUY', 98n, 1_000n)]));
    expect(risk.check(place([order('BUY', 100n, 1_000n)]))).toEqual({ ok: true });
    expect(refusal(maxPosition, risk.check(place([order('BUY', 100n, 1_001n)])))?.code).toBe('RISK_MAX_POSITION');
    expect(risk.check(place([order('BUY', 100n, 3_000n)], [0]))).toEqual({ ok: true });
  });

  it('over the limit, lets a sell through and refuses any buy', () => {
    const { risk } = setup({ rules: [maxPosition], position: 12_000n });
    expect(risk.check(place([order('SELL', 100n, 5_000n)]))).toEqual({ ok: true });
    expect(refusal(maxPosition, risk.check(place([order('BUY', 100n, 1n)])))?.code).toBe('RISK_MAX_POSITION');
  });
});
