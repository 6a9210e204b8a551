/**
 * The reference strategies under the property kit: each runs over drawn scenarios (regimes, the
 * connection's faults, the kill switch) through the real engine on the venue model and holds every
 * default invariant, and the market maker its own: its position never passes maxInventory by more
 * than the quotes it already had resting when a fill came (its view of the position lags the venue).
 * Replay a failure with the CLOBBOT_FUZZ_SEED and CLOBBOT_FUZZ_PATH it prints (docs/testing.md).
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { toUnits } from 'clobbot';
import { assertStrategy, paramsArbitrary } from 'clobbot/testing';
import marketMaker, { marketMakerParams } from '../../strategies/market-maker.ts';
import grid from '../../strategies/grid.ts';
import twap from '../../strategies/twap.ts';
import { monUsdc } from './fixtures.ts';

/** One-minute scenarios on MON_USDC around 0.035. */
const scenarios = { market: monUsdc, mid: 350_000n, maxSteps: 60 } as const;
/** Runs and seed of a check (CLOBBOT_FUZZ_SEED, CLOBBOT_FUZZ_PATH and CLOBBOT_FUZZ_RUNS override them). */
const settings = (runs: number, seed: number) => ({ runs, seed });

describe('reference strategies under the property kit', () => {
  it('market-maker holds every invariant over drawn params and scenarios', async () => {
    const params = paramsArbitrary(marketMakerParams, {
      levels: [1, 3],
      spreadBps: [1, 20],
      levelSpacingBps: [0, 10],
      size: { min: '500', max: '3000', step: '500' },
      maxInventory: { min: '10000', max: '30000', step: '5000' },
      targetInventory: { oneOf: ['0'] },
      skewBps: [0, 30],
      requoteThresholdBps: [1, 10],
    });
    await assertStrategy(marketMaker, {
      ...settings(25, 20_261_126),
      params,
      scenarios,
      // Its own limit, with the quotes of one side resting when a fill comes: the view lags the venue.
      invariantOptions: {
        positionLimit: (drawn, market) => {
          const p = marketMakerParams.parse(drawn);
          return toUnits(p.maxInventory, market.sizePrecision, 'down') + BigInt(p.levels) * toUnits(p.size, market.sizePrecision, 'down');
        },
      },
    });
  }, 120_000);

  it('grid holds every invariant (stale-feed aside: it quotes blind)', async () => {
    // A grid rests at its levels whatever the book does: it quotes blind on purpose.
    await assertStrategy(grid, { ...settings(15, 20_261_127), params: { levels: 3, stepBps: 10, size: '100' }, scenarios, invariantOptions: { quotesBlind: true } });
  }, 120_000);

  it('twap holds every invariant, buying and selling', async () => {
    await assertStrategy(twap, {
      ...settings(15, 20_261_128),
      params: fc.record({ side: fc.constantFrom('BUY', 'SELL'), quantity: fc.constantFrom('100', '1000'), duration: fc.constant('30s'), slices: fc.integer({ min: 1, max: 10 }) }),
      scenarios,
    });
  }, 120_000);
});
