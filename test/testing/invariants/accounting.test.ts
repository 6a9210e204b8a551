import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzzSettings } from '../../../src/testing/fuzz-settings.ts';
import { applyFill, FLAT_POSITION } from '../../../src/execution/average-cost.ts';
import { amountScale, quoteRaw } from '../../../src/protocol/market-spec.ts';
import { accountingInvariant as invariant } from '../../../src/testing/invariants/index.ts';
import { expectViolation } from './expect-violation.ts';
import { MON, ownState, RecordBuilder, WETH } from './record-builder.ts';

// MON_USDC: a fill's quote amount is price × size / 1000 raw USDC; maker fee 0, taker 2 bp.

describe('accounting', () => {
  it('passes a long opened and partly closed: realized = proceeds − released average cost', () => {
    const b = new RecordBuilder();
    b.fill(1_000, { side: 'BUY', size: 10_000n, price: 350_000n }); // cost 3_500_000
    b.fill(2_000, { side: 'SELL', size: 4_000n, price: 360_000n }); // proceeds 1_440_000, released 1_400_000
    b.finalState(ownState([], { position: 6_000n, realizedPnl: 40_000n }));
    expect(invariant.check(b.build(), {})).toBeUndefined();
  });

  it('fails a position one unit off the signed fill sizes, at the end', () => {
    const b = new RecordBuilder();
    b.fill(1_000, { side: 'BUY', size: 10_000n, price: 350_000n });
    b.fill(2_000, { side: 'SELL', size: 4_000n, price: 360_000n });
    b.finalState(ownState([], { position: 6_001n, realizedPnl: 40_000n }));
    expectViolation(invariant.check(b.build(), {}), 'accounting', 60_000, 'MON_USDC: the engine reports position 6001, but the sum of signed fill sizes (size units) gives 6000 (2 fills, from flat)');
  });

  it('fails a realized PnL one unit off average cost', () => {
    const b = new RecordBuilder();
    b.fill(1_000, { side: 'BUY', size: 10_000n, price: 350_000n });
    b.fill(2_000, { side: 'SELL', size: 4_000n, price: 360_000n });
    b.finalState(ownState([], { position: 6_000n, realizedPnl: 40_001n }));
    expectViolation(invariant.check(b.build(), {}), 'accounting', 60_000, 'the engine reports realized PnL 40001, but average cost over the fills (raw USDC units) gives 40000');
  });

  it('releases a short’s cost truncated toward zero', () => {
    const b = new RecordBuilder();
    b.fill(1_000, { side: 'SELL', size: 100n, price: 350_000n }); // brings in 35_000
    b.fill(1_100, { side: 'SELL', size: 200n, price: 350_010n }); // and 70_002: cost −105_002 for −300
    b.fill(2_000, { side: 'BUY', size: 100n, price: 340_000n }); // pays 34_000; releases −105_002 × 100 / 300 = −35_000.67 → −35_000
    b.finalState(ownState([], { position: -200n, realizedPnl: 1_000n }));
    expect(invariant.check(b.build(), {})).toBeUndefined();
    b.finalState(ownState([], { position: -200n, realizedPnl: 1_001n }));
    expectViolation(invariant.check(b.build(), {}), 'accounting', 60_000, 'realized PnL 1001', 'gives 1000');
  });

  it('splits a fill that flips the position: the rest opens at the fill’s price', () => {
    const b = new RecordBuilder();
    b.fill(1_000, { side: 'BUY', size: 1_000n, price: 350_000n }); // cost 350_000
    b.fill(2_000, { side: 'SELL', size: 3_000n, price: 360_000n }); // 1_080_000: 360_000 closes (+10_000), 720_000 opens a short
    b.fill(3_000, { side: 'BUY', size: 2_000n, price: 350_000n }); // pays 700_000 for a short that brought in 720_000: +20_000
    b.finalState(ownState([], { position: 0n, realizedPnl: 30_000n }));
    expect(invariant.check(b.build(), {})).toBeUndefined();
  });

  it('starts from the opening fills: their cost is what a later sale is judged against', () => {
    const b = new RecordBuilder();
    b.openingFill(-1_000, { side: 'BUY', size: 10_000n, price: 350_000n });
    b.fill(1_000, { side: 'SELL', size: 10_000n, price: 351_000n });
    b.finalState(ownState([], { position: 0n, realizedPnl: 10_000n }));
    expect(invariant.check(b.build(), {})).toBeUndefined();
    b.finalState(ownState([], { position: -10_000n, realizedPnl: 0n }));
    expectViolation(invariant.check(b.build(), {}), 'accounting', 60_000, 'position -10000', 'gives 0 (2 fills, opening fills included)');
  });

  it('accounts fills in the order they happened, not the order they were reported', () => {
    const b = new RecordBuilder();
    b.fill(2_000, { side: 'SELL', size: 4_000n, price: 360_000n });
    b.fill(1_000, { side: 'BUY', size: 5_000n, price: 350_000n });
    b.fill(1_500, { side: 'BUY', size: 5_000n, price: 340_000n });
    // Held 10_000 at 3_450_000; the sale releases 1_380_000 for 1_440_000. (Reported order would give 40_000.)
    b.finalState(ownState([], { position: 6_000n, realizedPnl: 60_000n }));
    expect(invariant.check(b.build(), {})).toBeUndefined();
  });

  it('fails a fee that is not the fill’s liquidity rate, or negative, at the fill', () => {
    const b = new RecordBuilder();
    b.fill(1_000, { side: 'BUY', size: 10_000n, price: 350_000n, liquidity: 'taker' }); // 3_500_000 × 2 bp = 700
    b.finalState(ownState([], { position: 10_000n, fees: 700n }));
    expect(invariant.check(b.build(), {})).toBeUndefined();
    b.fill(1_500, { side: 'BUY', size: 10_000n, price: 350_000n, liquidity: 'taker', fee: 699n, orderId: 9n });
    expectViolation(invariant.check(b.build(), {}), 'accounting', 1_500, 'MON_USDC: the BUY fill of order 9 (10000 @ 350000, at 1500 ms', 'paid a fee of 699 raw USDC units where its taker rate on 3500000 gives 700');
    const negative = new RecordBuilder();
    negative.fill(800, { side: 'SELL', size: 100n, price: 350_000n, fee: -1n });
    expectViolation(invariant.check(negative.build(), {}), 'accounting', 800, 'paid a fee of -1 raw USDC units, a negative fee, where its maker rate on 35000 gives 0');
  });

  it('fails fees that do not add up to the fills’ fees', () => {
    const b = new RecordBuilder();
    b.fill(1_000, { side: 'BUY', size: 10_000n, price: 350_000n, liquidity: 'taker' });
    b.fill(2_000, { side: 'SELL', size: 10_000n, price: 350_000n, liquidity: 'taker' });
    b.finalState(ownState([], { position: 0n, fees: 1_399n }));
    expectViolation(invariant.check(b.build(), {}), 'accounting', 60_000, 'the engine reports fees 1399', "the sum of the fills' fees (raw USDC units) gives 1400");
  });

  it('judges each market on its own fills, at the end of the run', () => {
    const b = new RecordBuilder([MON, WETH]);
    b.durationMs = 30_000;
    b.fill(1_000, { side: 'BUY', size: 100n, price: 300_000n, market: WETH });
    b.finalState(ownState([], { position: 0n }));
    b.state(31_000, ownState([], { market: WETH, position: 100n }), WETH.symbol);
    expect(invariant.check(b.build(), {})).toBeUndefined();
    b.state(32_000, ownState([], { market: WETH, position: 99n }), WETH.symbol);
    expectViolation(invariant.check(b.build(), {}), 'accounting', 32_000, 'WETH_USDC: the engine reports position 99');
  });

  it('agrees with the engine’s average cost on any sequence of fills (and not one unit off it)', () => {
    const fill = fc.record({
      side: fc.constantFrom('BUY' as const, 'SELL' as const),
      size: fc.bigInt({ min: 1n, max: 50_000n }),
      price: fc.bigInt({ min: 1n, max: 100_000n }).map((ticks) => ticks * MON.tickSize),
      liquidity: fc.constantFrom('maker' as const, 'taker' as const),
    });
    fc.assert(
      fc.property(fc.array(fill, { minLength: 1, maxLength: 30 }), (fills) => {
        const b = new RecordBuilder();
        let position = FLAT_POSITION;
        let fees = 0n;
        fills.forEach((each, index) => {
          const recorded = b.fill(1_000 + index, each);
          position = applyFill(position, each.side, each.size, quoteRaw(amountScale(MON), each.price, each.size));
          fees += recorded.fee;
        });
        b.finalState(ownState([], { position: position.size, realizedPnl: position.realized, fees }));
        expect(invariant.check(b.build(), {})).toBeUndefined();
        b.finalState(ownState([], { position: position.size, realizedPnl: position.realized + 1n, fees }));
        expect(invariant.check(b.build(), {})?.message).toContain('realized PnL');
      }),
      fuzzSettings({ numRuns: 300, seed: 20_261_132 }),
    );
  });
});
