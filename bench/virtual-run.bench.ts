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
 * The second benchmark is the venue alone over the same time: config/sim.yaml's blocks and background
 * flow, no bot (what every virtual run and backtest pays before the bot does anything).
 *
 * Knob (environment): BENCH_VIRTUAL_DURATION (default 1h), any duration `clobbot run` takes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../src/core/logger.ts';
import { seededRandom } from '../src/core/random.ts';
import { VirtualClock } from '../src/core/virtual-clock.ts';
import { loadConfigOrThrow } from '../src/config/load-config.ts';
import { simConfigSchema } from '../src/config/sim-config.ts';
import { main } from '../src/cli/main.ts';
import { parseDurationOption } from '../src/cli/commands/run.ts';
import { createSimService } from '../src/sim/sim-service.ts';
import type { Benchmark } from './harness.ts';

const RUN_FILE = 'config/market-maker.yaml';
const duration = process.env['BENCH_VIRTUAL_DURATION'] ?? '1h';
const durationMs = parseDurationOption(duration);
/** The venue both benchmarks run (the run file's simConfig): read once, for its blocks too. */
const simConfig = await loadConfigOrThrow('config/sim.yaml', simConfigSchema, { env: {} });

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

/** The in-process venue alone (blocks and background flow, no bot) over the duration. */
async function venueAlone(): Promise<void> {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const service = createSimService({ config: simConfig, clock, random: seededRandom(1), secrets: seededRandom(2), logger: createLogger({ level: 'silent' }), seed: 1 });
  service.start();
  clock.advanceBy(durationMs);
  service.stop();
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
  {
    name: `the venue alone: config/sim.yaml, ${duration}, no bot`,
    unit: 'simulated seconds',
    runs: 3,
    async run() {
      await venueAlone();
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
    `  per simulated hour: blocks ${perHour(Math.floor(durationMs / simConfig.blockMs))}, market-data polls ${polls || 'n/a'}, ` +
    `intents signed ${perHour(last.engine.signed)}, fills ${perHour(fills)}`
  );
}
