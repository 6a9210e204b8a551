/**
 * A sweep's plan, made before any run starts: the run file read and checked with its strategies, each
 * param resolved to its field, every combination's run file checked (src/sweep/check-combination.ts),
 * each feed hashed (and a raw recording normalized once, into the shared cache, so the workers find
 * it), and one job per combination, feed and seed, addressed by its hash.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { BaseError } from '../core/base-error.ts';
import type { QueueModelConfigInput } from '../backtest/queue-model.ts';
import type { Env } from '../config/env-interpolation.ts';
import { configError, loadConfig } from '../config/load-config.ts';
import { runConfigSchema, strategyModuleKind } from '../config/run-config.ts';
import { normalizedFeedFor } from '../feeds/feed-cache.ts';
import { fileSha256 } from '../feeds/file-sha256.ts';
import { loadRunStrategies } from '../strategy/load-strategy.ts';
import { codeVersion } from '../cli/backtest/code-version.ts';
import { DEFAULT_SIM_CONFIG } from '../cli/run/default-sim-config.ts';
import type { BacktestJob } from './backtest-job.ts';
import { checkCombination } from './check-combination.ts';
import { overrideRunFile, type RunFileOverride } from './run-file-override.ts';
import { runHash, textSha256 } from './run-hash.ts';
import { resolveSweepParam, type ResolvedSweepParam, type SweepParam } from './sweep-param.ts';

/** The most runs one sweep may plan. */
export const MAX_SWEEP_RUNS = 100_000;

export interface SweepInputs {
  /** The run file as named on the command line. */
  readonly file: string;
  readonly feeds: readonly string[];
  readonly params: readonly SweepParam[];
  readonly seeds: readonly number[];
  readonly queue?: QueueModelConfigInput;
  readonly fromMs?: number;
  readonly toMs?: number;
  readonly cwd: string;
  readonly env: Env;
}

/** One run of the plan: its job, and what the results say of it. */
export interface PlannedRun {
  readonly job: BacktestJob;
  /** `[name, value]` of each param, in the order of the params. */
  readonly params: readonly (readonly [string, string])[];
}

export interface SweepPlan {
  readonly runFile: { readonly path: string; readonly sha256: string };
  readonly params: readonly ResolvedSweepParam[];
  readonly feeds: readonly { readonly path: string; readonly sha256: string }[];
  readonly seeds: readonly number[];
  readonly code: { readonly version: string | null; readonly commit: string | null };
  /** Combination by combination (the last param changing fastest), then feed, then seed. */
  readonly runs: readonly PlannedRun[];
}

const usageError = (message: string, details: Record<string, unknown> = {}) => new BaseError('CLI_USAGE', `sweep: ${message}`, { details: { command: 'sweep', ...details } });

/** Every combination of the params' values, the last param changing fastest. */
function combinations(params: readonly ResolvedSweepParam[]): RunFileOverride[][] {
  let combos: RunFileOverride[][] = [[]];
  for (const param of params) combos = combos.flatMap((combo) => param.values.map((value) => [...combo, { name: param.name, path: param.path, value }]));
  return combos;
}

function sha256OrMissing(path: string): string {
  try {
    return fileSha256(path);
  } catch {
    return 'missing';
  }
}

/**
 * @example const plan = await planSweep({ file: 'config/market-maker.yaml', feeds: ['rec.raw'], params: [parseSweepParam('spreadBps=4,8')], seeds: [1], cwd, env });
 */
export async function planSweep(inputs: SweepInputs): Promise<SweepPlan> {
  const { cwd, env } = inputs;
  const runFilePath = resolve(cwd, inputs.file);
  const loaded = await loadConfig(runFilePath, runConfigSchema, { env });
  if (!loaded.ok) throw configError(inputs.file, loaded.issues);
  const text = readFileSync(runFilePath, 'utf8');
  const strategies = await loadRunStrategies(loaded.source, loaded.value, { cwd });

  const params = inputs.params.map((param) => resolveSweepParam(param, { file: inputs.file, data: loaded.source.data }));
  for (const [i, param] of params.entries()) {
    const twin = params.slice(0, i).find((other) => other.path.join('.') === param.path.join('.'));
    if (twin !== undefined) throw usageError(`--param ${param.name} and --param ${twin.name} name the same field`, { param: param.name });
  }
  const combos = combinations(params);
  const count = combos.length * inputs.feeds.length * inputs.seeds.length;
  if (count > MAX_SWEEP_RUNS) throw usageError(`${count} runs (${combos.length} combinations × ${inputs.feeds.length} feeds × ${inputs.seeds.length} seeds): at most ${MAX_SWEEP_RUNS}`);

  // Every combination is checked before the first feed is touched: a bad value costs no hashing or normalization.
  const texts = combos.map((overrides) => {
    const combined = overrideRunFile(text, overrides);
    checkCombination({ file: inputs.file, text: combined, overrides, strategies: strategies.map((strategy) => strategy.definition), env });
    return combined;
  });
  const feeds = inputs.feeds.map((path) => ({ path, sha256: fileSha256(resolve(cwd, path)) }));
  for (const [i, feed] of feeds.entries()) {
    if (feeds.slice(0, i).some((other) => other.sha256 === feed.sha256)) throw usageError(`--feed ${feed.path}: the same feed is given twice`, { feed: feed.path });
  }
  for (const feed of feeds) await normalizedFeedFor(resolve(cwd, feed.path), { cacheDir: resolve(cwd, '.clobbot/feeds') });

  const namedFiles: Record<string, string> = {};
  for (const strategy of strategies) if (strategyModuleKind(strategy.module) === 'file') namedFiles[strategy.module] = sha256OrMissing(strategy.resolved);
  const simConfig = loaded.value.simConfig ?? DEFAULT_SIM_CONFIG;
  namedFiles[simConfig] = sha256OrMissing(resolve(cwd, simConfig));
  const code = codeVersion();
  const runFileSha256 = textSha256(text);
  const runs: PlannedRun[] = [];
  for (const [index, overrides] of combos.entries()) {
    const assigned = overrides.map((override) => [override.name, override.value] as const);
    for (const feed of feeds) {
      for (const seed of inputs.seeds) {
        const hash = runHash({ runFileSha256, params: assigned, namedFiles, feedSha256: feed.sha256, code, seed, queue: inputs.queue ?? null, fromMs: inputs.fromMs ?? null, toMs: inputs.toMs ?? null });
        const job: BacktestJob = {
          hash,
          runFile: { path: inputs.file, text: texts[index]! },
          feed,
          seed,
          ...(inputs.queue === undefined ? {} : { queue: inputs.queue }),
          ...(inputs.fromMs === undefined ? {} : { fromMs: inputs.fromMs }),
          ...(inputs.toMs === undefined ? {} : { toMs: inputs.toMs }),
        };
        runs.push({ job, params: assigned });
      }
    }
  }
  return { runFile: { path: inputs.file, sha256: runFileSha256 }, params, feeds, seeds: inputs.seeds, code, runs };
}
