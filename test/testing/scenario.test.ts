import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { marketSpecIssues } from '../../src/protocol/market-spec.ts';
import { bookInUnits } from '../../src/testing/scripted-market.ts';
import { expandScenario, scenarioDurationMs, startBook, STEP_MS, type Regime, type Scenario, type ScenarioStep } from '../../src/testing/scenario.ts';
import { bookArbitrary, marketSpecArbitrary, paramsArbitrary, scenarioArbitrary, tapeArbitrary } from '../../src/testing/scenario-arbitraries.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';
import { marketMakerParams } from '../../strategies/market-maker.ts';
import { monUsdc } from '../strategies/fixtures.ts';

const base: Scenario = { market: monUsdc, mid: 350_000n, halfSpreadTicks: 2, levels: 5, levelSize: 10, tradePct: 0, segments: [], faults: [], seed: 3 };
const withRegime = (regime: Regime, steps = 10, extra: Partial<Scenario> = {}): Scenario => ({ ...base, ...extra, segments: [{ regime, steps }] });
const books = (steps: readonly ScenarioStep[]) => steps.flatMap((step) => ('book' in step ? [bookInUnits(step.book, monUsdc)] : []));
const trades = (steps: readonly ScenarioStep[]) => steps.filter((step) => 'trade' in step);

/** A book is valid for its market: best first, uncrossed, distinct prices on the tick, sizes in bounds. */
function expectValidBook(book: ReturnType<typeof bookInUnits>, spec = monUsdc) {
  for (const [side, levels] of [['bids', book.bids], ['asks', book.asks]] as const) {
    for (let i = 0; i < levels.length; i += 1) {
      const level = levels[i]!;
      expect(level.price % spec.tickSize, `${side} ${level.price} on the tick`).toBe(0n);
      expect(level.price > 0n).toBe(true);
      expect(level.size >= spec.minSize && level.size <= spec.maxSize, `${side} size ${level.size}`).toBe(true);
      if (i > 0) expect(side === 'bids' ? level.price < levels[i - 1]!.price : level.price > levels[i - 1]!.price, `${side} sorted`).toBe(true);
    }
  }
  if (book.bids[0] !== undefined && book.asks[0] !== undefined) expect(book.bids[0].price < book.asks[0].price, 'uncrossed').toBe(true);
}

describe('scenarios', () => {
  it('expand to the same steps for the same scenario, a book a step, in time order, within its length', () => {
    const scenario: Scenario = { ...base, tradePct: 50, segments: [{ regime: { kind: 'calm' }, steps: 30 }, { regime: { kind: 'burst', tradesPerStep: 3 }, steps: 5 }] };
    const steps = expandScenario(scenario);
    expect(expandScenario(scenario)).toEqual(steps);
    expect(books(steps)).toHaveLength(35);
    expect(steps.map((step) => step.at)).toEqual([...steps.map((step) => step.at)].sort((a, b) => a - b));
    expect(Math.max(...steps.map((step) => step.at))).toBeLessThan(scenarioDurationMs(scenario));
    expect(scenarioDurationMs(scenario)).toBe(36 * STEP_MS);
    expect(trades(steps).filter((step) => step.at > 30 * STEP_MS)).toHaveLength(15);
  });

  it('give each regime its shape', () => {
    const mids = (steps: readonly ScenarioStep[]) => books(steps).map((book) => (book.bids[0]!.price + book.asks[0]!.price) / 2n);
    const up = mids(expandScenario(withRegime({ kind: 'trend', bpsPerStep: 20 })));
    expect(up.every((mid, i) => i === 0 || mid > up[i - 1]!)).toBe(true);
    expect(books(expandScenario(withRegime({ kind: 'one-sided', side: 'bids' }))).every((book) => book.asks.length === 0 && book.bids.length === 5)).toBe(true);
    expect(books(expandScenario(withRegime({ kind: 'empty' }))).every((book) => book.asks.length === 0 && book.bids.length === 0)).toBe(true);
    expect(books(expandScenario(withRegime({ kind: 'locked' }))).every((book) => book.asks[0]!.price - book.bids[0]!.price === monUsdc.tickSize)).toBe(true);
    expect(books(expandScenario(withRegime({ kind: 'thin' }))).every((book) => book.bids.length === 1 && book.bids[0]!.size === monUsdc.minSize)).toBe(true);
    expect(books(expandScenario(withRegime({ kind: 'thick' }))).every((book) => book.bids.length === 20)).toBe(true);
    const jumps = books(expandScenario(withRegime({ kind: 'jumps', jumpBps: 100, everySteps: 5 })));
    expect(jumps.filter((book) => book.bids.length === 0)).toHaveLength(2);
    const stale = expandScenario(withRegime({ kind: 'stale' }, 10));
    expect(stale.filter((step) => 'fault' in step)).toEqual([
      { at: STEP_MS, fault: { action: 'set', settings: { marketDataErrorRate: 1 } } },
      { at: 10.5 * STEP_MS, fault: { action: 'set', settings: { marketDataErrorRate: 0 } } },
    ]);
    const reverting = mids(expandScenario(withRegime({ kind: 'mean-reversion', pullPct: 50, noiseBps: 5 }, 50)));
    for (const mid of reverting) expect(mid > 340_000n && mid < 360_000n, `mid ${mid} near the start`).toBe(true);
  });

  it('keep every book valid for the market, whatever the scenario', () => {
    fc.assert(
      fc.property(scenarioArbitrary({ maxSteps: 60 }), (scenario) => {
        expect(marketSpecIssues(scenario.market)).toEqual([]);
        expectValidBook(bookInUnits(startBook(scenario), scenario.market), scenario.market);
        const duration = scenarioDurationMs(scenario);
        for (const step of expandScenario(scenario)) {
          expect(step.at).toBeLessThan(duration);
          if ('book' in step) expectValidBook(bookInUnits(step.book, scenario.market), scenario.market);
        }
        if (scenario.killAt !== undefined) expect(scenario.killAt).toBeLessThan(duration);
      }),
      fuzzSettings({ numRuns: 200, seed: 20_261_126 }),
    );
  });
});

describe('arbitraries', () => {
  it('make valid market specs, books valid for them and tapes consistent with the book', () => {
    fc.assert(
      fc.property(
        marketSpecArbitrary().chain((spec) => bookArbitrary(spec).chain((book) => tapeArbitrary(spec, book).map((tape) => ({ spec, book, tape })))),
        ({ spec, book, tape }) => {
          expect(marketSpecIssues(spec)).toEqual([]);
          const units = bookInUnits(book, spec);
          expectValidBook(units, spec);
          for (const trade of tape) {
            const levels = trade.isBuyerMaker ? units.bids : units.asks;
            const level = levels.find((candidate) => candidate.price === BigInt(trade.price));
            expect(level, `trade at ${trade.price} meets a level`).toBeDefined();
            expect(BigInt(trade.qty) <= level!.size && BigInt(trade.qty) > 0n).toBe(true);
          }
        },
      ),
      fuzzSettings({ numRuns: 300, seed: 20_261_127 }),
    );
  });

  it("draw params from the strategy's own schema within the author's bounds", () => {
    const bounds = { size: { min: '100', max: '5000', step: '100' }, maxInventory: { min: '5000', max: '50000', step: '1000' }, levels: [1, 3] as const };
    fc.assert(
      fc.property(paramsArbitrary(marketMakerParams, bounds), (params) => {
        const parsed = marketMakerParams.parse(params);
        expect(parsed.levels >= 1 && parsed.levels <= 3).toBe(true);
        expect(Number(parsed.size) >= 100 && Number(parsed.size) <= 5000 && Number(parsed.size) % 100 === 0).toBe(true);
        expect(parsed.spreadBps >= 0 && parsed.spreadBps <= 5000).toBe(true);
        expect(['mid', 'microprice']).toContain(parsed.priceSource);
      }),
      fuzzSettings({ numRuns: 200, seed: 20_261_128 }),
    );
    expect(() => paramsArbitrary(marketMakerParams, {})).toThrow(/param size needs a bound/);
    expect(() => paramsArbitrary(marketMakerParams, { ...bounds, sizes: [1, 2] })).toThrow(/bounds for params the strategy does not have: sizes/);
  });

  it('make scenarios of exactly the steps asked for', () => {
    fc.assert(
      fc.property(scenarioArbitrary({ market: monUsdc, steps: 600 }), (scenario) => {
        expect(scenario.segments.reduce((sum, segment) => sum + segment.steps, 0)).toBe(600);
        expect(scenario.segments.every((segment) => segment.steps >= 1)).toBe(true);
        expect(scenarioDurationMs(scenario)).toBe(601 * STEP_MS);
      }),
      fuzzSettings({ numRuns: 100, seed: 20_261_129 }),
    );
  });

  it('shrink a scenario toward fewer, calmer, shorter segments and no faults', () => {
    // A property that fails for every scenario: its counterexample is the simplest one.
    const details = fc.check(
      fc.property(scenarioArbitrary({ market: monUsdc, mid: 350_000n }), () => false),
      { seed: 5, numRuns: 1 },
    );
    const [scenario] = details.counterexample as [Scenario];
    expect(scenario.segments).toEqual([{ regime: { kind: 'calm' }, steps: 1 }]);
    expect(scenario.faults).toEqual([]);
    expect(scenario.killAt).toBeUndefined();
  });
});
