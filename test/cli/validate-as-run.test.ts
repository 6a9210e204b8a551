/**
 * `clobbot validate` checks a run file as `clobbot run` does before it touches a network: every bad run
 * file of the run tests (test/cli/bad-run-files.ts) is refused by both, with the same error code and
 * the same file:line:col locations, exit 2, never a stack trace.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-harness.ts';
import { BAD_RUN_FILES } from './bad-run-files.ts';
import { hasStackTrace, workspace, type Workspace } from './run-harness.ts';

let ws: Workspace;
let sim: string;
beforeAll(() => {
  ws = workspace();
  sim = ws.simConfig();
});
afterAll(() => ws.remove());

/** `error CODE:` of the CLI; validate lists schema problems without one (they are CONFIG_* of the file). */
function errorCode(stderr: string): string | undefined {
  return /^error ([A-Z0-9_]+):/m.exec(stderr)?.[1];
}

function locations(stderr: string, file: string): string[] {
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return [...new Set([...stderr.matchAll(new RegExp(`${escaped}:\\d+:\\d+`, 'g'))].map((match) => match[0]))].sort();
}

describe('clobbot validate refuses what clobbot run refuses, the same way', () => {
  for (const bad of BAD_RUN_FILES) {
    it(bad.what, async () => {
      const file = bad.make(ws, sim);
      const run = await runCli(['run', file, '--journal-dir', `${ws.dir}/journal`], bad.env ?? {});
      const validate = await runCli(['validate', file], bad.env ?? {});

      expect(run.code, run.stderr).toBe(2);
      expect(validate.code, validate.stderr).toBe(2);
      expect(validate.stdout).toBe('');
      expect(errorCode(run.stderr)).toBe(bad.code);
      // validate prints the file's own schema problems as a list ending in "invalid run file (n problems)".
      const validateCode = errorCode(validate.stderr);
      if (validateCode === undefined) expect(['CONFIG_INVALID', 'CONFIG_YAML_SYNTAX']).toContain(bad.code);
      else expect(validateCode).toBe(bad.code);

      // The problems of a sim config are located in the sim config; all others in the run file.
      const where = bad.code === 'CONFIG_INVALID' && /sim-invalid/.test(file) ? /^simConfig: (\S+)$/m.exec(readFileSync(file, 'utf8'))![1]! : file;
      const runAt = locations(run.stderr, where);
      expect(locations(validate.stderr, where)).toEqual(runAt);
      expect(runAt.length > 0).toBe(bad.located);
      expect(hasStackTrace(run.stderr) || hasStackTrace(validate.stderr)).toBe(false);
    });
  }
});
