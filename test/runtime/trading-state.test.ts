/**
 * `ctx.tradingState$` through the real runtime (strategy host, execution engine and its kill switch)
 * against the in-process venue on a VirtualClock, with the strategy harness: ACTIVE at first, HALTED
 * with the kill switch's trigger and reason once it trips (here: its kill file appears), the current
 * state at once to a late subscriber, only changes, and HALTED "the run is stopping" (no trigger) when
 * a run that was never killed stops. (What the reference strategies do while HALTED: test/strategies.)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ignoreElements, merge, mergeMap, take, tap, timer } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { defineStrategy, z, type TradingState } from 'clobbot';
import { createStrategyHarness } from 'clobbot/testing';
import { book, monUsdc } from '../strategies/fixtures.ts';

type Seen = { readonly at: number; readonly state: TradingState };

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A kill file path in a fresh directory (the engine's kill switch looks for it every second of clock time). */
function killFile(): string {
  dir = mkdtempSync(join(tmpdir(), 'clobbot-trading-state-'));
  return join(dir, 'stop-now');
}

/**
 * A strategy that places one bid once its market has a mid and records what its tradingState$
 * emits: `early` subscribes when the strategy starts, `late` `lateAfterMs` after.
 */
function probe(lateAfterMs: number) {
  const early: Seen[] = [];
  const late: Seen[] = [];
  const definition = defineStrategy({
    name: 'probe',
    params: z.strictObject({}),
    create: (ctx) => {
      const market = [...ctx.markets.values()][0]!;
      const record = (into: Seen[]) => tap((state: TradingState) => into.push({ at: ctx.clock.now(), state }));
      return merge(
        ctx.tradingState$.pipe(record(early), ignoreElements()),
        timer(lateAfterMs, ctx.clock.scheduler).pipe(
          mergeMap(() => ctx.tradingState$),
          record(late),
          ignoreElements(),
        ),
        market.feed.mid$.pipe(
          take(1),
          mergeMap(() => [
            {
              type: 'ReplaceSlots' as const,
              purpose: 'probe',
              market: market.spec.address,
              ops: [{ slotIdx: 0, kind: 'place' as const, side: 'BUY' as const, postOnly: true, price: 348_000n, size: 1_000n, minSizeAfterBlock: 0n }],
            },
          ]),
        ),
      );
    },
  });
  return { definition, early, late };
}

describe('ctx.tradingState$', () => {
  it('turns HALTED with the kill switch trip (trigger and reason), replays it to late subscribers, and keeps it through the stop', async () => {
    const file = killFile();
    const { definition, early, late } = probe(20_000);
    const run = await createStrategyHarness(definition, { markets: [{ spec: monUsdc, book: book('0.0349', '0.0351') }], risk: { killSwitch: { file } } }).start();
    await run.waitFor(() => run.state().orders.length === 1 && run.state().pendingRequests === 0);
    expect(early).toEqual([{ at: run.startMs, state: { state: 'ACTIVE' } }]);

    const writtenAt = run.clock.now();
    writeFileSync(file, '');
    await run.waitFor(() => early.length === 2);
    const halted = { state: 'HALTED', reason: `kill file ${file} exists`, trigger: 'file' };
    expect(early[1]!.state).toEqual(halted);
    // On the clock: the kill file is looked for every 1000 ms.
    expect(early[1]!.at - writtenAt).toBeGreaterThanOrEqual(0);
    expect(early[1]!.at - writtenAt).toBeLessThanOrEqual(1_000);
    // The engine cancelled the probe's order.
    await run.waitFor(() => run.state().orders.length === 0 && run.state().pendingRequests === 0);

    // A subscriber 20 s in gets the current state at once; the first one got nothing more meanwhile.
    await run.advanceTo(25_000);
    expect(late).toEqual([{ at: run.startMs + 20_000, state: halted }]);
    expect(early).toHaveLength(2);
    // Stopping the run changes nothing: HALTED stays, with the trip's trigger.
    await run.stop();
    expect(early.map(({ state }) => state)).toEqual([{ state: 'ACTIVE' }, halted]);
  });

  it('stays ACTIVE (one emission) while the run trades, and turns HALTED without a trigger when the run stops', async () => {
    const { definition, early, late } = probe(5_000);
    const run = await createStrategyHarness(definition, { markets: [{ spec: monUsdc, book: book('0.0349', '0.0351') }] }).start();
    await run.waitFor(() => run.state().orders.length === 1);
    await run.book(book('0.0350', '0.0352'));
    await run.advanceBy(10_000);
    expect(early.map(({ state }) => state)).toEqual([{ state: 'ACTIVE' }]);
    expect(late).toEqual([{ at: run.startMs + 5_000, state: { state: 'ACTIVE' } }]);
    await run.stop();
    expect(early.map(({ state }) => state)).toEqual([{ state: 'ACTIVE' }, { state: 'HALTED', reason: 'the run is stopping' }]);
  });
});
