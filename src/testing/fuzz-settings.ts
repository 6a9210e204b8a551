/**
 * One replay convention for every property test (docs/testing.md, "Property tests: seeds, runs and
 * replays"): `fc.assert(property, fuzzSettings({ numRuns, seed }))`.
 *
 * - `CLOBBOT_FUZZ_SEED=<integer>`: the seed (otherwise the test's default seed; with none, fast-check
 *   draws one per run and prints it on a failure);
 * - `CLOBBOT_FUZZ_PATH=<n:n:…>`: replay that one path of that seed's run (the minimal counterexample
 *   a failure printed), without shrinking further;
 * - `CLOBBOT_FUZZ_RUNS=<positive integer>`: the number of runs (otherwise the test's default; 1 with
 *   a path).
 *
 * A failure keeps fast-check's own report (counterexample, shrinks, the cause) and adds the line that
 * replays it: `CLOBBOT_FUZZ_SEED=<seed> CLOBBOT_FUZZ_PATH=<path> npx vitest run <file> -t '<test>'`.
 */
import { relative } from 'node:path';
import fc from 'fast-check';
import { expect } from 'vitest';

export const FUZZ_SEED_VAR = 'CLOBBOT_FUZZ_SEED';
export const FUZZ_PATH_VAR = 'CLOBBOT_FUZZ_PATH';
export const FUZZ_RUNS_VAR = 'CLOBBOT_FUZZ_RUNS';

/** What a test does when no variable says otherwise: CI runs exactly this. */
export interface FuzzDefaults {
  /** Runs of the property (fast-check's default, 100, when absent). */
  readonly numRuns?: number;
  /** A fixed seed keeps CI deterministic; without one, fast-check draws a seed per run. */
  readonly seed?: number;
}

/** Where the variables are read from: `process.env` unless a test passes its own. */
export type FuzzEnv = Readonly<Record<string, string | undefined>>;

function read(env: FuzzEnv, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function invalid(name: string, value: string, expected: string): Error {
  return new Error(`${name}=${JSON.stringify(value)} is not valid: expected ${expected}`);
}

function parseSeed(env: FuzzEnv): number | undefined {
  const value = read(env, FUZZ_SEED_VAR);
  if (value === undefined) return undefined;
  const seed = Number(value);
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(seed)) throw invalid(FUZZ_SEED_VAR, value, 'an integer, the seed a failure report printed');
  return seed;
}

function parsePath(env: FuzzEnv): string | undefined {
  const value = read(env, FUZZ_PATH_VAR);
  if (value === undefined) return undefined;
  if (!/^\d+(:\d+)*$/.test(value)) throw invalid(FUZZ_PATH_VAR, value, 'a fast-check path such as 12:0:3, the path a failure report printed');
  return value;
}

function parseRuns(env: FuzzEnv): number | undefined {
  const value = read(env, FUZZ_RUNS_VAR);
  if (value === undefined) return undefined;
  const runs = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(runs) || runs < 1) throw invalid(FUZZ_RUNS_VAR, value, 'a positive integer');
  return runs;
}

/** `text` as one shell word. */
function shellWord(text: string): string {
  return /^[\w./:=@%+-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The running vitest test: its file, relative to the working directory, and its name as `-t` matches it. */
function currentTest(): { file: string | undefined; name: string | undefined } {
  try {
    const state = expect.getState();
    return {
      file: state.testPath === undefined ? undefined : relative(process.cwd(), state.testPath) || state.testPath,
      name: state.currentTestName || undefined,
    };
  } catch {
    return { file: undefined, name: undefined };
  }
}

/**
 * The shell line that replays a failure: its seed and path, the test file and (`-t`, a pattern that
 * matches the test's full name at its end) the test alone, so the path is not tried on the file's other
 * properties.
 */
export function replayLine(seed: number, path: string | null | undefined, test: { file?: string | undefined; name?: string | undefined } = currentTest()): string {
  const vars = [`${FUZZ_SEED_VAR}=${seed}`, ...(path ? [`${FUZZ_PATH_VAR}=${path}`] : [])];
  const file = test.file === undefined ? '<test file>' : shellWord(test.file);
  // vitest's -t is a regular expression over the names of the test and its suites, joined by spaces.
  const only = test.name === undefined ? '' : ` -t ${shellWord(`${test.name.split(' > ').join(' ').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)}`;
  return `${vars.join(' ')} npx vitest run ${file}${only}`;
}

/** The plugin that reports a failure as fast-check does, plus the replay line. */
function replayReporter<T>(): fc.PluginInstance<T> {
  return {
    onAllRunsComplete(details: fc.RunDetails<T>): void {
      if (!details.failed) return;
      const message = `${fc.defaultReportMessage(details)}\n\nReplay it: ${replayLine(details.seed, details.counterexamplePath)}`;
      if (details.runConfiguration.includeErrorInReport || details.errorInstance === null) throw new Error(message);
      throw new Error(message, { cause: details.errorInstance });
    },
  };
}

/**
 * Parameters for `fc.assert`: the test's defaults, overridden by `CLOBBOT_FUZZ_SEED`,
 * `CLOBBOT_FUZZ_PATH` and `CLOBBOT_FUZZ_RUNS`, and a reporter whose failure message ends with the
 * line that replays it. A bad value throws an Error naming the variable and the value. With a path,
 * the run replays just that path (one run, `endOnFailure`), on the variable's seed or the default one.
 *
 * Spread it to add other parameters: `{ ...fuzzSettings({ numRuns: 300 }), examples }`. It is for
 * `fc.assert`: with `fc.check`, a failure would throw too.
 *
 * @example
 * fc.assert(fc.property(fc.nat(), (n) => n >= 0), fuzzSettings({ numRuns: 500, seed: 20_250_101 }));
 */
export function fuzzSettings<T = unknown>(defaults: FuzzDefaults = {}, env: FuzzEnv = process.env): fc.Parameters<T> {
  const seed = parseSeed(env) ?? defaults.seed;
  const path = parsePath(env);
  const runs = parseRuns(env);
  if (path !== undefined && seed === undefined) {
    throw new Error(`${FUZZ_PATH_VAR}=${JSON.stringify(path)} needs a seed: set ${FUZZ_SEED_VAR} too (the replay line of a failure prints both)`);
  }
  const numRuns = runs ?? (path === undefined ? defaults.numRuns : 1);
  return {
    ...(seed === undefined ? {} : { seed }),
    ...(numRuns === undefined ? {} : { numRuns }),
    ...(path === undefined ? {} : { path, endOnFailure: true }),
    plugins: [() => replayReporter<T>()],
  };
}
