/**
 * Market symbols are matched case-insensitively on input (a run file's `markets`, a strategy's
 * `markets`, `--symbol` on the command line) and printed canonically (`MON_USDC`).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-harness.ts';
import { runLines, workspace, type Workspace } from './run-harness.ts';

let ws: Workspace;
let sim: string;
beforeAll(() => {
  ws = workspace();
  sim = ws.simConfig();
});
afterAll(() => ws.remove());

describe('market symbols in any case', () => {
  it('a run file with mon_usdc in markets and Mon_Usdc in a strategy validates and runs, printed as MON_USDC', async () => {
    const file = ws.runFile('lower.yaml', [
      ...runLines({ simConfig: sim, duration: '3s' }).map((line) => (line === 'markets: [MON_USDC]' ? 'markets: [mon_usdc]' : line)),
      'strategies:',
      '  - { name: mm, module: strategies/market-maker.ts, markets: [Mon_Usdc], params: { levels: 1, spreadBps: 10, size: "100", maxInventory: "1000" } }',
    ]);
    const validate = await runCli(['validate', file]);
    expect(validate).toEqual({ code: 0, stdout: `${file}: valid run file (network sim, 1 strategy, markets MON_USDC)\n`, stderr: '' });

    const run = await runCli(['run', file, '--virtual']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/network sim \(.*\), markets MON_USDC, for 3 s of virtual time/);
    expect(run.stdout).toContain('  strategy    mm: market-maker (strategies/market-maker.ts) on MON_USDC\n');
    expect(run.stdout).not.toMatch(/mon_usdc|Mon_Usdc/);
  });

  it('clobbot record --symbol mon_usdc records MON_USDC', async () => {
    const out = join(ws.dir, 'recorded');
    const result = await runCli(['record', '--symbol', 'mon_usdc', '--out', out, '--virtual', '--duration', '2s']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('clobbot record: MON_USDC on sim');
    expect(readdirSync(out)).toEqual([expect.stringMatching(/^MON_USDC-\d+\.raw$/)]);
  });
});
