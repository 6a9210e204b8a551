/**
 * Property tests of the order-events cursoring: for arbitrary distributions of event timestamps
 * (many sharing one second, bursts, gaps), page limits, servers that compare seconds or
 * milliseconds, cap `limit` or do not count `total`, and indexing delays within the overlap,
 * every event is delivered exactly once, oldest first within a batch.
 *
 * A failure prints the line that replays it (CLOBBOT_FUZZ_SEED, CLOBBOT_FUZZ_PATH; CLOBBOT_FUZZ_RUNS
 * runs more: docs/testing.md).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { orderEventKey, orderEvents, type OrderEventsBatch } from '../../src/clients/order-events.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { ORDER_EVENT_TYPES } from '../../src/protocol/constants.ts';
import { USER, makeEvent, scriptedSource, type ScriptedEvent } from './order-events-source.ts';
import { runOnClock } from './support.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

/** What CI runs: the replay variables override it. */
const FUZZ = { numRuns: 60, seed: 20_240_808 };
const T0 = Date.UTC(2024, 7, 8, 12, 0, 0);

/** Event times: clusters (many in one second), with gaps between them up to `maxGapMs`. */
const timesArbWith = (maxGapMs: number) => fc
  .array(
    fc.record({
      gapMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: maxGapMs })),
      count: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 120 })),
      spreadMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 999 }), fc.integer({ min: 0, max: 5_000 })),
    }),
    { minLength: 0, maxLength: 12 },
  )
  .map((clusters) => {
    const times: number[] = [];
    let at = T0;
    for (const cluster of clusters) {
      at += cluster.gapMs;
      for (let i = 0; i < cluster.count; i += 1) times.push(at + Math.floor((cluster.spreadMs * i) / Math.max(1, cluster.count)));
    }
    return times;
  });
const timesArb = timesArbWith(600_000);
/** Live histories are shorter: every poll of the virtual time runs for real. */
const liveTimesArb = timesArbWith(20_000);

const serverArb = fc.record({
  compare: fc.constantFrom('ms' as const, 'seconds' as const),
  maxLimit: fc.option(fc.integer({ min: 2, max: 40 }), { nil: undefined }),
  total: fc.constantFrom('all' as const, 'all' as const, 'page' as const, 'zero' as const),
});

function eventsAt(times: readonly number[], delays: readonly number[] = []): ScriptedEvent[] {
  return times.map((timeMs, n) => ({ event: makeEvent(n, timeMs, ORDER_EVENT_TYPES[n % 3]!), visibleAtMs: timeMs + (delays[n % Math.max(1, delays.length)] ?? 0) }));
}

function checkExactlyOnce(batches: readonly OrderEventsBatch[], scripted: readonly ScriptedEvent[]) {
  const delivered = batches.flatMap((batch) => batch.events.map((item) => item.key));
  expect(new Set(delivered).size).toBe(delivered.length);
  expect([...delivered].sort()).toEqual(scripted.map((item) => orderEventKey(item.event)).sort());
  for (const batch of batches) {
    const times = batch.events.map((item) => item.timeMs);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  }
}

describe('orderEvents cursoring properties', () => {
  it('one pass delivers every event of a fixed history exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(timesArb, fc.integer({ min: 2, max: 30 }), serverArb, async (times, pageLimit, server) => {
        const clock = new VirtualClock((times.at(-1) ?? T0) + 10_000);
        const scripted = eventsAt(times);
        const source = scriptedSource(clock, scripted, server);
        const batches: OrderEventsBatch[] = [];
        await runOnClock(
          clock,
          (async () => {
            for await (const batch of orderEvents(source, { user: USER, fromTimestamp: Math.floor(T0 / 1000), pageLimit, follow: false })) batches.push(batch);
          })(),
        );
        checkExactlyOnce(batches, scripted);
      }),
      fuzzSettings(FUZZ),
    );
  });

  it('following live events, indexed up to the overlap late, delivers each exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(
        liveTimesArb,
        fc.integer({ min: 2, max: 30 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 1_000 }), { minLength: 1, maxLength: 7 }),
        fc.integer({ min: 500, max: 5_000 }),
        serverArb,
        async (times, pageLimit, overlapSec, delayShares, everyMs, server) => {
          const delays = delayShares.map((share) => Math.floor((share / 1_000) * (overlapSec * 1_000 - 1)));
          const clock = new VirtualClock(T0 - 5_000);
          const scripted = eventsAt(times, delays);
          const source = scriptedSource(clock, scripted, server);
          const end = Math.max(...scripted.map((item) => item.visibleAtMs ?? 0), T0) + everyMs * 2 + 1_000;
          const controller = new AbortController();
          clock.scheduler.schedule(() => controller.abort(), end - clock.now());
          const batches: OrderEventsBatch[] = [];
          await runOnClock(
            clock,
            (async () => {
              for await (const batch of orderEvents(source, { user: USER, fromTimestamp: Math.floor(T0 / 1000), pageLimit, overlapSec, everyMs, signal: controller.signal })) {
                batches.push(batch);
              }
            })(),
          );
          checkExactlyOnce(batches, scripted);
        },
      ),
      fuzzSettings(FUZZ),
    );
  });
});
