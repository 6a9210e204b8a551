/**
 * The execution engine against the venue model (in-process, virtual time) under each of the
 * connection faults a property test drives: `duplicate-outcomes`, `reorder-outcomes` and
 * `delay-order-events`. The same trading in each: resting bids (two of them filled later by another
 * account) and IOC buys that take a maker's asks. After it, every intent has exactly one fate, every
 * one CONFIRMED; the engine counted each confirmation and each fill once (its stats, its fills, its
 * position against the venue's own trade events); the journal resolves each signed request once. And
 * each test shows that its fault really happened to this engine (duplicate outcome messages received,
 * outcomes received out of order, order events first seen `delayMs` after their block), so it would
 * fail if the fault were not applied.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { orderEventKey } from '../../src/clients/order-events.ts';
import type { IntentFate, UserDataReader } from '../../src/execution/execution-engine.ts';
import type { FaultActionInput } from '../../src/config/fault-config.ts';
import type { Address } from '../../src/protocol/encoding.ts';
import type { OrderEvent } from '../../src/protocol/user-data.ts';
import type { OrderIntent } from '../../src/protocol/intent-types.ts';
import type { TransportOutcome } from '../../src/execution/relay-transport.ts';
import {
  auditJournal,
  buy,
  createdByPrice,
  currentState,
  engineOn,
  placeIntent,
  run,
  sleep,
  startEngineVenue,
  tearDownEngineWorld,
  tempJournalDir,
  until,
  type EngineOptions,
  type EngineSetup,
  type EngineVenue,
} from './engine-support.ts';

let v: EngineVenue | undefined;
let setup: EngineSetup | undefined;
let tmp: ReturnType<typeof tempJournalDir> | undefined;

afterEach(() => {
  tearDownEngineWorld({ setup, v, tmp });
  v = undefined;
  setup = undefined;
  tmp = undefined;
});

/** Waves of the scenario: each places one resting bid and takes one maker ask. */
const WAVES = 8;
/** The maker's asks, one per wave (price units; the mid is 350 000). */
const askPrice = (wave: number) => 360_000n + 10n * BigInt(wave);
/** Our resting bids, one per wave, far below the mid. */
const bidPrice = (wave: number) => 300_000n - 10n * BigInt(wave);

const MAKER: Address = '0x00000000000000000000000000000000000a5c11';
const TAKER: Address = '0x000000000000000000000000000000000007a411';

function systemOrder(side: 'BUY' | 'SELL', price: bigint, quantity: bigint, tif: 'GTC' | 'IOC'): OrderIntent {
  return { side, price, quantity, tif, executionInstruction: 'NONE', minSizeAfterBlock: 0n };
}

/** The venue's truth of the account's fills on the market: count, signed position, size bought. */
function venueFills(world: EngineVenue): { count: number; position: bigint; bought: bigint } {
  const { events } = world.model.orderEvents(world.accountId, { eventType: 'trade', marketAddress: world.market.address, limit: 100_000, offset: 0 });
  let position = 0n;
  let bought = 0n;
  for (const event of events) {
    if (event.eventType !== 'trade') continue;
    const size = BigInt(event.eventData.filledSize);
    position += event.eventData.isBuy ? size : -size;
    if (event.eventData.isBuy) bought += size;
  }
  return { count: events.length, position, bought };
}

interface ScenarioResult {
  readonly world: EngineVenue;
  readonly setup: EngineSetup;
  readonly dir: string;
  readonly fates: readonly IntentFate[];
  /** Fates reported on `reports$`, per request id. */
  readonly reports: ReadonlyMap<string, number>;
  /** Outcome messages the engine's relay transport received, in arrival order. */
  readonly outcomes: readonly TransportOutcome[];
  /** Fills the engine published on `fills$`. */
  readonly fills: number;
}

/**
 * The engine trades through `faults` (applied once the engine runs and the maker's asks rest):
 * WAVES waves 120 ms apart, each a resting bid and an IOC buy that fills against one ask; then an
 * IOC sell of another account fills our two best bids. Waits for every fate and for the engine's
 * view to match the venue's fills, then stops the engine (cancelling what rests).
 */
async function scenario(faults: readonly FaultActionInput[], options: EngineOptions = {}, waveGapMs = 120): Promise<ScenarioResult> {
  const world = (v = await startEngineVenue({ blockMs: 50 }));
  tmp = tempJournalDir();
  const engineSetup = (setup = engineOn(world, tmp.dir, options));
  const { engine } = engineSetup;
  const market = world.market.address;
  const reports = new Map<string, number>();
  engine.reports$.subscribe(({ fate }) => {
    if ('requestId' in fate) reports.set(fate.requestId, (reports.get(fate.requestId) ?? 0) + 1);
  });
  const outcomes: TransportOutcome[] = [];
  engineSetup.relay.transport.outcomes$.subscribe((outcome) => outcomes.push(outcome));
  let fills = 0;
  engine.fills$.subscribe(() => (fills += 1));

  const fates = await run(world, async () => {
    await engine.start();
    const maker = world.model.fund(MAKER, world.market.baseToken.address, 10n ** 24n);
    world.model.enqueueSystemTx(maker, market, {
      kind: 'batch',
      orders: Array.from({ length: WAVES }, (_, wave) => systemOrder('SELL', askPrice(wave), 100n, 'GTC')),
      cancelSlotIdxs: [],
      expectedOrderIds: [],
    });
    await sleep(world, 100);
    for (const fault of faults) world.service.faults.apply(fault);
    const submitted: Promise<IntentFate>[] = [];
    for (let wave = 0; wave < WAVES; wave++) {
      submitted.push(engine.submit(placeIntent(market, [buy(bidPrice(wave))], `bid-${wave}`)));
      submitted.push(engine.submit(placeIntent(market, [buy(askPrice(wave), 100n, 'IOC')], `take-${wave}`)));
      await sleep(world, waveGapMs);
    }
    const settled = await Promise.all(submitted);
    // Another account sells into our two best bids.
    const taker = world.model.fund(TAKER, world.market.baseToken.address, 10n ** 24n);
    world.model.enqueueSystemTx(taker, market, { kind: 'batch', orders: [systemOrder('SELL', bidPrice(1), 200n, 'IOC')], cancelSlotIdxs: [], expectedOrderIds: [] });
    const expected = () => venueFills(world);
    await until(world, () => expected().count === WAVES + 2, 5_000, 'the taker filling our two best bids');
    const view = () => currentState(engineSetup, market);
    await until(world, () => view().fillCount === expected().count && view().position === expected().position, 30_000, 'the engine to see every fill');
    return settled;
  });
  return { world, setup: engineSetup, dir: tmp.dir, fates, reports, outcomes, fills };
}

/** What every run must show: one fate per intent, all CONFIRMED, each confirmation and each fill counted once, a clean journal. */
async function expectAccountedOnce(result: ScenarioResult): Promise<void> {
  const { world, setup: engineSetup, dir, fates, reports } = result;
  const market = world.market.address;
  expect(fates).toHaveLength(2 * WAVES);
  expect(fates.map((fate) => fate.status)).toEqual(Array.from({ length: 2 * WAVES }, () => 'CONFIRMED'));
  const requestIds = fates.map((fate) => (fate as { requestId: string }).requestId);
  expect(new Set(requestIds).size).toBe(2 * WAVES);
  // reports$ told each fate once.
  expect([...reports.entries()].sort()).toEqual(requestIds.map((id) => [id, 1] as const).sort());
  expect(engineSetup.engine.stats()).toMatchObject({ signed: 2 * WAVES, confirmed: 2 * WAVES, reverted: 0, dropped: 0, rejected: 0, unresolved: 0 });

  // Fills: as many as the venue's trade events, the position and volume the venue's.
  const truth = venueFills(world);
  expect(truth.count).toBe(WAVES + 2);
  const state = currentState(engineSetup, market);
  expect(state.fillCount).toBe(truth.count);
  expect(result.fills).toBe(truth.count);
  expect(state.position).toBe(truth.position);
  expect(state.volume.bought).toBe(truth.bought);
  // Every bid placed once; the unfilled ones live in the engine's state, once each.
  for (let wave = 0; wave < WAVES; wave++) expect(createdByPrice(world, market).get(bidPrice(wave)), `bid ${wave}`).toBe(1);
  await run(world, () => until(world, () => currentState(engineSetup, market).orders.length === WAVES - 2, 10_000, 'the resting bids with their ids'));
  expect(
    currentState(engineSetup, market)
      .orders.map((order) => order.price)
      .sort(),
  ).toEqual(Array.from({ length: WAVES - 2 }, (_, index) => bidPrice(index + 2)).sort());

  const final = await run(world, () => engineSetup.engine.stop({ timeoutMs: 40_000 }));
  expect(final.unresolved).toBe(0);
  expect(world.model.openOrders(world.accountId, market)).toEqual([]);
  const audit = auditJournal(engineSetup.journal.lines(), dir);
  expect(audit.problems).toEqual([]);
  expect(audit.signed).toBe(final.signed);
}

/** Pairs of outcome messages that arrived in the opposite order of their intents' submission (0 without reordering: blocks keep it). */
function inversions(result: ScenarioResult): number {
  const order = new Map(result.fates.map((fate, index) => [(fate as { requestId: string }).requestId, index]));
  const arrival = result.outcomes.map((outcome) => order.get(outcome.requestId)).filter((index): index is number => index !== undefined);
  let count = 0;
  for (let i = 0; i < arrival.length; i++) for (let j = i + 1; j < arrival.length; j++) if (arrival[i]! > arrival[j]!) count += 1;
  return count;
}

/** Outcome messages per request id. */
function outcomeCounts(outcomes: readonly TransportOutcome[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const outcome of outcomes) counts.set(outcome.requestId, (counts.get(outcome.requestId) ?? 0) + 1);
  return counts;
}

describe('execution engine under duplicate-outcomes', () => {
  it('takes a duplicated outcome once: one fate, one confirmation, fills counted once', async () => {
    const result = await scenario([{ action: 'duplicate-outcomes', count: 6 }]);
    // The fault happened: six of our requests got their outcome message twice, the rest once.
    const counts = outcomeCounts(result.outcomes);
    const ours = result.fates.map((fate) => (fate as { requestId: string }).requestId);
    expect(ours.map((id) => counts.get(id)).filter((count) => count === 2)).toHaveLength(6);
    expect(ours.every((id) => (counts.get(id) ?? 0) >= 1 && (counts.get(id) ?? 0) <= 2)).toBe(true);
    expect(result.world.service.faults.pending().outcomes).toBe(0);
    await expectAccountedOnce(result);
  });

  it('the same at a standing duplicateOutcomesRate of 1 (every outcome twice), through the stop', async () => {
    const result = await scenario([{ action: 'set', settings: { duplicateOutcomesRate: 1 } }]);
    const counts = outcomeCounts(result.outcomes);
    for (const fate of result.fates) expect(counts.get((fate as { requestId: string }).requestId)).toBe(2);
    await expectAccountedOnce(result);
  });
});

describe('execution engine under reorder-outcomes', () => {
  it('takes outcomes that arrive out of order: each intent its own fate, confirmations applied in nonce order', async () => {
    const result = await scenario([{ action: 'reorder-outcomes', count: 5 }]);
    // The fault happened: outcomes arrived out of their submission (and block) order, each once.
    expect(inversions(result)).toBeGreaterThanOrEqual(5);
    expect([...outcomeCounts(result.outcomes).values()]).toEqual(Array.from({ length: 2 * WAVES }, () => 1));
    expect(result.world.service.faults.pending().outcomes).toBe(0);
    await expectAccountedOnce(result);
  });

  it('the same at a standing reorderOutcomesRate of 0.5 with duplicates on top', async () => {
    const result = await scenario([{ action: 'set', settings: { reorderOutcomesRate: 0.5, duplicateOutcomesRate: 0.5 } }]);
    const counts = outcomeCounts(result.outcomes);
    expect([...counts.values()].some((count) => count === 2)).toBe(true);
    expect(inversions(result)).toBeGreaterThan(0);
    await expectAccountedOnce(result);
  });
});

/** The real reader, recording when each order event was first handed to the engine. */
function timedReader(real: UserDataReader, now: () => number, firstSeen: Map<string, { readonly blockMs: number; readonly seenMs: number }>): UserDataReader {
  return {
    async orderEventsSince(fromMs, options) {
      const events: readonly OrderEvent[] = await real.orderEventsSince(fromMs, options);
      for (const event of events) {
        const key = orderEventKey(event);
        if (!firstSeen.has(key)) firstSeen.set(key, { blockMs: Date.parse(event.blockTimestamp), seenMs: now() });
      }
      return events;
    },
    activeOrders: (market, options) => real.activeOrders(market, options),
  };
}

describe('execution engine under delay-order-events', () => {
  it('order events shown late (fills, creations) are counted once when they show, and every intent keeps its one fate', async () => {
    const firstSeen = new Map<string, { readonly blockMs: number; readonly seenMs: number }>();
    // `v` is the scenario's venue by the time the engine reads.
    const result = await scenario([{ action: 'delay-order-events', count: 6, delayMs: 2_500 }], {
      userData: (real) => timedReader(real, () => v!.clock.now(), firstSeen),
    });
    // The fault happened: exactly six of our events reached the engine 2.5 s or more after their block.
    const lags = [...firstSeen.values()].map(({ blockMs, seenMs }) => seenMs - blockMs);
    expect(lags.filter((lag) => lag >= 2_500)).toHaveLength(6);
    expect(lags.filter((lag) => lag < 2_500).length).toBeGreaterThan(2 * WAVES);
    expect(result.world.service.faults.pending().orderEvents).toBe(0);
    await expectAccountedOnce(result);
  });
  it('fills shown later than eventsOverlapMs, behind newer events, are still applied, once: the periodic lookback finds them', async () => {
    const world = (v = await startEngineVenue({ blockMs: 50 }));
    tmp = tempJournalDir();
    const firstSeen = new Map<string, { readonly blockMs: number; readonly seenMs: number }>();
    const engineSetup = (setup = engineOn(world, tmp.dir, { userData: (real) => timedReader(real, () => world.clock.now(), firstSeen) }));
    const { engine } = engineSetup;
    const market = world.market.address;
    let fills = 0;
    engine.fills$.subscribe(() => (fills += 1));
    const view = () => currentState(engineSetup, market);
    const fates = await run(world, async () => {
      await engine.start();
      const settled: IntentFate[] = [];
      for (let wave = 0; wave < 2; wave++) settled.push(await engine.submit(placeIntent(market, [buy(bidPrice(wave))], `bid-${wave}`)));
      await sleep(world, 1_000);
      // The two fills of our bids, the next events the engine comes upon, show 9 s late.
      world.service.faults.apply({ action: 'delay-order-events', count: 2, delayMs: 9_000 });
      const taker = world.model.fund(TAKER, world.market.baseToken.address, 10n ** 24n);
      world.model.enqueueSystemTx(taker, market, { kind: 'batch', orders: [systemOrder('SELL', bidPrice(1), 200n, 'IOC')], cancelSlotIdxs: [], expectedOrderIds: [] });
      // Meanwhile newer events every second move the engine's events cursor past the fills.
      for (let wave = 2; wave < 12; wave++) {
        settled.push(await engine.submit(placeIntent(market, [buy(bidPrice(wave))], `bid-${wave}`)));
        await sleep(world, 1_000);
      }
      await until(world, () => view().fillCount === 2, 30_000, 'the engine to see the two late fills');
      return settled;
    });
    // The fault happened: the two trade events reached the engine 9 s or more after their block, the rest at once.
    const lagged = [...firstSeen.entries()].filter(([, { blockMs, seenMs }]) => seenMs - blockMs >= 9_000).map(([key]) => key.split('|')[1]);
    expect(lagged).toEqual(['trade', 'trade']);
    expect(world.service.faults.pending().orderEvents).toBe(0);
    expect(fates.map((fate) => fate.status)).toEqual(Array.from({ length: 12 }, () => 'CONFIRMED'));
    expect(engine.stats()).toMatchObject({ signed: 12, confirmed: 12, reverted: 0, dropped: 0, unresolved: 0 });
    const truth = venueFills(world);
    expect(truth).toEqual({ count: 2, position: 200n, bought: 200n });
    expect(view().fillCount).toBe(2);
    expect(fills).toBe(2);
    expect(view().position).toBe(200n);
    const final = await run(world, () => engine.stop({ timeoutMs: 40_000 }));
    expect(final.unresolved).toBe(0);
    expect(world.model.openOrders(world.accountId, market)).toEqual([]);
    expect(auditJournal(engineSetup.journal.lines(), tmp.dir).problems).toEqual([]);
  });
});
