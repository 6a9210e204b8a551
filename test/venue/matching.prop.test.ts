/**
 * Property tests of the matching engine: random batches and replace calls from several accounts
 * on two markets (one whose conversions floor), checked after every step against invariants and
 * against a shadow book rebuilt only from the engine's events.
 *
 * A failure prints the line that replays it (CLOBBOT_FUZZ_SEED, CLOBBOT_FUZZ_PATH; CLOBBOT_FUZZ_RUNS
 * runs more: docs/testing.md).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Address } from '../../src/protocol/encoding.ts';
import type { OrderIntent } from '../../src/protocol/intent-types.ts';
import type { TimeInForce } from '../../src/protocol/constants.ts';
import { MatchingEngine, type BatchResult } from '../../src/venue/matching-engine.ts';
import type { MarketSpec } from '../../src/protocol/market-spec.ts';
import type { PackedOp } from '../../src/protocol/packed-ops.ts';
import type { VenueEvent } from '../../src/venue/venue-events.ts';
import { EMPTY, address, monUsdc, venueSnapshot, wethUsdc } from './fixtures.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const MARKETS = [monUsdc, wethUsdc] as const;
const MIDS = [200n, 12_345n];
const ACCOUNTS = 4;
const SLOTS_USED = 8; // a few slots only, so that cancels and expected ids hit occupied slots
/** Enough for a handful of orders each, so that INSUFFICIENT_BALANCE happens too. */
const INITIAL_FUNDS = new Map<Address, bigint>([
  [monUsdc.baseToken.address, 300n * 10n ** 15n],
  [monUsdc.quoteToken.address, 800_000n],
  [wethUsdc.baseToken.address, 30n],
]);
const TOKENS = [...new Set(MARKETS.flatMap((m) => [m.baseToken.address, m.quoteToken.address]))];

// ---- step arbitraries --------------------------------------------------------------------------

type Expect = 'actual' | 'empty' | 'wrong';
const expectArb: fc.Arbitrary<Expect> = fc.oneof(
  { weight: 20, arbitrary: fc.constant('actual' as const) },
  { weight: 1, arbitrary: fc.constant('empty' as const) },
  { weight: 1, arbitrary: fc.constant('wrong' as const) },
);

interface OrderGen {
  buy: boolean;
  offset: number;
  sizeMul: number;
  tif: TimeInForce;
  postOnly: boolean;
  minAfter: number;
  invalid: null | 'tick' | 'small' | 'big';
}
const orderArb: fc.Arbitrary<OrderGen> = fc.record({
  buy: fc.boolean(),
  offset: fc.integer({ min: -4, max: 4 }),
  sizeMul: fc.integer({ min: 1, max: 20 }),
  tif: fc.oneof(
    { weight: 5, arbitrary: fc.constant<TimeInForce>('GTC') },
    { weight: 2, arbitrary: fc.constant<TimeInForce>('IOC') },
    { weight: 1, arbitrary: fc.constant<TimeInForce>('FOK') },
  ),
  postOnly: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
  minAfter: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 20 }) }),
  invalid: fc.oneof(
    { weight: 30, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constantFrom('tick' as const, 'small' as const, 'big' as const) },
  ),
});

type Step =
  | { kind: 'batch'; account: number; market: number; cancels: { slot: number; expect: Expect }[]; orders: OrderGen[]; longForm: boolean }
  | { kind: 'replace'; account: number; market: number; ops: { slot: number; expect: Expect; place: OrderGen | null }[] }
  | { kind: 'endBlock' }
  | { kind: 'fund'; account: number; token: number; amount: bigint };

const slotArb = fc.integer({ min: 0, max: SLOTS_USED - 1 });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('batch' as const),
      account: fc.integer({ min: 0, max: ACCOUNTS - 1 }),
      market: fc.integer({ min: 0, max: 1 }),
      cancels: fc.uniqueArray(fc.record({ slot: slotArb, expect: expectArb }), { maxLength: 3, selector: (c) => c.slot }),
      orders: fc.oneof({ weight: 6, arbitrary: fc.array(orderArb, { minLength: 1, maxLength: 3 }) }, { weight: 1, arbitrary: fc.constant<OrderGen[]>([]) }),
      longForm: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('replace' as const),
      account: fc.integer({ min: 0, max: ACCOUNTS - 1 }),
      market: fc.integer({ min: 0, max: 1 }),
      ops: fc.uniqueArray(fc.record({ slot: slotArb, expect: expectArb, place: fc.option(orderArb, { freq: 4 }) }), {
        minLength: 1,
        maxLength: 4,
        selector: (o) => o.slot,
      }),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'endBlock' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('fund' as const),
      account: fc.integer({ min: 0, max: ACCOUNTS - 1 }),
      token: fc.integer({ min: 0, max: TOKENS.length - 1 }),
      amount: fc.bigInt({ min: 0n, max: 100n }),
    }),
  },
);

// ---- resolving steps against the current state -------------------------------------------------

function orderFields(spec: MarketSpec, mid: bigint, gen: OrderGen) {
  // Buys lean a tick up and sells a tick down, so that orders cross often.
  let price = mid + BigInt(gen.buy ? gen.offset + 1 : gen.offset - 1) * spec.tickSize;
  let size = spec === monUsdc ? 10n * BigInt(gen.sizeMul) : 7n * BigInt(gen.sizeMul);
  if (gen.invalid === 'tick' && spec.tickSize > 1n) price += 1n;
  if (gen.invalid === 'small') size = spec.minSize - 1n;
  if (gen.invalid === 'big') size = spec.maxSize + 1n;
  const tif = gen.tif;
  return {
    price,
    size,
    tif,
    postOnly: tif === 'GTC' && gen.postOnly,
    minSizeAfterBlock: tif === 'GTC' ? BigInt(gen.minAfter) * (spec === monUsdc ? 10n : 7n) : 0n,
  };
}

function expectedId(engine: MatchingEngine, accountId: bigint, market: Address, slot: number, mode: Expect): bigint {
  const actual = engine.slotOrderIds(accountId, market)[slot] ?? null;
  if (mode === 'empty') return EMPTY;
  if (mode === 'wrong') return actual === null ? 1_000_000n : EMPTY;
  return actual ?? EMPTY;
}

// ---- independent model: shadow books and the lock formula --------------------------------------

interface ShadowOrder {
  id: bigint;
  accountId: bigint;
  isBuy: boolean;
  price: bigint;
  remaining: bigint;
  minSizeAfterBlock: bigint;
}

/** Best price first, then the oldest (lowest id): price-time priority. */
function priorityOrder(orders: Iterable<ShadowOrder>, isBuy: boolean): ShadowOrder[] {
  return [...orders]
    .filter((o) => o.isBuy === isBuy)
    .sort((a, b) => (a.price !== b.price ? (isBuy ? (a.price > b.price ? -1 : 1) : a.price < b.price ? -1 : 1) : a.id < b.id ? -1 : 1));
}

function requiredLock(spec: MarketSpec, isBuy: boolean, price: bigint, open: bigint): bigint {
  if (!isBuy) return (open * 10n ** BigInt(spec.baseToken.decimals)) / spec.sizePrecision;
  const quote = (price * open * 10n ** BigInt(spec.quoteToken.decimals)) / (spec.pricePrecision * spec.sizePrecision);
  return quote + (quote * spec.makerFeePps) / 10_000_000n;
}

/** Replays one accepted operation's events on the shadow books, checking price-time priority. */
function replayEvents(shadows: Map<Address, Map<bigint, ShadowOrder>>, events: readonly VenueEvent[]): void {
  let taker: (ShadowOrder & { market: Address; tif: TimeInForce; postOnly: boolean }) | null = null;
  const finish = () => {
    if (taker === null) return;
    if (taker.tif === 'FOK') expect(taker.remaining, `FOK ${taker.id} filled in full`).toBe(0n);
    if (taker.tif === 'GTC' && taker.remaining > 0n) shadows.get(taker.market)!.set(taker.id, taker);
    taker = null;
  };
  const head = (market: Address, isBuy: boolean) => priorityOrder(shadows.get(market)!.values(), isBuy)[0];
  const crosses = (t: ShadowOrder, o: ShadowOrder) => (t.isBuy ? o.price <= t.price : o.price >= t.price);
  for (const event of events) {
    switch (event.type) {
      case 'OrderPlaced':
        finish();
        taker = {
          id: event.orderId,
          accountId: event.accountId,
          isBuy: event.side === 'BUY',
          price: event.price,
          remaining: event.size,
          minSizeAfterBlock: event.minSizeAfterBlock,
          market: event.market,
          tif: event.tif,
          postOnly: event.postOnly,
        };
        break;
      case 'OrderFilled': {
        expect(taker?.id, 'a fill belongs to the incoming order').toBe(event.takerOrderId);
        const t = taker!;
        expect(t.postOnly, 'a post-only order never takes').toBe(false);
        const best = head(event.market, !t.isBuy);
        expect(best?.id, `fill ${event.tradeId} takes the head of the book (price-time priority)`).toBe(event.makerOrderId);
        expect(crosses(t, best!), 'fills only at acceptable prices').toBe(true);
        expect(event.price).toBe(best!.price);
        expect(best!.accountId).not.toBe(t.accountId);
        best!.remaining -= event.size;
        t.remaining -= event.size;
        expect(event.makerRemaining).toBe(best!.remaining);
        expect(event.takerRemaining).toBe(t.remaining);
        if (best!.remaining === 0n) shadows.get(event.market)!.delete(best!.id);
        break;
      }
      case 'OrderCanceled': {
        if (event.reason === 'unfilled') {
          expect(taker?.id).toBe(event.orderId);
          expect(taker!.tif).toBe('IOC');
          const best = head(event.market, !taker!.isBuy);
          expect(best === undefined || !crosses(taker!, best), 'an IOC rest leaves no crossing liquidity').toBe(true);
          taker!.remaining = 0n;
        } else if (event.reason === 'self-trade') {
          const best = head(event.market, !taker!.isBuy);
          expect(best?.id, 'a self-trade cancel takes the head of the book').toBe(event.orderId);
          expect(best!.accountId).toBe(taker!.accountId);
          expect(taker!.postOnly, 'a post-only order never reaches the book').toBe(false);
          shadows.get(event.market)!.delete(event.orderId);
        } else {
          const o = shadows.get(event.market)!.get(event.orderId);
          expect(o, `cancelled order ${event.orderId} rests`).toBeDefined();
          expect(event.canceledSize).toBe(o!.remaining);
          if (event.reason === 'min-size-after-block') expect(o!.remaining < o!.minSizeAfterBlock).toBe(true);
          shadows.get(event.market)!.delete(event.orderId);
        }
        break;
      }
    }
  }
  finish();
}

function checkInvariants(engine: MatchingEngine, accountIds: bigint[], deposits: Map<Address, bigint>, shadows: Map<Address, Map<bigint, ShadowOrder>>) {
  const lockedBy = new Map<string, bigint>();
  for (const spec of MARKETS) {
    const book = engine.book(spec.address)!;
    expect(book.isCrossed(), `${spec.symbol} book crossed`).toBe(false);
    for (const isBid of [true, false]) {
      const live = [...book.orders(isBid)];
      // The engine's priority order equals the shadow's (best price, then oldest id).
      expect(live.map((o) => [o.id, o.remaining])).toEqual(priorityOrder(shadows.get(spec.address)!.values(), isBid).map((o) => [o.id, o.remaining]));
      // Level totals equal the sum of their orders.
      const totals = new Map<bigint, bigint>();
      for (const o of live) totals.set(o.price, (totals.get(o.price) ?? 0n) + o.remaining);
      expect(book.depth(10_000)[isBid ? 'bids' : 'asks']).toEqual([...totals.entries()]);
      for (const o of live) {
        expect(o.remaining > 0n).toBe(true);
        expect(o.locked, `lock of order ${o.id}`).toBe(requiredLock(spec, o.side === 'BUY', o.price, o.remaining));
        expect(engine.slotOrderIds(o.accountId, spec.address)[o.slot], `order ${o.id} sits in its slot`).toBe(o.id);
        const token = o.side === 'BUY' ? spec.quoteToken.address : spec.baseToken.address;
        const key = `${o.accountId}:${token}`;
        lockedBy.set(key, (lockedBy.get(key) ?? 0n) + o.locked);
      }
    }
    for (const id of accountIds) {
      for (const slotId of engine.slotOrderIds(id, spec.address)) {
        if (slotId !== null) expect(book.get(slotId)?.accountId, `slot order ${slotId} rests`).toBe(id);
      }
    }
  }
  for (const token of TOKENS) {
    let total = engine.feesCollected(token);
    for (const id of accountIds) {
      const { available, locked } = engine.balance(id, token);
      expect(available >= 0n && locked >= 0n).toBe(true);
      expect(locked, `locked ${token} of account ${id} equals what its orders need`).toBe(lockedBy.get(`${id}:${token}`) ?? 0n);
      total += available + locked;
    }
    expect(total, `${token} conserved`).toBe(deposits.get(token) ?? 0n);
  }
}

function runSteps(steps: Step[]): { accepted: number; rejected: number; fills: number; seen: Set<string> } {
  const engine = new MatchingEngine({ markets: MARKETS });
  const deposits = new Map<Address, bigint>();
  const accountIds: bigint[] = [];
  const fund = (id: bigint, token: Address, amount: bigint) => {
    engine.accounts.credit(engine.accounts.get(id)!, token, amount);
    deposits.set(token, (deposits.get(token) ?? 0n) + amount);
  };
  for (let i = 0; i < ACCOUNTS; i++) {
    const id = engine.accounts.open(address(0x1000 + i)).id;
    accountIds.push(id);
    for (const [token, amount] of INITIAL_FUNDS) fund(id, token, amount);
  }
  const shadows = new Map<Address, Map<bigint, ShadowOrder>>(MARKETS.map((m) => [m.address, new Map()]));
  const stats = { accepted: 0, rejected: 0, fills: 0, seen: new Set<string>() };

  for (const step of steps) {
    if (step.kind === 'fund') {
      // up to the initial funding of the token
      fund(accountIds[step.account]!, TOKENS[step.token]!, (INITIAL_FUNDS.get(TOKENS[step.token]!)! * step.amount) / 100n);
      continue;
    }
    if (step.kind === 'endBlock') {
      const events = engine.endBlock();
      for (const e of events) if (e.type === 'OrderCanceled') stats.seen.add(e.reason);
      replayEvents(shadows, events);
      for (const spec of MARKETS) {
        for (const o of shadows.get(spec.address)!.values()) {
          expect(o.remaining >= o.minSizeAfterBlock, `order ${o.id} below its minSizeAfterBlock after the block`).toBe(true);
        }
      }
      checkInvariants(engine, accountIds, deposits, shadows);
      continue;
    }
    const spec = MARKETS[step.market]!;
    const mid = MIDS[step.market]!;
    const accountId = accountIds[step.account]!;
    const before = venueSnapshot(engine, accountIds, MARKETS);
    let result: BatchResult;
    if (step.kind === 'batch') {
      const orders: OrderIntent[] = step.orders.map((gen) => {
        const f = orderFields(spec, mid, gen);
        return {
          side: gen.buy ? 'BUY' : 'SELL',
          quantity: f.size,
          price: f.price,
          tif: f.tif,
          executionInstruction: f.postOnly ? 'POST_ONLY' : 'NONE',
          minSizeAfterBlock: f.minSizeAfterBlock,
        };
      });
      const expected = step.cancels.map((c) => expectedId(engine, accountId, spec.address, c.slot, c.expect));
      result = engine.executeBatch({
        accountId,
        market: spec.address,
        cancelSlotIdxs: step.cancels.map((c) => c.slot),
        expectedOrderIds: step.longForm ? [...expected, ...orders.map(() => EMPTY)] : expected,
        orders,
      });
    } else {
      const ops: PackedOp[] = step.ops.map((op) => {
        if (op.place === null) return { slotIdx: op.slot, kind: 'cancel' };
        const f = orderFields(spec, mid, { ...op.place, tif: 'GTC' });
        return { slotIdx: op.slot, kind: 'place', side: op.place.buy ? 'BUY' : 'SELL', postOnly: f.postOnly, price: f.price, size: f.size, minSizeAfterBlock: f.minSizeAfterBlock };
      });
      result = engine.executeReplace({
        accountId,
        market: spec.address,
        ops,
        expectedOrderIds: step.ops.map((op) => expectedId(engine, accountId, spec.address, op.slot, op.expect)),
      });
    }
    if (result.ok) {
      stats.accepted++;
      stats.fills += result.events.filter((e) => e.type === 'OrderFilled').length;
      for (const e of result.events) if (e.type === 'OrderCanceled') stats.seen.add(e.reason);
      replayEvents(shadows, result.events);
    } else {
      stats.rejected++;
      stats.seen.add(result.code);
      expect(venueSnapshot(engine, accountIds, MARKETS), `rejected ${result.code} left the state as it was`).toEqual(before);
    }
    checkInvariants(engine, accountIds, deposits, shadows);
  }
  return stats;
}

describe('matching engine properties', () => {
  it('keeps the book uncrossed, funds conserved and locked exactly, priority, and atomicity', () => {
    const totals = { accepted: 0, rejected: 0, fills: 0 };
    const seen = new Set<string>();
    const settings = fuzzSettings({ numRuns: 120, seed: 20_240_611 });
    const runs = settings.numRuns ?? 100;
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 10, maxLength: 60, size: 'medium' }), (steps) => {
        const stats = runSteps(steps);
        totals.accepted += stats.accepted;
        totals.rejected += stats.rejected;
        totals.fills += stats.fills;
        for (const what of stats.seen) seen.add(what);
      }),
      settings,
    );
    process.stdout.write(`venue properties: ${JSON.stringify(totals)} [${[...seen].sort().join(', ')}] over ${runs} runs, seed ${settings.seed}\n`);
    // The generators must exercise both outcomes and real matching, or the properties say little.
    if (settings.path === undefined) {
      expect(totals.accepted).toBeGreaterThan(runs * 5);
      expect(totals.rejected).toBeGreaterThan(runs * 2);
      expect(totals.fills).toBeGreaterThan(runs * 3);
      expect([...seen].sort()).toEqual(
        [
          'EXPECTED_ORDER_ID_MISMATCH',
          'INSUFFICIENT_BALANCE',
          'INVALID_ORDER',
          'INVALID_REQUEST',
          'min-size-after-block',
          'replaced',
          'requested',
          'self-trade',
          'unfilled',
        ].sort(),
      );
    }
  });
});
