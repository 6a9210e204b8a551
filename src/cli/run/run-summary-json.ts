/**
 * The machine-readable summary of a run (`clobbot run --summary <file.json>`): every figure of the
 * printed summary, per market, for the engine and per strategy (with the figures each strategy
 * reported), as plain JSON (amounts as human decimal strings, as printed). Nothing in it reads the wall clock: `elapsedMs` is the run's own
 * clock time, so two virtual runs of the same file, seed and code write the same bytes.
 */
import { ownStats, type RunSummaryInput } from './run-report.ts';
import { describeStop } from '../../runtime/stop-reason.ts';
import type { StrategyFiguresOutcome } from '../../runtime/strategy-host.ts';
import type { StrategyFigures } from '../../strategy/strategy-figures.ts';

/** The JSON summary's format version; bumped when a field changes meaning or goes (2: a market's fills, volume and fees and the engine's counts are the run's own, what an earlier run left is `carriedOver`). */
export const RUN_SUMMARY_VERSION = 2;

/** Map entries as an object with sorted keys, so the JSON does not depend on insertion order. */
function sortedObject<V>(entries: Iterable<readonly [string, V]>): Record<string, V> {
  return Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** `{status: 'checked'}`, `{status: 'not-run'}`, or `{status: 'failed', reason, mayBeOpen: [{symbol, orderIds, withoutId}]}` (ids as strings). */
function openOrdersCheckJson(report: RunSummaryInput): unknown {
  const check = report.openCheck ?? { status: 'not-run' };
  if (check.status !== 'failed') return { status: check.status };
  return {
    status: 'failed',
    reason: check.reason,
    mayBeOpen: check.mayBeOpen.map((market) => ({ symbol: market.symbol, orderIds: market.orderIds.map(String), withoutId: market.withoutId })),
  };
}

/**
 * A strategy's reported figures as its summary entry holds them: `figures` (null when it reported
 * none) and `figuresError` (`{code, message}` when its callback failed, else null).
 */
export function strategyFiguresJson(outcome: StrategyFiguresOutcome | undefined): { figures: StrategyFigures | null; figuresError: { code: string; message: string } | null } {
  if (outcome === undefined) return { figures: null, figuresError: null };
  if ('error' in outcome) return { figures: null, figuresError: { code: outcome.error.code, message: outcome.error.message } };
  return { figures: outcome.figures, figuresError: null };
}

/**
 * @example writeFileSync('summary.json', JSON.stringify(runSummaryJson(report), null, 2));
 */
export function runSummaryJson(report: RunSummaryInput): unknown {
  return {
    version: RUN_SUMMARY_VERSION,
    elapsedMs: report.elapsedMs,
    stop: { ...report.reason, description: describeStop(report.reason) },
    markets: report.markets.map((market) => ({
      ...market,
      mid: market.mid ?? null,
      openAfterStop: report.leftOpen?.get(market.symbol) ?? null,
    })),
    openOrdersCheck: openOrdersCheckJson(report),
    // This run's own counts; what an earlier run signed and this one settled is `carriedOver`.
    engine: report.stats === undefined ? null : ownStats(report.stats),
    marketData: sortedObject([...(report.marketData ?? [])].map(([endpoint, { calls, errors }]) => [endpoint, { calls, errors }] as const)),
    strategies: report.strategies.map((strategy) => ({
      name: strategy.name,
      emitted: strategy.tally.emitted,
      submitted: strategy.tally.submitted,
      fates: sortedObject(strategy.tally.fates),
      codes: sortedObject(strategy.tally.codes),
      completed: strategy.completed,
      failed: strategy.failed ?? null,
      ...strategyFiguresJson(strategy.figures),
    })),
  };
}
