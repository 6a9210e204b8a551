/**
 * The property kit's figures (issue 14): 100 scenarios of the reference market maker, each a
 * simulated 10 minutes, through the real engine on the venue model and held to every invariant; and
 * the time to find and shrink each planted bug (test/testing/planted/) with the same runner.
 * Each figure is one whole `checkStrategy` property run; the report adds what the planted runs found.
 */
import { toUnits } from '../src/core/units.ts';
import marketMaker from '../strategies/market-maker.ts';
import { checkStrategy } from '../src/testing/check-strategy.ts';
import type { PropertyCheckResult } from '../src/testing/property-check.ts';
import { PLANTED_BUGS, plantedCheck } from '../test/testing/planted/planted-bugs.ts';
import { monUsdc } from '../test/strategies/fixtures.ts';
import type { Benchmark } from './harness.ts';

const params = { levels: 3, spreadBps: 5, levelSpacingBps: 3, size: '2000', maxInventory: '7000', skewBps: 15, requoteThresholdBps: 2 } as const;
const found: string[] = [];

export const benchmarks: readonly Benchmark[] = [
  {
    name: 'property kit: 100 ten-minute scenarios of the market maker',
    unit: 'scenarios',
    runs: 1,
    warmup: async () => undefined,
    run: async () => {
      const result = await checkStrategy(marketMaker, { runs: 100, seed: 1, params, scenarios: { market: monUsdc, mid: 350_000n, steps: 600 }, invariantOptions: { positionLimit: (_params, market) => toUnits(params.maxInventory, market.sizePrecision, 'down') } });
      if (!result.ok) found.push(`market maker: ${result.failure?.violation.invariant} (${result.failure?.violation.message.slice(0, 120)})`);
      return result.runs;
    },
  },
  ...PLANTED_BUGS.map(
    (bug): Benchmark => ({
      name: `property kit: find and shrink "${bug.name}"`,
      unit: 'bugs',
      runs: 1,
      warmup: async () => undefined,
      run: async () => {
        const result: PropertyCheckResult = await plantedCheck(bug);
        const failure = result.failure;
        found.push(
          failure === undefined
            ? `${bug.name}: NOT FOUND in ${result.runs} runs`
            : `${bug.name}: ${failure.violation.invariant} after ${result.runs} runs, ${failure.shrinks} shrinks, to ${failure.scenario.segments.length} segment(s) / ${failure.scenario.segments.reduce((sum, segment) => sum + segment.steps, 0)} s / ${failure.scenario.faults.length} fault(s)`,
        );
        return 1;
      },
    }),
  ),
];

export function report(): string {
  return found.map((line) => `  ${line}`).join('\n');
}
