/**
 * A venue that restarts with its state wiped (a `clobbot sim` killed and started again), met by the
 * real runtime (feeds, relay session, WebSocket + REST transports, engine, the market maker) against
 * the in-process venue on a VirtualClock. The operator sets the wallet up again as soon as the venue
 * is back (as `clobbot account setup` would); from then on the bot must reconnect within a few
 * seconds, place again within a few more, and its stop must end close to when it was asked.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { filter, take, type Observable } from 'rxjs';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { createIdSource } from '../../src/core/ids.ts';
import { createLogger } from '../../src/core/logger.ts';
import { seededRandom } from '../../src/core/random.ts';
import { loadConfigOrThrow } from '../../src/config/load-config.ts';
import { simConfigSchema } from '../../src/config/sim-config.ts';
import { loadSigner } from '../../src/execution/signer-source.ts';
import { loadRunFile } from '../../src/cli/run/run-bot.ts';
import { virtualJournalFs } from '../../src/cli/run/virtual-run-rules.ts';
import { connectInProcessVenue, setUpSimWallet, startSetupTransport } from '../../src/runtime/connect-in-process-venue.ts';
import { createPendingWork } from '../../src/runtime/pending-work.ts';
import { getSimInfo } from '../../src/runtime/sim-account.ts';
import { createTradingRuntime } from '../../src/runtime/trading-runtime.ts';
import { runOnVirtualClock } from '../../src/runtime/virtual-driver.ts';
import { workspace, type Workspace } from '../cli/run-harness.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const START = Date.UTC(2026, 0, 1);

let ws: Workspace | undefined;
afterEach(() => {
  ws?.remove();
  ws = undefined;
});

interface RestartFigures {
  /** From the venue being back up to the bot's relay WebSocket open again. */
  readonly reconnectMs: number;
  /** From the venue being back up to the first placement signed after it that CONFIRMED. */
  readonly firstPlacementMs: number;
  /** From the stop being asked (the duration's end) to the runtime stopped. */
  readonly stopMs: number;
  readonly accountBefore: bigint;
  readonly accountAfter: bigint;
  /** When the venue was back (clock time). */
  readonly upAtMs: number;
  /** The fate of the intent whose request the venue held when it died, and when it came. */
  readonly lostRequest: { readonly status: string; readonly code: string; readonly reason: string; readonly atMs: number } | undefined;
}

/**
 * When the venue dies: at the first moment from `restartAtMs` on with a request awaiting its outcome
 * (`in flight`), or right after a placement confirmed with nothing else unresolved (`idle`); so the
 * case holds whatever the phase of the strategy's requotes.
 */
type RestartMoment = 'in flight' | 'idle';

async function restartRun(options: { readonly restartAtMs: number; readonly at: RestartMoment; readonly downMs: number; readonly durationMs: number; readonly outcomeDelayMs?: number }): Promise<RestartFigures> {
  ws = workspace();
  const simFile = ws.simConfig({ blockMs: 400 });
  const file = ws.runFile('mm.yaml', [
    'network: sim',
    `simConfig: ${simFile}`,
    'wallet: { ephemeral: true }',
    'markets: [MON_USDC]',
    'risk: { maxPosition: "100000", maxOrderSize: "10000", maxNotional: "5000", priceBandBps: 500, maxOrdersPerSecond: 200 }',
    'strategies:',
    '  - { name: mm, module: strategies/market-maker.ts, markets: [MON_USDC], params: { levels: 2, spreadBps: 5, size: "500", maxInventory: "50000" } }',
  ]);
  const { config, strategies } = await loadRunFile(file, {}, ROOT);
  const sim = await loadConfigOrThrow(simFile, simConfigSchema, { env: {} });
  const clock = new VirtualClock(START);
  const pending = createPendingWork();
  const wallet = await loadSigner({ source: config.wallet, network: 'sim', env: {}, cwd: ROOT, random: seededRandom(11) });
  const ids = createIdSource({ clock, random: seededRandom(12) });
  const logger = createLogger({ level: 'silent', clock });
  const journalDir = `${ws.dir}/journal`;

  const figures = await runOnVirtualClock(
    clock,
    async () => {
      const { venue, connection } = await connectInProcessVenue({
        sim,
        clock,
        wallet,
        symbols: ['MON_USDC'],
        latency: config.virtual.latency,
        random: seededRandom(1),
        secrets: seededRandom(2),
        latencyRandom: seededRandom(3),
        clientRandom: seededRandom(4),
        pending,
        ids,
        logger,
      });
      // Outcomes come late: requests are in flight when the venue dies.
      if (options.outcomeDelayMs !== undefined) venue.service.faults.set({ ...venue.service.faults.get(), outcomeDelayMs: options.outcomeDelayMs });
      const runtime = createTradingRuntime({ venue: connection, clock, config, strategies, wallet, seed: 5, ids, logger, journalDir, journalFs: virtualJournalFs, idleWarnMs: 30_000 });
      await runtime.start();
      let upAt = Number.POSITIVE_INFINITY;
      let accountAfter = -1n;
      const reopened: number[] = [];
      let lostRequest: RestartFigures['lostRequest'];
      runtime.engine.reports$.pipe(filter((report) => report.fate.status === 'DROPPED')).subscribe((report) => {
        if (lostRequest === undefined && report.fate.status === 'DROPPED') lostRequest = { status: report.fate.status, code: report.fate.code, reason: report.fate.reason ?? '', atMs: clock.now() };
      });
      runtime.engine.stats$.subscribe((stats) => {
        if (stats.reconnects > reopened.length) reopened.push(clock.now());
      });
      const placedAfter = new Promise<number>((resolve) => {
        runtime.engine.reports$
          .pipe(
            filter((report) => report.fate.status === 'CONFIRMED' && report.intent.type !== 'CancelAll' && clock.now() > upAt),
            take(1),
          )
          .subscribe(() => resolve(clock.now()));
      });
      const restart = () => {
        void venue.restart({ downMs: options.downMs }).then(async () => {
          upAt = clock.now();
          // The operator sets the wallet up again on the fresh venue.
          const context = { transport: venue.transport, clock, random: seededRandom(9) };
          const info = await getSimInfo(context, venue.url);
          const setup = await startSetupTransport(context, { network: connection.network, wallet, logger });
          try {
            const done = await setUpSimWallet({ context, venueUrl: venue.url, info, sim, simFile, network: connection.network, wallet, transport: setup.transport, ids, logger });
            accountAfter = done.accountId;
          } finally {
            await setup.stop();
          }
        });
      };
      const moments: Observable<unknown> =
        options.at === 'in flight'
          ? runtime.engine.stats$.pipe(filter((stats) => stats.pendingOutcomes > 0))
          : runtime.engine.reports$.pipe(filter((report) => report.fate.status === 'CONFIRMED' && report.intent.type !== 'CancelAll' && runtime.engine.stats().unresolved === 0));
      moments
        .pipe(
          filter(() => clock.now() - START >= options.restartAtMs),
          take(1),
        )
        .subscribe(() => clock.scheduler.schedule(restart, 0));
      clock.scheduler.schedule(() => runtime.requestStop({ kind: 'duration', ms: options.durationMs }), options.durationMs);
      await runtime.stopRequested;
      const stopAskedAt = clock.now();
      await runtime.stop();
      const stopMs = clock.now() - stopAskedAt;
      await connection.stop();
      const firstPlacementAt = await Promise.race([placedAfter, Promise.resolve(Number.POSITIVE_INFINITY)]);
      return {
        reconnectMs: (reopened.find((at) => at >= upAt) ?? Number.POSITIVE_INFINITY) - upAt,
        firstPlacementMs: firstPlacementAt - upAt,
        stopMs,
        accountBefore: connection.accountId,
        accountAfter,
        upAtMs: upAt,
        lostRequest,
      };
    },
    { busy: pending.busy },
  );
  rmSync(journalDir, { recursive: true, force: true });
  return figures;
}

describe('a venue restart with its state wiped', () => {
  it('with a request in flight: the bot reconnects within 3 s of the venue being back, places again within 5 s, and stops within 2 s of its duration', async () => {
    // The venue dies 20 s in with a request awaiting its outcome (outcomes come 3 s late) and is back
    // 15 s later. Before: reconnected after 32.3 s (backoff up to 30 s), placed nothing until the
    // stop (the strategy's in-flight requote waited out its deadline), stopped 28.4 s past its duration
    // (10.2 s while placements whose ids never came held their slots).
    const figures = await restartRun({ restartAtMs: 20_000, at: 'in flight', downMs: 15_000, durationMs: 60_000, outcomeDelayMs: 3_000 });
    expect(figures.accountAfter).toBe(figures.accountBefore);
    expect(figures.reconnectMs).toBeLessThanOrEqual(3_000);
    expect(figures.firstPlacementMs).toBeLessThanOrEqual(5_000);
    expect(figures.stopMs).toBeLessThanOrEqual(2_000);
    // The request the dead venue held is settled as not executed, without waiting for its deadline.
    expect(figures.lostRequest).toMatchObject({ status: 'DROPPED', code: 'INTENT_DROPPED_VENUE_RESET', reason: expect.stringContaining('restarted with its state wiped') });
    expect(figures.lostRequest!.atMs - figures.upAtMs).toBeLessThanOrEqual(3_000);
  });

  it('with nothing in flight: the bot places again within 5 s of the venue being back and stops within 2 s of its duration', async () => {
    // The venue dies 20 s in right after a placement confirmed (its order events never came), and is
    // back 15 s later. Before: nothing was placed for the 55 s left (the order book's and the
    // trades' ids began again below the last seen, so every book was dropped as old until they caught
    // up; the placement whose ids never came held its slots for 10 × settleMs), and the stop waited
    // 10.4 s for those ids.
    const figures = await restartRun({ restartAtMs: 20_000, at: 'idle', downMs: 15_000, durationMs: 90_000 });
    expect(figures.accountAfter).toBe(figures.accountBefore);
    expect(figures.reconnectMs).toBeLessThanOrEqual(3_000);
    expect(figures.firstPlacementMs).toBeLessThanOrEqual(5_000);
    expect(figures.stopMs).toBeLessThanOrEqual(2_000);
    expect(figures.lostRequest).toBeUndefined();
  });
});
