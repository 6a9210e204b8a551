/**
 * A sweep on a candle feed: the reference crossover's periods swept over a hand-made series of
 * one-minute bars. Each job runs the candle backtest (the feed's header says so), and a run's
 * summary is the one `clobbot backtest` gives for that combination.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../support/cli-harness.ts';
import { btcUsdtRunFile, writeBars, type Bar } from '../backtest/candle-fixtures.ts';

const RUN_FILE = btcUsdtRunFile('strategies/ma-crossover.ts', '{ fast: 3, slow: 8, size: "0.01", slippageBps: 50 }');

/** Two hours of bars around 600.00 USDT, in waves of 40 minutes: crossovers in both directions. */
const BARS: Bar[] = Array.from({ length: 120 }, (_, k) => {
  const close = 60_000 + Math.round(800 * Math.sin((2 * Math.PI * k) / 40));
  const open = 60_000 + Math.round(800 * Math.sin((2 * Math.PI * (k - 1)) / 40));
  return [open, Math.max(open, close) + 20, Math.min(open, close) - 20, close];
});

const tmp = tempDir();
let feed: string;
let runFile: string;

beforeAll(() => {
  feed = join(tmp.dir, 'waves.arrow');
  writeBars(feed, BARS);
  runFile = tmp.write('crossover.yaml', RUN_FILE);
});
afterAll(() => tmp.remove());

interface Results {
  readonly runs: readonly { readonly rank: number; readonly hash: string; readonly params: Record<string, string>; readonly metrics: Record<string, string | number | null> }[];
}

describe('clobbot sweep on a candle feed', () => {
  it('sweeps the crossover\'s periods by the bar rules; a run\'s summary is the backtest\'s of that combination', async () => {
    const out = join(tmp.dir, 'sweep');
    const swept = await runCli(['sweep', runFile, '--feed', feed, '--param', 'fast=2,4', '--param', 'slow=6..10:2', '--workers', '2', '--out', out]);
    expect(swept.code, swept.stderr).toBe(0);
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as Results;
    expect(results.runs).toHaveLength(6);
    expect(results.runs.every((run) => Number(run.metrics['fills']) > 0)).toBe(true);
    // Not all alike: the periods change the trades.
    expect(new Set(results.runs.map((run) => String(run.metrics['netPnl']))).size).toBeGreaterThan(1);

    const best = results.runs[0]!;
    const summary = JSON.parse(readFileSync(join(out, 'runs', best.hash, 'summary.json'), 'utf8')) as Record<string, unknown>;
    expect(summary['candles']).toMatchObject({ bars: BARS.length, interval: '1m' });
    const alone = tmp.write('best.yaml', RUN_FILE.replace('fast: 3, slow: 8', `fast: ${best.params['fast']}, slow: ${best.params['slow']}`));
    const backtest = await runCli(['backtest', alone, '--feed', feed, '--out', join(tmp.dir, 'alone')]);
    expect(backtest.code, backtest.stderr).toBe(0);
    const direct = JSON.parse(readFileSync(join(tmp.dir, 'alone', 'summary.json'), 'utf8')) as Record<string, unknown>;
    expect(summary['pnl']).toEqual(direct['pnl']);
    expect(summary['fills']).toEqual(direct['fills']);
  }, 120_000);
});
