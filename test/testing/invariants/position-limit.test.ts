import { describe, expect, it } from 'vitest';
import { positionLimitInvariant as invariant } from '../../../src/testing/invariants/index.ts';
import { expectViolation } from './expect-violation.ts';
import { RecordBuilder, RISK, WETH, MON } from './record-builder.ts';

// risk.maxPosition '1000' MON = 100_000 size units (0.01 MON each).
const PRICE = 350_000n;

describe('position-limit', () => {
  it('passes a position exactly at the limit, long and short', () => {
    const b = new RecordBuilder();
    b.fill(1_000, { side: 'BUY', size: 60_000n, price: PRICE });
    b.fill(2_000, { side: 'BUY', size: 40_000n, price: PRICE });
    b.fill(3_000, { side: 'SELL', size: 200_000n, price: PRICE });
    expect(invariant.check(b.build(), {})).toBeUndefined();
  });

  it('fails one unit beyond risk.maxPosition, at the fill, in units and base', () => {
    const b = new RecordBuilder();
    b.fill(1_000, { side: 'BUY', size: 60_000n, price: PRICE });
    b.fill(2_000, { side: 'BUY', size: 40_001n, price: PRICE, orderId: 17n });
    expectViolation(
      invariant.check(b.build(), {}),
      'position-limit',
      2_000,
      'MON_USDC: after the BUY fill of order 17 (40001 @ 350000, at 2000 ms',
      'the position is 100001 size units (1000.01 MON), beyond risk.maxPosition 100000 (1000 MON); it was 60000',
    );
  });

  it('fails one unit beyond on the short side', () => {
    const b = new RecordBuilder();
    b.fill(500, { side: 'SELL', size: 100_001n, price: PRICE });
    expectViolation(invariant.check(b.build(), {}), 'position-limit', 500, 'the position is -100001 size units (-1000.01 MON)');
  });

  it('reads maxPosition as the engine does: rounded down to the size precision', () => {
    const b = new RecordBuilder();
    b.risk = { ...RISK, maxPosition: '1000.009' };
    b.fill(500, { side: 'BUY', size: 100_000n, price: PRICE });
    expect(invariant.check(b.build(), {})).toBeUndefined();
    b.fill(600, { side: 'BUY', size: 1n, price: PRICE });
    expectViolation(invariant.check(b.build(), {}), 'position-limit', 600, 'beyond risk.maxPosition 100000');
  });

  it('starts from the opening fills and lets a position opened beyond the limit come back', () => {
    const b = new RecordBuilder();
    b.openingFill(-2_000, { side: 'BUY', size: 150_000n, price: PRICE });
    b.fill(1_000, { side: 'SELL', size: 10_000n, price: PRICE });
    b.fill(2_000, { side: 'SELL', size: 30_000n, price: PRICE });
    expect(invariant.check(b.build(), {})).toBeUndefined();
    b.fill(3_000, { side: 'BUY', size: 1n, price: PRICE });
    expectViolation(invariant.check(b.build(), {}), 'position-limit', 3_000, 'the position is 110001 size units', 'it was 110000');
  });

  it('fails a fill that flips a position beyond the limit on the other side', () => {
    const b = new RecordBuilder();
    b.openingFill(-1, { side: 'BUY', size: 150_000n, price: PRICE });
    b.fill(1_000, { side: 'SELL', size: 250_001n, price: PRICE });
    expectViolation(invariant.check(b.build(), {}), 'position-limit', 1_000, 'the position is -100001 size units');
  });

  it('applies the strategy’s own limit from its params', () => {
    const b = new RecordBuilder();
    b.params = { maxInventory: 50_000n };
    const options = { positionLimit: (params: unknown) => (params as { maxInventory: bigint }).maxInventory };
    b.fill(1_000, { side: 'BUY', size: 50_000n, price: PRICE });
    expect(invariant.check(b.build(), options)).toBeUndefined();
    b.fill(2_000, { side: 'BUY', size: 1n, price: PRICE });
    expectViolation(invariant.check(b.build(), options), 'position-limit', 2_000, 'beyond the strategy’s own limit 50000 (500 MON)');
    expect(invariant.check(b.build(), { positionLimit: () => undefined })).toBeUndefined();
  });

  it('moves the position in the order fills happened, not the order they were reported', () => {
    const b = new RecordBuilder();
    b.fill(2_000, { side: 'BUY', size: 100_000n, price: PRICE });
    b.fill(3_000, { side: 'BUY', size: 10_000n, price: PRICE });
    b.fill(1_000, { side: 'SELL', size: 50_000n, price: PRICE });
    expect(invariant.check(b.build(), {})).toBeUndefined();
  });

  it('judges each market in its own units and reports the first violation in time', () => {
    const b = new RecordBuilder([MON, WETH]);
    b.fill(5_000, { side: 'BUY', size: 100_001n, price: PRICE });
    // WETH: sizes in 1e-4, so 1000 WETH = 10_000_000 units.
    b.fill(4_000, { side: 'SELL', size: 10_000_000n, price: 300_000n, market: WETH });
    expectViolation(invariant.check(b.build(), {}), 'position-limit', 5_000, 'MON_USDC');
    b.fill(4_500, { side: 'SELL', size: 1n, price: 300_000n, market: WETH });
    expectViolation(invariant.check(b.build(), {}), 'position-limit', 4_500, 'WETH_USDC', '-10000001 size units (-1000.0001 WETH)');
  });
});
