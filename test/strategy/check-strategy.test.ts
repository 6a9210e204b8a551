import { map, merge, Observable, of, concat, take, throwError, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { defineStrategy, isBaseError, z, type Intent, type OwnMarketState, type PackedOp } from 'clobbot';
import { checkStrategy, createStrategyHarness } from 'clobbot/testing';
import { book, monUsdc } from '../strategies/fixtures.ts';

const MARKET = monUsdc.address;

/** A strategy that emits the given intents at the given times (ms after its start). */
function scripted(steps: readonly { at: number; intent: Intent }[]) {
  return defineStrategy({
    name: 'scripted',
    params: z.strictObject({}),
    create: (ctx) => merge(...steps.map(({ at, intent }) => timer(at, ctx.clock.scheduler).pipe(map(() => intent)))),
  });
}

const place = (slotIdx: number, side: 'BUY' | 'SELL', price: bigint, size = 10_000n, postOnly = true): PackedOp => ({ slotIdx, kind: 'place', side, postOnly, price, size, minSizeAfterBlock: 0n });
const replace = (...ops: PackedOp[]): Intent => ({ type: 'ReplaceSlots', purpose: 'test', market: MARKET, ops });
const start = { at: 0, ...book('0.0349', '0.0351') };

async function codeOf(action: () => Promise<unknown>): Promise<string> {
  try {
    await action();
  } catch (error) {
    if (isBaseError(error)) return `${error.code}: ${error.message}`;
    throw error;
  }
  return 'no error';
}

describe('checkStrategy (on the venue model)', () => {
  it('sends intents through the engine to the venue: pending while in flight, then the order ids the venue gave', async () => {
    const result = await checkStrategy(scripted([{ at: 100, intent: replace(place(5, 'BUY', 349_000n), place(7, 'SELL', 351_000n)) }]), {
      markets: [{ spec: monUsdc, books: [start] }],
      until: 3_000,
    });
    expect(result.stateAt(99).orders).toEqual([]);
    expect(result.stateAt(100).pendingRequests).toBe(1);
    // The orders exist once their block executed: not before the relay and a block had them.
    const placed = result.history().find(({ state }) => state.slots[5] !== null)!;
    expect(placed.at).toBeGreaterThan(100);
    const final = result.states.get('MON_USDC')!;
    expect(final.pendingRequests).toBe(0);
    expect(final.slots[5]).toMatchObject({ slot: 5, side: 'BUY', price: 349_000n, remaining: 10_000n });
    expect(final.slots[7]).toMatchObject({ slot: 7, side: 'SELL', price: 351_000n });
    // The script market maker's ten levels were placed first: the venue numbers orders from 1.
    expect(final.slots[5]!.orderId! > 10n).toBe(true);
    expect(final.slots[7]!.orderId).toBe(final.slots[5]!.orderId! + 1n);
    expect(result.reverted).toEqual([]);
  });

  it('reverts an intent whose slot changed between signing and its block, with the venue reason', async () => {
    const result = await checkStrategy(scripted([{ at: 100, intent: replace(place(0, 'BUY', 349_000n)) }]), {
      markets: [{ spec: monUsdc, orders: [{ slot: 0, side: 'BUY', price: 348_000n, size: 10_000n }], books: [start], fills: [{ at: 50, slot: 0 }] }],
      until: 8_000,
    });
    expect(result.reverted).toHaveLength(1);
    expect(result.reverted[0]).toMatchObject({ at: 100, status: 'REVERTED', code: 'EXPECTED_ORDER_ID_MISMATCH' });
    expect(result.reverted[0]!.reason).toMatch(/^EXPECTED_ORDER_ID_MISMATCH: slot 0 is empty, expected order \d+/);
    expect(result.states.get('MON_USDC')!.orders).toEqual([]);
    expect(result.states.get('MON_USDC')!.position).toBe(10_000n);
    expect(result.fills.map((fill) => [fill.price, fill.size, fill.liquidity, fill.fee])).toEqual([[348_000n, 10_000n, 'maker', 0n]]);
  });

  it('reverts a post-only order that would cross; a plain one takes from the book, paying the taker fee, and rests the rest', async () => {
    const crossing = await checkStrategy(scripted([{ at: 0, intent: replace(place(0, 'BUY', 351_000n)) }]), { markets: [{ spec: monUsdc, books: [start] }], until: 3_000 });
    expect(crossing.reverted.map(({ reason }) => reason)).toEqual(['INVALID_ORDER: order 0: post-only order would cross the book']);

    const taking = await checkStrategy(scripted([{ at: 0, intent: replace(place(3, 'BUY', 351_010n, 25_000n, false)) }]), {
      markets: [{ spec: monUsdc, books: [{ at: 0, bids: [['0.0349', '100']], asks: [['0.0351', '100'], ['0.0351010', '50'], ['0.0352', '100']] }] }],
      until: 5_000,
    });
    expect(taking.fills.map((fill) => [fill.price, fill.size, fill.liquidity])).toEqual([
      [351_000n, 10_000n, 'taker'],
      [351_010n, 5_000n, 'taker'],
    ]);
    // Taker fee 2 bp of the quote amount: 100 MON x 0.0351 = 3.51 USDC = 3510000 raw -> 702.
    expect(taking.fills[0]!.fee).toBe(702n);
    expect(taking.states.get('MON_USDC')!.slots[3]).toMatchObject({ remaining: 10_000n, size: 25_000n });
    expect(taking.states.get('MON_USDC')!.position).toBe(15_000n);
  });

  it('batches: cancels first, GTC orders in the lowest free slots, IOC never rests, FOK fills fully or reverts', async () => {
    const gtc = { tif: 'GTC', executionInstruction: 'POST_ONLY', minSizeAfterBlock: 0n } as const;
    const taker = { executionInstruction: 'NONE', minSizeAfterBlock: 0n } as const;
    const result = await checkStrategy(
      scripted([
        { at: 0, intent: { type: 'PlaceAndCancel', purpose: 'a', market: MARKET, cancelSlots: [1], orders: [{ side: 'BUY', price: 348_000n, size: 100n, ...gtc }, { side: 'SELL', price: 352_000n, size: 100n, ...gtc }] } },
        { at: 10, intent: { type: 'PlaceAndCancel', purpose: 'b', market: MARKET, cancelSlots: [], orders: [{ side: 'BUY', price: 351_500n, size: 30_000n, tif: 'IOC', ...taker }] } },
        { at: 20, intent: { type: 'PlaceAndCancel', purpose: 'c', market: MARKET, cancelSlots: [], orders: [{ side: 'SELL', price: 340_000n, size: 1_000_000n, tif: 'FOK', ...taker }] } },
      ]),
      {
        markets: [
          {
            spec: monUsdc,
            orders: [
              { slot: 0, side: 'BUY', price: 347_000n, size: 100n },
              { slot: 1, side: 'BUY', price: 346_000n, size: 100n },
            ],
            books: [{ at: 0, bids: [['0.0349', '100']], asks: [['0.0351', '100']] }],
          },
        ],
        until: 5_000,
      },
    );
    const state = result.states.get('MON_USDC')!;
    expect(state.slots.slice(0, 4).map((order) => order && [order.side, order.price])).toEqual([['BUY', 347_000n], ['BUY', 348_000n], ['SELL', 352_000n], null]);
    // The IOC took the 100 MON offered and the rest was cancelled.
    expect(state.position).toBe(10_000n);
    expect(result.reverted.map((entry) => entry.reason)).toEqual(['INVALID_ORDER: order 0: fill-or-kill order cannot be filled in full']);
  });

  it('makes scripted trades real: a trade through the own ask fills it, and the trade reaches trades$', async () => {
    const seen: string[] = [];
    const watcher = defineStrategy({
      name: 'watcher',
      params: z.strictObject({}),
      create: (ctx) =>
        new Observable<Intent>((subscriber) => {
          subscriber.next(replace(place(0, 'SELL', 350_500n)));
          return ctx.markets.get('MON_USDC')!.feed.trades$.subscribe((trade) => seen.push(`${trade.price} x ${trade.qty}`));
        }),
    });
    const result = await checkStrategy(watcher, { markets: [{ spec: monUsdc, books: [start], trades: [{ at: 2_000, price: '0.0351', qty: '150' }] }], until: 8_000 });
    // A buyer took 150 MON up to 0.0351: the own ask at 0.03505 first, then 50 MON of the script maker's.
    expect(result.fills.map((fill) => [fill.price, fill.size, fill.liquidity])).toEqual([[350_500n, 10_000n, 'maker']]);
    expect(seen).toEqual(['350500 x 10000', '351000 x 5000']);
    expect(result.states.get('MON_USDC')!.position).toBe(-10_000n);
  });

  it('a scripted fill takes the liquidity ahead of the own order first', async () => {
    const result = await checkStrategy(scripted([]), {
      markets: [{ spec: monUsdc, orders: [{ slot: 2, side: 'BUY', price: 348_900n, size: 20_000n }], books: [{ at: 0, bids: [['0.0349', '50']], asks: [['0.0351', '50']] }], fills: [{ at: 1_000, slot: 2, size: '30' }] }],
      until: 6_000,
    });
    // The taker sold 50 MON at 0.0349 (the script's bid, ahead) and then 30 MON into the own bid.
    expect(result.fills.map((fill) => [fill.price, fill.size])).toEqual([[348_900n, 3_000n]]);
    expect(result.states.get('MON_USDC')!.slots[2]).toMatchObject({ remaining: 17_000n });
  });

  it('fails on a malformed intent (strict), or records it and sends nothing', async () => {
    const bad = scripted([{ at: 0, intent: replace(place(62, 'BUY', 349_000n)) }]);
    expect(await codeOf(() => checkStrategy(bad, { markets: [monUsdc] }))).toMatch(/^STRATEGY_INTENT_INVALID: scripted emitted an invalid ReplaceSlots intent at 0: .*slotIdx must be an integer below 62/);
    const twice = scripted([{ at: 0, intent: replace(place(1, 'BUY', 349_000n), { slotIdx: 1, kind: 'cancel' }) }]);
    expect(await codeOf(() => checkStrategy(twice, { markets: [monUsdc] }))).toMatch(/repeats an earlier op's slot/);
    const offTick = scripted([{ at: 0, intent: replace(place(1, 'BUY', 349_005n, 50n)) }]);
    const recorded = await checkStrategy(offTick, { markets: [{ spec: monUsdc, books: [start] }], strict: false, until: 2_000 });
    expect(recorded.invalid[0]!.problems).toEqual(['ops[0] (slot 1): price 349005 is not on the tick 10', 'ops[0] (slot 1): size 50 is outside 100..1000000000']);
    expect(recorded.states.get('MON_USDC')!).toMatchObject({ orders: [], pendingRequests: 0 });
    expect(recorded.reverted).toEqual([]);
  });

  it('reports a strategy that throws or errors as STRATEGY_FAILED', async () => {
    const throws = defineStrategy({
      name: 'throws',
      params: z.strictObject({}),
      create: () => {
        throw new Error('boom');
      },
    });
    expect(await codeOf(() => checkStrategy(throws, { markets: [monUsdc] }))).toBe('STRATEGY_FAILED: throws failed to start: boom');
    const errors = defineStrategy({ name: 'errors', params: z.strictObject({}), create: () => concat(of(replace({ slotIdx: 0, kind: 'cancel' })), throwError(() => new Error('lost it'))) });
    expect(await codeOf(() => checkStrategy(errors, { markets: [monUsdc] }))).toBe('STRATEGY_FAILED: errors failed: lost it');
  });

  it('refuses bad params, an unknown market and a fill of an empty slot', async () => {
    const withParams = defineStrategy({ name: 'p', params: z.strictObject({ n: z.number() }), create: () => of<Intent>() });
    expect(await codeOf(() => checkStrategy(withParams, { params: { n: 'x' } as never, markets: [monUsdc] }))).toMatch(/^STRATEGY_CHECK_INVALID: params of p do not match its schema: n:/);
    const run = await createStrategyHarness(withParams, { params: { n: 1 }, markets: [monUsdc] }).start();
    expect(await codeOf(() => run.book(book('0.0349', '0.0351'), 'WETH_USDC'))).toMatch(/^STRATEGY_CHECK_INVALID: WETH_USDC is not a market of the strategy/);
    expect(await codeOf(() => run.fill(3))).toMatch(/^STRATEGY_CHECK_INVALID: slot 3 of MON_USDC holds no order to fill/);
    expect(await codeOf(() => checkStrategy(withParams, { params: { n: 1 }, markets: [{ spec: monUsdc, books: [{ at: 0, bids: [['0.0352', '10']], asks: [['0.0351', '10']] }] }] }))).toMatch(
      /^STRATEGY_CHECK_INVALID: MON_USDC: the book is crossed/,
    );
    await run.stop();
  });

  it('waits the configured latency between the bot and the venue, and runs the background flow only when asked', async () => {
    const placing = scripted([{ at: 0, intent: replace(place(5, 'BUY', 349_000n)) }]);
    const placedAt = async (latency: number) =>
      (await checkStrategy(placing, { markets: [{ spec: monUsdc, books: [start] }], latency, until: 3_000 })).history().find(({ state }) => state.slots[5] !== null)!.at;
    const fast = await placedAt(5);
    // Two more relay legs (the request, and the answer that tells the engine) at 100 ms instead of 5.
    expect((await placedAt(100)) - fast).toBeGreaterThanOrEqual(190);

    const trades: number[] = [];
    const listener = defineStrategy({
      name: 'listener',
      params: z.strictObject({}),
      create: (ctx) => new Observable<Intent>(() => ctx.markets.get('MON_USDC')!.feed.trades$.subscribe((trade) => trades.push(trade.id))),
    });
    await checkStrategy(listener, { markets: [{ spec: monUsdc, books: [start] }], until: 20_000 });
    expect(trades).toEqual([]);
    const flow = { seed: 3, midPrice: '0.035', volatility: 0.5, orderSize: { min: '50', max: '500' } };
    await checkStrategy(listener, { markets: [{ spec: monUsdc, books: [start], flow }], until: 20_000 });
    expect(trades.length).toBeGreaterThan(0);
  });

  it('gives the same result for the same options: intents, fills, reverts and every state', async () => {
    const strategy = scripted([
      { at: 0, intent: replace(place(5, 'BUY', 349_000n), place(6, 'SELL', 351_000n)) },
      { at: 2_500, intent: replace(place(5, 'BUY', 348_990n)) },
    ]);
    const options = { markets: [{ spec: monUsdc, books: [start, { at: 2_000, ...book('0.0348', '0.0350') }], fills: [{ at: 1_000, slot: 6, size: '40' }] }], until: 8_000 };
    const text = (result: Awaited<ReturnType<typeof checkStrategy>>) =>
      JSON.stringify({ intents: result.intents, fills: result.fills, reverted: result.reverted, history: result.history() }, (_, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));
    const first = text(await checkStrategy(strategy, options));
    expect(first).toContain('"liquidity":"maker"');
    expect(text(await checkStrategy(strategy, options))).toBe(first);
  });

  it('gives the strategy the clock, a seeded random source and its markets; same options, same run', async () => {
    const seen: string[] = [];
    const observer = defineStrategy({
      name: 'observer',
      params: z.strictObject({ tag: z.string() }),
      create: (ctx) =>
        new Observable<Intent>(() => {
          const start = ctx.clock.now();
          const market = ctx.markets.get('MON_USDC')!;
          seen.push(`params ${ctx.params.tag}, random ${ctx.random.next().toFixed(6)}`);
          const books = market.feed.mid$.subscribe((mid) => seen.push(`${ctx.clock.now() - start} mid ${mid.toFixed()}`));
          const states = market.state$.pipe(take(1)).subscribe((state: OwnMarketState) => seen.push(`state ${state.position}`));
          const ticks = timer(0, 1_000, ctx.clock.scheduler).pipe(take(3)).subscribe((n) => seen.push(`${ctx.clock.now() - start} tick ${n}`));
          return () => [books, states, ticks].forEach((s) => s.unsubscribe());
        }),
    });
    const run = async () => {
      seen.length = 0;
      await checkStrategy(observer, {
        params: { tag: 'x' },
        seed: 7,
        markets: [{ spec: monUsdc, position: 10_000n, books: [start, { at: 1_500, ...book('0.0348', '0.0350') }] }],
        until: 5_000,
      });
      return [...seen];
    };
    const first = run();
    const seenFirst = await first;
    expect(seenFirst.slice(1, 5)).toEqual(['0 mid 350000', 'state 10000', '0 tick 0', '1000 tick 1']);
    // The second book reaches the feed once its block is committed (three blocks later) and polled.
    expect(seenFirst.slice(5)).toEqual(['2000 tick 2', expect.stringMatching(/^\d+ mid 349000$/)]);
    expect(await run()).toEqual(seenFirst);
  });
});
