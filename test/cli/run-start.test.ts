/**
 * `clobbot start` (npm start): `clobbot run config/market-maker.yaml`. The full 60 s run is what
 * `npm start` shows (README); here a short run of the same file against a fast in-process venue.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-harness.ts';
import { hasStackTrace, summaryCounts, workspace, type Workspace } from './run-harness.ts';

let ws: Workspace | undefined;
afterEach(() => {
  ws?.remove();
  ws = undefined;
});

describe('clobbot start', () => {
  it('runs the market maker run file against the in-process venue and prints the summary', async () => {
    ws = workspace();
    const sim = ws.simConfig();
    const file = ws.runFile('market-maker.yaml', [readFileSync('config/market-maker.yaml', 'utf8').replace('simConfig: config/sim.yaml', `simConfig: ${sim}`)]);
    const result = await runCli(['start', '--config', file, '--duration', '4'], {});
    expect(result.code, result.stderr.slice(-3000)).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^clobbot start: the reference market maker against the local venue \\(clobbot run ${file}\\)\\n`));
    expect(result.stdout).toContain('markets MON_USDC, for 4 s\n');
    expect(result.stdout).toMatch(/\nrun summary: [0-9.]+ s, stopped because the duration \(4 s\) ended\n/);
    expect(summaryCounts(result.stdout).openAfterStop).toBe(0);
    expect(hasStackTrace(result.stderr)).toBe(false);
  });

  it('reports a broken run file with its location and exit 2', async () => {
    ws = workspace();
    const file = ws.runFile('bad.yaml', ['network: sim', 'markets: [MON_USDC]', 'strategies: []', 'risk: {}', 'bogus: 1']);
    const run = await runCli(['start', '--config', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file}:5:1 bogus: unknown key`);
    expect(hasStackTrace(run.stderr)).toBe(false);
  });

  it('is listed with run in the help', async () => {
    const help = await runCli(['help']);
    expect(help.stdout).toMatch(/\n {2}start +what npm start runs/);
    expect(help.stdout).toMatch(/\n {2}run +trade a run file/);
    const usage = await runCli(['run', '--help']);
    expect(usage.stdout).toMatch(/^usage: clobbot run <file> \[--duration <s>\] \[--network <n>\]/);
  });
});
