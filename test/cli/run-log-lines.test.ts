/**
 * The log lines of a real run (`clobbot run config/market-maker.yaml --virtual`, JSON lines on stderr)
 * are strict JSON: every line parses with the duplicate-key-detecting parser, so no key (such as
 * `component`, bound by the runtime and again by the engine) is written twice. Stale-slot reverts,
 * which the engine handles, are debug lines: never info.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatStatusLine } from '../../src/cli/run/run-report.ts';
import { createLogger } from '../../src/core/logger.ts';
import type { EngineStats } from '../../src/execution/execution-engine.ts';
import { parseStrictJson } from '../../src/protocol/strict-json.ts';
import { runCli } from '../support/cli-harness.ts';
import { workspace, type Workspace } from './run-harness.ts';

let ws: Workspace;
beforeAll(() => {
  ws = workspace();
});
afterAll(() => ws.remove());

type Line = Record<string, unknown> & { level: number; msg: string };

/** Every non-empty stderr line, parsed strictly (a duplicate key throws with its path). */
function strictLines(stderr: string): Line[] {
  return stderr
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return parseStrictJson(line) as Line;
      } catch (error) {
        throw new Error(`not strict JSON (${(error as Error).message}): ${line}`);
      }
    });
}

const STALE_SLOT = /a slot no longer held the expected order/;

describe('run log lines', () => {
  it('a real run writes strict JSON lines, each key once; the engine has one component path', async () => {
    const result = await runCli(['run', 'config/market-maker.yaml', '--virtual', '--duration', '20s'], {});
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    const lines = strictLines(result.stderr);
    expect(lines.length).toBeGreaterThan(3);
    const engineLines = lines.filter((line) => line.msg === 'execution engine stopped');
    expect(engineLines).toHaveLength(1);
    expect(engineLines[0]!['component']).toBe('engine/execution-engine');
    // JSON.parse would accept a duplicate key silently; the strict parser is what this test rests on.
    expect(() => parseStrictJson('{"component":"engine","component":"execution-engine"}')).toThrow();
  });

  it('stale-slot reverts are debug lines, counted in the summary, never info', async () => {
    // The reference market maker, quoting tight and big against a brisk flow: its requotes often find a quote just filled.
    const source = readFileSync('config/market-maker.yaml', 'utf8')
      .replace('simConfig: config/sim.yaml', `simConfig: ${ws.simConfig({ blockMs: 400, marketPerSecond: 6 })}`)
      .replace('level: info', 'level: debug')
      .replace('spreadBps: 8 ', 'spreadBps: 2 ')
      .replace('levelSpacingBps: 10', 'levelSpacingBps: 2 ')
      .replace('requoteThresholdBps: 4', 'requoteThresholdBps: 1');
    const file = ws.runFile('mm-debug.yaml', [source]);
    const result = await runCli(['run', file, '--virtual', '--duration', '3m'], {});
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    const lines = strictLines(result.stderr);
    const stopped = lines.find((line) => line.msg === 'execution engine stopped')!;
    const stale = stopped['staleSlotReverts'] as number;
    expect(stale, 'the run should meet at least one stale slot').toBeGreaterThan(0);
    const staleLines = lines.filter((line) => STALE_SLOT.test(line.msg));
    const mismatch = lines.filter((line) => line.msg === 'request not executed' && String(line['reason']).startsWith('EXPECTED_ORDER_ID_MISMATCH'));
    expect(staleLines).toHaveLength(stale);
    expect(mismatch).toHaveLength(stale);
    for (const line of [...staleLines, ...mismatch]) expect(line.level).toBe(20);
    expect(result.stdout).toContain(`reverted ${stopped['reverted']} (${stale} on a stale slot)`);
  });

  it('the status line carries one count of the stale-slot reverts (none: not shown)', () => {
    const stats: EngineStats = {
      signed: 15, confirmed: 12, reverted: 3, staleSlotReverts: 2, dropped: 0, rejected: 0, refused: 0, superseded: 0,
      nothingToDo: 0, maxPendingOutcomes: 2, pendingOutcomes: 0, unresolved: 0, queued: 0, reconnects: 0, reconciled: 0,
    };
    expect(formatStatusLine(Date.UTC(2026, 0, 1, 12, 0, 20), 20_000, [], stats)).toBe('12:00:20 +20 s  | signed 15 confirmed 12 stale-slot reverts 2 reconnects 0');
    expect(formatStatusLine(Date.UTC(2026, 0, 1, 12, 0, 20), 20_000, [], { ...stats, staleSlotReverts: 0 })).toBe('12:00:20 +20 s  | signed 15 confirmed 12 reconnects 0');
  });

  it('a child logger that binds a key its parent binds writes it once: component as a path, the level kept', () => {
    const written: string[] = [];
    const root = createLogger({ level: 'debug', name: 'bot', destination: { write: (line: string) => written.push(line) } });
    const engine = root.child({ component: 'engine', wallet: '0xaa' }).child({ component: 'execution-engine', wallet: '0xbb' });
    engine.info({ n: 1 }, 'hello');
    engine.child({ step: 1 }).debug('deeper');
    const quiet = root.child({ component: 'sim' }, { level: 'warn' }).child({ component: 'matching' });
    quiet.info('not written');
    quiet.warn('written');
    const lines = written.map((line) => parseStrictJson(line) as Line);
    expect(lines.map(({ time: _time, ...rest }) => rest)).toEqual([
      { level: 30, name: 'bot', component: 'engine/execution-engine', wallet: '0xbb', n: 1, msg: 'hello' },
      { level: 20, name: 'bot', component: 'engine/execution-engine', wallet: '0xbb', step: 1, msg: 'deeper' },
      { level: 40, name: 'bot', component: 'sim/matching', msg: 'written' },
    ]);
  });
});
