/** Pre-signing risk checks: each rule passes at its boundary and refuses just past it; cancels always pass. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rateWindow } from '../../src/execution/risk/order-rate.ts';
import { riskLimits } from '../../src/execution/risk/risk-limits.ts';
import { runConfigSchema } from '../../src/config/run-config.ts';
import { isRiskReducing, type Intent } from '../../src/strategy/intents.ts';
import { monUsdc, wethUsdc } from './portfolio-fixtures.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';
import { codeOf, M, order, place, rest, setup } from './risk/risk-support.ts';

describe('risk: max order size', () => {
  it('passes an order of exactly maxOrderSize and refuses one unit more', () => {
    const { risk } = setup();
    expect(risk.check(place([order('BUY', 100n, 5_000n)]))).toEqual({ ok: true });
    const refused = risk.check(place([order('BUY', 100n, 5_001n)]));
    expect(codeOf(refused)).toBe('RISK_MAX_ORDER_SIZE');
    expect(refused.ok ? undefined : refused.error.details).toMatchObject({ index: 0, size: '5001', maxOrderSize: '5000' });
  });
});

describe('risk: price band around the mid', () => {
  it('passes a buy at mid x 1.05 and a sell at mid x 0.95, refuses one tick unit past either', () => {
    const { risk } = setup();
    expect(risk.check(place([order('BUY', 105n, 10n)]))).toEqual({ ok: true });
    expect(codeOf(risk.check(place([order('BUY', 106n, 10n)])))).toBe('RISK_PRICE_BAND');
    expect(risk.check(place([order('SELL', 95n, 10n)]))).toEqual({ ok: true });
    expect(codeOf(risk.check(place([order('SELL', 94n, 10n)])))).toBe('RISK_PRICE_BAND');
    // Far on the passive side is no fat finger.
    expect(risk.check(place([order('BUY', 1n, 10n), order('SELL', 10_000n, 10n)]))).toEqual({ ok: true });
  });

  it('refuses placements while no mid is known', () => {
    const { risk, mids } = setup({ mid: undefined });
    expect(codeOf(risk.check(place([order('BUY', 100n, 10n)])))).toBe('RISK_NO_MID');
    mids.set(M, 100n);
    expect(risk.check(place([order('BUY', 100n, 10n)]))).toEqual({ ok: true });
  });
});

describe('risk: max position if every order filled', () => {
  it('counts the position, the open buys and the new buys on the long side', () => {
    const { risk, portfolio } = setup({ position: 6_000n });
    expect(risk.check(place([order('BUY', 100n, 4_000n)]))).toEqual({ ok: true });
    expect(codeOf(risk.check(place([order('BUY', 100n, 4_001n)])))).toBe('RISK_MAX_POSITION');
    rest(portfolio, [order('BUY', 99n, 3_000n)]);
    expect(risk.check(place([order('BUY', 100n, 1_000n)]))).toEqual({ ok: true });
    const refused = risk.check(place([order('BUY', 100n, 1_001n)]));
    expect(refused.ok ? undefined : refused.error.details).toMatchObject({ side: 'long', exposure: '10001', maxPosition: '10000' });
    // Replacing the resting bid (cancel its slot) frees its exposure.
    expect(risk.check(place([order('BUY', 100n, 4_000n)], [0]))).toEqual({ ok: true });
  });

  it('counts orders in flight as open', () => {
    const { risk, portfolio } = setup({ position: 6_000n });
    portfolio.markPending('r9', place([order('BUY', 100n, 3_000n)]));
    expect(codeOf(risk.check(place([order('BUY', 100n, 1_001n)])))).toBe('RISK_MAX_POSITION');
  });

  it('is symmetric on the short side', () => {
    const { risk } = setup({ position: -6_000n });
    expect(risk.check(place([order('SELL', 100n, 4_000n)]))).toEqual({ ok: true });
    expect(codeOf(risk.check(place([order('SELL', 100n, 4_001n)])))).toBe('RISK_MAX_POSITION');
  });

  it('lets an intent that makes no side worse pass while over the limit', () => {
    const { risk } = setup({ position: 12_000n });
    expect(risk.check(place([order('SELL', 100n, 5_000n)]))).toEqual({ ok: true });
    expect(codeOf(risk.check(place([order('BUY', 100n, 10n)])))).toBe('RISK_MAX_POSITION');
  });
});

describe('risk: max notional of the open orders', () => {
  it('passes open orders worth exactly maxNotional and refuses a unit of quote more', () => {
    const { risk, portfolio } = setup();
    // 5 MON at 1.00 each side = 10 USDC.
    expect(risk.check(place([order('BUY', 100n, 5_000n), order('SELL', 100n, 5_000n)]))).toEqual({ ok: true });
    rest(portfolio, [order('BUY', 100n, 5_000n), order('SELL', 100n, 5_000n)]);
    const refused = risk.check(place([order('BUY', 100n, 10n)]));
    expect(codeOf(refused)).toBe('RISK_MAX_NOTIONAL');
    expect(refused.ok ? undefined : refused.error.details).toMatchObject({ notional: '10010000', maxNotional: '10000000' });
    // The same order replacing one of them is fine.
    expect(risk.check(place([order('BUY', 100n, 10n)], [0]))).toEqual({ ok: true });
  });
});

describe('risk: max open orders', () => {
  it('counts resting orders only: three GTC pass, a fourth is refused, an IOC is not counted', () => {
    const { risk, portfolio } = setup();
    rest(portfolio, [order('BUY', 98n, 10n), order('BUY', 97n, 10n)]);
    expect(risk.check(place([order('BUY', 99n, 10n)]))).toEqual({ ok: true });
    expect(codeOf(risk.check(place([order('BUY', 99n, 10n), order('SELL', 101n, 10n)])))).toBe('RISK_MAX_OPEN_ORDERS');
    expect(risk.check(place([order('BUY', 99n, 10n), order('SELL', 101n, 10n, 'IOC')]))).toEqual({ ok: true });
  });
});

describe('risk: orders per second', () => {
  it('allows maxOrdersPerSecond orders in any 1000 ms and refuses one more until the oldest leaves the window', () => {
    const { risk, clock } = setup({ limits: { maxOpenOrders: 100 } });
    const one = place([order('BUY', 100n, 10n)]);
    expect(risk.check(place([order('BUY', 100n, 10n), order('BUY', 99n, 10n)]))).toEqual({ ok: true });
    expect(codeOf(risk.check(place([order('BUY', 100n, 10n), order('BUY', 99n, 10n), order('BUY', 98n, 10n)])))).toBe('RISK_ORDER_RATE');
    risk.record(one);
    clock.advanceBy(500);
    risk.record(one);
    clock.advanceBy(499); // 999 ms after the first
    expect(codeOf(risk.check(one))).toBe('RISK_ORDER_RATE');
    clock.advanceBy(1); // the first leaves the window
    expect(risk.check(one)).toEqual({ ok: true });
  });

  it('turns a fractional rate into one order per longer window', () => {
    expect(rateWindow(20)).toEqual({ capacity: 20, windowMs: 1000 });
    expect(rateWindow(2.5)).toEqual({ capacity: 2, windowMs: 800 });
    expect(rateWindow(0.5)).toEqual({ capacity: 1, windowMs: 2000 });
  });

  it('does not count cancels', () => {
    const { risk } = setup();
    for (let i = 0; i < 10; i++) risk.record({ type: 'CancelAll', purpose: 'x' });
    expect(risk.check(place([order('BUY', 100n, 10n), order('BUY', 99n, 10n)]))).toEqual({ ok: true });
  });
});

describe('risk: kill switch and unknown markets', () => {
  it('refuses every placement once the kill switch tripped, with its reason', () => {
    const { risk, killSwitch } = setup();
    killSwitch.trip('operator said so');
    const refused = risk.check(place([order('BUY', 100n, 10n)]));
    expect(codeOf(refused)).toBe('RISK_KILL_SWITCH');
    expect(refused.ok ? '' : refused.error.message).toContain('operator said so');
    expect(risk.check({ type: 'CancelAll', purpose: 'kill-switch' })).toEqual({ ok: true });
  });

  it('refuses a market without limits', () => {
    const { risk } = setup();
    expect(codeOf(risk.check(place([order('BUY', 100n, 10n)], [], wethUsdc.address)))).toBe('RISK_MARKET_UNKNOWN');
  });
});

describe('risk: risk-reducing intents', () => {
  const reducing: fc.Arbitrary<Intent> = fc.oneof(
    fc.constant<Intent>({ type: 'CancelAll', purpose: 'kill-switch' }),
    fc.constant<Intent>({ type: 'CancelTrigger', purpose: 'x', triggerId: `0x${'11'.repeat(32)}` }),
    fc.uniqueArray(fc.integer({ min: 0, max: 61 }), { maxLength: 5 }).map((slots): Intent => ({ type: 'PlaceAndCancel', purpose: 'x', market: M, cancelSlots: slots, orders: [] })),
    fc
      .uniqueArray(fc.integer({ min: 0, max: 61 }), { minLength: 1, maxLength: 5 })
      .map((slots): Intent => ({ type: 'ReplaceSlots', purpose: 'x', market: wethUsdc.address, ops: slots.map((slotIdx) => ({ slotIdx, kind: 'cancel' as const })) })),
  );

  it('always pass: kill switch tripped, no mid, over every limit, unknown market, rate exhausted', () => {
    fc.assert(
      fc.property(reducing, fc.boolean(), fc.option(fc.bigInt({ min: 1n, max: 1000n }), { nil: undefined }), fc.bigInt({ min: -50_000n, max: 50_000n }), (intent, tripped, mid, position) => {
        const { risk, killSwitch } = setup({ mid, position, limits: { maxPosition: 1n, maxNotional: 1n, maxOpenOrders: 1, maxOrdersPerSecond: 1 } });
        risk.record(place([order('BUY', 100n, 10n)]));
        if (tripped) killSwitch.trip('test');
        expect(isRiskReducing(intent)).toBe(true);
        expect(risk.check(intent)).toEqual({ ok: true });
      }),
      fuzzSettings({ numRuns: 100, seed: 20_250_107 }),
    );
  });
});

describe('risk: the check is a pure read', () => {
  it('gives the same answer twice and moves no window', () => {
    const { risk } = setup({ limits: { maxOrdersPerSecond: 1 } });
    const intent = place([order('BUY', 100n, 10n)]);
    for (let i = 0; i < 5; i++) expect(risk.check(intent)).toEqual({ ok: true });
    risk.record(intent);
    expect(codeOf(risk.check(intent))).toBe('RISK_ORDER_RATE');
  });
});

describe('risk: limits from the run file', () => {
  it('turns human amounts into market units, rounding down', () => {
    const config = runConfigSchema.parse({
      wallet: { ephemeral: true },
      markets: ['MON_USDC'],
      strategies: [{ name: 'mm', module: 'strategies/mm.ts', markets: ['MON_USDC'] }],
      risk: { maxPosition: '12.3456', maxOrderSize: '2', maxNotional: '1500.1234567' },
    });
    expect(riskLimits(config.risk, monUsdc)).toEqual({
      maxPosition: 12_345n,
      maxOrderSize: 2_000n,
      maxNotional: 1_500_123_456n,
      priceBandBps: 500,
      maxOrdersPerSecond: 20,
      maxOpenOrders: 62,
    });
  });
});
