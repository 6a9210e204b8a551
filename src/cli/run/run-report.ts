/**
 * What `clobbot run` prints: the status line (a few times a minute) and the summary at the end, in
 * human units. Pure formatting over the tracker's market summaries and the engine's stats.
 */
import type { EngineStats } from '../../execution/execution-engine.ts';
import type { MarketSummary } from '../../runtime/run-tracker.ts';
import type { StrategyTally } from '../../runtime/strategy-host.ts';
import { describeStop, formatSeconds, type StopReason } from '../../runtime/stop-reason.ts';

/** `+1.5`, `-2`, `0`: signed decimal strings with an explicit sign. */
export function signed(value: string): string {
  return value.startsWith('-') || value === '0' ? value : `+${value}`;
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
 * // '12:00:20 +20 s MON_USDC mid 0.035012 pos -2000 MON open 6 fills 3 pnl +0.12 USDC pending 0 | intents 14 reconnects 0'
 */
export function formatStatusLine(nowMs: number, elapsedMs: number, markets: readonly MarketSummary[], stats: EngineStats | undefined): string {
  const parts = markets.map(
    (market) =>
      `${market.symbol} mid ${market.mid ?? '-'} pos ${signed(market.position)} ${market.base} open ${market.openOrders} fills ${market.fills} ` +
      `pnl ${signed(market.netPnl)} ${market.quote} pending ${market.pending}`,
  );
  const engine = stats === undefined ? '' : ` | signed ${stats.signed} confirmed ${stats.confirmed} reconnects ${stats.reconnects}`;
  return `${clockTime(nowMs)} +${Math.round(elapsedMs / 1000)} s ${parts.join('; ')}${engine}`;
}

export interface RunSummaryInput {
  readonly elapsedMs: number;
  readonly reason: StopReason;
  readonly markets: readonly MarketSummary[];
  /** Open orders the venue still lists per market after the stop (undefined: not checked). */
  readonly leftOpen: ReadonlyMap<string, number> | undefined;
  readonly stats: EngineStats | undefined;
  readonly strategies: readonly { readonly name: string; readonly tally: StrategyTally; readonly completed: boolean; readonly failed: string | undefined }[];
  /** Market-data calls per endpoint (their durations are wall time on a live run: not part of the summary). */
  readonly marketData?: ReadonlyMap<string, { readonly calls: number; readonly errors: number }>;
}

function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}

/** The end-of-run summary, one block per market. */
export function formatRunSummary(input: RunSummaryInput): string {
  const lines: string[] = [];
  lines.push(`run summary: ${formatSeconds(input.elapsedMs)}, stopped because ${describeStop(input.reason)}`);
  for (const market of input.markets) {
    const left = input.leftOpen?.get(market.symbol);
    lines.push(`  ${market.symbol}`);
    lines.push(
      `    orders      placed ${market.placed}, cancelled ${market.cancelled}, filled ${market.filled} (${plural(market.fills, 'fill')})` +
        (left === undefined ? '' : `, open after stop ${left}`),
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
  const stats = input.stats;
  if (stats !== undefined) {
    lines.push(
      `  engine      signed ${stats.signed}, confirmed ${stats.confirmed}, reverted ${stats.reverted}${stats.staleSlotReverts === 0 ? '' : ` (${stats.staleSlotReverts} on a stale slot)`}, rejected ${stats.rejected}, refused ${stats.refused}, ` +
        `superseded ${stats.superseded}; max pending outcomes ${stats.maxPendingOutcomes}, reconnects ${stats.reconnects}`,
    );
  }
  for (const strategy of input.strategies) {
    const { tally } = strategy;
    const codes = [...tally.codes].map(([code, count]) => `${code} ×${count}`).join(', ');
    const state = strategy.failed !== undefined ? `failed (${strategy.failed})` : strategy.completed ? 'completed' : tally.emitted === 0 ? 'emitted no intent' : 'ran';
    lines.push(`  strategy ${strategy.name}: ${state}, ${plural(tally.emitted, 'intent')}${codes === '' ? '' : ` (not executed: ${codes})`}`);
  }
  return `${lines.join('\n')}\n`;
}
