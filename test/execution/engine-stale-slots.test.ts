/**
 * A quote fills while the engine's order events lag (the API caches them): the next intent bound to
 * that slot reverts with EXPECTED_ORDER_ID_MISMATCH. The engine must take that as news, not as an
 * error: read the market's active orders at once, hold the market's slot-bound intents until that
 * read changed its view, and not count the revert toward the kill switch's error rate.
 *
 * The venue model through the in-process connection on virtual time, real transports and clients.
 * The lag is made at the engine's user-data seam: a reader that, once frozen, keeps answering order
 * events from its last real answer (as a cache would), while active orders stay live.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { IntentFate, UserDataReader } from '../../src/execution/execution-engine.ts';
import type { OrderEvent } from '../../src/protocol/user-data.ts';
import type { ReplaceSlots } from '../../src/strategy/intents.ts';
import {
  buy,
  currentState,
  engineOn,
  placeIntent,
  run,
  startEngineVenue,
  tearDownEngineWorld,
  tempJournalDir,
  until,
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

type LaggingReader = UserDataReader & { freeze(): void; thaw(): void; readonly activeReads: () => number };

/** The real reader, whose order events can be frozen at their last answer; active-order reads are counted. */
function laggingReader(real: UserDataReader): LaggingReader {
  let frozen: readonly OrderEvent[] | undefined;
  let last: readonly OrderEvent[] = [];
  let activeReads = 0;
  return {
    async orderEventsSince(fromMs, options) {
      if (frozen !== undefined) return frozen.filter((event) => Date.parse(event.blockTimestamp) >= fromMs);
      last = await real.orderEventsSince(fromMs, options);
      return last;
    },
    async activeOrders(market, options) {
      activeReads += 1;
      return real.activeOrders(market, options);
    },
    freeze() {
      frozen = last;
    },
    thaw() {
      frozen = undefined;
    },
    activeReads: () => activeReads,
  };
}

/** Fills `size` of our resting bid at `price` with an IOC sell of another account, in the next block. */
async function takeOurBid(world: EngineVenue, price: bigint, size: bigint): Promise<void> {
  const { model } = world;
  const taker = model.fund('0x00000000000000000000000000000000000000a1', world.market.baseToken.address, 10n ** 24n);
  model.enqueueSystemTx(taker, world.market.address, {
    kind: 'batch',
    orders: [{ side: 'SELL', price, quantity: size, tif: 'IOC', executionInstruction: 'NONE', minSizeAfterBlock: 0n }],
    cancelSlotIdxs: [],
    expectedOrderIds: [],
  });
  await until(world, () => model.openOrders(world.accountId, world.market.address).length === 0, 5_000, 'our bid filled');
}

describe('stale slots: a quote filled before the engine heard of it', () => {
  it('learns from the EXPECTED_ORDER_ID_MISMATCH revert: reads active orders at once, holds the next slot-bound intent until its view is fresh, counts no error', async () => {
    const world = (v = await startEngineVenue());
    tmp = tempJournalDir();
    const market = world.market.address;
    let reader: LaggingReader | undefined;
    // Periodic active-order snapshots far apart: only the revert can make the engine read them soon.
    const engineSetup = (setup = engineOn(world, tmp.dir, {
      userData: (real) => (reader = laggingReader(real)),
      tuning: { activeOrdersEveryMs: 120_000, staleViewHoldMs: 10_000 },
      engine: { queuePolicy: 'queue' },
    }));
    const { engine } = engineSetup;
    const lagging = reader!;
    const state = () => currentState(engineSetup, market);

    await run(world, async () => {
      await engine.start();
      expect(await engine.submit(placeIntent(market, [buy(300_000n)], 'quote'))).toMatchObject({ status: 'CONFIRMED' });
      await until(world, () => state().slots[0]?.orderId !== undefined, 5_000, 'the bid order id');
      const bidId = state().slots[0]!.orderId!;

      lagging.freeze();
      await takeOurBid(world, 300_000n, 100n);
      // The engine cannot know yet: its view still has the bid in slot 0.
      expect(state().slots[0]?.orderId).toBe(bidId);

      const requote: ReplaceSlots = {
        type: 'ReplaceSlots',
        market,
        purpose: 'quote',
        ops: [{ slotIdx: 0, kind: 'place', side: 'BUY', postOnly: true, price: 299_000n, size: 100n, minSizeAfterBlock: 0n }],
      };
      const readsBefore = lagging.activeReads();
      const failuresBefore = engine.killSwitch.errorRate().failures;
      // A second requote, sent as a strategy would the moment its state shows the first one's outcome:
      // planned before the revert's refresh could land, it must wait for a fresh view instead of
      // reverting again.
      let sawPending = false;
      let reacting: Promise<IntentFate> | undefined;
      const watch = engine.state$(market).subscribe((next) => {
        if (next.pendingRequests > 0) sawPending = true;
        else if (sawPending && reacting === undefined) reacting = engine.submit({ ...requote, purpose: 'react' });
      });
      const first = await engine.submit(requote);
      watch.unsubscribe();
      expect(first.status).toBe('REVERTED');
      expect(first).toMatchObject({ status: 'REVERTED', code: 'EXPECTED_ORDER_ID_MISMATCH', reason: expect.stringMatching(/^EXPECTED_ORDER_ID_MISMATCH: /) });
      expect(reacting).toBeDefined();
      expect(await reacting!).toMatchObject({ status: 'CONFIRMED' });
      expect(lagging.activeReads()).toBeGreaterThan(readsBefore);
      const stats = engine.stats();
      expect(stats.reverted).toBe(1);
      expect(stats.staleSlotReverts).toBe(1);
      expect(engine.killSwitch.errorRate().failures).toBe(failuresBefore);

      // The venue holds the new bid in slot 0. Once the order events flow again, the engine has its id
      // there, and the fill.
      const resting = world.model.openOrders(world.accountId, market);
      expect(resting.map((order) => [order.slot, order.price])).toEqual([[0, 299_000n]]);
      lagging.thaw();
      await until(world, () => state().slots[0]?.orderId === resting[0]!.id, 5_000, 'the new bid in slot 0');
      await until(world, () => state().position === 100n, 5_000, 'the fill');
      expect(state().slots.filter((slot) => slot !== null).map((slot) => slot!.price)).toEqual([299_000n]);
    });
  });
});
