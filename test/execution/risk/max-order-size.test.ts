/** The max-order-size rule alone: an order of maxOrderSize passes, one size unit more is refused, whichever order of the intent it is. */
import { describe, expect, it } from 'vitest';
import { maxOrderSize } from '../../../src/execution/risk/max-order-size.ts';
import { order, place, refusal, setup } from './risk-support.ts';

describe('risk rule max-order-size (5 MON)', () => {
  const { risk } = setup({ rules: [maxOrderSize] });

  it('passes orders just under and at the limit', () => {
    expect(risk.check(place([order('BUY', 100n, 4_999n), order('SELL', 101n, 5_000n)]))).toEqual({ ok: true });
  });

  it('refuses an order one unit over, naming it', () => {
    expect(refusal(maxOrderSize, risk.check(place([order('BUY', 100n, 10n), order('SELL', 101n, 5_001n)])))).toEqual({
      code: 'RISK_MAX_ORDER_SIZE',
      message: 'order 1: size 5001 is above the limit 5000 (size units)',
      details: { index: 1, size: '5001', maxOrderSize: '5000' },
    });
  });
});
