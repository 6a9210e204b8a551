/**
 * The planted bugs the kit must find: each a quoter with one bug, the invariant that must catch it,
 * and the scenarios that give it the chance (a fixed market unless the bug needs other precisions).
 */
import { toUnits } from 'clobbot';
import { checkStrategy } from '../../../src/testing/check-strategy.ts';
import type { PropertyCheckOptions, PropertyCheckResult } from '../../../src/testing/property-check.ts';
import type { ScenarioArbitraryOptions } from '../../../src/testing/scenario-arbitraries.ts';
import { monUsdc } from '../../strategies/fixtures.ts';
import { plantedQuoter, type QuoterBugs, type QuoterParams } from './quoter.ts';

export interface PlantedBug {
  readonly name: string;
  readonly bugs: QuoterBugs;
  /** The invariant that must report it. */
  readonly invariant: string;
  readonly scenarios: ScenarioArbitraryOptions;
}

/** 20 MON quotes, at most 60 MON of position either way. */
export const QUOTER_PARAMS = { size: '20', maxPosition: '60' } as const;
/** One-minute scenarios: enough for each bug to show, short enough to run hundreds. */
const SHORT = { maxSteps: 60 } as const;
const onMonUsdc: ScenarioArbitraryOptions = { market: monUsdc, mid: 350_000n, ...SHORT };

export const PLANTED_BUGS: readonly PlantedBug[] = [
  { name: 'ignores its inventory limit in a trend', bugs: { ignoresInventory: true }, invariant: 'position-limit', scenarios: onMonUsdc },
  { name: 'quotes off the tick for some precisions', bugs: { offTick: true }, invariant: 'valid-intents', scenarios: SHORT },
  { name: 'reuses a slot', bugs: { reusesSlot: true }, invariant: 'valid-intents', scenarios: onMonUsdc },
  { name: 'keeps placing after the kill switch', bugs: { ignoresHalt: true }, invariant: 'kill-switch', scenarios: onMonUsdc },
  { name: 'crosses its own orders', bugs: { crossesItself: true }, invariant: 'no-self-cross', scenarios: onMonUsdc },
  { name: 'never cancels when its feed goes stale', bugs: { ignoresStaleFeed: true }, invariant: 'stale-feed', scenarios: onMonUsdc },
  { name: 'sizes below the minimum on thin books', bugs: { sizesFromBook: true }, invariant: 'valid-intents', scenarios: onMonUsdc },
  { name: 'resumes quoting after its own halt', bugs: { resumesAfterHalt: true }, invariant: 'kill-switch', scenarios: onMonUsdc },
];

/** The check's options for a quoter: its own position limit is `maxPosition` in the market's size units. */
export function quoterCheckOptions(scenarios: ScenarioArbitraryOptions, runs: number, seed: number): PropertyCheckOptions<QuoterParams> {
  return {
    runs,
    seed,
    params: QUOTER_PARAMS,
    scenarios,
    invariantOptions: { positionLimit: (params, market) => toUnits((params as typeof QUOTER_PARAMS).maxPosition, market.sizePrecision, 'down') },
  };
}

/** Runs the property check on the quoter with `bug`: up to 200 scenarios from seed 1. */
export function plantedCheck(bug: PlantedBug, runs = 200, seed = 1): Promise<PropertyCheckResult> {
  return checkStrategy(plantedQuoter(bug.name.replaceAll(' ', '-'), bug.bugs), quoterCheckOptions(bug.scenarios, runs, seed));
}
