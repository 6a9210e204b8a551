/**
 * fuzzSettings: the one replay convention of the property tests (docs/testing.md). The variables
 * override the test's defaults, bad values are refused by name, and a failure's report keeps
 * fast-check's own and ends with the line that replays it, which does (a child vitest runs it).
 */
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzzSettings, replayLine, type FuzzEnv } from '../../src/testing/fuzz-settings.ts';

/** The parameters without the reporter plugin, for comparisons. */
function plain(env: FuzzEnv, defaults?: { numRuns?: number; seed?: number }) {
  const { plugins, ...rest } = fuzzSettings(defaults, env);
  expect(plugins).toHaveLength(1);
  return rest;
}

/** The error fc.assert threw (or rejected with). */
async function failureOf(run: () => unknown): Promise<Error> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return error as Error;
  }
  throw new Error('the property did not fail');
}

const THIS_TEST = 'test/testing-kit/fuzz-settings.test.ts';

describe('fuzzSettings: the variables', () => {
  it('uses the defaults when no variable is set, and leaves to fast-check what neither gives', () => {
    expect(plain({})).toEqual({});
    expect(plain({}, { numRuns: 300 })).toEqual({ numRuns: 300 });
    expect(plain({}, { numRuns: 12, seed: 20_251_126 })).toEqual({ numRuns: 12, seed: 20_251_126 });
    expect(plain({ CLOBBOT_FUZZ_SEED: '', CLOBBOT_FUZZ_PATH: '', CLOBBOT_FUZZ_RUNS: '' }, { numRuns: 5, seed: 9 })).toEqual({ numRuns: 5, seed: 9 });
  });

  it('lets CLOBBOT_FUZZ_SEED and CLOBBOT_FUZZ_RUNS override the defaults', () => {
    expect(plain({ CLOBBOT_FUZZ_SEED: '-1234567' }, { numRuns: 300, seed: 7 })).toEqual({ numRuns: 300, seed: -1_234_567 });
    expect(plain({ CLOBBOT_FUZZ_RUNS: '10000' }, { numRuns: 300, seed: 7 })).toEqual({ numRuns: 10_000, seed: 7 });
    expect(plain({ CLOBBOT_FUZZ_SEED: '0', CLOBBOT_FUZZ_RUNS: '1' })).toEqual({ numRuns: 1, seed: 0 });
  });

  it('replays just the path with CLOBBOT_FUZZ_PATH: one run, no further shrinking, on the given or default seed', () => {
    expect(plain({ CLOBBOT_FUZZ_SEED: '42', CLOBBOT_FUZZ_PATH: '12:0:3' }, { numRuns: 300, seed: 7 })).toEqual({ seed: 42, path: '12:0:3', numRuns: 1, endOnFailure: true });
    expect(plain({ CLOBBOT_FUZZ_PATH: '3' }, { numRuns: 300, seed: 7 })).toEqual({ seed: 7, path: '3', numRuns: 1, endOnFailure: true });
    expect(plain({ CLOBBOT_FUZZ_SEED: '42', CLOBBOT_FUZZ_PATH: '3', CLOBBOT_FUZZ_RUNS: '50' })).toEqual({ seed: 42, path: '3', numRuns: 50, endOnFailure: true });
  });

  it('refuses a path without a seed to replay it on', () => {
    expect(() => fuzzSettings({ numRuns: 300 }, { CLOBBOT_FUZZ_PATH: '12:0' })).toThrow('CLOBBOT_FUZZ_PATH="12:0" needs a seed: set CLOBBOT_FUZZ_SEED too');
  });

  it.each([
    ['CLOBBOT_FUZZ_SEED', 'abc'],
    ['CLOBBOT_FUZZ_SEED', '1.5'],
    ['CLOBBOT_FUZZ_SEED', '0x10'],
    ['CLOBBOT_FUZZ_SEED', ' 12'],
    ['CLOBBOT_FUZZ_SEED', '1e3'],
    ['CLOBBOT_FUZZ_SEED', '99999999999999999999'],
    ['CLOBBOT_FUZZ_PATH', 'a:b'],
    ['CLOBBOT_FUZZ_PATH', '1::2'],
    ['CLOBBOT_FUZZ_PATH', '-1'],
    ['CLOBBOT_FUZZ_PATH', '"12:0"'],
    ['CLOBBOT_FUZZ_RUNS', '0'],
    ['CLOBBOT_FUZZ_RUNS', '-3'],
    ['CLOBBOT_FUZZ_RUNS', '2.5'],
    ['CLOBBOT_FUZZ_RUNS', 'ten'],
  ])('refuses %s=%s, naming the variable and the value', (name, value) => {
    const env = { CLOBBOT_FUZZ_SEED: '1', [name]: value };
    expect(() => fuzzSettings({ numRuns: 10, seed: 3 }, env)).toThrow(`${name}=${JSON.stringify(value)} is not valid: expected`);
  });

  it('reads process.env by default', () => {
    const saved = process.env['CLOBBOT_FUZZ_RUNS'];
    process.env['CLOBBOT_FUZZ_RUNS'] = 'x';
    try {
      expect(() => fuzzSettings({ numRuns: 10 })).toThrow('CLOBBOT_FUZZ_RUNS="x" is not valid');
    } finally {
      if (saved === undefined) delete process.env['CLOBBOT_FUZZ_RUNS'];
      else process.env['CLOBBOT_FUZZ_RUNS'] = saved;
    }
  });
});

describe('fuzzSettings: the report of a failure', () => {
  const failing = (counter: { runs: number }) =>
    fc.property(fc.integer({ min: 0, max: 10_000 }), (n) => {
      counter.runs += 1;
      expect(n).toBeLessThan(100);
    });

  it("keeps fast-check's report and its cause, and ends with the line that replays the failure", async () => {
    const error = await failureOf(() => fc.assert(failing({ runs: 0 }), fuzzSettings({ numRuns: 200, seed: 20_250_101 }, {})));
    // fast-check's own report: the counterexample, shrunk to the smallest failing value.
    expect(error.message).toMatch(/^Property failed after \d+ tests\n\{ seed: 20250101, path: "[\d:]+", endOnFailure: true \}\nCounterexample: \[100\]\nShrunk \d+ time\(s\)/);
    expect(String((error.cause as Error).message)).toContain('expected 100 to be less than 100');
    const path = /path: "([\d:]+)"/.exec(error.message)![1]!;
    const line = `CLOBBOT_FUZZ_SEED=20250101 CLOBBOT_FUZZ_PATH=${path} npx vitest run ${THIS_TEST} -t 'fuzzSettings: the report of a failure keeps fast-check'\\''s report and its cause, and ends with the line that replays the failure$'`;
    expect(error.message.endsWith(`\n\nReplay it: ${line}`)).toBe(true);
  });

  it('replays the counterexample alone, in one run, from the seed and path of the report', async () => {
    const first = await failureOf(() => fc.assert(failing({ runs: 0 }), fuzzSettings({ numRuns: 200, seed: 77 }, {})));
    const [, seed, path] = /CLOBBOT_FUZZ_SEED=(\S+) CLOBBOT_FUZZ_PATH=(\S+) /.exec(first.message)!;
    const counter = { runs: 0 };
    const replayed = await failureOf(() => fc.assert(failing(counter), fuzzSettings({ numRuns: 200 }, { CLOBBOT_FUZZ_SEED: seed, CLOBBOT_FUZZ_PATH: path })));
    expect(counter.runs).toBe(1);
    expect(replayed.message).toContain('Counterexample: [100]\nShrunk 0 time(s)');
    expect(replayed.message).toContain(`CLOBBOT_FUZZ_SEED=${seed} CLOBBOT_FUZZ_PATH=${path} npx vitest run ${THIS_TEST}`);
  });

  it('reports an async property the same way, and a drawn seed when the test gives none', async () => {
    const error = await failureOf(() =>
      fc.assert(
        fc.asyncProperty(fc.nat(), async (n) => {
          await Promise.resolve();
          if (n > 5) throw new Error(`too big: ${n}`);
        }),
        fuzzSettings({ numRuns: 100 }, {}),
      ),
    );
    const seed = /^\{ seed: (-?\d+), path: "([\d:]+)"/m.exec(error.message)!;
    expect(error.message).toContain('Counterexample: [6]');
    expect(error.message).toContain(`Replay it: CLOBBOT_FUZZ_SEED=${seed[1]} CLOBBOT_FUZZ_PATH=${seed[2]} npx vitest run ${THIS_TEST} -t `);
    expect((error.cause as Error).message).toBe('too big: 6');
  });

  it('gives the seed alone when there is no counterexample to point at (too many skipped values)', async () => {
    const error = await failureOf(() =>
      fc.assert(
        fc.property(fc.nat(), (n) => {
          fc.pre(n < 0);
        }),
        fuzzSettings({ numRuns: 5, seed: 11 }, {}),
      ),
    );
    expect(error.message).toContain('Failed to run property, too many pre-condition failures encountered');
    expect(error.message).toContain(`Replay it: CLOBBOT_FUZZ_SEED=11 npx vitest run ${THIS_TEST} -t `);
  });

  it('passes a property that holds, whatever the variables', () => {
    fc.assert(
      fc.property(fc.nat(), (n) => n >= 0),
      fuzzSettings({ numRuns: 50, seed: 3 }, { CLOBBOT_FUZZ_RUNS: '20' }),
    );
  });

  it('quotes the file and the test name for the shell, and escapes the name for -t', () => {
    expect(replayLine(5, '1:2', { file: 'test/a b.test.ts', name: "suite > it's (1+1) $x" })).toBe(
      `CLOBBOT_FUZZ_SEED=5 CLOBBOT_FUZZ_PATH=1:2 npx vitest run 'test/a b.test.ts' -t 'suite it'\\''s \\(1\\+1\\) \\$x$'`,
    );
    expect(replayLine(-5, null, {})).toBe('CLOBBOT_FUZZ_SEED=-5 npx vitest run <test file>');
  });
});

describe('fuzzSettings: the replay line, run in a shell', () => {
  /** A child vitest on the fixture, with none of this process's vitest or fuzz variables. */
  function vitestChild(command: string): { output: string; status: number | null } {
    const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: process.env['HOME'], NO_COLOR: '1', CLOBBOT_FUZZ_FIXTURE: '1' };
    const child = spawnSync('sh', ['-c', command], { cwd: process.cwd(), env, encoding: 'utf8', timeout: 60_000 });
    return { output: `${child.stdout}${child.stderr}`, status: child.status };
  }

  it('reproduces the failure: the same counterexample, in one run, and no other test of the file', { timeout: 120_000 }, () => {
    const first = vitestChild('npx vitest run test/testing-kit/fixtures/replay.fixture.test.ts');
    expect(first.status).toBe(1);
    expect(first.output).toContain('1 failed | 1 passed');
    const counterexample = /Counterexample: (.*)/.exec(first.output)![1]!;
    const line = /Replay it: (CLOBBOT_FUZZ_SEED=.*)/.exec(first.output)![1]!;
    expect(line).toMatch(/^CLOBBOT_FUZZ_SEED=4242 CLOBBOT_FUZZ_PATH=[\d:]+ npx vitest run test\/testing-kit\/fixtures\/replay\.fixture\.test\.ts -t '/);

    const replay = vitestChild(line);
    expect(replay.status).toBe(1);
    expect(replay.output).toContain('fixture runs=1\n');
    expect(replay.output).toContain(`Counterexample: ${counterexample}\nShrunk 0 time(s)`);
    expect(replay.output).toContain('1 failed | 1 skipped');
  });
});
