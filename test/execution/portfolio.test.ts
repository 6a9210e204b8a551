/** The engine's portfolio: orders and slots from outcomes and events, fills, position, PnL, fees, balances. */
import { describe, expect, it } from 'vitest';
import { UINT64_MAX } from '../../src/core/units.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { createPortfolio, fillKey, type Fill, type MarketState } from '../../src/execution/portfolio.ts';
import { orderEventSchema, type ActiveOrder } from '../../src/protocol/user-data.ts';
import type { OrderRequest, PlaceAndCancel, ReplaceSlots } from '../../src/strategy/intents.ts';
import { amountScale, quoteRaw } from '../../src/protocol/market-spec.ts';
import { canceled, created, monUsdc, OWNER, T0, trade, tx, VenueHarness, wethUsdc } from './portfolio-fixtures.ts';
import { order as venueOrder } from '../venue/fixtures.ts';

const M = monUsdc.address;
const MON = monUsdc.baseToken.address;
const USDC = monUsdc.quoteToken.address;
const at = (n: number) => ({ tx: tx(n), timeMs: T0 + n * 1000 });

function gtc(side: 'BUY' | 'SELL', price: bigint, size: bigint): OrderRequest {
  return { side, price, size, tif: 'GTC', executionInstruction: 'NONE', minSizeAfterBlock: 0n };
}

function batch(orders: OrderRequest[], cancelSlots: number[] = []): PlaceAndCancel {
  return { type: 'PlaceAndCancel', purpose: 'quotes', market: M, cancelSlots, orders };
}

function setup() {
  const clock = new VirtualClock(T0);
  const portfolio = createPortfolio({ clock }, { markets: [monUsdc] });
  return { clock, portfolio };
}

/** An entry of an active-orders snapshot, created in tx(n). */
function active(orderId: number, side: 'BUY' | 'SELL', price: bigint, size: bigint, remaining: bigint, n: number): ActiveOrder {
  return {
    orderid: orderId,
    marketaddress: M,
    owner: OWNER,
    size: size.toString(),
    price: price.toString(),
    isbuy: side === 'BUY',
    remainingsize: remaining.toString(),
    iscanceled: false,
    blocknumber: String(n),
    txindex: '0',
    logindex: '0',
    transactionhash: tx(n),
    triggertime: new Date(T0 + n * 1000).toISOString(),
    fliporderid: 0,
    flipprice: 0,
    lpid: '',
    sizeprecision: monUsdc.sizePrecision.toString(),
    priceprecision: monUsdc.pricePrecision.toString(),
  };
}

describe('portfolio: orders live only after CONFIRMED', () => {
  it('keeps a placement pending through BROADCAST and its events, and makes it live on CONFIRMED', () => {
    const { portfolio } = setup();
    portfolio.markPending('r1', batch([gtc('BUY', 100n, 1000n), gtc('SELL', 110n, 1000n)]));
    expect(portfolio.state(M).orders).toEqual([]);
    expect(portfolio.state(M).pending.map((o) => [o.side, o.price])).toEqual([['BUY', 100n], ['SELL', 110n]]);
    expect(portfolio.state(M).pendingRequests).toBe(1);

    expect(portfolio.applyOutcome('r1', 'BROADCAST', { txHash: tx(1) })).toBe(true);
    expect(portfolio.state(M).orders).toEqual([]);
    // The user-data API may show the orders before the outcome arrives: still not live.
    portfolio.applyOrderEvents([created(at(1), 2n, 'SELL', 110n, 1000n), created(at(1), 1n, 'BUY', 100n, 1000n)]);
    expect(portfolio.state(M).orders).toEqual([]);

    portfolio.applyOutcome('r1', 'CONFIRMED', { txHash: tx(1) });
    const state = portfolio.state(M);
    expect(state.orders.map((o) => [o.orderId, o.slot, o.side, o.remaining, o.requestId])).toEqual([
      [1n, 0, 'BUY', 1000n, 'r1'],
      [2n, 1, 'SELL', 1000n, 'r1'],
    ]);
    expect(state.pending).toEqual([]);
    expect(state.pendingRequests).toBe(0);
    expect(portfolio.slotOrderIds(M).slice(0, 3)).toEqual([1n, 2n, UINT64_MAX]);
  });

  it('shows confirmed orders before their ids are known, with unknown expected ids', () => {
    const { portfolio } = setup();
    portfolio.markPending('r1', batch([gtc('BUY', 100n, 1000n)]));
    portfolio.applyOutcome('r1', 'CONFIRMED', { txHash: tx(1) });
    expect(portfolio.state(M).orders.map((o) => [o.orderId, o.slot, o.key])).toEqual([[undefined, 0, 'req:r1:0']]);
    expect(portfolio.slotOrderIds(M)[0]).toBeUndefined();
    portfolio.applyOrderEvent(created(at(1), 7n, 'BUY', 100n, 1000n));
    expect(portfolio.state(M).orders.map((o) => [o.orderId, o.slot, o.key])).toEqual([[7n, 0, 'id:7']]);
  });

  it('leaves nothing of a REVERTED placement: no order, and its cancels undone', () => {
    const { portfolio } = setup();
    portfolio.markPending('r1', batch([gtc('BUY', 100n, 1000n)]));
    portfolio.applyOutcome('r1', 'CONFIRMED', { txHash: tx(1) });
    portfolio.applyOrderEvent(created(at(1), 1n, 'BUY', 100n, 1000n));

    portfolio.markPending('r2', batch([gtc('BUY', 105n, 1000n)], [0]));
    portfolio.applyOutcome('r2', 'BROADCAST', { txHash: tx(2) });
    expect(portfolio.applyOutcome('r2', 'REVERTED', { txHash: tx(2) })).toBe(true);
    const state = portfolio.state(M);
    expect(state.orders.map((o) => [o.orderId, o.slot, o.price])).toEqual([[1n, 0, 100n]]);
    expect(state.pending).toEqual([]);
    // A terminal request is forgotten: a late outcome changes nothing.
    expect(portfolio.applyOutcome('r2', 'CONFIRMED', { txHash: tx(2) })).toBe(false);
    expect(portfolio.state(M).orders).toHaveLength(1);
  });

  it('DROPPED and REJECTED leave no order either; UNKNOWN stays in flight', () => {
    const { portfolio } = setup();
    for (const [id, status] of [['a', 'DROPPED'], ['b', 'REJECTED']] as const) {
      portfolio.markPending(id, batch([gtc('BUY', 100n, 1000n)]));
      portfolio.applyOutcome(id, status);
    }
    portfolio.markPending('c', batch([gtc('BUY', 100n, 1000n)]));
    portfolio.applyOutcome('c', 'UNKNOWN');
    expect(portfolio.state(M).orders).toEqual([]);
    expect(portfolio.isPending('c')).toBe(true);
    expect(portfolio.state(M).pending).toHaveLength(1);
  });

  it('a confirmed cancel empties its slot; the cancel binds to the order in the slot when signed', () => {
    const { portfolio } = setup();
    portfolio.markPending('r1', batch([gtc('BUY', 100n, 1000n), gtc('BUY', 95n, 1000n)]));
    portfolio.applyOutcome('r1', 'CONFIRMED', { txHash: tx(1) });
    portfolio.applyOrderEvents([created(at(1), 1n, 'BUY', 100n, 1000n), created(at(1), 2n, 'BUY', 95n, 1000n)]);
    portfolio.markPending('r2', batch([], [0]));
    expect(portfolio.state(M).orders).toHaveLength(2);
    portfolio.applyOutcome('r2', 'CONFIRMED', { txHash: tx(2) });
    expect(portfolio.state(M).orders.map((o) => [o.orderId, o.slot])).toEqual([[2n, 1]]);
    expect(portfolio.slotOrderIds(M)[0]).toBe(UINT64_MAX);
    // The venue's cancel event, later (twice), changes nothing more.
    portfolio.applyOrderEvents([canceled(at(2), 1n, 'BUY', 100n, 1000n, 1000n), canceled(at(2), 1n, 'BUY', 100n, 1000n, 1000n)]);
    expect(portfolio.state(M).orders.map((o) => [o.orderId, o.slot])).toEqual([[2n, 1]]);
  });

  it('ReplaceSlots places into its own slots', () => {
    const { portfolio } = setup();
    const replace: ReplaceSlots = {
      type: 'ReplaceSlots',
      purpose: 'quotes',
      market: M,
      ops: [
        { slotIdx: 7, kind: 'place', side: 'SELL', postOnly: true, price: 120n, size: 500n, minSizeAfterBlock: 0n },
        { slotIdx: 3, kind: 'place', side: 'BUY', postOnly: true, price: 90n, size: 500n, minSizeAfterBlock: 0n },
      ],
    };
    portfolio.markPending('r1', replace);
    portfolio.applyOutcome('r1', 'CONFIRMED', { txHash: tx(1) });
    portfolio.applyOrderEvents([created(at(1), 11n, 'SELL', 120n, 500n), created(at(1), 12n, 'BUY', 90n, 500n)]);
    expect(portfolio.state(M).orders.map((o) => [o.orderId, o.slot])).toEqual([[12n, 3], [11n, 7]]);
    expect(portfolio.slotOrderIds(M)[7]).toBe(11n);
  });

  it('a confirmed CancelAll empties every known slot', () => {
    const { portfolio } = setup();
    portfolio.markPending('r1', batch([gtc('BUY', 100n, 1000n), gtc('SELL', 110n, 1000n)]));
    portfolio.applyOutcome('r1', 'CONFIRMED', { txHash: tx(1) });
    portfolio.applyOrderEvents([created(at(1), 1n, 'BUY', 100n, 1000n), created(at(1), 2n, 'SELL', 110n, 1000n)]);
    portfolio.markPending('k1', { type: 'CancelAll', purpose: 'kill-switch' });
    expect(portfolio.state(M).pendingRequests).toBe(1);
    portfolio.applyOutcome('k1', 'CONFIRMED', { txHash: tx(2) });
    expect(portfolio.state(M).orders).toEqual([]);
    expect(portfolio.slotOrderIds(M).every((id) => id === UINT64_MAX)).toBe(true);
  });

  it('takes an order created outside this engine as live, slot unknown', () => {
    const { portfolio } = setup();
    portfolio.applyOrderEvent(created(at(1), 42n, 'SELL', 120n, 500n));
    expect(portfolio.state(M).orders.map((o) => [o.orderId, o.slot, o.requestId])).toEqual([[42n, undefined, undefined]]);
    expect(portfolio.slotOrderIds(M).every((id) => id === UINT64_MAX)).toBe(true);
  });

  it('binds a placement confirmed without a transaction hash to the transaction that created exactly its orders', () => {
    const { portfolio } = setup();
    portfolio.applyOrderEvents([created(at(3), 5n, 'BUY', 90n, 700n), created(at(4), 6n, 'BUY', 100n, 1000n), created(at(4), 7n, 'SELL', 110n, 1000n)]);
    portfolio.markPending('r1', batch([gtc('BUY', 100n, 1000n), gtc('SELL', 110n, 1000n)]));
    portfolio.applyOutcome('r1', 'CONFIRMED');
    expect(portfolio.state(M).orders.map((o) => [o.orderId, o.slot, o.requestId])).toEqual([
      [6n, 0, 'r1'],
      [7n, 1, 'r1'],
      [5n, undefined, undefined],
    ]);
  });

  it('restores slots known from elsewhere until events end those orders', () => {
    const { portfolio } = setup();
    portfolio.restoreSlots(M, [{ slot: 4, orderId: 31n, side: 'BUY', price: 95n, size: 300n }]);
    expect(portfolio.slotOrderIds(M)[4]).toBe(31n);
    portfolio.markPending('r1', batch([gtc('SELL', 105n, 100n)]));
    portfolio.applyOutcome('r1', 'CONFIRMED', { txHash: tx(2) });
    portfolio.applyOrderEvent(created(at(2), 40n, 'SELL', 105n, 100n));
    expect(portfolio.state(M).orders.map((o) => [o.orderId, o.slot])).toEqual([[40n, 0], [31n, 4]]);
    portfolio.applyOrderEvent(trade(at(3), { orderId: 31n, side: 'BUY', price: 95n, orderSize: 300n, filled: 300n, remaining: 0n }));
    expect(portfolio.slotOrderIds(M)[4]).toBe(UINT64_MAX);
  });

  it('takes the slots of settled orders from the chain: adopts, moves, and lets go of a slot the chain gives another order', () => {
    const { portfolio } = setup();
    portfolio.restoreSlots(M, [
      { slot: 4, orderId: 31n, side: 'BUY', price: 95n, size: 300n },
      { slot: 7, orderId: 32n, side: 'BUY', price: 94n, size: 300n },
    ]);
    portfolio.applyOrderEvent(created(at(2), 33n, 'SELL', 105n, 100n));
    const view: (bigint | null)[] = new Array(62).fill(null);
    view[7] = 31n;
    view[9] = 33n;
    expect(portfolio.adoptSlotView(M, view)).toEqual({ adopted: 1, corrected: 1, differing: 0 });
    const slots = portfolio.slotOrderIds(M);
    expect([slots[4], slots[7], slots[9]]).toEqual([UINT64_MAX, 31n, 33n]);
    // 32 is still open (no event ended it) but holds no slot the chain knows of.
    expect(portfolio.state(M).orders.find((order) => order.orderId === 32n)?.slot).toBeUndefined();
    // The same view again changes nothing.
    expect(portfolio.adoptSlotView(M, view)).toEqual({ adopted: 0, corrected: 0, differing: 0 });
  });

  it('refuses a request id already in flight and an untracked market', () => {
    const { portfolio } = setup();
    portfolio.markPending('r1', batch([]));
    expect(() => portfolio.markPending('r1', batch([]))).toThrow(expect.objectContaining({ code: 'PORTFOLIO_REQUEST_CONFLICT' }));
    expect(() => portfolio.markPending('r2', { ...batch([]), market: wethUsdc.address })).toThrow(expect.objectContaining({ code: 'PORTFOLIO_REQUEST_CONFLICT' }));
    expect(() => portfolio.state(wethUsdc.address)).toThrow(expect.objectContaining({ code: 'PORTFOLIO_UNKNOWN_MARKET' }));
  });
});

describe('portfolio: slots against the real venue model', () => {
  it('infers the slots the venue assigned: a batch order filled at once frees its slot for the next', () => {
    const venue = new VenueHarness();
    const clock = new VirtualClock(T0);
    const portfolio = createPortfolio({ clock }, { markets: [monUsdc] });
    // Bob rests an ask at 1.00; alice's batch: a buy that fills it at once, then two resting bids.
    venue.commit(venue.engine.executeBatch({ accountId: venue.bob, market: M, cancelSlotIdxs: [], expectedOrderIds: [], orders: [venueOrder({ side: 'SELL', price: 100n, quantity: 1000n })] }));
    const orders = [gtc('BUY', 100n, 1000n), gtc('BUY', 90n, 1000n), gtc('BUY', 80n, 1000n)];
    portfolio.markPending('r1', batch(orders));
    const result = venue.engine.executeBatch({
      accountId: venue.alice,
      market: M,
      cancelSlotIdxs: [],
      expectedOrderIds: [],
      orders: orders.map((o) => venueOrder({ side: o.side, price: o.price, quantity: o.size })),
    });
    const { tx: hash } = venue.commit(result);
    portfolio.applyOutcome('r1', 'CONFIRMED', { txHash: hash });
    portfolio.applyOrderEvents(venue.eventsOf(hash));
    expect(portfolio.slotOrderIds(M)).toEqual(venue.aliceSlots());
    expect(portfolio.state(M).orders.map((o) => [o.slot, o.price])).toEqual([[0, 90n], [1, 80n]]);
    expect(portfolio.state(M).position).toBe(1000n);
    expect(portfolio.fills(M).map((f) => f.liquidity)).toEqual(['taker']);
  });

  /**
   * Our IOC order (a slot-free placement) cancels our resting ask by self-trade in the block where a
   * batch of ours came just before it: the freed slot was still taken when the batch placed its
   * order. Only the IOC's transaction tells so (a free at a placement's block time comes first).
   */
  it('frees a slot by self-trade inside the IOC order that reached it, after our earlier placement in the same block', () => {
    const venue = new VenueHarness();
    const portfolio = createPortfolio({ clock: new VirtualClock(T0) }, { markets: [monUsdc] });
    const place = (requestId: string, orders: OrderRequest[], sameBlock = false) => {
      portfolio.markPending(requestId, batch(orders));
      const result = venue.engine.executeBatch({
        accountId: venue.alice,
        market: M,
        cancelSlotIdxs: [],
        expectedOrderIds: [],
        orders: orders.map((o) => venueOrder({ side: o.side, price: o.price, quantity: o.size, tif: o.tif })),
      });
      const { tx: hash } = venue.commit(result, { sameBlock });
      portfolio.applyOutcome(requestId, 'CONFIRMED', { txHash: hash });
      portfolio.applyOrderEvents(venue.eventsOf(hash));
      expect(portfolio.slotOrderIds(M), `slots after ${requestId}`).toEqual(venue.aliceSlots());
    };
    place('ask', [gtc('SELL', 100n, 100n)]);
    place('bid', [gtc('BUY', 90n, 100n)]);
    place('ioc', [{ ...gtc('BUY', 100n, 100n), tif: 'IOC' }], true);
    expect(venue.eventsOf().some((e) => e.eventType === 'order-canceled' && e.eventData.orderId === '1')).toBe(true);
    expect(portfolio.state(M).orders.map((o) => [o.orderId, o.slot, o.price])).toEqual([[2n, 1, 90n]]);
    place('next', [gtc('BUY', 80n, 100n)]);
    expect(portfolio.state(M).orders.map((o) => [o.orderId, o.slot, o.price])).toEqual([[4n, 0, 80n], [2n, 1, 90n]]);
  });
});

describe('portfolio: slots when the venue choice is not observable', () => {
  /**
   * Our resting ask R at 0.80 and other liquidity at 0.80; our batch buys 0.80 twice, the first
   * filled up at 0.80. Whether the first buy reached R (R ahead in the level's queue) or the second
   * did (R behind) decides the slot of the second buy, and our order events are the same both
   * ways. The portfolio guesses "behind": right here, where the other ask came first.
   */
  it('guesses that a self-traded order sat behind earlier liquidity at its price', () => {
    const venue = new VenueHarness();
    const portfolio = createPortfolio({ clock: new VirtualClock(T0) }, { markets: [monUsdc] });
    venue.commit(venue.engine.executeBatch({ accountId: venue.bob, market: M, cancelSlotIdxs: [], expectedOrderIds: [], orders: [venueOrder({ side: 'SELL', price: 80n, quantity: 240n })] }));
    const replace: ReplaceSlots = { type: 'ReplaceSlots', purpose: 'quotes', market: M, ops: [{ slotIdx: 0, kind: 'place', side: 'SELL', postOnly: false, price: 80n, size: 10n, minSizeAfterBlock: 0n }] };
    portfolio.markPending('r1', replace);
    const first = venue.commit(venue.engine.executeReplace({ accountId: venue.alice, market: M, ops: replace.ops, expectedOrderIds: [UINT64_MAX] }));
    portfolio.applyOutcome('r1', 'CONFIRMED', { txHash: first.tx });
    portfolio.applyOrderEvents(venue.eventsOf(first.tx));
    const orders = [gtc('BUY', 80n, 240n), gtc('BUY', 80n, 10n)];
    portfolio.markPending('r2', batch(orders));
    const second = venue.commit(
      venue.engine.executeBatch({ accountId: venue.alice, market: M, cancelSlotIdxs: [], expectedOrderIds: [], orders: orders.map((o) => venueOrder({ side: o.side, price: o.price, quantity: o.size })) }),
    );
    portfolio.applyOutcome('r2', 'CONFIRMED', { txHash: second.tx });
    portfolio.applyOrderEvents(venue.eventsOf(second.tx));
    expect(portfolio.slotOrderIds(M)).toEqual(venue.aliceSlots());
    expect(portfolio.state(M).orders.map((o) => [o.orderId, o.slot])).toEqual([[4n, 1]]);
  });
});

describe('portfolio: fills, denomination and de-duplication', () => {
  it('reads a trade by the denomination rules: sizes in size units, fillPrice 1e18, baseFilled raw', () => {
    const clock = new VirtualClock(T0);
    const portfolio = createPortfolio({ clock }, { markets: [wethUsdc] });
    const where = { ...at(1), spec: wethUsdc };
    // WETH_USDC: price units 1e-4, size units 1e-4 WETH, WETH 3 decimals: conversions floor.
    portfolio.applyOrderEvent(created(where, 5n, 'BUY', 12_345n, 30n));
    portfolio.applyOrderEvent(trade(where, { orderId: 5n, side: 'BUY', price: 12_345n, orderSize: 30n, filled: 3n, remaining: 27n }));
    const [fill] = portfolio.fills(wethUsdc.address);
    expect(fill).toMatchObject({ orderId: 5n, side: 'BUY', size: 3n, price: 12_345n, fillPrice: 1_234_500_000_000_000_000n, remaining: 27n, liquidity: 'taker' });
    expect(fill!.quote).toBe(quoteRaw(amountScale(wethUsdc), 12_345n, 3n)); // floor(370.35) = 370
    expect(fill!.quote).toBe(370n);
    expect(fill!.base).toBe(0n); // floor(3 x 10^3 / 10^4)
    expect(fill!.fee).toBe(92n); // 25 % taker fee of 370, floored
    expect(portfolio.state(wethUsdc.address).position).toBe(3n);
    expect(portfolio.state(wethUsdc.address).orders.map((o) => o.remaining)).toEqual([27n]);
  });

  it('ignores events of untracked markets and events whose precisions differ from the spec', () => {
    const { portfolio } = setup();
    expect(portfolio.applyOrderEvent(created({ ...at(1), spec: wethUsdc }, 1n, 'BUY', 100n, 10n))).toEqual({ status: 'ignored', reason: 'unknown-market' });
    const good = created(at(1), 1n, 'BUY', 100n, 1000n);
    const odd = orderEventSchema.parse({ ...good, eventData: { ...good.eventData, sizePrecision: '100' } });
    expect(portfolio.applyOrderEvent(odd)).toEqual({ status: 'ignored', reason: 'spec-mismatch' });
    expect(portfolio.state(M).orders).toEqual([]);
  });

  it('counts a fill delivered twice once, and tells apart two equal fills of one order in one transaction', () => {
    const { portfolio } = setup();
    const seen: Fill[] = [];
    portfolio.fills$.subscribe((fill) => seen.push(fill));
    const first = trade(at(2), { orderId: 1n, side: 'BUY', price: 100n, orderSize: 1000n, filled: 400n, remaining: 600n });
    expect(portfolio.applyOrderEvent(first)).toEqual({ status: 'applied' });
    expect(portfolio.applyOrderEvent(first)).toEqual({ status: 'duplicate' });
    // The same size again in the same transaction (a second maker): a different fill.
    const second = trade(at(2), { orderId: 1n, side: 'BUY', price: 100n, orderSize: 1000n, filled: 400n, remaining: 200n });
    portfolio.applyOrderEvents([second, second, first]);
    expect(seen.map((fill) => fill.key)).toEqual([fillKey(tx(2), 1n, 400n, 600n), fillKey(tx(2), 1n, 400n, 200n)]);
    expect(portfolio.state(M).position).toBe(800n);
    expect(portfolio.state(M).fillCount).toBe(2);
  });

  it('emits each fill after the state that includes it', () => {
    const { portfolio } = setup();
    const positions: bigint[] = [];
    portfolio.fills$.subscribe(() => positions.push(portfolio.state(M).position));
    portfolio.applyOrderEvent(trade(at(2), { orderId: 1n, side: 'SELL', price: 100n, orderSize: 1000n, filled: 1000n, remaining: 0n }));
    expect(positions).toEqual([-1000n]);
  });
});

describe('portfolio: PnL by hand (average cost)', () => {
  /**
   * MON_USDC: price units 0.01 USDC, size units 0.001 MON, quoteRaw = price x size x 10 (USDC raw).
   * Buy 10 @ 1.00 and 10 @ 1.20 (resting bids filled later: maker, 0.1 %), sell 15 @ 1.30 (filled
   * when placed: taker, 0.2 %). Average cost 1.10: realized 15 x 0.20 = 3.00 USDC; 5 MON left at a
   * basis of 5.50; at a mid of 1.25 unrealized 6.25 - 5.50 = 0.75; fees 0.010 + 0.012 + 0.039.
   */
  function handExample() {
    const { portfolio, clock } = setup();
    portfolio.setBalance(USDC, 100_000_000n, T0);
    portfolio.setBalance(MON, 0n, T0);
    portfolio.applyOrderEvents([
      created(at(1), 1n, 'BUY', 100n, 10_000n),
      trade(at(2), { orderId: 1n, side: 'BUY', price: 100n, orderSize: 10_000n, filled: 10_000n, remaining: 0n }),
      created(at(3), 2n, 'BUY', 120n, 10_000n),
      trade(at(4), { orderId: 2n, side: 'BUY', price: 120n, orderSize: 10_000n, filled: 10_000n, remaining: 0n }),
      created(at(5), 3n, 'SELL', 130n, 15_000n),
      trade(at(5), { orderId: 3n, side: 'SELL', price: 130n, orderSize: 15_000n, filled: 15_000n, remaining: 0n }),
    ]);
    return { portfolio, clock };
  }

  it('realizes 3.00, carries 5 MON at 5.50, and pays 0.061 in fees', () => {
    const { portfolio } = handExample();
    const state = portfolio.state(M);
    expect(state.position).toBe(5_000n);
    expect(state.costBasis).toBe(5_500_000n);
    expect(state.realizedPnl).toBe(3_000_000n);
    expect(state.fees).toBe(61_000n);
    expect(portfolio.fills(M).map((fill) => [fill.liquidity, fill.fee])).toEqual([
      ['maker', 10_000n],
      ['maker', 12_000n],
      ['taker', 39_000n],
    ]);
    expect(portfolio.pnl(M, 125n)).toEqual({ realized: 3_000_000n, unrealized: 750_000n, fees: 61_000n, net: 3_689_000n });
    expect(portfolio.pnl(M)).toEqual({ realized: 3_000_000n, unrealized: 0n, fees: 61_000n, net: 2_939_000n });
    expect(state.orders).toEqual([]);
  });

  it('moves balances by the fills and their fees', () => {
    const { portfolio } = handExample();
    expect(portfolio.balance(MON)).toEqual({ total: 5n * 10n ** 18n, locked: 0n, available: 5n * 10n ** 18n });
    // 100 - 10.010 - 12.012 + 19.461
    expect(portfolio.balance(USDC)).toEqual({ total: 97_439_000n, locked: 0n, available: 97_439_000n });
    expect(portfolio.state(M).balances.quote?.total).toBe(97_439_000n);
    expect(portfolio.state(M).flows).toEqual({ base: 5n * 10n ** 18n, quote: -2_561_000n });
  });

  it('arrives at the same numbers whatever the delivery order', () => {
    const { portfolio: reference } = handExample();
    const { portfolio } = setup();
    const events = [
      trade(at(5), { orderId: 3n, side: 'SELL', price: 130n, orderSize: 15_000n, filled: 15_000n, remaining: 0n }),
      trade(at(2), { orderId: 1n, side: 'BUY', price: 100n, orderSize: 10_000n, filled: 10_000n, remaining: 0n }),
      created(at(5), 3n, 'SELL', 130n, 15_000n),
      trade(at(4), { orderId: 2n, side: 'BUY', price: 120n, orderSize: 10_000n, filled: 10_000n, remaining: 0n }),
      created(at(3), 2n, 'BUY', 120n, 10_000n),
      created(at(1), 1n, 'BUY', 100n, 10_000n),
    ];
    for (const event of events) portfolio.applyOrderEvent(event);
    const pick = (s: MarketState) => [s.position, s.costBasis, s.realizedPnl, s.fees];
    expect(pick(portfolio.state(M))).toEqual(pick(reference.state(M)));
  });
});

describe('portfolio: memory', () => {
  it('retires orders that ended long ago: late duplicates do not bring them back, late fills still count', () => {
    const clock = new VirtualClock(T0);
    const portfolio = createPortfolio({ clock }, { markets: [monUsdc], settleMs: 1000 });
    portfolio.applyOrderEvents([created(at(1), 1n, 'BUY', 100n, 1000n), canceled(at(2), 1n, 'BUY', 100n, 1000n, 600n)]);
    clock.advanceBy(10_001);
    portfolio.applyOrderEvent(created(at(3), 2n, 'BUY', 90n, 1000n)); // any change runs the retirement
    clock.advanceBy(1);
    portfolio.applyOrderEvent(created(at(4), 3n, 'BUY', 80n, 1000n));
    expect(portfolio.applyOrderEvent(created(at(1), 1n, 'BUY', 100n, 1000n))).toEqual({ status: 'duplicate' });
    expect(portfolio.state(M).orders.map((o) => o.orderId)).toEqual([2n, 3n]);
    portfolio.applyOrderEvent(trade(at(2), { orderId: 1n, side: 'BUY', price: 100n, orderSize: 1000n, filled: 400n, remaining: 600n }));
    expect(portfolio.state(M).position).toBe(400n);
    expect(portfolio.state(M).orders.map((o) => o.orderId)).toEqual([2n, 3n]);
  });

  for (const learnt of ['its created event', 'an active-orders read'] as const) {
    it(`takes a retired id created again in another transaction as a new order, learnt from ${learnt} (a venue wiped numbers its orders from the start)`, () => {
      // Seen at a venue restart with its state wiped: the new placement's order ids were those of
      // orders retired before the wipe, its created events were dropped as duplicates, and its slots
      // held records without ids until the stop's CancelAll gave up waiting for them.
      const clock = new VirtualClock(T0);
      const portfolio = createPortfolio({ clock }, { markets: [monUsdc], settleMs: 1000 });
      portfolio.markPending('r1', batch([gtc('BUY', 100n, 1000n)]));
      portfolio.applyOutcome('r1', 'CONFIRMED', { txHash: tx(1) });
      portfolio.applyOrderEvents([created(at(1), 7n, 'BUY', 100n, 1000n), trade(at(2), { orderId: 7n, side: 'BUY', price: 100n, orderSize: 1000n, filled: 1000n, remaining: 0n })]);
      // Settled, then retired: any change runs the retirement.
      clock.advanceBy(10_001);
      portfolio.applyOrderEvent(created(at(3), 2n, 'SELL', 200n, 1000n));
      clock.advanceBy(10_001);
      portfolio.applyOrderEvent(created(at(4), 3n, 'SELL', 210n, 1000n));
      expect(portfolio.order(M, 7n), 'retired').toBeUndefined();
      expect(portfolio.applyOrderEvent(created(at(1), 7n, 'BUY', 100n, 1000n)), 'the old order, again').toEqual({ status: 'duplicate' });

      portfolio.markPending('r2', batch([gtc('BUY', 105n, 500n)]));
      portfolio.applyOutcome('r2', 'CONFIRMED', { txHash: tx(5) });
      const fresh = learnt === 'its created event' ? portfolio.applyOrderEvent(created(at(5), 7n, 'BUY', 105n, 500n)) : portfolio.applyActiveOrders(M, [active(7, 'BUY', 105n, 500n, 500n, 5), active(2, 'SELL', 200n, 1000n, 1000n, 3), active(3, 'SELL', 210n, 1000n, 1000n, 4)], { asOfMs: clock.now() })[0];
      expect(fresh).toEqual({ status: 'applied' });
      expect(portfolio.state(M).orders.map((o) => [o.orderId, o.side, o.price, o.requestId])).toEqual([
        [7n, 'BUY', 105n, 'r2'],
        [2n, 'SELL', 200n, undefined],
        [3n, 'SELL', 210n, undefined],
      ]);
      portfolio.applyOrderEvent(trade(at(6), { orderId: 7n, side: 'BUY', price: 105n, orderSize: 500n, filled: 500n, remaining: 0n }));
      expect(portfolio.state(M).orders.map((o) => o.orderId)).toEqual([2n, 3n]);
      expect(portfolio.state(M).position).toBe(1500n);
    });
  }
});

describe('portfolio: active orders and balances', () => {
  it('takes listed orders as live and drops the ones a later complete snapshot no longer lists', () => {
    const { portfolio } = setup();
    portfolio.applyActiveOrders(M, [active(4, 'BUY', 100n, 1000n, 600n, 1), active(5, 'SELL', 120n, 1000n, 1000n, 2)], { asOfMs: T0 + 5000 });
    expect(portfolio.state(M).orders.map((o) => [o.orderId, o.remaining, o.slot])).toEqual([
      [4n, 600n, undefined],
      [5n, 1000n, undefined],
    ]);
    portfolio.applyActiveOrders(M, [active(5, 'SELL', 120n, 1000n, 1000n, 2)], { asOfMs: T0 + 9000 });
    expect(portfolio.state(M).orders.map((o) => o.orderId)).toEqual([5n]);
  });

  it('does not judge an order created within the grace before the snapshot (index lag)', () => {
    const { portfolio } = setup();
    portfolio.applyOrderEvent(created(at(6), 8n, 'BUY', 100n, 1000n));
    portfolio.applyActiveOrders(M, [], { asOfMs: T0 + 10_000 }); // created 4 s before: may not be indexed yet
    expect(portfolio.state(M).orders.map((o) => o.orderId)).toEqual([8n]);
    portfolio.applyActiveOrders(M, [], { asOfMs: T0 + 11_000 }); // 5 s: gone
    expect(portfolio.state(M).orders).toEqual([]);
  });

  it('takes a doubted order missing from a later snapshot as gone without the grace, and back when listed again', () => {
    const { portfolio } = setup();
    portfolio.applyOrderEvent(created(at(6), 8n, 'BUY', 100n, 1000n));
    portfolio.applyOrderEvent(created(at(7), 9n, 'BUY', 99n, 1000n));
    portfolio.doubtOrders(M, [8n, 9n, 77n], T0 + 9_000); // 77: unknown, ignored
    portfolio.applyActiveOrders(M, [], { asOfMs: T0 + 8_500 }); // taken before the doubt: the grace still applies
    expect(portfolio.state(M).orders.map((o) => o.orderId)).toEqual([8n, 9n]);
    portfolio.applyActiveOrders(M, [active(9, 'BUY', 99n, 1000n, 1000n, 7)], { asOfMs: T0 + 9_500 });
    expect(portfolio.state(M).orders.map((o) => o.orderId)).toEqual([9n]);
    // A later snapshot still without it (and inside the grace) keeps it gone: state is derived from facts.
    portfolio.applyActiveOrders(M, [active(9, 'BUY', 99n, 1000n, 1000n, 7)], { asOfMs: T0 + 10_000 });
    expect(portfolio.state(M).orders.map((o) => o.orderId)).toEqual([9n]);
    portfolio.applyActiveOrders(M, [active(8, 'BUY', 100n, 1000n, 1000n, 6), active(9, 'BUY', 99n, 1000n, 1000n, 7)], { asOfMs: T0 + 10_500 });
    expect(portfolio.state(M).orders.map((o) => o.orderId)).toEqual([8n, 9n]);
  });

  it('keeps an order confirmed after the snapshot was taken', () => {
    const { portfolio, clock } = setup();
    clock.advanceTo(T0 + 10_000);
    portfolio.markPending('r1', batch([gtc('BUY', 100n, 1000n)]));
    portfolio.applyOutcome('r1', 'CONFIRMED', { txHash: tx(10) });
    portfolio.applyOrderEvent(created(at(10), 9n, 'BUY', 100n, 1000n));
    portfolio.applyActiveOrders(M, [], { asOfMs: T0 + 9_000 });
    expect(portfolio.state(M).orders.map((o) => o.orderId)).toEqual([9n]);
  });

  it('takes a confirmed order whose id never came as gone when a snapshot long enough after lists nothing its transaction created', () => {
    // A venue that restarted with its state wiped: the placement confirmed, its order events were lost.
    const { portfolio, clock } = setup();
    clock.advanceTo(T0 + 10_000);
    portfolio.markPending('r1', batch([gtc('BUY', 100n, 1000n), gtc('SELL', 120n, 1000n)]));
    portfolio.applyOutcome('r1', 'CONFIRMED', { txHash: tx(10) });
    portfolio.markPending('r2', batch([gtc('BUY', 99n, 1000n)]));
    portfolio.applyOutcome('r2', 'CONFIRMED', { txHash: tx(11) });
    expect(portfolio.state(M).orders.map((o) => [o.orderId, o.price])).toEqual([
      [undefined, 100n],
      [undefined, 120n],
      [undefined, 99n],
    ]);
    // Within the grace after its confirmation: the index may lag.
    portfolio.applyActiveOrders(M, [], { asOfMs: T0 + 14_000 });
    expect(portfolio.state(M).orders).toHaveLength(3);
    // r2's order is listed (its id comes with it); nothing r1's transaction created is.
    portfolio.applyActiveOrders(M, [active(7, 'BUY', 99n, 1000n, 1000n, 11)], { asOfMs: T0 + 15_000 });
    expect(portfolio.state(M).orders.map((o) => [o.orderId, o.price])).toEqual([[7n, 99n]]);
  });

  it('locks quote (with the maker fee) for bids and base for asks', () => {
    const { portfolio } = setup();
    portfolio.setBalance(USDC, 50_000_000n);
    portfolio.setBalance(MON, 10n ** 19n);
    portfolio.markPending('r1', batch([gtc('BUY', 100n, 1000n), gtc('SELL', 120n, 2000n)]));
    portfolio.applyOutcome('r1', 'CONFIRMED', { txHash: tx(1) });
    // 1 MON at 1.00 = 1_000_000 + 0.1 % maker fee; 2 MON locked.
    expect(portfolio.state(M).locked).toEqual({ quote: 1_001_000n, base: 2n * 10n ** 18n });
    expect(portfolio.balance(USDC)).toEqual({ total: 50_000_000n, locked: 1_001_000n, available: 48_999_000n });
    expect(portfolio.state(M).balances.base).toEqual({ total: 10n ** 19n, locked: 2n * 10n ** 18n, available: 8n * 10n ** 18n });
  });

  it('streams each market state through state$', () => {
    const { portfolio } = setup();
    const positions: bigint[] = [];
    portfolio.state$(M).subscribe((state) => positions.push(state.position));
    portfolio.applyOrderEvent(trade(at(2), { orderId: 1n, side: 'BUY', price: 100n, orderSize: 1000n, filled: 1000n, remaining: 0n }));
    portfolio.applyOrderEvent(trade(at(3), { orderId: 2n, side: 'SELL', price: 100n, orderSize: 400n, filled: 400n, remaining: 0n }));
    expect(positions).toEqual([0n, 1000n, 600n]);
  });
});
