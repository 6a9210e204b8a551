/**
 * `ctx.fates$` (and `ctx.tradingState$` under `engine.kill`) through the composition root of every
 * run with two strategies on one market: the real strategy hosts, execution engine and kill switch
 * against the in-process venue, on a VirtualClock. Each strategy gets the fate of each intent it
 * emitted (the very object), REFUSED by a risk rule, REVERTED by the venue, CONFIRMED, and nothing
 * of the other strategy's intents or of the engine's own (the kill switch's CancelAll).
 */
import { filter, from, ignoreElements, merge, mergeMap, take, tap } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { defineStrategy, z, type Intent, type MarketSpec, type ReplaceSlots, type TradingState, type IntentFateReport } from 'clobbot';
import { createIdSource } from '../../src/core/ids.ts';
import { createLogger } from '../../src/core/logger.ts';
import { seededRandom } from '../../src/core/random.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { DEFAULT_VIRTUAL_START_MS } from '../../src/config/virtual-config.ts';
import type { IntentReport } from '../../src/execution/execution-engine.ts';
import { loadSigner } from '../../src/execution/signer-source.ts';
import { createPendingWork } from '../../src/runtime/pending-work.ts';
import { createTradingRuntime, type StopReason, type TradingRuntime } from '../../src/runtime/trading-runtime.ts';
import { runOnVirtualClock } from '../../src/runtime/virtual-driver.ts';
import type { LoadedStrategy } from '../../src/strategy/load-strategy.ts';
import { createCheckVenue, type CheckVenue } from '../../src/testing/check-venue.ts';
import { memoryJournalFs } from '../../src/testing/memory-journal-fs.ts';
import { book, monUsdc } from '../strategies/fixtures.ts';

type Fates = IntentFateReport;

/** 1000 MON: an order above it is refused by the engine's risk check (RISK_MAX_ORDER_SIZE). */
const RISK = { maxPosition: '1000000', maxOrderSize: '1000', maxNotional: '1000000', priceBandBps: 10_000, maxOrdersPerSecond: 1_000, maxOpenOrders: 100 };

const place = (market: MarketSpec, purpose: string, slotIdx: number, side: 'BUY' | 'SELL', price: bigint, size: bigint): ReplaceSlots => ({
  type: 'ReplaceSlots',
  purpose,
  market: market.address,
  ops: [{ slotIdx, kind: 'place', side, postOnly: true, price, size, minSizeAfterBlock: 0n }],
});

/**
 * A strategy that emits `intents` once its market has a mid, and `onHalt` when its trading state
 * turns HALTED, and records what its context says.
 */
function probe(name: string, intents: readonly Intent[], onHalt: readonly Intent[] = []) {
  const fates: Fates[] = [];
  const states: TradingState[] = [];
  const definition = defineStrategy({
    name,
    params: z.strictObject({}),
    create: (ctx) => {
      const market = [...ctx.markets.values()][0]!;
      return merge(
        ctx.fates$.pipe(
          tap((report) => fates.push(report)),
          ignoreElements(),
        ),
        ctx.tradingState$.pipe(
          tap((state) => states.push(state)),
          ignoreElements(),
        ),
        market.feed.mid$.pipe(
          take(1),
          mergeMap(() => from(intents)),
        ),
        ctx.tradingState$.pipe(
          filter((state) => state.state === 'HALTED'),
          mergeMap(() => from(onHalt)),
        ),
      );
    },
  });
  const loaded: LoadedStrategy = { name, module: `${name}.ts`, resolved: `${name}.ts`, definition, markets: [monUsdc.symbol], params: {} };
  return { loaded, fates, states, intents };
}

interface Rig {
  readonly clock: VirtualClock;
  readonly venue: CheckVenue;
  readonly runtime: TradingRuntime;
  readonly reports: IntentReport[];
}

let rig: Rig | undefined;
let busy: () => boolean = () => false;
afterEach(async () => {
  const current = rig;
  rig = undefined;
  if (current === undefined) return;
  try {
    await runOnVirtualClock(current.clock, () => current.runtime.stop(), { busy });
  } finally {
    current.venue.stop();
  }
});

/** Runs `work` on the rig's clock. */
const drive = <T>(work: () => Promise<T>): Promise<T> => runOnVirtualClock(rig!.clock, work, { busy });

/** Advances the clock until `ready()` holds (checked every 50 ms), at most `timeoutMs`. */
function until(ready: () => boolean, timeoutMs = 30_000): Promise<void> {
  const { clock } = rig!;
  return drive(async () => {
    const end = clock.now() + timeoutMs;
    while (!ready()) {
      if (clock.now() >= end) throw new Error(`not ready within ${timeoutMs} ms of clock time`);
      await new Promise<void>((resolve) => clock.scheduler.schedule(() => resolve(), 50));
    }
  });
}

/** The runtime with `strategies` on MON_USDC against the in-process venue, started, the book posted. */
async function start(strategies: readonly LoadedStrategy[]): Promise<Rig> {
  const clock = new VirtualClock(DEFAULT_VIRTUAL_START_MS);
  const logger = createLogger({ level: 'silent' });
  const pending = createPendingWork();
  busy = pending.busy;
  const constant = { kind: 'constant', ms: 5 } as const;
  return runOnVirtualClock(
    clock,
    async () => {
      const wallet = await loadSigner({ source: { kind: 'ephemeral' }, network: 'sim', env: {}, random: seededRandom(0x4e7) });
      const ids = createIdSource({ clock, random: seededRandom(0x1d5) });
      const venue = await createCheckVenue({ markets: [{ spec: monUsdc }], clock, wallet, blockMs: 400, latency: { relay: constant, marketData: constant, userData: constant }, seed: 1, pending, ids, logger });
      const runtime = createTradingRuntime({
        venue: venue.connection,
        clock,
        config: {
          strategies: strategies.map((strategy) => ({ name: strategy.name, module: strategy.module, markets: [...strategy.markets], params: {}, idleTimeout: 'off' as const })),
          engine: { maxPendingOutcomes: 48, queuePolicy: 'coalesce' },
          risk: RISK,
        },
        strategies,
        wallet,
        seed: 1,
        ids,
        logger,
        journalDir: '/intent-fates/journal',
        journalFs: memoryJournalFs(),
        idleWarnMs: 24 * 3_600_000,
      });
      const reports: IntentReport[] = [];
      runtime.engine.reports$.subscribe((report) => reports.push(report));
      // The book first: the strategies emit once their feed shows a mid.
      venue.postBook(monUsdc, book('0.0349', '0.0351'));
      await runtime.start();
      rig = { clock, venue, runtime, reports };
      return rig;
    },
    { busy },
  );
}

describe('ctx.fates$ through the runtime', () => {
  it("gives each strategy the fate of each of its own intents, the very object, and none of another strategy's or the engine's", async () => {
    // A: an order above maxOrderSize, a post-only bid through the ask (the venue reverts it), each
    // emitted twice (the same object: two fates), and a resting bid. B: an oversize order of its own
    // and a resting ask.
    const oversizeA = place(monUsdc, 'a-big', 0, 'BUY', 349_000n, 200_000n);
    const crossing = place(monUsdc, 'a-cross', 1, 'BUY', 351_500n, 1_000n);
    const restingA = place(monUsdc, 'a-rest', 2, 'BUY', 348_000n, 1_000n);
    const oversizeB = place(monUsdc, 'b-big', 3, 'SELL', 352_000n, 300_000n);
    const restingB = place(monUsdc, 'b-rest', 4, 'SELL', 352_000n, 1_000n);
    const a = probe('a', [oversizeA, oversizeA, crossing, crossing, restingA]);
    const b = probe('b', [oversizeB, restingB]);
    const { runtime, reports } = await start([a.loaded, b.loaded]);
    await until(() => a.fates.length === 5 && b.fates.length === 2 && runtime.engine.stats().unresolved === 0);
    // Settle a little longer: nothing else may come.
    await drive(() => new Promise<void>((resolve) => rig!.clock.scheduler.schedule(() => resolve(), 5_000)));

    expect(a.fates).toHaveLength(5);
    const fateOf = (fates: readonly Fates[], intent: Intent) => fates.filter((report) => report.intent === intent).map((report) => report.fate);
    expect(fateOf(a.fates, oversizeA)).toEqual([
      { status: 'REFUSED', code: 'RISK_MAX_ORDER_SIZE', message: expect.stringContaining('above the limit 100000') },
      { status: 'REFUSED', code: 'RISK_MAX_ORDER_SIZE', message: expect.stringContaining('above the limit 100000') },
    ]);
    // Both in flight at once, as two requests: one fate each.
    const reverted = { status: 'REVERTED', requestId: expect.any(String), txHash: expect.stringMatching(/^0x/), code: 'INVALID_ORDER', reason: expect.stringMatching(/^INVALID_ORDER: .*post-only/) };
    expect(fateOf(a.fates, crossing)).toEqual([reverted, reverted]);
    expect(fateOf(a.fates, restingA)).toEqual([{ status: 'CONFIRMED', requestId: expect.any(String), txHash: expect.stringMatching(/^0x/) }]);
    expect(b.fates.map(({ intent, fate }) => [intent, fate.status])).toEqual([
      [oversizeB, 'REFUSED'],
      [restingB, 'CONFIRMED'],
    ]);
    // Each fate is the engine's report of that intent (the same fate object).
    for (const report of [...a.fates, ...b.fates]) expect(reports.some((engine) => engine.intent === report.intent && engine.fate === report.fate)).toBe(true);

    // The engine's own intents are no strategy's: the kill switch's CancelAll reaches neither.
    runtime.engine.kill('test: stop placing');
    await until(() => runtime.engine.stats().unresolved === 0 && reports.some(({ intent }) => intent.type === 'CancelAll'));
    const sweep = reports.filter(({ intent }) => intent.purpose === 'kill-switch');
    expect(sweep.length).toBeGreaterThan(0);
    expect(sweep.every(({ fate }) => fate.status === 'CONFIRMED')).toBe(true);
    expect(a.fates).toHaveLength(5);
    expect(b.fates).toHaveLength(2);
  });

  it('tells every strategy HALTED with trigger command when the engine is killed, and the run asks to stop', async () => {
    const a = probe('a', [place(monUsdc, 'a-rest', 0, 'BUY', 348_000n, 1_000n)]);
    const b = probe('b', [place(monUsdc, 'b-rest', 1, 'SELL', 352_000n, 1_000n)]);
    const { runtime } = await start([a.loaded, b.loaded]);
    await until(() => a.fates.length === 1 && b.fates.length === 1);
    expect(a.states).toEqual([{ state: 'ACTIVE' }]);
    let stop: StopReason | undefined;
    void runtime.stopRequested.then((reason) => (stop = reason));
    let runState: TradingState | undefined;
    runtime.tradingState$.subscribe((state) => (runState = state));
    expect(runState).toEqual({ state: 'ACTIVE' });

    runtime.engine.kill('operator says stop');
    const halted = { state: 'HALTED', reason: 'operator says stop', trigger: 'command' };
    expect(a.states).toEqual([{ state: 'ACTIVE' }, halted]);
    expect(b.states).toEqual([{ state: 'ACTIVE' }, halted]);
    expect(runState).toEqual(halted);
    await until(() => stop !== undefined);
    expect(stop).toEqual({ kind: 'killed', trigger: 'command', message: 'kill switch tripped (command): operator says stop' });
    // The kill switch trips once: another kill changes nothing, and the stop keeps the trip's state.
    runtime.engine.kill('again');
    await drive(() => runtime.stop());
    expect(a.states).toEqual([{ state: 'ACTIVE' }, halted]);
  });

  it('tells the strategies HALTED "the run is stopping" (with why) when the run stops, and submits nothing they emit then', async () => {
    const reaction = place(monUsdc, 'a-late', 5, 'BUY', 348_000n, 1_000n);
    const a = probe('a', [place(monUsdc, 'a-rest', 0, 'BUY', 348_000n, 1_000n)], [reaction]);
    const { runtime, reports } = await start([a.loaded]);
    await until(() => a.fates.length === 1);
    runtime.requestStop({ kind: 'duration', ms: 60_000 });
    await drive(() => runtime.stop());
    expect(a.states).toEqual([{ state: 'ACTIVE' }, { state: 'HALTED', reason: 'the run is stopping: the duration (60 s) ended' }]);
    // The strategy reacted, but it was being stopped: the engine never saw the intent (its stop cancelled the order).
    expect(reports.some(({ intent }) => intent === reaction)).toBe(false);
    expect(reports.filter(({ intent }) => intent.purpose === 'stop').map(({ fate }) => fate.status)).toEqual(['CONFIRMED']);
    expect(runtime.hosts[0]!.tally.emitted).toBe(1);
  });
});
