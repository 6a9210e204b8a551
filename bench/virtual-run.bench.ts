/**
 * A virtual run (issue 11's figure): `clobbot run config/market-maker.yaml --virtual` for one
 * simulated hour, in this process: the reference market maker trading the in-process venue with its
 * background flow on, through the real clients, engine and relay rules, on a virtual clock that jumps
 * from event to event. The unit is a simulated second, so the rate printed is the speed-up over real
 * time (goal: 1,000x on one core, an hour in 3.6 s). Module loading happens in the warm-up, as it
 * would once per process in a backtest or sweep.
 *
 * After the rates it prints what one simulated hour held: blocks, market-data polls per endpoint,
 * intents signed, fills (from the run's `--summary` JSON, which has no wall-clock figure in it).
 *
 * Knob (environment): BENCH_VIRTUAL_DURATION (default 1h), any duration `clobbot run` takes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../src/cli/main.ts';
import { parseDurationOption } from '../src/cli/commands/run.ts';
import type { Benchmark } from './harness.ts';

const RUN_FILE = 'config/market-maker.yaml';
const duration = process.env['BENCH_VIRTUAL_DURATION'] ?? '1h';
const durationMs = parseDurationOption(duration);
/** The sim config's block interval (config/sim.yaml). */
const BLOCK_MS = 400;

interface SummaryFigures {
  readonly markets: readonly { readonly symbol: string; readonly fills: number; readonly placed: number }[];
  readonly engine: { readonly signed: number; readonly confirmed: number };
  readonly marketData?: Record<string, { readonly calls: number }>;
}

/** Runs the virtual hour once; returns its summary. */
async function virtualRun(): Promise<SummaryFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'clobbot-bench-virtual-'));
  try {
    const summary = join(dir, 'summary.json');
    let stderr = '';
    const io = { stdout: { write: () => true }, stderr: { write: (text: string) => (stderr += text) }, env: {}, isTty: false };
    const code = await main(['run', RUN_FILE, '--virtual', '--duration', duration, '--summary', summary, '--journal-dir', join(dir, 'journal')], io);
    if (code !== 0) throw new Error(`the virtual run exited ${code}: ${stderr.slice(-2000)}`);
    return JSON.parse(readFileSync(summary, 'utf8')) as SummaryFigures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let last: SummaryFigures | undefined;

export const benchmarks: readonly Benchmark[] = [
  {
    name: `virtual run: ${RUN_FILE}, ${duration} (rate = x real time)`,
    unit: 'simulated seconds',
    runs: 3,
    async run() {
      last = await virtualRun();
      return durationMs / 1000;
    },
  },
];

/** What one simulated hour held, printed after the rates. */
export function report(): string {
  if (last === undefined) return '';
  const perHour = (count: number) => Math.round((count * 3_600_000) / durationMs).toLocaleString('en-US');
  const polls = Object.entries(last.marketData ?? {})
    .map(([endpoint, timing]) => `${endpoint} ${perHour(timing.calls)}`)
    .join(', ');
  const fills = last.markets.reduce((sum, market) => sum + market.fills, 0);
  return (
    `  per simulated hour: blocks ${perHour(durationMs / BLOCK_MS)}, market-data polls ${polls || 'n/a'}, ` +
    `intents signed ${perHour(last.engine.signed)}, fills ${perHour(fills)}`
  );
}
