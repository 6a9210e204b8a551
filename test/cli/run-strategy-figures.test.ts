/**
 * What strategies report through `ctx.reportFigures` reaches the run's summary, printed under each
 * strategy's line and in the JSON summary; a callback that throws or returns no flat figures is
 * STRATEGY_REPORT_INVALID in its place, and the run still ends as it would have (exit 0). A run that
 * stops early on a strategy failure still has the figures. On virtual time against the in-process
 * venue, through the CLI.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCommandMain } from '../../src/cli/commands/run.ts';
import { hasStackTrace, runLines, watchedIo, workspace, type Workspace } from './run-harness.ts';

let ws: Workspace | undefined;
afterEach(() => {
  ws?.remove();
  ws = undefined;
});

/** Counts the mids it sees and reports them as `kind` says: as figures, throwing, or as a float; `failAfter` mids: its stream errors. */
const REPORTER = `
import { EMPTY, ignoreElements, mergeMap, tap, throwError } from 'rxjs';
import { defineStrategy, z } from 'clobbot';
export default defineStrategy({
  name: 'reporter',
  params: z.strictObject({ kind: z.enum(['figures', 'throws', 'float']), failAfter: z.number().int().optional() }),
  create: (ctx) => {
    const market = [...ctx.markets.values()][0];
    let mids = 0;
    let first;
    ctx.reportFigures(() => {
      if (ctx.params.kind === 'throws') throw new Error('the figures are not ready');
      if (ctx.params.kind === 'float') return { mids, firstMid: 0.035 };
      return { mids, firstMidUnits: first ?? null, stopped: true };
    });
    return market.feed.mid$.pipe(
      tap((mid) => { mids += 1; first ??= mid.toFixed(); }),
      mergeMap(() => (ctx.params.failAfter !== undefined && mids >= ctx.params.failAfter ? throwError(() => new Error('gave up')) : EMPTY)),
      ignoreElements(),
    );
  },
});
`;

interface Summary {
  readonly stop: { readonly kind: string };
  readonly strategies: readonly { readonly name: string; readonly failed: string | null; readonly figures: Record<string, unknown> | null; readonly figuresError: { code: string; message: string } | null }[];
}

async function run(strategies: readonly string[]): Promise<{ code: number; stdout: string; stderr: string; summary: Summary }> {
  ws = workspace();
  const module = ws.strategy('reporter.ts', REPORTER);
  const file = ws.runFile('figures.yaml', [
    ...runLines({ simConfig: ws.simConfig(), duration: '5s' }),
    'strategies:',
    ...strategies.map((line) => `  - { ${line.replace('MODULE', module)}, markets: [MON_USDC], idleTimeout: off }`),
  ]);
  const out = watchedIo();
  const summaryFile = `${ws.dir}/summary.json`;
  const code = await runCommandMain([file, '--virtual', '--summary', summaryFile], out.io);
  return { code, stdout: out.stdout(), stderr: out.stderr(), summary: JSON.parse(readFileSync(summaryFile, 'utf8')) as Summary };
}

describe('clobbot run: strategies report their own figures', () => {
  it('prints each strategy\'s figures under its line and writes them to the JSON summary; a broken callback is STRATEGY_REPORT_INVALID there, exit 0', async () => {
    const result = await run(['name: good, module: MODULE, params: { kind: figures }', 'name: throws, module: MODULE, params: { kind: throws }', 'name: float, module: MODULE, params: { kind: float }']);
    expect(result.code, result.stdout + result.stderr.slice(-2000)).toBe(0);
    expect(hasStackTrace(result.stderr)).toBe(false);
    const [good, throws, float] = result.summary.strategies;

    expect(good!.figuresError).toBeNull();
    expect(Object.keys(good!.figures!)).toEqual(['mids', 'firstMidUnits', 'stopped']);
    const { mids, firstMidUnits } = good!.figures as { mids: number; firstMidUnits: string };
    expect(mids).toBeGreaterThan(1);
    expect(firstMidUnits).toMatch(/^\d+(\.\d+)?$/);
    // Names padded to the longest of the strategy's.
    expect(result.stdout).toContain(`\n  strategy good: emitted no intent, 0 intents\n    mids          ${mids}\n    firstMidUnits ${firstMidUnits}\n    stopped       true\n  strategy throws:`);

    expect(throws!.figures).toBeNull();
    expect(throws!.figuresError?.code).toBe('STRATEGY_REPORT_INVALID');
    expect(throws!.figuresError?.message).toMatch(/^strategy throws \(\S+reporter\.ts\): its reportFigures callback threw: the figures are not ready$/);
    expect(result.stdout).toMatch(/\n {2}strategy throws: emitted no intent, 0 intents\n {4}figures {5}unavailable: STRATEGY_REPORT_INVALID: strategy throws \(\S+reporter\.ts\): its reportFigures callback threw: the figures are not ready\n/);
    expect(float!.figures).toBeNull();
    expect(float!.figuresError?.code).toBe('STRATEGY_REPORT_INVALID');
    expect(float!.figuresError?.message).toMatch(/: its reportFigures callback returned no flat figures: firstMid: 0\.035 is not a safe integer \(give decimals and large amounts as strings\)$/);
    // Each also logged, as an error, with its code.
    const logged = result.stderr.split('\n').filter((line) => line.includes('"code":"STRATEGY_REPORT_INVALID"'));
    expect(logged).toHaveLength(2);
  }, 60_000);

  it('has the figures of a run stopped early by a strategy failure', async () => {
    const result = await run(['name: quitter, module: MODULE, params: { kind: figures, failAfter: 3 }']);
    expect(result.code, result.stdout + result.stderr.slice(-2000)).toBe(1);
    expect(result.summary.stop.kind).toBe('failed');
    const [quitter] = result.summary.strategies;
    expect(quitter!.failed).toBe('STRATEGY_FAILED');
    expect(quitter!.figures).toMatchObject({ mids: 3, stopped: true });
    expect(result.stdout).toMatch(/\n {2}strategy quitter: failed \(STRATEGY_FAILED\), 0 intents\n {4}mids {10}3\n {4}firstMidUnits \d+\n/);
  }, 60_000);
});
