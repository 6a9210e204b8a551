/**
 * `clobbot chaos [--duration <d>] [--seed <n>] [--json] [--keep <dir>]`: the reference market maker
 * against the local venue while faults are injected (src/cli/chaos/chaos-run.ts), then the figures,
 * each from the venue's own records (chaos-figures.ts). Exit 0 only when nothing was lost, placed
 * twice, signed with a reused nonce, rate limited by the bot's own doing, left open or mismatched,
 * and the pending outcomes stayed under the relay's cap; 1 otherwise; 2 a mistake in the input.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../core/logger.ts';
import { chaosPassed, type ChaosFigures } from '../chaos/chaos-figures.ts';
import { runChaos } from '../chaos/chaos-run.ts';
import { ExitCode, type Command } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';
import { parseDurationOption, parseSeedOption } from './run.ts';

const DEFAULT_DURATION_MS = 60_000;
/** Long enough for a few faults after the bot's start (about 3 s) and before the calm end. */
const MIN_DURATION_MS = 10_000;

const root = (path: string) => fileURLToPath(new URL(`../../../${path}`, import.meta.url));

const usage = [
  'clobbot chaos [--duration <d>] [--seed <n>] [--json] [--keep <dir>]',
  '',
  '  --duration <d>   how long the market maker trades under faults (default 60s, at least 10s)',
  '  --seed <n>       seed of the fault times and kinds, and of the venue (default 1)',
  '  --json           also print the figures as one JSON object, the last line of stdout',
  '  --keep <dir>     keep the run\'s files there (run file, journal, the bots\' logs and summaries)',
  '',
  'Runs the reference market maker (clobbot run processes) against the local venue on loopback while',
  'injecting WebSocket drops, 4008 closes, withheld and delayed outcomes, UNKNOWN and REJECTED answers,',
  'JWT expiry, relay and market-data 5xx and 429s, slow answers, venue restarts and SIGKILLs of the bot.',
  'Exit 0 when lost, duplicate_placements, nonce_reuses, rate_limit_violations, orders_left_open_after_stop',
  'and position_mismatch are all 0 and max_pending_outcomes is below the cap; 1 otherwise.',
].join('\n');

function figureLines(figures: ChaosFigures): string[] {
  return Object.entries(figures).map(([name, value]) => `  ${name.padEnd(28)} ${value ?? 'n/a'}`);
}

export const chaosCommand: Command = {
  name: 'chaos',
  summary: 'the reference market maker against the local venue under injected faults, with the figures',
  usage,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      command: 'chaos',
      options: { duration: { type: 'string' }, seed: { type: 'string' }, json: { type: 'boolean' }, keep: { type: 'string' } },
      positionals: [],
    });
    const durationMs = values.duration === undefined ? DEFAULT_DURATION_MS : Math.max(MIN_DURATION_MS, parseDurationOption(values.duration));
    const seed = values.seed === undefined ? 1 : parseSeedOption(values.seed, 'chaos');
    const workDir = values.keep ?? mkdtempSync(`${tmpdir()}/clobbot-chaos-`);
    io.stdout.write(`clobbot chaos: ${durationMs / 1000} s, seed ${seed}\n`);
    try {
      const result = await runChaos({
        durationMs,
        seed,
        workDir,
        cliPath: root('bin/clobbot.js'),
        simConfigPath: root('config/sim.yaml'),
        runFilePath: root('config/market-maker.yaml'),
        env: io.env,
        logger: createLogger({ level: 'silent' }),
        progress: (line) => io.stdout.write(`  ${line}\n`),
      });
      const passed = chaosPassed(result.figures) && result.problems.length === 0;
      io.stdout.write(`faults: ${Object.entries(result.faults).map(([kind, count]) => `${kind} ${count}`).join(', ') || 'none'}\n`);
      io.stdout.write(`figures (from the venue's records):\n${figureLines(result.figures).join('\n')}\n`);
      for (const problem of result.problems) io.stdout.write(`problem: ${problem}\n`);
      io.stdout.write(`${passed ? 'passed' : 'FAILED'}${values.keep === undefined ? '' : ` (files in ${workDir})`}\n`);
      if (values.json === true) io.stdout.write(`${JSON.stringify({ ...result.figures, faults: result.faults, problems: result.problems, passed })}\n`);
      return passed ? ExitCode.ok : ExitCode.failure;
    } finally {
      if (values.keep === undefined) rmSync(workDir, { recursive: true, force: true });
    }
  },
};
