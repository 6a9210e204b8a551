/**
 * The property kit catches planted bugs: each quoter of test/testing/planted/ with one bug is
 * reported by checkStrategy with the invariant that bug breaks and a shrunk scenario, and the correct
 * quoter passes every run. The runs are real: the strategy through the engine on the venue model.
 */
import { describe, expect, it } from 'vitest';
import { assertStrategy, checkStrategy, formatPropertyFailure } from '../../src/testing/index.ts';
import { isBaseError } from '../../src/core/base-error.ts';
import { PLANTED_BUGS, plantedCheck, quoterCheckOptions } from './planted/planted-bugs.ts';
import { plantedQuoter } from './planted/quoter.ts';
import { monUsdc } from '../strategies/fixtures.ts';

const totalSteps = (segments: readonly { steps: number }[]) => segments.reduce((sum, segment) => sum + segment.steps, 0);

describe('planted bugs', () => {
  for (const bug of PLANTED_BUGS) {
    it(`finds "${bug.name}" as ${bug.invariant}, shrunk`, async () => {
      const result = await plantedCheck(bug);
      expect(result.ok).toBe(false);
      const failure = result.failure!;
      expect(failure.violation.invariant, failure.violation.message).toBe(bug.invariant);
      // Shrunk: a short scenario with few parts.
      expect(failure.scenario.segments.length).toBeLessThanOrEqual(3);
      expect(totalSteps(failure.scenario.segments)).toBeLessThanOrEqual(30);
      expect(failure.scenario.faults.length).toBeLessThanOrEqual(1);
      // The seed and path replay the same violation in one run.
      const replay = await checkStrategy(plantedQuoter(bug.name.replaceAll(' ', '-'), bug.bugs), { ...quoterCheckOptions(bug.scenarios, 1, failure.seed), path: failure.path });
      expect(replay.failure?.violation).toEqual(failure.violation);
      // Finding and shrinking takes up to 10 s alone, twice that beside other test files on two cores.
    }, 60_000);
  }
});

describe('the correct quoter', () => {
  it('passes every run, faults and kill switch included (no false alarm)', async () => {
    const fixed = await checkStrategy(plantedQuoter('correct'), quoterCheckOptions({ market: monUsdc, mid: 350_000n, maxSteps: 60 }, 80, 11));
    expect(fixed.failure?.violation).toBeUndefined();
    expect(fixed).toMatchObject({ ok: true, runs: 80 });
  });

  it('passes on drawn markets of every precision', async () => {
    const drawn = await checkStrategy(plantedQuoter('correct'), quoterCheckOptions({ maxSteps: 30, maxFaults: 0, kill: false }, 30, 5));
    expect(drawn.failure?.violation).toBeUndefined();
    expect(drawn.ok).toBe(true);
  });

  it('replays a failure from the variables its report prints, in one run', async () => {
    const bug = PLANTED_BUGS.find((entry) => entry.bugs.ignoresStaleFeed)!;
    const found = await plantedCheck(bug);
    const [seed, path] = /CLOBBOT_FUZZ_SEED=(\S+) CLOBBOT_FUZZ_PATH=(\S+)/.exec(formatPropertyFailure(found.failure!, 'q'))!.slice(1);
    const saved = { seed: process.env['CLOBBOT_FUZZ_SEED'], path: process.env['CLOBBOT_FUZZ_PATH'] };
    try {
      process.env['CLOBBOT_FUZZ_SEED'] = seed;
      process.env['CLOBBOT_FUZZ_PATH'] = path;
      // Other seed and runs in the options: the variables win.
      const replayed = await plantedCheck(bug, 500, 99);
      expect(replayed.runs).toBe(1);
      expect(replayed.failure?.violation).toEqual(found.failure!.violation);
    } finally {
      for (const [name, value] of [['CLOBBOT_FUZZ_SEED', saved.seed], ['CLOBBOT_FUZZ_PATH', saved.path]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('assertStrategy throws a readable report with the replay line for a planted bug', async () => {
    const bug = PLANTED_BUGS.find((entry) => entry.bugs.reusesSlot)!;
    const error = await assertStrategy(plantedQuoter('reuses-a-slot', bug.bugs), quoterCheckOptions(bug.scenarios, 50, 1)).catch((caught: unknown) => caught);
    expect(isBaseError(error) && error.code).toBe('STRATEGY_PROPERTY_FAILED');
    const message = (error as Error).message;
    expect(message).toMatch(/^reuses-a-slot broke invariant "valid-intents" at 0 ms: /);
    expect(message).toMatch(/replay: CLOBBOT_FUZZ_SEED=1 CLOBBOT_FUZZ_PATH=[0-9:]+/);
    expect(message).toMatch(/segment 1: \{"kind":"calm"\} for 1 s/);
    expect(message).toMatch(/0 ms intent \{"type":"ReplaceSlots"/);
  });
});
