/**
 * What `clobbot run` prints: the status line (a few times a minute) and the summary at the end, in
 * human units. Pure formatting over the tracker's market summaries, the engine's stats and the
 * strategies' tallies and reported figures.
 */
import type { EngineStats } from '../../execution/execution-engine.ts';
import type { MarketSummary } from '../../runtime/run-tracker.ts';
import type { StrategyFiguresOutcome, StrategyTally } from '../../runtime/strategy-host.ts';
import { describeStop, formatSeconds, type StopReason } from '../../runtime/stop-reason.ts';
import type { MayBeOpen, OpenOrdersCheck } from '../../runtime/trading-runtime.ts';

/** `+1.5`, `-2`, `0`: signed decimal strings with an explicit sign. */
export function signed(value: string): string {
  return value.startsWith('-') || value === '0' ? value : `+${value}`;
}

/**
 * The engine's counts of this run's own requests: those of requests an earlier run signed (restored
 * from the journal after a restart, `stats.carriedOver`) taken out, so the counts add up to at most
 * what this run signed.
 *
 * @example ownStats({ ...stats, confirmed: 12, carriedOver: { confirmed: 2, reverted: 0, dropped: 1, reconciled: 3 } }).confirmed // 10
 */
export function ownStats(stats: EngineStats): EngineStats {
  const carried = stats.carriedOver;
  if (carried === undefined) return stats;
  return {
    ...stats,
    confirmed: stats.confirmed - carried.confirmed,
    reverted: stats.reverted - carried.reverted,
    dropped: stats.dropped - carried.dropped,
    reconciled: stats.reconciled - carried.reconciled,
  };
}

/** `12:00:20` (UTC) of a clock time. */
export function clockTime(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/**
 * One line per status tick: each market's mid, position, open orders, fills and PnL, then the
 * engine's figures.
 *
 * @example
 * formatStatusLine(now, summaries, stats, elapsedMs)
 * // '12:00:20 +20 s MON_USDC mid 0.035012 pos -2000 MON open 6 fills 3 pnl +0.12 USDC pending 0 | signed 14 confirmed 13 stale-slot reverts 1 reconnects 0'
 */
export function formatStatusLine(nowMs: number, elapsedMs: number, markets: readonly MarketSummary[], stats: EngineStats | undefined): string {
  const parts = markets.map(
    (market) =>
      `${market.symbol} mid ${market.mid ?? '-'} pos ${signed(market.position)} ${market.base} open ${market.openOrders} fills ${market.fills} ` +
      `pnl ${signed(market.netPnl)} ${market.quote} pending ${market.pending}`,
  );
  // Stale-slot reverts are expected (a requote of a quote that had just filled) and logged at debug: one count here.
  const stale = stats === undefined || stats.staleSlotReverts === 0 ? '' : ` stale-slot reverts ${stats.staleSlotReverts}`;
  const engine = stats === undefined ? '' : ` | signed ${stats.signed} confirmed ${ownStats(stats).confirmed}${stale} reconnects ${stats.reconnects}`;
  return `${clockTime(nowMs)} +${Math.round(elapsedMs / 1000)} s ${parts.join('; ')}${engine}`;
}

/** One strategy of the summary: its intents, how it ended, and the figures it reported (undefined: none). */
export interface SummaryStrategy {
  readonly name: string;
  readonly tally: StrategyTally;
  readonly completed: boolean;
  readonly failed: string | undefined;
  readonly figures: StrategyFiguresOutcome | undefined;
}

export interface RunSummaryInput {
  readonly elapsedMs: number;
  readonly reason: StopReason;
  readonly markets: readonly MarketSummary[];
  /** Open orders the venue still lists per market after the stop (undefined: not checked, see `openCheck`). */
  readonly leftOpen: ReadonlyMap<string, number> | undefined;
  /** Whether the venue was asked for open orders after the stop; when it failed, why and what may be open. Default: not run. */
  readonly openCheck?: OpenOrdersCheck;
  readonly stats: EngineStats | undefined;
  readonly strategies: readonly SummaryStrategy[];
  /** Market-data calls per endpoint (their durations are wall time on a live run: not part of the summary). */
  readonly marketData?: ReadonlyMap<string, { readonly calls: number; readonly errors: number }>;
}

/**
 * What may still be open when the venue could not be asked.
 *
 * @example describeMayBeOpen([{ symbol: 'MON_USDC', orderIds: [12n, 15n], withoutId: 0 }]) // 'may still be open: MON_USDC orders 12, 15'
 */
export function describeMayBeOpen(markets: readonly MayBeOpen[]): string {
  const parts = markets
    .filter((market) => market.orderIds.length > 0 || market.withoutId > 0)
    .map((market) => {
      const ids = market.orderIds.length === 0 ? [] : [`${market.orderIds.length === 1 ? 'order' : 'orders'} ${market.orderIds.join(', ')}`];
      const unnamed = market.withoutId === 0 ? [] : [`${plural(market.withoutId, 'order')} not known by id yet`];
      return `${market.symbol} ${[...ids, ...unnamed].join(' and ')}`;
    });
  return parts.length === 0 ? 'the engine knew of no open order, but the venue did not confirm it' : `may still be open: ${parts.join('; ')}`;
}

function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}

/**
 * A strategy's reported figures, one line each under its line (names padded as the market lines'),
 * or why it has none.
 *
 * @example figureLines({ figures: { avgPrice: '0.0351', slippageBps: '2.85' } }) // ['    avgPrice    0.0351', '    slippageBps 2.85']
 */
export function figureLines(outcome: StrategyFiguresOutcome | undefined): string[] {
  if (outcome === undefined) return [];
  if ('error' in outcome) return [`    figures     unavailable: ${outcome.error.code}: ${outcome.error.message}`];
  const entries = Object.entries(outcome.figures);
  const width = Math.max(11, ...entries.map(([name]) => name.length));
  return entries.map(([name, value]) => `    ${name.padEnd(width)} ${value === null ? '-' : String(value)}`);
}

/** The end-of-run summary, one block per market. */
export function formatRunSummary(input: RunSummaryInput): string {
  const lines: string[] = [];
  lines.push(`run summary: ${formatSeconds(input.elapsedMs)}, stopped because ${describeStop(input.reason)}`);
  const checkFailed = input.openCheck?.status === 'failed';
  for (const market of input.markets) {
    const left = input.leftOpen?.get(market.symbol);
    lines.push(`  ${market.symbol}`);
    lines.push(
      `    orders      placed ${market.placed}, cancelled ${market.cancelled}, filled ${market.filled} (${plural(market.fills, 'fill')})` +
        (left !== undefined ? `, open after stop ${left}` : checkFailed ? ', open after stop unknown (the check failed)' : ''),
    );
    lines.push(`    volume      ${market.volume} ${market.base} (${market.notional} ${market.quote})`);
    lines.push(`    fees        ${market.fees} ${market.quote}`);
    lines.push(`    position    ${signed(market.position)} ${market.base}${market.mid === undefined ? '' : ` (mid ${market.mid})`}`);
    lines.push(
      `    pnl         realized ${signed(market.realizedPnl)} ${market.quote}, unrealized ${signed(market.unrealizedPnl)} ${market.quote}, ` +
        `net of fees ${signed(market.netPnl)} ${market.quote}`,
    );
    lines.push(
      `    intents     ${market.intents} (confirmed ${market.confirmed}, reverted or rejected ${market.failed}, refused ${market.refused}), ` +
        `max pending ${market.maxPending}`,
    );
  }
  if (input.openCheck?.status === 'failed') lines.push(`  open orders check failed: ${input.openCheck.reason}; ${describeMayBeOpen(input.openCheck.mayBeOpen)}`);
  const stats = input.stats === undefined ? undefined : ownStats(input.stats);
  if (stats !== undefined) {
    lines.push(
      `  engine      signed ${stats.signed}, confirmed ${stats.confirmed}, reverted ${stats.reverted}${stats.staleSlotReverts === 0 ? '' : ` (${stats.staleSlotReverts} on a stale slot)`}, ${stats.dropped === 0 ? '' : `dropped ${stats.dropped}, `}rejected ${stats.rejected}, refused ${stats.refused}, ` +
        `superseded ${stats.superseded}; max pending outcomes ${stats.maxPendingOutcomes}, reconnects ${stats.reconnects}`,
    );
  }
  // What an earlier run left (after a restart): shown apart, never in this run's figures.
  const carried = input.stats?.carriedOver;
  const carriedRequests = carried === undefined ? 0 : carried.confirmed + carried.reverted + carried.dropped;
  const carriedFills = input.markets.filter((market) => market.carriedOver.fills > 0);
  if (carriedRequests > 0 || carriedFills.length > 0) {
    const parts: string[] = [];
    if (carried !== undefined && carriedRequests > 0) {
      parts.push(`${plural(carriedRequests, 'request')} of an earlier run settled (confirmed ${carried.confirmed}, reverted ${carried.reverted}, dropped ${carried.dropped})`);
    }
    for (const market of carriedFills) {
      parts.push(`${market.symbol} ${plural(market.carriedOver.fills, 'fill')} from before this run (${market.carriedOver.volume} ${market.base}, fees ${market.carriedOver.fees} ${market.quote})`);
    }
    lines.push(`  carried over ${parts.join('; ')}`);
  }
  for (const strategy of input.strategies) {
    const { tally } = strategy;
    const codes = [...tally.codes].map(([code, count]) => `${code} ×${count}`).join(', ');
    const state = strategy.failed !== undefined ? `failed (${strategy.failed})` : strategy.completed ? 'completed' : tally.emitted === 0 ? 'emitted no intent' : 'ran';
    lines.push(`  strategy ${strategy.name}: ${state}, ${plural(tally.emitted, 'intent')}${codes === '' ? '' : ` (not executed: ${codes})`}`);
    lines.push(...figureLines(strategy.figures));
  }
  return `${lines.join('\n')}\n`;
}
