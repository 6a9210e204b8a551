/** The max-notional rule alone (10 USDC): the open orders' quote value may reach the limit, not pass it; a replacement that lowers it passes. */
import { describe, expect, it } from 'vitest';
import { maxNotional } from '../../../src/execution/risk/max-notional.ts';
import { order, place, refusal, rest, setup } from './risk-support.ts';

describe('risk rule max-notional (10 USDC)', () => {
  it('passes new orders worth just under and exactly 10 USDC, refuses one raw unit more', () => {
    const { risk } = setup({ rules: [maxNotional] });
    // 5 MON at 1.00 = 5 USDC = 5_000_000 raw; 0.001 MON at 0.01 = 10 raw.
    expect(risk.check(place([order('BUY', 100n, 5_000n), order('SELL', 100n, 4_999n)]))).toEqual({ ok: true });
    expect(risk.check(place([order('BUY', 100n, 5_000n), order('SELL', 100n, 5_000n)]))).toEqual({ ok: true });
    expect(refusal(maxNotional, risk.check(place([order('BUY', 100n, 5_000n), order('SELL', 100n, 5_000n), order('SELL', 1n, 1n)])))).toEqual({
      code: 'RISK_MAX_NOTIONAL',
      message: 'open orders would be worth 10000010, above the limit 10000000 (raw quote units)',
      details: { notional: '10000010', maxNotional: '10000000' },
    });
  });

  it('counts the resting orders; replacing one with a cheaper order passes', () => {
    const { risk, portfolio } = setup({ rules: [maxNotional] });
    rest(portfolio, [order('BUY', 100n, 5_000n), order('SELL', 100n, 5_000n)]);
    expect(refusal(maxNotional, risk.check(place([order('BUY', 1n, 1n)])))?.code).toBe('RISK_MAX_NOTIONAL');
    expect(risk.check(place([order('BUY', 99n, 5_000n)], [0]))).toEqual({ ok: true });
  });
});
