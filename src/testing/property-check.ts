/**
 * The property runner of `checkStrategy`: `runs` scenarios drawn from `seed`, each run through the
 * real engine on the venue model (run-scenario.ts) and held to the invariants (the default ones and
 * the author's own). The first violation is shrunk by fast-check toward a smaller scenario (fewer and
 * shorter segments, fewer faults, simpler regimes) and simpler params; the result names the
 * invariant, the seed and path that replay it, the shrunk scenario and what happened around the
 * violation. Shrinking keeps to the invariant first broken.
 */
import fc from 'fast-check';
import type { z } from 'zod';
import { BaseError } from '../core/base-error.ts';
import type { RiskConfig } from '../config/run-config.ts';
import type { StrategyDefinition } from '../strategy/define-strategy.ts';
import type { OwnFill } from '../strategy/strategy-context.ts';
import { checkInvariants, DEFAULT_INVARIANTS, type Invariant, type InvariantOptions, type InvariantViolation } from './invariants/index.ts';
import type { RunRecord } from './run-record.ts';
import { fuzzSettings } from './fuzz-settings.ts';
import { runScenario } from './run-scenario.ts';
import { scenarioArbitrary, type ScenarioArbitraryOptions } from './scenario-arbitraries.ts';
import type { Scenario } from './scenario.ts';
import type { TimedIntent, TimedState } from './scripted-market.ts';

/** The invariant a run breaks when the strategy (or its run) fails outright: it throws, errors, or cannot start. */
export const RUN_COMPLETES = 'run-completes';

/** How long before and after a violation `failure.around` shows, ms. */
const AROUND_MS = 5_000;

export interface PropertyCheckOptions<S extends z.ZodType = z.ZodType> {
  /** Scenarios to run. */
  readonly runs: number;
  /** Seeds the draw of the scenarios (and params): same seed, same runs. Default 1. `CLOBBOT_FUZZ_SEED`, `CLOBBOT_FUZZ_PATH` and `CLOBBOT_FUZZ_RUNS` override seed, path and runs. */
  readonly seed?: number;
  /** Replays one path of a failure (what `failure.path` said), without shrinking further. */
  readonly path?: string;
  /** Params: fixed, or drawn for each run (e.g. `paramsArbitrary(schema, bounds)`). */
  readonly params: z.input<S> | fc.Arbitrary<z.input<S>>;
  /** What scenarios to draw (the market, lengths, faults, regimes). */
  readonly scenarios?: ScenarioArbitraryOptions;
  /** The run's risk limits (run-file form). Default open. */
  readonly risk?: Partial<RiskConfig>;
  /** Invariants to hold: default DEFAULT_INVARIANTS. */
  readonly invariants?: readonly Invariant[];
  /** The author's own invariants, held besides those. */
  readonly extraInvariants?: readonly Invariant[];
  /** Settings of the invariants (the strategy's own position limit, quoting blind on purpose…). */
  readonly invariantOptions?: InvariantOptions;
}

/** What happened around a violation. */
export interface ViolationContext {
  readonly intents: readonly TimedIntent[];
  readonly fills: readonly OwnFill[];
  readonly states: readonly TimedState[];
}

export interface PropertyFailure {
  readonly violation: InvariantViolation;
  /** fast-check's seed and path: `checkStrategy(…, { seed, path })` (or CLOBBOT_FUZZ_SEED/PATH) replays it. */
  readonly seed: number;
  readonly path: string;
  /** The shrunk scenario and params. */
  readonly scenario: Scenario;
  readonly params: unknown;
  /** Shrinking steps taken. */
  readonly shrinks: number;
  /** The intents, fills and states within AROUND_MS of the violation. */
  readonly around: ViolationContext;
  /** The whole record of the shrunk run. */
  readonly record: RunRecord;
}

export interface PropertyCheckResult {
  readonly ok: boolean;
  /** Scenarios run (shrinking runs not counted). */
  readonly runs: number;
  readonly failure?: PropertyFailure;
}

const isArbitrary = (value: unknown): value is fc.Arbitrary<unknown> => value instanceof fc.Arbitrary;

const earliest = (violations: readonly InvariantViolation[]) => violations.reduce<InvariantViolation | undefined>((first, violation) => (first === undefined || violation.at < first.at ? violation : first), undefined);

/** The earliest violation of `invariants` in `record`. */
export function firstViolation(record: RunRecord, invariants: readonly Invariant[], options: InvariantOptions): InvariantViolation | undefined {
  return earliest(checkInvariants(record, invariants, options));
}

function around(record: RunRecord, at: number): ViolationContext {
  const near = (time: number) => time >= at - AROUND_MS && time <= at + AROUND_MS;
  const [symbol] = record.markets.keys();
  return {
    intents: record.intents.filter((entry) => near(entry.at)),
    fills: record.fills,
    states: (record.states.get(symbol!) ?? []).filter((entry) => near(entry.at)),
  };
}

/**
 * @example
 * const result = await propertyCheck(marketMaker, { runs: 50, seed: 7, params, scenarios: { market: monUsdc } });
 * if (!result.ok) console.log(result.failure.violation.message);
 */
export async function propertyCheck<S extends z.ZodType>(definition: StrategyDefinition<S>, options: PropertyCheckOptions<S>): Promise<PropertyCheckResult> {
  if (!Number.isInteger(options.runs) || options.runs < 1) throw new BaseError('STRATEGY_CHECK_INVALID', `runs must be a positive integer, got ${options.runs}`);
  const invariants = [...(options.invariants ?? DEFAULT_INVARIANTS), ...(options.extraInvariants ?? [])];
  const invariantOptions = options.invariantOptions ?? {};
  const params = isArbitrary(options.params) ? (options.params as fc.Arbitrary<z.input<S>>) : fc.constant(options.params as z.input<S>);
  const seed = options.seed ?? 1;
  let last: { scenario: Scenario; params: unknown; record: RunRecord; violation: InvariantViolation } | undefined;
  let runs = 0;
  let shrinking = false;
  let target: string | undefined;
  const property = fc.asyncProperty(scenarioArbitrary(options.scenarios), params, async (scenario, drawn) => {
    if (!shrinking) runs += 1;
    const record = await runScenario(definition, scenario, { params: drawn, ...(options.risk === undefined ? {} : { risk: options.risk }) });
    const violations: InvariantViolation[] = record.error !== undefined ? [{ invariant: RUN_COMPLETES, at: record.stoppedAt ?? 0, message: record.error }] : checkInvariants(record, invariants, invariantOptions);
    // While shrinking, a smaller case fails only by breaking the invariant found first: shrinking
    // never wanders from one bug to another.
    const violation = earliest(target === undefined ? violations : violations.filter((found) => found.invariant === target));
    if (violation === undefined) return true;
    target ??= violation.invariant;
    last = { scenario, params: drawn, record, violation };
    shrinking = true;
    return false;
  });
  // The replay convention: CLOBBOT_FUZZ_SEED, CLOBBOT_FUZZ_PATH and CLOBBOT_FUZZ_RUNS override the options.
  const chosen = fuzzSettings({ numRuns: options.runs, seed });
  const path = (chosen.path as string | undefined) ?? options.path;
  const details = await fc.check(property, { numRuns: chosen.numRuns ?? options.runs, seed: chosen.seed ?? seed, ...(path === undefined ? {} : { path, endOnFailure: true }) });
  if (!details.failed) return { ok: true, runs };
  // The property only returns false with `last` set; anything else is an error of the run itself.
  if (last === undefined) throw details.errorInstance ?? new BaseError('STRATEGY_CHECK_INVALID', 'the property check failed without a violation');
  const found: { scenario: Scenario; params: unknown; record: RunRecord; violation: InvariantViolation } = last;
  return {
    ok: false,
    runs,
    failure: {
      violation: found.violation,
      seed: details.seed,
      path: details.counterexamplePath ?? '',
      scenario: found.scenario,
      params: found.params,
      shrinks: details.numShrinks,
      around: around(found.record, found.violation.at),
      record: found.record,
    },
  };
}
