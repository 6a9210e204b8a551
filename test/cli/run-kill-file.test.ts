/**
 * A kill-switch file left by an earlier stop (`risk.killSwitch.file` exists when a run starts) stops
 * the next run at once: exit 1, a message naming the file, where the run file sets it and how to clear
 * it; nothing is started (no venue, no wallet set up). Never a silent exit 0.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-harness.ts';
import { hasStackTrace, runLines, workspace, type Workspace } from './run-harness.ts';

let ws: Workspace;
let sim: string;
beforeAll(() => {
  ws = workspace();
  sim = ws.simConfig();
});
afterAll(() => ws.remove());

describe('clobbot run with a kill-switch file left from an earlier run', () => {
  it('refuses to start: exit 1, naming the file and how to clear it', async () => {
    const killFile = join(ws.dir, 'stop-now');
    writeFileSync(killFile, 'stopped by an earlier run\n');
    const file = ws.runFile('kill.yaml', [
      ...runLines({ simConfig: sim, duration: '3s' }).filter((line) => !line.startsWith('risk:')),
      'risk:',
      '  maxPosition: "100000"',
      '  maxOrderSize: "10000"',
      '  maxNotional: "5000"',
      `  killSwitch: { file: ${killFile} }`,
      'strategies:',
      '  - { name: mm, module: strategies/market-maker.ts, markets: [MON_USDC], params: { levels: 1, spreadBps: 10, size: "100", maxInventory: "1000" } }',
    ]);
    const result = await runCli(['run', file, '--virtual'], {});
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `error RISK_KILL_SWITCH: the kill-switch file ${killFile} (risk.killSwitch.file, ${file}:11:23) exists, left by an earlier stop: nothing was started. Remove it to trade again (rm ${killFile})\n`,
    );
    expect(hasStackTrace(result.stderr)).toBe(false);
  });
});
