/**
 * A strategy that completes while its intents are still queued (a burst of slices, then done): the
 * run drains them before it stops, so none is refused ENGINE_STOPPED; when they cannot all go out
 * within the drain bound, the run says how many it dropped and exits 1. On virtual time against the
 * in-process venue, through the CLI.
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

/** `count` IOC buys 1 % under the first mid (none fills), each its own purpose, all at once; then it completes. */
const BURST = `
import { from, mergeMap, take } from 'rxjs';
import { defineStrategy, priceAtOffset, z } from 'clobbot';
export default defineStrategy({
  name: 'burst',
  params: z.strictObject({ count: z.number().int().positive() }),
  create: (ctx) => {
    const market = [...ctx.markets.values()][0];
    return market.feed.mid$.pipe(
      take(1),
      mergeMap((mid) => from(Array.from({ length: ctx.params.count }, (_, i) => ({
        type: 'PlaceAndCancel', market: market.spec.address, purpose: 'slice-' + i, cancelSlots: [],
        orders: [{ side: 'BUY', price: priceAtOffset(mid, 100, 'BUY', market.spec.tickSize), size: 100n, tif: 'IOC', executionInstruction: 'NONE', minSizeAfterBlock: 0n }],
      })))),
    );
  },
});
`;

interface Summary {
  readonly stop: { readonly kind: string };
  readonly engine: { readonly signed: number };
  readonly strategies: readonly { readonly emitted: number; readonly fates: Record<string, number>; readonly codes: Record<string, number> }[];
}

async function burstRun(count: number, relayLatency: string): Promise<{ code: number; stdout: string; stderr: string; summary: Summary }> {
  ws = workspace();
  const module = ws.strategy('burst.ts', BURST);
  const file = ws.runFile('burst.yaml', [
    ...runLines({ simConfig: ws.simConfig(), duration: '10m' }).map((line) => (line.startsWith('risk:') ? line.replace('maxOrdersPerSecond: 200', 'maxOrdersPerSecond: 10000') : line)),
    'engine: { queuePolicy: queue }',
    `virtual: { latency: { relay: ${relayLatency} } }`,
    'strategies:',
    `  - { name: burst, module: ${module}, markets: [MON_USDC], params: { count: ${count} } }`,
  ]);
  const out = watchedIo();
  const summaryFile = `${ws.dir}/summary.json`;
  const code = await runCommandMain([file, '--virtual', '--summary', summaryFile], out.io);
  return { code, stdout: out.stdout(), stderr: out.stderr(), summary: JSON.parse(readFileSync(summaryFile, 'utf8')) as Summary };
}

describe('clobbot run: a strategy completes with intents still queued', () => {
  it('drains them before stopping: every one is signed, none refused ENGINE_STOPPED, exit 0', async () => {
    const result = await burstRun(400, '30ms');
    expect(result.code, result.stdout + result.stderr.slice(-2000)).toBe(0);
    expect(result.summary.stop.kind).toBe('completed');
    const [strategy] = result.summary.strategies;
    expect(strategy!.emitted).toBe(400);
    expect(strategy!.codes['ENGINE_STOPPED'] ?? 0).toBe(0);
    expect(result.summary.engine.signed).toBe(400);
    // Every intent got a fate of its own execution.
    expect((strategy!.fates['CONFIRMED'] ?? 0) + (strategy!.fates['REVERTED'] ?? 0)).toBe(400);
  }, 60_000);

  it('past the drain bound (30 s) it drops the rest, says how many, and exits 1', async () => {
    // A 2 s relay each way: 48 requests in flight at a time, about 4 s a round: 1,500 take far longer than 30 s.
    const result = await burstRun(1_500, '2s');
    expect(result.code, result.stdout + result.stderr.slice(-2000)).toBe(1);
    expect(hasStackTrace(result.stderr)).toBe(false);
    const [strategy] = result.summary.strategies;
    const dropped = strategy!.codes['ENGINE_STOPPED'] ?? 0;
    expect(dropped).toBeGreaterThan(0);
    expect(dropped).toBeLessThan(1_500);
    expect(result.stderr).toContain(
      `error RUN_INTENTS_DROPPED: every strategy completed, but ${dropped} intents were still queued or unsettled after 30 s of draining and were dropped (ENGINE_STOPPED)`,
    );
    expect(result.stdout).toContain(`(not executed: ENGINE_STOPPED ×${dropped})`);
  }, 60_000);
});
