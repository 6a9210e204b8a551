/**
 * Strategy modules load from anywhere docs/strategies.md promises, through the real compiled CLI
 * (bin/clobbot.js, as a user runs it): a copy of a reference strategy at an absolute path outside the
 * project loads and trades; one in a `"type": "commonjs"` package, importing its own TypeScript as
 * `./x.js` and `./x`, loads too; a syntax error in a strategy is STRATEGY_MODULE_INVALID naming
 * file:line:col and the problem, exit 2, never esbuild's bare "Transform failed" or a stack trace;
 * a stack trace through a TypeScript strategy names its own lines (source maps).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasStackTrace, workspace, type Workspace } from './run-harness.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const execFileAsync = promisify(execFile);

async function clobbot(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [join(ROOT, 'bin/clobbot.js'), ...args], { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '' } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

let outside: string;
let ws: Workspace;
let sim: string;
beforeAll(() => {
  outside = mkdtempSync(join(tmpdir(), 'clobbot-outside-'));
  ws = workspace();
  sim = ws.simConfig();
});
afterAll(() => {
  rmSync(outside, { recursive: true, force: true });
  ws.remove();
});

function runFile(module: string): string {
  const file = join(outside, `run-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    file,
    [
      'network: sim',
      `simConfig: ${sim}`,
      'wallet: { ephemeral: true }',
      'markets: [MON_USDC]',
      'strategies:',
      `  - { name: mm, module: ${module}, markets: [MON_USDC], params: { levels: 1, spreadBps: 10, size: "100", maxInventory: "1000" } }`,
      'risk: { maxPosition: "100000", maxOrderSize: "10000", maxNotional: "5000" }',
      'duration: 3s',
      '',
    ].join('\n'),
  );
  return file;
}

const BROKEN = 'import { defineStrategy } from "clobbot";\n\nexport default defineStrategy({\n  name: "broken",\n  oops oops\n});\n';

describe('strategy modules outside the project, and broken ones (real CLI)', () => {
  it('a copy of the reference market maker at an absolute path outside the project loads, validates and trades', async () => {
    const module = join(outside, 'my-market-maker.ts');
    copyFileSync(join(ROOT, 'strategies/market-maker.ts'), module);
    const file = runFile(module);

    const validate = await clobbot(['validate', file]);
    expect(validate).toEqual({ code: 0, stdout: `${file}: valid run file (network sim, 1 strategy, markets MON_USDC)\n`, stderr: '' });

    const run = await clobbot(['run', file, '--virtual']);
    expect(run.stderr).not.toMatch(/Cannot require|STRATEGY_MODULE/);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`strategy    mm: market-maker (${module}) on MON_USDC`);
    expect(run.stdout).toMatch(/strategy mm: ran, [1-9]\d* intents?/);
  }, 60_000);

  it('a syntax error in a .ts strategy, outside the project or in it, is located at file:line:col', async () => {
    for (const module of [join(outside, 'broken.ts'), ws.strategy('broken.ts', BROKEN)]) {
      writeFileSync(module, BROKEN);
      const file = runFile(module);
      for (const command of ['validate', 'run']) {
        const result = await clobbot([command, file]);
        expect(result.code, `${command}: ${result.stderr}`).toBe(2);
        expect(result.stderr).toBe(
          `error STRATEGY_MODULE_INVALID: ${file}:6:25 strategies[0].module: strategy module ${module} failed to load: ${module}:5:8: Expected "}" but found "oops"\n`,
        );
        expect(result.stderr).not.toContain('Transform failed');
        expect(hasStackTrace(result.stderr)).toBe(false);
      }
    }
  }, 60_000);

  it('a strategy in a "type": "commonjs" package, importing its own TypeScript as ./x.js and ./x, loads', async () => {
    const dir = join(outside, 'commonjs');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{ "type": "commonjs" }\n');
    writeFileSync(join(dir, 'spread.ts'), 'export const spreadBps: number = 10;\n');
    writeFileSync(join(dir, 'name.ts'), "export const name: string = 'helped';\n");
    const module = join(dir, 'helped.ts');
    writeFileSync(
      module,
      [
        "import { NEVER } from 'rxjs';",
        "import { defineStrategy, z, type Intent } from 'clobbot/strategy';",
        "import { spreadBps } from './spread.js';",
        "import { name } from './name';",
        'export default defineStrategy({ name, params: z.object({}).passthrough(), create: () => (spreadBps > 0 ? NEVER : NEVER) as never as import("rxjs").Observable<Intent> });',
        '',
      ].join('\n'),
    );
    const file = runFile(module);
    expect(await clobbot(['validate', file])).toEqual({ code: 0, stdout: `${file}: valid run file (network sim, 1 strategy, markets MON_USDC)\n`, stderr: '' });
  }, 30_000);

  it('a stack trace through a TypeScript strategy names its own line (compiled loader, source maps on)', async () => {
    const module = join(outside, 'throws.ts');
    writeFileSync(module, "type Where = { line: number };\n\nconst where: Where = { line: 4 };\nthrow new Error(`thrown at line ${where.line}`);\n");
    const script = [
      `const { loadStrategy } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist/strategy/load-strategy.js')).href)});`,
      `try { await loadStrategy(${JSON.stringify(module)}); } catch (error) { console.log(error.cause.stack); }`,
    ].join('\n');
    const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
    expect(stdout).toContain('Error: thrown at line 4');
    expect(stdout).toContain(`${module}:4:7`);
  }, 30_000);

  it('a syntax error in a JavaScript strategy is located too', async () => {
    const module = join(outside, 'broken.mjs');
    writeFileSync(module, 'export default {\n  name: "broken",\n  oops oops\n};\n');
    const result = await clobbot(['validate', runFile(module)]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^error STRATEGY_MODULE_INVALID: .*failed to load: ${module.replace(/[.]/g, '\\.')}:3:8: Expected "}" but found "oops"\\n$`));
  }, 30_000);
});
