/**
 * Property tests of the quote manager: applying its operations to the current slots (applied here
 * independently, as the venue does) yields exactly the desired quotes within the threshold (a
 * perfect matching found by a separate matcher), with never more operations than slots changed,
 * never a slot >= 62, twice, or outside the manager's slots, and no intent when nothing changed.
 * fast-check prints the seed and path of any failure; rerun with them to replay.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAKER_SLOTS, createQuoteManager, planQuotes, type DesiredQuotes, type OrderSide, type OwnMarketState, type OwnOrder, type PlanQuotesOptions, type QuoteLevel } from 'clobbot';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const RUNS = fuzzSettings({ numRuns: 400 });
const MARKET = '0x00000000000000000000000000000000000000b1' as const;

interface Case {
  tick: bigint;
  minSize: bigint;
  slots: (OwnOrder | null)[];
  desired: DesiredQuotes;
  threshold: { ticks: number; bps: number; sizeBps: number };
  owned: number[] | undefined;
}

/** Few distinct prices, so kept, replaced and duplicated levels all happen. */
const caseArbitrary: fc.Arbitrary<Case> = fc
  .record({
    tick: fc.constantFrom(1n, 5n, 10n),
    minSize: fc.constantFrom(1n, 10n, 100n),
    threshold: fc.record({ ticks: fc.integer({ min: 0, max: 3 }), bps: fc.constantFrom(0, 0, 5, 50, 400), sizeBps: fc.constantFrom(0, 0, 2_500, 10_000) }),
    ownedAll: fc.boolean(),
    ownedSubset: fc.uniqueArray(fc.integer({ min: 0, max: MAKER_SLOTS - 1 }), { minLength: 1, maxLength: MAKER_SLOTS }),
    slotSeed: fc.array(fc.option(fc.record({ buy: fc.boolean(), k: fc.integer({ min: 90, max: 110 }), sizeIndex: fc.nat(3), filled: fc.nat(2) }), { freq: 2 }), {
      minLength: MAKER_SLOTS,
      maxLength: MAKER_SLOTS,
    }),
    levelSeed: fc.array(fc.record({ buy: fc.boolean(), k: fc.integer({ min: 90, max: 110 }), sizeIndex: fc.nat(3) }), { maxLength: MAKER_SLOTS }),
  })
  .map(({ tick, minSize, threshold, ownedAll, ownedSubset, slotSeed, levelSeed }) => {
    const sizeOf = (index: number) => [minSize, minSize * 2n, minSize * 3n, minSize * 10n][index]!;
    const slots = slotSeed.map((seed, slot): OwnOrder | null => {
      if (seed === null) return null;
      const size = sizeOf(seed.sizeIndex);
      const remaining = size - (size * BigInt(seed.filled)) / 4n;
      return { market: MARKET, orderId: BigInt(1000 + slot), slot, side: seed.buy ? 'BUY' : 'SELL', price: BigInt(seed.k) * tick * 10n, size, remaining };
    });
    const owned = ownedAll ? undefined : [...ownedSubset].sort((a, b) => a - b);
    const capacity = owned?.length ?? MAKER_SLOTS;
    const levels = levelSeed.slice(0, capacity);
    const desired: DesiredQuotes = {
      bids: levels.filter((l) => l.buy).map((l) => ({ price: BigInt(l.k) * tick * 10n, size: sizeOf(l.sizeIndex) })),
      asks: levels.filter((l) => !l.buy).map((l) => ({ price: BigInt(l.k) * tick * 10n, size: sizeOf(l.sizeIndex) })),
    };
    return { tick, minSize, slots, desired, threshold, owned };
  });

function stateOf(slots: readonly (OwnOrder | null)[], pendingRequests = 0): Pick<OwnMarketState, 'slots' | 'pendingRequests'> {
  return { slots, pendingRequests };
}

function optionsOf(c: Case, mode: 'packed' | 'batch' = 'packed'): PlanQuotesOptions {
  return {
    market: { address: MARKET, tickSize: c.tick, minSize: c.minSize, maxSize: 1n << 80n },
    threshold: c.threshold,
    mode,
    ...(c.owned ? { slots: c.owned } : {}),
  };
}

/** The threshold rule, restated independently (integer bps only here, so exact in bigint). */
function within(c: Case, order: OwnOrder, level: QuoteLevel): boolean {
  const gap = order.price > level.price ? order.price - level.price : level.price - order.price;
  const priceOk = gap === 0n || gap <= BigInt(c.threshold.ticks) * c.tick || gap * 10_000n <= BigInt(c.threshold.bps) * level.price;
  const sizeGap = order.remaining > level.size ? order.remaining - level.size : level.size - order.remaining;
  const sizeOk = sizeGap === 0n || sizeGap * 10_000n <= BigInt(c.threshold.sizeBps) * level.size;
  return priceOk && sizeOk;
}

/** True when the orders and levels of one side can be paired one to one within the threshold. */
function perfectlyMatched(c: Case, orders: readonly OwnOrder[], levels: readonly QuoteLevel[]): boolean {
  if (orders.length !== levels.length) return false;
  const owner = new Array<number>(orders.length).fill(-1);
  const tryLevel = (level: number, seen: boolean[]): boolean => {
    for (let o = 0; o < orders.length; o++) {
      if (seen[o] || !within(c, orders[o]!, levels[level]!)) continue;
      seen[o] = true;
      if (owner[o] === -1 || tryLevel(owner[o]!, seen)) {
        owner[o] = level;
        return true;
      }
    }
    return false;
  };
  return levels.every((_, level) => tryLevel(level, new Array<boolean>(orders.length).fill(false)));
}

let nextId = 1_000_000n;
const placed = (slot: number, side: OrderSide, price: bigint, size: bigint): OwnOrder => ({ market: MARKET, orderId: nextId++, slot, side, price, size, remaining: size });

/** Applies an intent as the venue would: packed ops slot by slot; a batch's cancels, then each order in the lowest free slot. */
function apply(slots: readonly (OwnOrder | null)[], intent: ReturnType<typeof planQuotes>['intent']): (OwnOrder | null)[] {
  const next = [...slots];
  if (intent === undefined) return next;
  if (intent.type === 'ReplaceSlots') {
    for (const op of intent.ops) next[op.slotIdx] = op.kind === 'cancel' ? null : placed(op.slotIdx, op.side, op.price, op.size);
  } else {
    for (const slot of intent.cancelSlots) next[slot] = null;
    for (const order of intent.orders) {
      const slot = next.indexOf(null);
      expect(slot, 'a free slot for each batch order').toBeGreaterThanOrEqual(0);
      next[slot] = placed(slot, order.side, order.price, order.size);
    }
  }
  return next;
}

/** Same content (side, price, open size): a slot whose order was swapped for an identical one did not change. */
const sameOrder = (a: OwnOrder | null | undefined, b: OwnOrder | null | undefined) =>
  (a ?? null) === (b ?? null) || (a != null && b != null && a.side === b.side && a.price === b.price && a.remaining === b.remaining);

function ownedSlots(c: Case): number[] {
  return c.owned ?? Array.from({ length: MAKER_SLOTS }, (_, slot) => slot);
}

function checkResult(c: Case, before: readonly (OwnOrder | null)[], after: readonly (OwnOrder | null)[]): void {
  const owned = new Set(ownedSlots(c));
  for (let slot = 0; slot < MAKER_SLOTS; slot++) if (!owned.has(slot)) expect(after[slot], `slot ${slot} is not the manager's`).toBe(before[slot]);
  const mine = [...owned].map((slot) => after[slot]).filter((order): order is OwnOrder => order != null);
  expect(perfectlyMatched(c, mine.filter((o) => o.side === 'BUY'), c.desired.bids), 'bids match the desired quotes').toBe(true);
  expect(perfectlyMatched(c, mine.filter((o) => o.side === 'SELL'), c.desired.asks), 'asks match the desired quotes').toBe(true);
}

describe('planQuotes (packed)', () => {
  it('yields exactly the desired quotes, with one op per changed slot, each slot < 62, once, and the manager’s own', () => {
    fc.assert(
      fc.property(caseArbitrary, (c) => {
        const plan = planQuotes(stateOf(c.slots), c.desired, optionsOf(c));
        const after = apply(c.slots, plan.intent);
        checkResult(c, c.slots, after);
        const changed = Array.from({ length: MAKER_SLOTS }, (_, slot) => slot).filter((slot) => !sameOrder(c.slots[slot], after[slot]));
        if (plan.intent === undefined) {
          expect(plan.status).toBe('unchanged');
          expect(changed).toEqual([]);
          return;
        }
        expect(plan.intent.type).toBe('ReplaceSlots');
        if (plan.intent.type !== 'ReplaceSlots') return;
        const opSlots = plan.intent.ops.map((op) => op.slotIdx);
        expect(new Set(opSlots).size, 'no slot twice').toBe(opSlots.length);
        const owned = new Set(ownedSlots(c));
        for (const slot of opSlots) {
          expect(slot).toBeGreaterThanOrEqual(0);
          expect(slot).toBeLessThan(MAKER_SLOTS);
          expect(owned.has(slot), `slot ${slot} is the manager's`).toBe(true);
        }
        expect(plan.intent.ops.length).toBeGreaterThan(0);
        expect(plan.intent.ops.length, 'no more ops than slots changed').toBeLessThanOrEqual(changed.length);
        // Kept orders are untouched.
        for (const slot of plan.kept) expect(after[slot]).toBe(c.slots[slot]);
      }),
      RUNS,
    );
  });

  it('sends nothing when nothing changed: planning again after applying is a no-op', () => {
    fc.assert(
      fc.property(caseArbitrary, (c) => {
        const after = apply(c.slots, planQuotes(stateOf(c.slots), c.desired, optionsOf(c)).intent);
        const again = planQuotes(stateOf(after), c.desired, optionsOf(c));
        expect(again.status).toBe('unchanged');
        expect(again.intent).toBeUndefined();
      }),
      RUNS,
    );
  });

  it('sends nothing when the desired quotes are exactly what rests', () => {
    fc.assert(
      fc.property(caseArbitrary, (c) => {
        const mine = ownedSlots(c)
          .map((slot) => c.slots[slot])
          .filter((order): order is OwnOrder => order != null);
        const desired: DesiredQuotes = {
          bids: mine.filter((o) => o.side === 'BUY').map((o) => ({ price: o.price, size: o.remaining })),
          asks: mine.filter((o) => o.side === 'SELL').map((o) => ({ price: o.price, size: o.remaining })),
        };
        const plan = planQuotes(stateOf(c.slots), desired, { ...optionsOf(c), market: { ...optionsOf(c).market, minSize: 1n } });
        expect(plan.intent).toBeUndefined();
        expect(plan.kept).toHaveLength(mine.length);
      }),
      RUNS,
    );
  });

  it('sends nothing while a request is pending on the market', () => {
    fc.assert(
      fc.property(caseArbitrary, fc.integer({ min: 1, max: 48 }), (c, pending) => {
        const plan = planQuotes(stateOf(c.slots, pending), c.desired, optionsOf(c));
        expect(plan.status).toBe('pending');
        expect(plan.intent).toBeUndefined();
      }),
      RUNS,
    );
  });
});

describe('planQuotes (batch)', () => {
  it('yields exactly the desired quotes with at most one cancel and one order per changed slot', () => {
    fc.assert(
      fc.property(
        caseArbitrary.filter((c) => c.owned === undefined),
        (c) => {
          const plan = planQuotes(stateOf(c.slots), c.desired, optionsOf(c, 'batch'));
          const after = apply(c.slots, plan.intent);
          checkResult(c, c.slots, after);
          if (plan.intent === undefined) return;
          expect(plan.intent.type).toBe('PlaceAndCancel');
          if (plan.intent.type !== 'PlaceAndCancel') return;
          const changed = Array.from({ length: MAKER_SLOTS }, (_, slot) => slot).filter((slot) => !sameOrder(c.slots[slot], after[slot]));
          expect(new Set(plan.intent.cancelSlots).size).toBe(plan.intent.cancelSlots.length);
          for (const slot of plan.intent.cancelSlots) expect(slot).toBeLessThan(MAKER_SLOTS);
          expect(plan.intent.cancelSlots.length).toBeLessThanOrEqual(changed.length);
          expect(plan.intent.orders.length).toBeLessThanOrEqual(changed.length);
          expect(plan.intent.orders.every((order) => order.tif === 'GTC' && order.executionInstruction === 'POST_ONLY')).toBe(true);
        },
      ),
      RUNS,
    );
  });
});

describe('createQuoteManager().update', () => {
  /** update as first written: plan, and drop the intent only when it repeats the last one sent for the same state object. */
  function referenceManager(options: PlanQuotesOptions) {
    let lastState: unknown;
    let lastKey: string | undefined;
    return (state: Pick<OwnMarketState, 'slots' | 'pendingRequests'>, desired: DesiredQuotes) => {
      const { intent } = planQuotes(state, desired, options);
      if (intent === undefined) return undefined;
      const key = JSON.stringify(intent, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
      if (state === lastState && key === lastKey) return undefined;
      lastState = state;
      lastKey = key;
      return intent;
    };
  }

  it('sends what the first definition sends, over calls that repeat states and levels (equal copies and the same objects)', () => {
    fc.assert(
      fc.property(
        fc.array(caseArbitrary, { minLength: 1, maxLength: 3 }),
        fc.array(fc.record({ caseIndex: fc.nat(), stateIndex: fc.nat(), copy: fc.boolean() }), { minLength: 1, maxLength: 12 }),
        fc.constantFrom<'packed' | 'batch'>('packed', 'batch'),
        (cases, calls, mode) => {
          // One market for all: the options of the first case; every case's levels fit it or throw alike.
          const options = optionsOf(cases[0]!, mode);
          const manager = createQuoteManager(options);
          const reference = referenceManager(options);
          const states = cases.flatMap((c) => [stateOf(c.slots), stateOf(c.slots, 1)]);
          for (const call of calls) {
            const c = cases[call.caseIndex % cases.length]!;
            const state = states[call.stateIndex % states.length]!;
            const desired = call.copy ? { bids: c.desired.bids.map((l) => ({ ...l })), asks: c.desired.asks.map((l) => ({ ...l })) } : c.desired;
            const outcome = (run: () => unknown) => {
              try {
                return { intent: run() };
              } catch (error) {
                return { error: (error as { code?: string }).code };
              }
            };
            expect(outcome(() => manager.update(state, desired))).toEqual(outcome(() => reference(state, desired)));
          }
        },
      ),
      RUNS,
    );
  });
});
