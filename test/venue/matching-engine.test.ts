import { describe, expect, it } from 'vitest';
import { UINT32_MAX } from '../../src/core/units.ts';
import type { OrderIntent } from '../../src/protocol/intent-types.ts';
import { MAKER_SLOTS } from '../../src/protocol/constants.ts';
import { MatchingEngine } from '../../src/venue/matching-engine.ts';
import {
  EMPTY,
  MON,
  USDC,
  WETH,
  address,
  eventsOf,
  funded,
  monUsdc,
  newEngine,
  order,
  place,
  placeOk,
  venueSnapshot,
  wethUsdc,
} from './fixtures.ts';

const M = monUsdc.address;
const E15 = 10n ** 15n; // base raw units per MON size unit
const buy = (price: bigint, quantity: bigint, extra: Partial<OrderIntent> = {}) => order({ side: 'BUY', price, quantity, ...extra });
const sell = (price: bigint, quantity: bigint, extra: Partial<OrderIntent> = {}) => order({ side: 'SELL', price, quantity, ...extra });

function cancel(engine: MatchingEngine, accountId: bigint, slots: number[], expected: bigint[]) {
  return engine.executeBatch({ accountId, market: M, cancelSlotIdxs: slots, expectedOrderIds: expected, orders: [] });
}

describe('placing resting orders', () => {
  it('locks quote plus the maker fee for a buy and takes the lowest free slot', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { quote: 1_000_000n });
    const result = placeOk(engine, a, [buy(200n, 100n)]);
    // quote = 200 * 100 * 10 = 200_000; maker fee 0.1 % = 200
    expect(engine.balance(a, USDC.address)).toEqual({ available: 799_800n, locked: 200_200n });
    expect(result.orderIds).toEqual([1n]);
    expect(result.events).toEqual([
      {
        type: 'OrderPlaced',
        market: M,
        orderId: 1n,
        accountId: a,
        side: 'BUY',
        price: 200n,
        size: 100n,
        tif: 'GTC',
        postOnly: false,
        minSizeAfterBlock: 0n,
        slot: 0,
      },
    ]);
    expect(engine.slotOrderIds(a, M)[0]).toBe(1n);
    expect(engine.book(M)!.bestBid()).toBe(200n);
    expect(engine.order(M, 1n)).toMatchObject({ remaining: 100n, locked: 200_200n, slot: 0 });
  });

  it('locks base for a sell', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { base: 1000n * E15 });
    placeOk(engine, a, [sell(210n, 100n)]);
    expect(engine.balance(a, MON.address)).toEqual({ available: 900n * E15, locked: 100n * E15 });
    expect(engine.book(M)!.bestAsk()).toBe(210n);
  });

  it('fills slots lowest first and reuses freed ones', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { quote: 100_000_000n });
    placeOk(engine, a, [buy(100n, 10n), buy(105n, 10n), buy(110n, 10n)]);
    expect(engine.slotOrderIds(a, M).slice(0, 4)).toEqual([1n, 2n, 3n, null]);
    expect(cancel(engine, a, [1], [2n]).ok).toBe(true);
    placeOk(engine, a, [buy(95n, 10n)]);
    expect(engine.slotOrderIds(a, M).slice(0, 4)).toEqual([1n, 4n, 3n, null]);
  });

  it('rejects a GTC order when all 62 slots are taken, but not an IOC', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { quote: 100_000_000n });
    const b = funded(engine, 2, { base: 1000n * E15 });
    placeOk(engine, a, Array.from({ length: MAKER_SLOTS }, (_, i) => buy(100n + 5n * BigInt(i % 3), 10n)));
    expect(engine.slotOrderIds(a, M).every((id) => id !== null)).toBe(true);
    const rejected = place(engine, a, [buy(100n, 10n)]);
    expect(rejected).toMatchObject({ ok: false, code: 'NO_FREE_SLOT', index: 0 });
    expect(rejected.ok === false && rejected.message).toMatch(/no free maker slot/);
    placeOk(engine, b, [sell(300n, 10n)]);
    expect(place(engine, a, [buy(300n, 10n, { tif: 'IOC' })]).ok).toBe(true);
  });
});

describe('order rules', () => {
  const cases: [string, OrderIntent][] = [
    ['off tick', buy(201n, 100n)],
    ['price zero', buy(0n, 100n)],
    ['price 0xFFFFFFFF', buy(UINT32_MAX, 100n)],
    ['size below minimum', buy(200n, 9n)],
    ['size above maximum', buy(200n, 1_000_001n)],
    ['post-only IOC', buy(200n, 100n, { tif: 'IOC', executionInstruction: 'POST_ONLY' })],
    ['IOC with minSizeAfterBlock', buy(200n, 100n, { tif: 'IOC', minSizeAfterBlock: 5n })],
    ['FOK with minSizeAfterBlock', buy(200n, 100n, { tif: 'FOK', minSizeAfterBlock: 5n })],
    ['minSizeAfterBlock above uint32', buy(200n, 100n, { minSizeAfterBlock: UINT32_MAX + 1n })],
    ['unknown tif', buy(200n, 100n, { tif: 'GTD' as never })],
    ['unknown side', { ...buy(200n, 100n), side: 'HOLD' as never }],
    ['unknown instruction', buy(200n, 100n, { executionInstruction: 'HIDDEN' as never })],
  ];
  it.each(cases)('rejects %s as INVALID_ORDER with its index', (_, bad) => {
    const engine = newEngine();
    const a = funded(engine, 1, { quote: 10_000_000n });
    const before = venueSnapshot(engine, [a], [monUsdc]);
    const result = place(engine, a, [buy(200n, 100n), bad]);
    expect(result).toMatchObject({ ok: false, code: 'INVALID_ORDER', index: 1 });
    expect(venueSnapshot(engine, [a], [monUsdc])).toEqual(before);
  });

  it('accepts the edges of the rules', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { quote: 100_000_000_000n });
    expect(place(engine, a, [buy(5n, 10n), buy(5n, 1_000_000n), buy(200n, 100n, { minSizeAfterBlock: UINT32_MAX })]).ok).toBe(true);
  });

  it('rejects bad requests without throwing', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { quote: 1_000_000n });
    const batch = (p: Partial<Parameters<MatchingEngine['executeBatch']>[0]>) =>
      engine.executeBatch({ accountId: a, market: M, cancelSlotIdxs: [], expectedOrderIds: [], orders: [], ...p });
    expect(batch({})).toMatchObject({ ok: false, code: 'INVALID_REQUEST' });
    expect(batch({ market: address(0xdead) })).toMatchObject({ ok: false, code: 'UNKNOWN_MARKET' });
    expect(batch({ accountId: 99n, orders: [buy(200n, 10n)] })).toMatchObject({ ok: false, code: 'INVALID_REQUEST' });
    expect(batch({ cancelSlotIdxs: [62], expectedOrderIds: [EMPTY] })).toMatchObject({ ok: false, code: 'INVALID_REQUEST', index: 0 });
    expect(batch({ cancelSlotIdxs: [1.5], expectedOrderIds: [EMPTY] })).toMatchObject({ ok: false, code: 'INVALID_REQUEST' });
    expect(batch({ cancelSlotIdxs: [-1], expectedOrderIds: [EMPTY] })).toMatchObject({ ok: false, code: 'INVALID_REQUEST' });
    expect(batch({ cancelSlotIdxs: [3, 3], expectedOrderIds: [EMPTY, EMPTY] })).toMatchObject({ ok: false, code: 'INVALID_REQUEST', index: 1 });
    expect(batch({ cancelSlotIdxs: [3], expectedOrderIds: [] })).toMatchObject({ ok: false, code: 'INVALID_REQUEST' });
    expect(batch({ cancelSlotIdxs: [3], expectedOrderIds: [-1n] })).toMatchObject({ ok: false, code: 'INVALID_REQUEST' });
    expect(batch({ cancelSlotIdxs: [3], expectedOrderIds: [EMPTY + 1n] })).toMatchObject({ ok: false, code: 'INVALID_REQUEST' });
    expect(batch({ orders: Array.from({ length: 4097 }, () => buy(200n, 10n)) })).toMatchObject({ ok: false, code: 'INVALID_REQUEST' });
    expect(engine.nextOrderId).toBe(1n);
  });
});

describe('cancels and expected order ids', () => {
  it('cancels by slot against the expected id and releases the lock', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { quote: 1_000_000n });
    placeOk(engine, a, [buy(200n, 100n)]);
    const result = cancel(engine, a, [0], [1n]);
    expect(result.ok && result.events).toEqual([
      {
        type: 'OrderCanceled',
        market: M,
        orderId: 1n,
        accountId: a,
        side: 'BUY',
        price: 200n,
        size: 100n,
        canceledSize: 100n,
        slot: 0,
        reason: 'requested',
      },
    ]);
    expect(engine.balance(a, USDC.address)).toEqual({ available: 1_000_000n, locked: 0n });
    expect(engine.slotOrderIds(a, M)[0]).toBeNull();
    expect(engine.book(M)!.size).toBe(0);
  });

  it('rejects a cancel whose expected id is not in the slot, changing nothing', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { quote: 1_000_000n });
    placeOk(engine, a, [buy(200n, 100n), buy(195n, 100n)]);
    const before = venueSnapshot(engine, [a], [monUsdc]);
    expect(cancel(engine, a, [0, 1], [1n, 7n])).toMatchObject({ ok: false, code: 'EXPECTED_ORDER_ID_MISMATCH', index: 1 });
    expect(cancel(engine, a, [1], [EMPTY])).toMatchObject({ ok: false, code: 'EXPECTED_ORDER_ID_MISMATCH' });
    expect(cancel(engine, a, [5], [3n])).toMatchObject({ ok: false, code: 'EXPECTED_ORDER_ID_MISMATCH' });
    expect(venueSnapshot(engine, [a], [monUsdc])).toEqual(before);
  });

  it('treats uint64 max on an empty slot as a no-op', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { quote: 1_000_000n });
    const result = cancel(engine, a, [7], [EMPTY]);
    expect(result).toEqual({ ok: true, events: [], orderIds: [] });
  });

  it('runs cancels before orders, so a batch can re-use the funds it frees', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { quote: 200_400n });
    placeOk(engine, a, [buy(200n, 100n)]);
    const result = engine.executeBatch({ accountId: a, market: M, cancelSlotIdxs: [0], expectedOrderIds: [1n], orders: [buy(195n, 100n)] });
    expect(result.ok).toBe(true);
    expect(engine.slotOrderIds(a, M)[0]).toBe(2n);
    expect(engine.book(M)!.bestBid()).toBe(195n);
  });

  it('needs exactly one expected id per cancel slot', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { quote: 1_000_000n });
    const batch = (expectedOrderIds: bigint[]) =>
      engine.executeBatch({ accountId: a, market: M, cancelSlotIdxs: [4], expectedOrderIds, orders: [buy(200n, 10n)] });
    expect(batch([EMPTY, EMPTY])).toMatchObject({ ok: false, code: 'INVALID_REQUEST' });
    expect(batch([])).toMatchObject({ ok: false, code: 'INVALID_REQUEST' });
    expect(batch([EMPTY]).ok).toBe(true);
  });
});

describe('matching', () => {
  it('fills at the maker price with fees, partially, and settles every balance exactly', () => {
    const engine = newEngine();
    const maker = funded(engine, 1, { base: 1000n * E15 });
    const taker = funded(engine, 2, { quote: 1_000_000n });
    placeOk(engine, maker, [sell(200n, 100n)]);
    const result = placeOk(engine, taker, [buy(205n, 60n)]);
    // quote = 200 * 60 * 10 = 120_000; maker fee 0.1 % = 120, taker fee 0.2 % = 240
    expect(eventsOf(result.events, 'OrderFilled')).toEqual([
      {
        type: 'OrderFilled',
        market: M,
        tradeId: 1n,
        price: 200n,
        size: 60n,
        quote: 120_000n,
        base: 60n * E15,
        takerSide: 'BUY',
        makerOrderId: 1n,
        makerAccountId: maker,
        makerSlot: 0,
        makerRemaining: 40n,
        makerFee: 120n,
        takerOrderId: 2n,
        takerAccountId: taker,
        takerRemaining: 0n,
        takerFee: 240n,
      },
    ]);
    expect(engine.balance(taker, USDC.address)).toEqual({ available: 1_000_000n - 120_240n, locked: 0n });
    expect(engine.balance(taker, MON.address)).toEqual({ available: 60n * E15, locked: 0n });
    expect(engine.balance(maker, MON.address)).toEqual({ available: 900n * E15, locked: 40n * E15 });
    expect(engine.balance(maker, USDC.address)).toEqual({ available: 119_880n, locked: 0n });
    expect(engine.feesCollected(USDC.address)).toBe(360n);
    // The taker's GTC order filled at once: its slot is free again and it does not rest.
    expect(engine.slotOrderIds(taker, M)[0]).toBeNull();
    expect(engine.book(M)!.depth(5)).toEqual({ bids: [], asks: [[200n, 40n]] });
  });

  it('rests the unfilled part of a GTC taker at its own price', () => {
    const engine = newEngine();
    const maker = funded(engine, 1, { base: 1000n * E15 });
    const taker = funded(engine, 2, { quote: 1_000_000n });
    placeOk(engine, maker, [sell(200n, 10n)]);
    placeOk(engine, taker, [buy(200n, 30n)]);
    expect(engine.book(M)!.depth(5)).toEqual({ bids: [[200n, 20n]], asks: [] });
    // paid 20_000 + 40 taker fee; locks 40_000 + 40 maker fee for the resting 20
    expect(engine.balance(taker, USDC.address)).toEqual({ available: 1_000_000n - 20_040n - 40_040n, locked: 40_040n });
    expect(engine.order(M, 2n)).toMatchObject({ remaining: 20n, locked: 40_040n, slot: 0 });
  });

  it('fills a resting buy from its lock and releases what is no longer needed', () => {
    const engine = newEngine();
    const maker = funded(engine, 1, { quote: 1_000_000n });
    const taker = funded(engine, 2, { base: 1000n * E15 });
    placeOk(engine, maker, [buy(200n, 100n)]);
    placeOk(engine, taker, [sell(150n, 25n)]);
    // fill 25 @ 200: quote 50_000, maker fee 50, taker fee 100
    expect(engine.balance(maker, USDC.address)).toEqual({ available: 799_800n, locked: 150_150n });
    expect(engine.balance(maker, MON.address)).toEqual({ available: 25n * E15, locked: 0n });
    expect(engine.balance(taker, USDC.address)).toEqual({ available: 49_900n, locked: 0n });
    expect(engine.feesCollected(USDC.address)).toBe(150n);
  });

  it('honours price-time priority: better prices first, then the oldest order', () => {
    const engine = newEngine();
    const [a, b, c] = [1, 2, 3].map((n) => funded(engine, n, { base: 1000n * E15 }));
    const d = funded(engine, 4, { quote: 10_000_000n });
    placeOk(engine, a!, [sell(205n, 10n)]); // id 1
    placeOk(engine, b!, [sell(200n, 10n)]); // id 2
    placeOk(engine, c!, [sell(200n, 10n)]); // id 3
    placeOk(engine, a!, [sell(200n, 10n)]); // id 4
    const fills = eventsOf(placeOk(engine, d, [buy(205n, 35n)]).events, 'OrderFilled');
    expect(fills.map((f) => [f.makerOrderId, f.price, f.size])).toEqual([
      [2n, 200n, 10n],
      [3n, 200n, 10n],
      [4n, 200n, 10n],
      [1n, 205n, 5n],
    ]);
    expect(fills.map((f) => f.tradeId)).toEqual([1n, 2n, 3n, 4n]);
  });

  it('does not match past the limit price', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { base: 1000n * E15 });
    const b = funded(engine, 2, { quote: 10_000_000n });
    placeOk(engine, a, [sell(200n, 10n), sell(210n, 10n)]);
    const result = placeOk(engine, b, [buy(205n, 50n)]);
    expect(eventsOf(result.events, 'OrderFilled')).toHaveLength(1);
    expect(engine.book(M)!.depth(5)).toEqual({ bids: [[205n, 40n]], asks: [[210n, 10n]] });
  });

  it('floors quote, base and fees and conserves every raw unit', () => {
    const engine = newEngine([wethUsdc]);
    const maker = funded(engine, 1, { base: 1_000n, market: wethUsdc });
    const taker = funded(engine, 2, { quote: 1_000_000n, market: wethUsdc });
    placeOk(engine, maker, [sell(12_345n, 15n)], wethUsdc);
    expect(engine.balance(maker, WETH.address)).toEqual({ available: 999n, locked: 1n }); // floor(15 / 10)
    const fill = eventsOf(placeOk(engine, taker, [buy(12_345n, 6n)], wethUsdc).events, 'OrderFilled')[0]!;
    // quote floor(12345 * 6 / 100) = 740; base floor(6 / 10) = 0; taker fee floor(740 / 4) = 185; maker fee floor(740 * 7 / 1e7) = 0
    expect([fill.quote, fill.base, fill.takerFee, fill.makerFee]).toEqual([740n, 0n, 185n, 0n]);
    // The maker's 9 open units need floor(9 / 10) = 0 base: the flooring surplus is released.
    expect(engine.balance(maker, WETH.address)).toEqual({ available: 1_000n, locked: 0n });
    expect(engine.balance(maker, USDC.address)).toEqual({ available: 740n, locked: 0n });
    expect(engine.balance(taker, USDC.address)).toEqual({ available: 1_000_000n - 925n, locked: 0n });
    const quoteTotal =
      engine.balance(maker, USDC.address).available + engine.balance(taker, USDC.address).available + engine.feesCollected(USDC.address);
    expect(quoteTotal).toBe(1_000_000n);
  });

  it('gives ids to every order, across markets, and trade ids per market', () => {
    const engine = newEngine([monUsdc, wethUsdc]);
    const a = funded(engine, 1, { base: 1000n * E15, quote: 10_000_000n });
    engine.accounts.credit(engine.accounts.get(a)!, WETH.address, 1000n);
    const b = funded(engine, 2, { quote: 10_000_000n });
    placeOk(engine, a, [sell(200n, 10n)]); // 1
    expect(placeOk(engine, a, [sell(10_000n, 100n)], wethUsdc).orderIds).toEqual([2n]);
    expect(placeOk(engine, b, [buy(100n, 10n, { tif: 'IOC' })]).orderIds).toEqual([3n]);
    const monFill = eventsOf(placeOk(engine, b, [buy(200n, 10n)]).events, 'OrderFilled')[0]!;
    const wethFill = eventsOf(placeOk(engine, b, [buy(10_000n, 10n)], wethUsdc).events, 'OrderFilled')[0]!;
    expect([monFill.tradeId, wethFill.tradeId]).toEqual([1n, 1n]);
    expect(engine.nextOrderId).toBe(6n);
  });
});

describe('time in force and post-only', () => {
  function bookWithAsks() {
    const engine = newEngine();
    const a = funded(engine, 1, { base: 1000n * E15 });
    const b = funded(engine, 2, { quote: 10_000_000n, base: 1000n * E15 });
    placeOk(engine, a, [sell(200n, 10n), sell(205n, 10n)]);
    return { engine, a, b };
  }

  it('rejects a post-only order that would cross, at or through the best price', () => {
    const { engine, b } = bookWithAsks();
    const before = venueSnapshot(engine, [b], [monUsdc]);
    expect(place(engine, b, [buy(200n, 10n, { executionInstruction: 'POST_ONLY' })])).toMatchObject({ ok: false, code: 'INVALID_ORDER' });
    expect(place(engine, b, [buy(210n, 10n, { executionInstruction: 'POST_ONLY' })])).toMatchObject({ ok: false, code: 'INVALID_ORDER' });
    expect(venueSnapshot(engine, [b], [monUsdc])).toEqual(before);
    expect(place(engine, b, [buy(195n, 10n, { executionInstruction: 'POST_ONLY' })]).ok).toBe(true);
  });

  it('rejects a crossing post-only sell too', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { quote: 1_000_000n });
    const b = funded(engine, 2, { base: 1000n * E15 });
    placeOk(engine, a, [buy(200n, 10n)]);
    expect(place(engine, b, [sell(200n, 10n, { executionInstruction: 'POST_ONLY' })])).toMatchObject({ ok: false, code: 'INVALID_ORDER' });
    expect(place(engine, b, [sell(205n, 10n, { executionInstruction: 'POST_ONLY' })]).ok).toBe(true);
  });

  it('needs only the maker fee on top for a post-only buy', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { quote: 200_200n });
    expect(place(engine, a, [buy(200n, 100n)])).toMatchObject({ ok: false, code: 'INSUFFICIENT_BALANCE' });
    expect(place(engine, a, [buy(200n, 100n, { executionInstruction: 'POST_ONLY' })]).ok).toBe(true);
  });

  it('cancels the rest of an IOC order', () => {
    const { engine, b } = bookWithAsks();
    const result = placeOk(engine, b, [buy(200n, 25n, { tif: 'IOC' })]);
    expect(result.events.map((e) => e.type)).toEqual(['OrderPlaced', 'OrderFilled', 'OrderCanceled']);
    expect(result.events[0]).toMatchObject({ slot: null, tif: 'IOC' });
    expect(result.events[2]).toMatchObject({ reason: 'unfilled', canceledSize: 15n, slot: null, orderId: 3n });
    expect(engine.book(M)!.depth(5)).toEqual({ bids: [], asks: [[205n, 10n]] });
    expect(engine.slotOrderIds(b, M).every((id) => id === null)).toBe(true);
    // paid only for the 10 filled: 20_000 + 40 taker fee
    expect(engine.balance(b, USDC.address)).toEqual({ available: 10_000_000n - 20_040n, locked: 0n });
  });

  it('fills a FOK order in full or rejects the whole batch', () => {
    const { engine, b } = bookWithAsks();
    const before = venueSnapshot(engine, [b], [monUsdc]);
    expect(place(engine, b, [buy(205n, 21n, { tif: 'FOK' })])).toMatchObject({ ok: false, code: 'INVALID_ORDER' });
    expect(place(engine, b, [buy(200n, 11n, { tif: 'FOK' })])).toMatchObject({ ok: false, code: 'INVALID_ORDER' });
    expect(place(engine, b, [sell(100n, 1n * 10n, { tif: 'FOK' })])).toMatchObject({ ok: false, code: 'INVALID_ORDER' });
    expect(venueSnapshot(engine, [b], [monUsdc])).toEqual(before);
    const result = placeOk(engine, b, [buy(205n, 20n, { tif: 'FOK' })]);
    expect(eventsOf(result.events, 'OrderFilled').map((f) => f.size)).toEqual([10n, 10n]);
    expect(eventsOf(result.events, 'OrderCanceled')).toEqual([]);
    expect(engine.book(M)!.size).toBe(0);
  });

  it('does not count the own account’s orders towards a FOK', () => {
    const { engine, a, b } = bookWithAsks();
    placeOk(engine, b, [sell(200n, 10n)]);
    expect(place(engine, b, [buy(200n, 15n, { tif: 'FOK' })])).toMatchObject({ ok: false, code: 'INVALID_ORDER' });
    const result = placeOk(engine, b, [buy(200n, 10n, { tif: 'FOK' })]);
    expect(eventsOf(result.events, 'OrderFilled').map((f) => f.makerAccountId)).toEqual([a]);
    // b's own resting sell was reached after a's and stays (a FOK fills only what it needs)
    expect(engine.book(M)!.depth(5).asks).toEqual([
      [200n, 10n],
      [205n, 10n],
    ]);
  });
});

describe('balances', () => {
  it('needs quote at the limit price plus the larger fee for a buy', () => {
    const engine = newEngine();
    const poor = funded(engine, 1, { quote: 200_399n });
    const rich = funded(engine, 2, { quote: 200_400n });
    expect(place(engine, poor, [buy(200n, 100n)])).toMatchObject({ ok: false, code: 'INSUFFICIENT_BALANCE', index: 0 });
    expect(engine.balance(poor, USDC.address)).toEqual({ available: 200_399n, locked: 0n });
    expect(place(engine, rich, [buy(200n, 100n)]).ok).toBe(true);
    expect(engine.balance(rich, USDC.address)).toEqual({ available: 200n, locked: 200_200n });
  });

  it('needs base for the full size of a sell', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { base: 100n * E15 - 1n });
    expect(place(engine, a, [sell(200n, 100n)])).toMatchObject({ ok: false, code: 'INSUFFICIENT_BALANCE' });
    engine.accounts.credit(engine.accounts.get(a)!, MON.address, 1n);
    expect(place(engine, a, [sell(200n, 100n)]).ok).toBe(true);
  });

  it('lets a later order of the batch use what an earlier one bought', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { base: 1000n * E15 });
    const b = funded(engine, 2, { quote: 1_000_000n });
    placeOk(engine, a, [sell(200n, 100n)]);
    expect(place(engine, b, [buy(200n, 100n, { tif: 'IOC' }), sell(300n, 100n)]).ok).toBe(true);
    expect(engine.balance(b, MON.address)).toEqual({ available: 0n, locked: 100n * E15 });
  });
});

describe('atomic batches', () => {
  it('undoes earlier cancels, fills and resting orders when a later order fails', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { base: 1000n * E15 });
    const b = funded(engine, 2, { quote: 1_000_000n, base: 50n * E15 });
    placeOk(engine, a, [sell(200n, 10n), sell(200n, 10n), sell(205n, 10n)]);
    placeOk(engine, b, [buy(150n, 10n), sell(300n, 10n)]);
    const ids = [a, b];
    const before = venueSnapshot(engine, ids, [monUsdc]);
    const result = engine.executeBatch({
      accountId: b,
      market: M,
      cancelSlotIdxs: [0],
      expectedOrderIds: [4n],
      orders: [buy(200n, 15n), buy(195n, 10n), sell(400n, 100n)], // the last needs 100 MON, b has 40 free
    });
    expect(result).toMatchObject({ ok: false, code: 'INSUFFICIENT_BALANCE', index: 2 });
    expect(venueSnapshot(engine, ids, [monUsdc])).toEqual(before);
    // and the same batch without the failing order applies
    const ok = engine.executeBatch({ accountId: b, market: M, cancelSlotIdxs: [0], expectedOrderIds: [4n], orders: [buy(200n, 15n), buy(195n, 10n)] });
    expect(ok.ok).toBe(true);
    expect(engine.nextOrderId).toBe(8n);
  });

  it('undoes a self-trade cancellation when the batch fails', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { base: 1000n * E15, quote: 1_000_000n });
    placeOk(engine, a, [sell(200n, 10n)]);
    const before = venueSnapshot(engine, [a], [monUsdc]);
    expect(place(engine, a, [buy(200n, 10n), sell(200n, 10n, { executionInstruction: 'POST_ONLY' })])).toMatchObject({
      ok: false,
      code: 'INVALID_ORDER',
      index: 1,
    });
    expect(venueSnapshot(engine, [a], [monUsdc])).toEqual(before);
  });
});

describe('self-trade: cancel resting', () => {
  it('cancels the own resting order and keeps matching others', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { base: 1000n * E15, quote: 1_000_000n });
    const b = funded(engine, 2, { base: 1000n * E15 });
    placeOk(engine, a, [sell(200n, 10n)]); // id 1, older
    placeOk(engine, b, [sell(200n, 10n)]); // id 2
    const result = placeOk(engine, a, [buy(200n, 15n)]);
    expect(result.events.map((e) => e.type)).toEqual(['OrderPlaced', 'OrderCanceled', 'OrderFilled']);
    expect(result.events[1]).toMatchObject({ orderId: 1n, reason: 'self-trade', canceledSize: 10n, slot: 0 });
    expect(result.events[2]).toMatchObject({ makerOrderId: 2n, size: 10n, takerOrderId: 3n });
    expect(engine.balance(a, MON.address)).toEqual({ available: 1010n * E15, locked: 0n });
    // the new buy took the lowest free slot (1) when placed; the cancelled sell freed slot 0
    expect(engine.slotOrderIds(a, M).slice(0, 2)).toEqual([null, 3n]);
    expect(engine.book(M)!.depth(5)).toEqual({ bids: [[200n, 5n]], asks: [] });
  });
});

describe('minSizeAfterBlock', () => {
  it('cancels at the end of the block an order whose open size fell below its minimum', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { base: 1000n * E15, quote: 1_000_000n });
    const b = funded(engine, 2, { base: 1000n * E15, quote: 10_000_000n });
    placeOk(engine, a, [
      sell(205n, 100n, { minSizeAfterBlock: 50n }), // 1
      buy(195n, 100n, { minSizeAfterBlock: 50n }), // 2
      sell(210n, 30n, { minSizeAfterBlock: 50n }), // 3: placed below its own minimum
      sell(215n, 10n), // 4: no minimum
    ]);
    placeOk(engine, b, [buy(205n, 60n)]); // order 1 now 40 < 50
    placeOk(engine, b, [sell(195n, 40n)]); // order 2 now 60 >= 50
    expect(engine.book(M)!.size).toBe(4);
    const events = engine.endBlock();
    expect(events.map((e) => e.type === 'OrderCanceled' && [e.orderId, e.reason, e.canceledSize])).toEqual([
      [1n, 'min-size-after-block', 40n],
      [3n, 'min-size-after-block', 30n],
    ]);
    expect(engine.slotOrderIds(a, M).slice(0, 4)).toEqual([null, 2n, null, 4n]);
    // 1000 - 140 locked + 40 bought + 70 released
    expect(engine.balance(a, MON.address)).toEqual({ available: 970n * E15, locked: 10n * E15 });
    expect(engine.endBlock()).toEqual([]);
    // a later fill below the minimum is caught at the end of that block
    placeOk(engine, b, [sell(195n, 20n)]);
    expect(engine.endBlock().map((e) => e.type === 'OrderCanceled' && e.orderId)).toEqual([2n]);
    expect(engine.balance(a, USDC.address).locked).toBe(0n);
  });

  it('keeps an order whose open size equals its minimum', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { base: 1000n * E15 });
    const b = funded(engine, 2, { quote: 10_000_000n });
    placeOk(engine, a, [sell(200n, 100n, { minSizeAfterBlock: 50n })]);
    placeOk(engine, b, [buy(200n, 50n)]);
    expect(engine.endBlock()).toEqual([]);
    expect(engine.order(M, 1n)?.remaining).toBe(50n);
  });

  it('forgets the candidates of a rejected batch', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { base: 1000n * E15 });
    expect(place(engine, a, [sell(200n, 30n, { minSizeAfterBlock: 50n }), sell(201n, 30n)])).toMatchObject({ ok: false });
    expect(engine.endBlock()).toEqual([]);
  });
});

describe('replace by slot', () => {
  function withOrder() {
    const engine = newEngine();
    const a = funded(engine, 1, { quote: 10_000_000n });
    placeOk(engine, a, [buy(200n, 100n)]);
    return { engine, a };
  }

  it('cancels then places into the same slot with a new id', () => {
    const { engine, a } = withOrder();
    const result = engine.executeReplace({
      accountId: a,
      market: M,
      ops: [{ slotIdx: 0, kind: 'place', side: 'BUY', postOnly: true, price: 190n, size: 50n, minSizeAfterBlock: 0n }],
      expectedOrderIds: [1n],
    });
    expect(result.ok && result.events.map((e) => e.type)).toEqual(['OrderCanceled', 'OrderPlaced']);
    expect(result.ok && result.events[0]).toMatchObject({ orderId: 1n, reason: 'replaced' });
    expect(result.ok && result.events[1]).toMatchObject({ orderId: 2n, slot: 0, postOnly: true, tif: 'GTC' });
    expect(engine.slotOrderIds(a, M)[0]).toBe(2n);
    expect(engine.book(M)!.depth(5).bids).toEqual([[190n, 50n]]);
    // 190 * 50 * 10 = 95_000 + 95 maker fee
    expect(engine.balance(a, USDC.address)).toEqual({ available: 10_000_000n - 95_095n, locked: 95_095n });
  });

  it('cancels with a cancel op and places into an empty slot', () => {
    const { engine, a } = withOrder();
    const result = engine.executeReplace({
      accountId: a,
      market: M,
      ops: [
        { slotIdx: 5, kind: 'place', side: 'SELL', postOnly: false, price: 300n, size: 10n, minSizeAfterBlock: 0n },
        { slotIdx: 0, kind: 'cancel' },
      ],
      expectedOrderIds: [EMPTY, 1n],
    });
    // a has no MON to sell
    expect(result).toMatchObject({ ok: false, code: 'INSUFFICIENT_BALANCE', index: 0 });
    expect(engine.slotOrderIds(a, M)[0]).toBe(1n);
    engine.accounts.credit(engine.accounts.get(a)!, MON.address, 10n * E15);
    const ok = engine.executeReplace({
      accountId: a,
      market: M,
      ops: [
        { slotIdx: 5, kind: 'place', side: 'SELL', postOnly: false, price: 300n, size: 10n, minSizeAfterBlock: 0n },
        { slotIdx: 0, kind: 'cancel' },
      ],
      expectedOrderIds: [EMPTY, 1n],
    });
    expect(ok.ok && ok.events.map((e) => e.type)).toEqual(['OrderCanceled', 'OrderPlaced']);
    expect(engine.slotOrderIds(a, M)[0]).toBeNull();
    expect(engine.slotOrderIds(a, M)[5]).toBe(2n);
  });

  it('rejects mismatched ids, duplicate slots and bad ops without changing anything', () => {
    const { engine, a } = withOrder();
    const before = venueSnapshot(engine, [a], [monUsdc]);
    const replace = (ops: Parameters<MatchingEngine['executeReplace']>[0]['ops'], expectedOrderIds: bigint[]) =>
      engine.executeReplace({ accountId: a, market: M, ops, expectedOrderIds });
    const placeOp = { kind: 'place', side: 'BUY', postOnly: false, price: 190n, size: 50n, minSizeAfterBlock: 0n } as const;
    expect(replace([{ slotIdx: 0, ...placeOp }], [2n])).toMatchObject({ ok: false, code: 'EXPECTED_ORDER_ID_MISMATCH' });
    expect(replace([{ slotIdx: 0, ...placeOp }], [EMPTY])).toMatchObject({ ok: false, code: 'EXPECTED_ORDER_ID_MISMATCH' });
    expect(replace([{ slotIdx: 1, kind: 'cancel' }, { slotIdx: 1, kind: 'cancel' }], [EMPTY, EMPTY])).toMatchObject({
      ok: false,
      code: 'INVALID_REQUEST',
      index: 1,
    });
    expect(replace([{ slotIdx: 0, ...placeOp, price: 191n }], [1n])).toMatchObject({ ok: false, code: 'INVALID_ORDER' });
    expect(replace([{ slotIdx: 0, ...placeOp, size: 0n }], [1n])).toMatchObject({ ok: false, code: 'INVALID_ORDER' });
    expect(replace([], [])).toMatchObject({ ok: false, code: 'INVALID_REQUEST' });
    expect(replace([{ slotIdx: 0, kind: 'cancel' }], [])).toMatchObject({ ok: false, code: 'INVALID_REQUEST' });
    expect(replace([{ slotIdx: 0, kind: 'flip' } as never], [1n])).toMatchObject({ ok: false, code: 'INVALID_REQUEST' });
    expect(venueSnapshot(engine, [a], [monUsdc])).toEqual(before);
  });

  it('applies every cancel before any place, so ops can move an order across slots', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { quote: 200_200n });
    placeOk(engine, a, [buy(200n, 100n, { executionInstruction: 'POST_ONLY' })]);
    const result = engine.executeReplace({
      accountId: a,
      market: M,
      ops: [
        { slotIdx: 3, kind: 'place', side: 'BUY', postOnly: true, price: 200n, size: 100n, minSizeAfterBlock: 0n },
        { slotIdx: 0, kind: 'cancel' },
      ],
      expectedOrderIds: [EMPTY, 1n],
    });
    expect(result.ok).toBe(true);
    expect(engine.slotOrderIds(a, M)[3]).toBe(2n);
  });

  it('rejects a crossing post-only place op and restores the replaced order', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { quote: 10_000_000n });
    const b = funded(engine, 2, { base: 1000n * E15 });
    placeOk(engine, a, [buy(200n, 100n)]);
    placeOk(engine, b, [sell(250n, 10n)]);
    const before = venueSnapshot(engine, [a, b], [monUsdc]);
    const result = engine.executeReplace({
      accountId: a,
      market: M,
      ops: [{ slotIdx: 0, kind: 'place', side: 'BUY', postOnly: true, price: 250n, size: 100n, minSizeAfterBlock: 0n }],
      expectedOrderIds: [1n],
    });
    expect(result).toMatchObject({ ok: false, code: 'INVALID_ORDER' });
    expect(venueSnapshot(engine, [a, b], [monUsdc])).toEqual(before);
  });
});

describe('engine setup', () => {
  it('refuses a market added twice and reports its markets', () => {
    const engine = new MatchingEngine({ markets: [monUsdc, wethUsdc] });
    expect(() => engine.addMarket(monUsdc)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(engine.markets().map((m) => m.symbol)).toEqual(['MON_USDC', 'WETH_USDC']);
    expect(engine.market(M)?.tickSize).toBe(5n);
    expect(engine.depth(M, 10)).toEqual({ bids: [], asks: [] });
    expect(engine.activeOrders(1n, M)).toEqual([]);
  });

  it('lists active orders by slot', () => {
    const engine = newEngine();
    const a = funded(engine, 1, { quote: 10_000_000n });
    placeOk(engine, a, [buy(200n, 10n), buy(190n, 10n)]);
    expect(engine.activeOrders(a, M).map((o) => [o.id, o.slot, o.price])).toEqual([
      [1n, 0, 200n],
      [2n, 1, 190n],
    ]);
  });
});
