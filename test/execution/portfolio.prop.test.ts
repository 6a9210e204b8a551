/**
 * Property tests of the portfolio:
 * - position is the sum of the signed fills, and realized + unrealized PnL is the mark-to-market
 *   change (sells - buys + mark value) for any sequence of fills;
 * - against the real venue model (matching engine + order history) driven by random batches, slot
 *   replacements and counterparty flow, some transactions in the block of the one before: after
 *   every transaction the inferred slots and remaining sizes are the venue's own;
 * - the same facts delivered late, duplicated and reordered give the same final state.
 *
 * A failure prints the line that replays it (CLOBBOT_FUZZ_SEED, CLOBBOT_FUZZ_PATH; CLOBBOT_FUZZ_RUNS
 * runs more: docs/testing.md).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UINT64_MAX } from '../../src/core/units.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { markValue } from '../../src/execution/average-cost.ts';
import { createPortfolio, type Portfolio, type RequestStatus } from '../../src/execution/portfolio.ts';
import type { Hex } from '../../src/protocol/encoding.ts';
import type { PackedOp } from '../../src/protocol/packed-ops.ts';
import type { OrderEvent } from '../../src/protocol/user-data.ts';
import type { Intent, OrderRequest } from '../../src/strategy/intents.ts';
import { amountScale, quoteRaw } from '../../src/protocol/market-spec.ts';
import { canceled, created, monUsdc, T0, trade, tx, VenueHarness } from './portfolio-fixtures.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

type ValueOf<A> = A extends fc.Arbitrary<infer T> ? T : never;
const options = fuzzSettings({ numRuns: 150, seed: 20_250_106 });
const M = monUsdc.address;
const scale = amountScale(monUsdc);

// ---- fills only ---------------------------------------------------------------------------------

const fillArb = fc.record({
  side: fc.constantFrom('BUY' as const, 'SELL' as const),
  price: fc.integer({ min: 1, max: 400 }).map((n) => BigInt(n) * 5n),
  filled: fc.integer({ min: 1, max: 50_000 }).map(BigInt),
  /** Several fills share a block time, so the canonical order matters. */
  second: fc.integer({ min: 0, max: 20 }),
});

function tradeEvents(fills: readonly ValueOf<typeof fillArb>[]): OrderEvent[] {
  return fills.map((fill, i) => {
    const where = { tx: tx(1000 + i), timeMs: T0 + fill.second * 1000 };
    return trade(where, { orderId: BigInt(i + 1), side: fill.side, price: fill.price, orderSize: fill.filled, filled: fill.filled, remaining: 0n });
  });
}

describe('portfolio properties: fills', () => {
  it('position = sum of signed fills; realized + unrealized = sells - buys + mark value', () => {
    fc.assert(
      fc.property(fc.array(fillArb, { maxLength: 40 }), fc.integer({ min: 1, max: 2000 }).map(BigInt), (fills, mark) => {
        const portfolio = createPortfolio({ clock: new VirtualClock(T0) }, { markets: [monUsdc] });
        portfolio.applyOrderEvents(tradeEvents(fills));
        const state = portfolio.state(M);
        const signed = fills.reduce((sum, fill) => sum + (fill.side === 'BUY' ? fill.filled : -fill.filled), 0n);
        expect(state.position).toBe(signed);
        let cash = 0n;
        for (const fill of fills) {
          const quote = quoteRaw(scale, fill.price, fill.filled);
          cash += fill.side === 'SELL' ? quote : -quote;
        }
        const pnl = portfolio.pnl(M, mark);
        expect(pnl.realized + pnl.unrealized).toBe(cash + markValue(scale, signed, mark));
        // Fees are apart: net = mark-to-market change of the account, fees paid.
        expect(pnl.net).toBe(cash + markValue(scale, signed, mark) - state.fees);
        expect(state.fillCount).toBe(fills.length);
        if (signed === 0n) expect(state.costBasis).toBe(0n);
      }),
      options,
    );
  });
});

// ---- the real venue model -------------------------------------------------------------------------

/**
 * Alice (the bot) quotes on odd multiples of 0.05 and bob on even ones, so that no price level
 * holds both: with both, which of alice's orders cancelled her own resting order by self-trade can
 * depend on its place in the level's queue, which her order events do not show (the portfolio then
 * guesses; see the unit test "guesses ...").
 */
const priceArb = fc.integer({ min: 8, max: 11 }).map((n) => BigInt(n) * 10n + 5n); // 0.85 .. 1.15
const bobPriceArb = fc.integer({ min: 8, max: 12 }).map((n) => BigInt(n) * 10n); // 0.80 .. 1.20
const sizeArb = fc.integer({ min: 1, max: 200 }).map((n) => BigInt(n) * 10n);
const sideArb = fc.constantFrom('BUY' as const, 'SELL' as const);

const batchOrderArb = fc.record({
  side: sideArb,
  price: priceArb,
  size: sizeArb,
  tif: fc.constantFrom('GTC' as const, 'GTC' as const, 'GTC' as const, 'IOC' as const),
  postOnly: fc.boolean(),
});

/**
 * One of alice's transactions in the block of the one before: its block time is shared, so only
 * the confirmation order of her transactions and which of them freed which of her orders tell the
 * slots apart (e.g. an IOC order of hers cancelling her resting order by self-trade after a batch
 * of hers in the same block). Bob's transactions open a block: whether one of his fills came
 * before or after her placement in the same block is not in her events (a free at the same time
 * as a placement is taken to come first).
 */
const sameBlockArb = fc.constantFrom(false, false, true);

const stepArb = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('batch' as const),
      cancels: fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { maxLength: 3 }),
      orders: fc.array(batchOrderArb, { maxLength: 4 }),
      sameBlock: sameBlockArb,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('replace' as const),
      ops: fc.uniqueArray(
        fc.record({ slot: fc.integer({ min: 0, max: 9 }), place: fc.boolean(), side: sideArb, price: priceArb, size: sizeArb, postOnly: fc.boolean() }),
        { minLength: 1, maxLength: 3, selector: (op) => op.slot },
      ),
      sameBlock: sameBlockArb,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('bob' as const),
      side: sideArb,
      price: bobPriceArb,
      size: sizeArb,
      tif: fc.constantFrom('GTC' as const, 'IOC' as const),
      sameBlock: fc.constant(false),
    }),
  },
);
type Step = ValueOf<typeof stepArb>;

/** One thing the engine tells the portfolio, in the order it happened. */
type Action =
  | { readonly kind: 'pending'; readonly requestId: string; readonly intent: Intent; readonly expected: readonly bigint[] }
  | { readonly kind: 'outcome'; readonly requestId: string; readonly status: RequestStatus; readonly txHash: Hex }
  | { readonly kind: 'events'; readonly events: readonly OrderEvent[] };

function apply(portfolio: Portfolio, action: Action): void {
  if (action.kind === 'pending') portfolio.markPending(action.requestId, action.intent, { expectedOrderIds: action.expected });
  else if (action.kind === 'outcome') portfolio.applyOutcome(action.requestId, action.status, { txHash: action.txHash });
  else portfolio.applyOrderEvents(action.events);
}

/**
 * Drives the venue with `steps`, telling the portfolio about alice's requests and events as they
 * happen (events before or after the outcome, as `early` says), and checks slots and remaining
 * sizes against the venue after each transaction. Returns the actions for a replay.
 */
/** What the runs exercised, printed once. */
const coverage = { transactions: 0, reverted: 0, selfTrade: 0, filledAtOnce: 0, makerFills: 0, replaced: 0, sameBlockSelfTrade: 0 };

function drive(steps: readonly Step[], early: readonly boolean[], settleMs: number): { actions: Action[]; portfolio: Portfolio; venue: VenueHarness } {
  const venue = new VenueHarness();
  const clock = new VirtualClock(T0);
  const portfolio = createPortfolio({ clock }, { markets: [monUsdc], settleMs });
  const actions: Action[] = [];
  const act = (action: Action) => {
    actions.push(action);
    apply(portfolio, action);
  };
  /** The block of alice's last accepted transaction. */
  let aliceBlock = -1;
  steps.forEach((step, index) => {
    const sameBlock = step.sameBlock && venue.block > 0;
    if (!sameBlock) clock.advanceTo(venue.timeOf(venue.block + 1));
    if (step.kind === 'bob') {
      const order = { side: step.side, price: step.price, quantity: step.size, tif: step.tif, executionInstruction: 'NONE' as const, minSizeAfterBlock: 0n };
      const bobResult = venue.engine.executeBatch({ accountId: venue.bob, market: M, cancelSlotIdxs: [], expectedOrderIds: [], orders: [order] });
      if (bobResult.ok) coverage.makerFills += bobResult.events.filter((e) => e.type === 'OrderFilled' && e.makerAccountId === venue.alice).length;
      const { tx: hash, ok } = venue.commit(bobResult, { sameBlock });
      if (ok) act({ kind: 'events', events: venue.eventsOf(hash) });
      return;
    }
    const requestId = `r${index}`;
    const known = portfolio.slotOrderIds(M);
    const expectedAt = (slot: number) => known[slot] ?? UINT64_MAX;
    let intent: Intent;
    let expected: bigint[];
    let result;
    if (step.kind === 'batch') {
      if (step.cancels.length === 0 && step.orders.length === 0) return;
      const orders: OrderRequest[] = step.orders.map((o) => ({
        side: o.side,
        price: o.price,
        size: o.size,
        tif: o.tif,
        executionInstruction: o.postOnly && o.tif === 'GTC' ? 'POST_ONLY' : 'NONE',
        minSizeAfterBlock: 0n,
      }));
      intent = { type: 'PlaceAndCancel', purpose: 'quotes', market: M, cancelSlots: step.cancels, orders };
      expected = step.cancels.map(expectedAt);
      result = venue.engine.executeBatch({
        accountId: venue.alice,
        market: M,
        cancelSlotIdxs: step.cancels,
        expectedOrderIds: expected,
        orders: orders.map((o) => ({ side: o.side, price: o.price, quantity: o.size, tif: o.tif, executionInstruction: o.executionInstruction, minSizeAfterBlock: 0n })),
      });
    } else {
      const ops: PackedOp[] = step.ops.map((op) =>
        op.place
          ? { slotIdx: op.slot, kind: 'place', side: op.side, postOnly: op.postOnly, price: op.price, size: op.size, minSizeAfterBlock: 0n }
          : { slotIdx: op.slot, kind: 'cancel' },
      );
      intent = { type: 'ReplaceSlots', purpose: 'quotes', market: M, ops };
      expected = ops.map((op) => expectedAt(op.slotIdx));
      result = venue.engine.executeReplace({ accountId: venue.alice, market: M, ops, expectedOrderIds: expected });
    }
    act({ kind: 'pending', requestId, intent, expected });
    coverage.transactions++;
    if (result.ok) {
      for (const event of result.events) {
        if (event.type === 'OrderCanceled' && event.reason === 'self-trade') {
          coverage.selfTrade++;
          if (sameBlock && aliceBlock === venue.block) coverage.sameBlockSelfTrade++;
        }
        if (event.type === 'OrderCanceled' && event.reason === 'replaced') coverage.replaced++;
        if (event.type === 'OrderFilled' && event.takerAccountId === venue.alice && event.takerRemaining === 0n) coverage.filledAtOnce++;
      }
    } else coverage.reverted++;
    const { tx: hash, ok } = venue.commit(result, { sameBlock });
    if (ok) aliceBlock = venue.block;
    act({ kind: 'outcome', requestId, status: 'BROADCAST', txHash: hash });
    const events = venue.eventsOf(hash);
    if (ok && early[index % early.length]) act({ kind: 'events', events });
    act({ kind: 'outcome', requestId, status: ok ? 'CONFIRMED' : 'REVERTED', txHash: hash });
    if (ok && !early[index % early.length]) act({ kind: 'events', events });
    // The slots were right when signed, so the venue never refuses an expected id.
    if (!ok) expect(result.ok ? '' : result.code).not.toBe('EXPECTED_ORDER_ID_MISMATCH');
    expect(portfolio.slotOrderIds(M), `slots after step ${index}`).toEqual(venue.aliceSlots());
    const remaining = new Map(venue.engine.activeOrders(venue.alice, M).map((o) => [o.id, o.remaining]));
    expect(new Map(portfolio.state(M).orders.map((o) => [o.orderId, o.remaining]))).toEqual(remaining);
  });
  return { actions, portfolio, venue };
}

function summary(portfolio: Portfolio) {
  const state = portfolio.state(M);
  return {
    orders: state.orders.map((o) => [o.key, o.orderId, o.slot, o.side, o.price, o.size, o.remaining]),
    slots: portfolio.slotOrderIds(M),
    position: state.position,
    costBasis: state.costBasis,
    realized: state.realizedPnl,
    fees: state.fees,
    fills: portfolio.fills(M).map((fill) => [fill.key, fill.liquidity, fill.fee]),
    pending: state.pending.length,
  };
}

describe('portfolio properties: against the venue model', () => {
  it('infers the venue slots, remaining sizes and fills after every transaction', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 40 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), fc.constantFrom(2000, 30_000), (steps, early, settleMs) => {
        const { portfolio, venue } = drive(steps, early, settleMs);
        // Position: the sum of alice's signed fills as the venue reported them.
        let position = 0n;
        for (const event of venue.eventsOf()) {
          if (event.eventType !== 'trade') continue;
          position += (event.eventData.isBuy ? 1n : -1n) * BigInt(event.eventData.filledSize);
        }
        expect(portfolio.state(M).position).toBe(position);
      }),
      options,
    );
    process.stdout.write(`portfolio vs venue: ${JSON.stringify(coverage)} over ${options.numRuns} runs, seed ${options.seed}\n`);
    // A replayed path is one run: too few to see every case.
    if (options.path === undefined) expect(Math.min(coverage.selfTrade, coverage.filledAtOnce, coverage.makerFills, coverage.reverted, coverage.replaced, coverage.sameBlockSelfTrade)).toBeGreaterThan(0);
  });

  it('the same facts delivered late, twice and out of order give the same state', () => {
    const lateArb = fc.array(fc.record({ delay: fc.nat({ max: 12 }), twice: fc.boolean() }), { minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 30 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), lateArb, (steps, early, late) => {
        const { actions, portfolio: reference } = drive(steps, early, 30_000);
        // Each page of events moves `delay` actions later (at most to the end), some twice; the
        // engine's own requests and outcomes keep their order.
        const slots: Action[][] = actions.map(() => []);
        const tail: Action[] = [];
        actions.forEach((action, i) => {
          if (action.kind !== 'events') {
            slots[i]!.push(action);
            return;
          }
          const plan = late[i % late.length]!;
          const target = i + plan.delay;
          const events = [...action.events].reverse();
          (target < actions.length ? slots[target]! : tail).push({ kind: 'events', events });
          if (plan.twice) tail.push({ kind: 'events', events: action.events });
        });
        const replay = createPortfolio({ clock: new VirtualClock(T0) }, { markets: [monUsdc] });
        for (const action of [...slots.flat(), ...tail]) apply(replay, action);
        // The reference ran on an advancing clock with the same (never reached) settle delay.
        expect(summary(replay)).toEqual(summary(reference));
      }),
      options,
    );
  });
});

describe('portfolio properties: delivery of plain events', () => {
  it('any order and duplication of created, trade and cancel events gives the same state', () => {
    const eventArb = fc.array(
      fc.record({ side: sideArb, price: priceArb, size: sizeArb, fills: fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 3 }), cancel: fc.boolean(), second: fc.nat({ max: 5 }) }),
      { maxLength: 10 },
    );
    fc.assert(
      fc.property(eventArb, fc.infiniteStream(fc.nat()), (orders, picks) => {
        const events: OrderEvent[] = [];
        orders.forEach((order, i) => {
          const orderId = BigInt(i + 1);
          const where = { tx: tx(500 + i), timeMs: T0 + order.second * 1000 };
          events.push(created(where, orderId, order.side, order.price, order.size));
          let remaining = order.size;
          order.fills.forEach((part, j) => {
            const filled = (order.size * BigInt(part)) / 10n;
            if (filled === 0n || filled > remaining) return;
            remaining -= filled;
            events.push(trade({ tx: tx(600 + i * 10 + j), timeMs: where.timeMs + 1000 * (j + 1) }, { orderId, side: order.side, price: order.price, orderSize: order.size, filled, remaining }));
          });
          if (order.cancel && remaining > 0n) {
            events.push(canceled({ tx: tx(700 + i), timeMs: where.timeMs + 9000 }, orderId, order.side, order.price, order.size, remaining));
          }
        });
        const straight = createPortfolio({ clock: new VirtualClock(T0) }, { markets: [monUsdc] });
        straight.applyOrderEvents(events);
        const shuffled = createPortfolio({ clock: new VirtualClock(T0) }, { markets: [monUsdc] });
        const pool = [...events, ...events.filter((_, i) => i % 2 === 0)];
        const iterator = picks[Symbol.iterator]();
        while (pool.length > 0) {
          const pick = iterator.next().value as number;
          const [event] = pool.splice(pick % pool.length, 1);
          shuffled.applyOrderEvent(event!);
        }
        expect(summary(shuffled)).toEqual(summary(straight));
      }),
      options,
    );
  });
});
