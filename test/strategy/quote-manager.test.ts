import { describe, expect, it } from 'vitest';
import { createQuoteManager, isBaseError, MAKER_SLOTS, planQuotes, type OwnMarketState, type OwnOrder, type PlanQuotesOptions, type ReplaceSlots } from 'clobbot';

const MARKET = '0x00000000000000000000000000000000000000b1' as const;
const market = { address: MARKET, tickSize: 10n, minSize: 100n, maxSize: 1_000_000n };
const options: PlanQuotesOptions = { market };

let id = 1n;
function slots(orders: Record<number, Pick<OwnOrder, 'side' | 'price'> & { size?: bigint; remaining?: bigint; orderId?: bigint | undefined }>, pendingRequests = 0): OwnMarketState {
  const all = new Array<OwnOrder | null>(MAKER_SLOTS).fill(null);
  for (const [slot, order] of Object.entries(orders)) {
    const size = order.size ?? 1_000n;
    all[Number(slot)] = { market: MARKET, slot: Number(slot), size, remaining: order.remaining ?? size, orderId: 'orderId' in order ? order.orderId : id++, side: order.side, price: order.price };
  }
  return { market: MARKET, slots: all, orders: all.filter((o): o is OwnOrder => o !== null), pendingRequests, position: 0n, realizedPnl: 0n, fees: 0n };
}

function quoteError(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (isBaseError(error) && (error.code as string) === 'QUOTES_INVALID') return error.message;
    throw error;
  }
  throw new Error('expected QUOTES_INVALID');
}

describe('planQuotes', () => {
  it('places quotes into the lowest empty slots, packed, post-only', () => {
    const plan = planQuotes(slots({ 0: { side: 'BUY', price: 990n } }), { bids: [{ price: 990n, size: 1_000n }], asks: [{ price: 1_010n, size: 500n }] }, options);
    expect(plan.kept).toEqual([0]);
    expect(plan.intent).toEqual({
      type: 'ReplaceSlots',
      purpose: 'quotes',
      market: MARKET,
      ops: [{ slotIdx: 1, kind: 'place', side: 'SELL', postOnly: true, price: 1_010n, size: 500n, minSizeAfterBlock: 0n }],
    });
  });

  it('replaces a moved quote in its own slot (one op), same side first, and cancels what is not wanted', () => {
    const state = slots({ 3: { side: 'BUY', price: 980n }, 7: { side: 'SELL', price: 1_020n }, 9: { side: 'SELL', price: 1_030n } });
    const plan = planQuotes(state, { bids: [{ price: 990n, size: 1_000n }], asks: [{ price: 1_020n, size: 1_000n }] }, options);
    const intent = plan.intent as ReplaceSlots;
    expect(intent.ops).toEqual([
      { slotIdx: 3, kind: 'place', side: 'BUY', postOnly: true, price: 990n, size: 1_000n, minSizeAfterBlock: 0n },
      { slotIdx: 9, kind: 'cancel' },
    ]);
    expect(plan).toMatchObject({ status: 'changed', kept: [7], cancelled: [3, 9] });
  });

  it('keeps orders within the threshold: ticks, bps of the desired price, size tolerance', () => {
    const state = slots({ 0: { side: 'BUY', price: 9_980n, remaining: 700n }, 1: { side: 'SELL', price: 10_030n } });
    const desired = { bids: [{ price: 10_000n, size: 1_000n }], asks: [{ price: 10_000n + 20n, size: 1_000n }] };
    // 20 units = 2 ticks = 20 bps of 10000; 300 of 1000 = 3000 bps of size.
    expect(planQuotes(state, desired, { market, threshold: { ticks: 2, sizeBps: 3_000 } }).status).toBe('unchanged');
    expect(planQuotes(state, desired, { market, threshold: { bps: 20, sizeBps: 3_000 } }).status).toBe('unchanged');
    expect(planQuotes(state, desired, { market, threshold: { bps: 19, sizeBps: 3_000 } }).cancelled).toEqual([0]);
    expect(planQuotes(state, desired, { market, threshold: { ticks: 2, sizeBps: 2_999 } }).cancelled).toEqual([0]);
  });

  it('waits while a request is pending or an order has no id yet, unless told to proceed', () => {
    const desired = { bids: [{ price: 990n, size: 1_000n }], asks: [] };
    expect(planQuotes(slots({}, 1), desired, options)).toMatchObject({ status: 'pending', intent: undefined });
    expect(planQuotes(slots({ 4: { side: 'BUY', price: 900n, orderId: undefined } }), desired, options).status).toBe('pending');
    expect(planQuotes(slots({}, 1), desired, { ...options, whilePending: 'proceed' }).status).toBe('changed');
  });

  it('uses only its own slots and leaves the others alone', () => {
    const state = slots({ 0: { side: 'BUY', price: 900n }, 10: { side: 'BUY', price: 950n } });
    const plan = planQuotes(state, { bids: [{ price: 990n, size: 1_000n }, { price: 980n, size: 1_000n }], asks: [] }, { ...options, slots: [10, 11, 12] });
    expect((plan.intent as ReplaceSlots).ops.map((op) => op.slotIdx)).toEqual([10, 11]);
  });

  it('writes a batch in batch mode: cancels, then GTC orders the venue slots itself', () => {
    const plan = planQuotes(slots({ 2: { side: 'SELL', price: 1_050n } }), { bids: [{ price: 990n, size: 1_000n }], asks: [] }, { ...options, mode: 'batch', postOnly: false, purpose: 'mm' });
    expect(plan.intent).toEqual({
      type: 'PlaceAndCancel',
      purpose: 'mm',
      market: MARKET,
      cancelSlots: [2],
      orders: [{ side: 'BUY', price: 990n, size: 1_000n, tif: 'GTC', executionInstruction: 'NONE', minSizeAfterBlock: 0n }],
    });
    expect(plan.placed).toEqual([{ slot: undefined, side: 'BUY', price: 990n, size: 1_000n }]);
  });

  it('refuses quotes off the tick, out of range, or more than its slots', () => {
    expect(quoteError(() => planQuotes(slots({}), { bids: [{ price: 995n, size: 1_000n }], asks: [] }, options))).toMatch(/bids\[0\]: price 995 is not a multiple of the tick 10/);
    expect(quoteError(() => planQuotes(slots({}), { bids: [], asks: [{ price: 1_000n, size: 99n }] }, options))).toMatch(/asks\[0\]: size 99 is outside 100\.\.1000000/);
    expect(quoteError(() => planQuotes(slots({}), { bids: [{ price: 0n, size: 100n }], asks: [] }, options))).toMatch(/outside 1\.\./);
    const many = Array.from({ length: 4 }, (_, i) => ({ price: 1_000n + BigInt(i) * 10n, size: 100n }));
    expect(quoteError(() => planQuotes(slots({}), { bids: [], asks: many }, { ...options, slots: [0, 1, 2] }))).toMatch(/4 quotes need more than the 3 slots/);
    expect(quoteError(() => planQuotes(slots({}), { bids: [], asks: [] }, { ...options, slots: [62] }))).toMatch(/62 is not a maker slot/);
  });
});

describe('createQuoteManager', () => {
  it('does not repeat its last intent for the same state, and plans afresh on a new state', () => {
    const quotes = createQuoteManager(options);
    const state = slots({});
    const desired = { bids: [{ price: 990n, size: 1_000n }], asks: [] };
    expect(quotes.update(state, desired)?.type).toBe('ReplaceSlots');
    expect(quotes.update(state, desired)).toBeUndefined();
    // Other quotes on the same state: a new intent (the engine lets it supersede the queued one).
    expect(quotes.update(state, { bids: [{ price: 980n, size: 1_000n }], asks: [] })?.type).toBe('ReplaceSlots');
    // The state after confirmation holds the quote: nothing to do.
    expect(quotes.update(slots({ 0: { side: 'BUY', price: 980n } }), { bids: [{ price: 980n, size: 1_000n }], asks: [] })).toBeUndefined();
  });
});
