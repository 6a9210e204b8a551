/**
 * A property run records what the invariants need, from the real engine on the venue model: every
 * block, each intent and its fate, each signed request with its nonce (read from the engine's own
 * journal as it is appended), the engine's counters, the kill switch's trip, the feed's health.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import marketMaker from '../../strategies/market-maker.ts';
import { runScenario } from '../../src/testing/run-scenario.ts';
import { writeScenarioReplay } from '../../src/testing/scenario-replay.ts';
import { STEP_MS, type Scenario } from '../../src/testing/scenario.ts';
import { openEventFeed } from '../../src/feeds/event-feed-reader.ts';
import { FeedEventKind } from '../../src/feeds/feed-event.ts';
import { runCli } from '../support/cli-harness.ts';
import { monUsdc } from '../strategies/fixtures.ts';

const params = { levels: 2, spreadBps: 5, levelSpacingBps: 3, size: '2000', maxInventory: '7000', skewBps: 15, requoteThresholdBps: 2 };
const scenario: Scenario = {
  market: monUsdc,
  mid: 350_000n,
  halfSpreadTicks: 3,
  levels: 5,
  levelSize: 1000,
  tradePct: 30,
  segments: [
    { regime: { kind: 'trend', bpsPerStep: 3 }, steps: 20 },
    { regime: { kind: 'stale' }, steps: 15 },
    { regime: { kind: 'calm' }, steps: 10 },
  ],
  faults: [{ at: 5_000, fault: { action: 'answer-unknown', count: 1 } }],
  killAt: 40_000,
  seed: 9,
};

describe('runScenario', () => {
  it('records the run whole: blocks, intents and their fates, signed nonces, counters, the kill switch, the stale feed', async () => {
    const record = await runScenario(marketMaker, scenario, { params });
    expect(record.error).toBeUndefined();
    expect(record.durationMs).toBe(46 * STEP_MS);
    // A block every 400 ms for the whole run.
    expect(record.blocks.length).toBeGreaterThanOrEqual(Math.floor(record.durationMs / 400) - 1);
    expect(record.intents.length).toBeGreaterThan(5);
    // Every intent got one fate; every one signed (first sends) with a strictly higher nonce.
    expect(record.fates.map((fate) => fate.intent)).toEqual(expect.arrayContaining(record.intents.map((entry) => entry.intent).slice(0, 3)));
    const firsts = record.signed.filter((request) => !request.resend);
    expect(firsts.length).toBeGreaterThan(0);
    for (let i = 1; i < firsts.length; i += 1) expect(firsts[i]!.nonce > firsts[i - 1]!.nonce).toBe(true);
    expect(new Set(record.resolved.map((entry) => entry.requestId)).size).toBe(record.resolved.length);
    expect(record.engine.length).toBeGreaterThanOrEqual(record.blocks.length);
    // The kill switch tripped at 40 s (a command), and nothing rests at the end.
    expect(record.killSwitch?.at).toBe(40_000);
    expect(record.killSwitch?.trip.trigger).toBe('command');
    expect(record.finalStates.get('MON_USDC')?.orders).toEqual([]);
    // The stale segment (20 s .. 35 s) shows on the feed's health, and it recovered after.
    expect(record.feedHealth.some((change) => change.stale && change.at >= 20_000 && change.at < 36_000)).toBe(true);
    expect(record.feedHealth.at(-1)?.stale).toBe(false);
    expect(record.stoppedAt).toBe(record.durationMs);
  });

  it('runs the same scenario to the same record', async () => {
    const short: Scenario = { ...scenario, segments: [{ regime: { kind: 'burst', tradesPerStep: 3 }, steps: 8 }], killAt: undefined, faults: [] };
    const [a, b] = [await runScenario(marketMaker, short, { params }), await runScenario(marketMaker, short, { params })];
    const shape = (record: typeof a) => ({ intents: record.intents, fills: record.fills, nonces: record.signed.map((request) => request.nonce), blocks: record.blocks.length });
    expect(shape(a)).toEqual(shape(b));
  });

  it('writes a scenario as a feed and a run file that clobbot backtest replays', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'clobbot-scenario-'));
    try {
      const { feed, runFile } = writeScenarioReplay(scenario, { dir, module: resolve('strategies/market-maker.ts'), name: 'mm', params });
      const reader = await openEventFeed(feed);
      expect(reader.header.source.kind).toBe('scenario');
      let books = 0;
      let trades = 0;
      for await (const rows of reader.batches()) {
        for (let i = 0; i < rows.length; i += 1) {
          if (rows.kind[i] === FeedEventKind.BOOK_CLEAR) books += 1;
          if (rows.kind[i] === FeedEventKind.TRADE) trades += 1;
        }
      }
      await reader.close();
      expect(books).toBe(46);
      expect(trades).toBeGreaterThan(0);
      const run = await runCli(['backtest', runFile, '--feed', feed, '--out', join(dir, 'out')]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/replay\.events/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
