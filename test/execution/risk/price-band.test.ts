/** The price-band rule alone (5 % around mid 1.00): the edge passes, one price unit past it is refused; no mid, no placement. */
import { describe, expect, it } from 'vitest';
import { priceBand } from '../../../src/execution/risk/price-band.ts';
import { M, order, place, refusal, setup } from './risk-support.ts';

describe('risk rule price-band (500 bps)', () => {
  it('passes a buy just under and at mid x 1.05, refuses one unit above', () => {
    const { risk } = setup({ rules: [priceBand] });
    expect(risk.check(place([order('BUY', 104n, 10n), order('BUY', 105n, 10n)]))).toEqual({ ok: true });
    expect(refusal(priceBand, risk.check(place([order('BUY', 106n, 10n)])))).toEqual({
      code: 'RISK_PRICE_BAND',
      message: 'order 0: BUY at 106 is above the band of 500 bps around the mid 100',
      details: { index: 0, side: 'BUY', price: '106', mid: '100', priceBandBps: 500 },
    });
  });

  it('passes a sell just over and at mid x 0.95, refuses one unit below', () => {
    const { risk } = setup({ rules: [priceBand] });
    expect(risk.check(place([order('SELL', 96n, 10n), order('SELL', 95n, 10n)]))).toEqual({ ok: true });
    expect(refusal(priceBand, risk.check(place([order('SELL', 95n, 10n), order('SELL', 94n, 10n)])))?.message).toBe(
      'order 1: SELL at 94 is below the band of 500 bps around the mid 100',
    );
  });

  it('lets far passive orders pass', () => {
    const { risk } = setup({ rules: [priceBand] });
    expect(risk.check(place([order('BUY', 1n, 10n), order('SELL', 1_000_000n, 10n)]))).toEqual({ ok: true });
  });

  it('refuses placements while no mid is known (or the mid is 0)', () => {
    const { risk, mids } = setup({ rules: [priceBand], mid: undefined });
    const refused = {
      code: 'RISK_NO_MID',
      message: 'no mid price is known for MON_USDC: placements wait for one',
      details: { market: M },
    };
    expect(refusal(priceBand, risk.check(place([order('BUY', 100n, 10n)])))).toEqual(refused);
    mids.set(M, 0n);
    expect(refusal(priceBand, risk.check(place([order('BUY', 100n, 10n)])))).toEqual(refused);
    mids.set(M, 100n);
    expect(risk.check(place([order('BUY', 100n, 10n)]))).toEqual({ ok: true });
  });

  it('does not ask for a mid when nothing is placed', () => {
    const { risk } = setup({ rules: [priceBand], mid: undefined });
    expect(risk.check({ type: 'CreateBatchTrigger', purpose: 'x', market: M, orders: [] })).toEqual({ ok: true });
  });
});
