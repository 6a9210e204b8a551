import { concat, map, Observable, of, take, throwError, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { defineStrategy, isBaseError, VirtualClock, z, type Intent, type OwnMarketState, type PackedOp } from 'clobbot';
import { checkStrategy, createStrategyHarness } from 'clobbot/testing';
import { book, monUsdc } from '../strategies/fixtures.ts';

const MARKET = monUsdc.address;

/** A strategy that emits the given intents at the given times. */
function scripted(steps: readonly { at: number; intent: Intent }[]) {
  return defineStrategy({
    name: 'scripted',
    params: z.strictObject({}),
    create: (ctx) => concat(...steps.map(({ at, intent }) => timer(at - ctx.clock.now(), ctx.clock.scheduler).pipe(map(() => intent)))),
  });
}

const place = (slotIdx: number, side: 'BUY' | 'SELL', price: bigint, size = 10_000n, postOnly = true): PackedOp => ({ slotIdx, kind: 'place', side, postOnly, price, size, minSizeAfterBlock: 0n });
const replace = (...ops: PackedOp[]): Intent => ({ type: 'ReplaceSlots', purpose: 'test', market: MARKET, ops });

function codeOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (isBaseError(error)) return `${error.code}: ${error.message}`;
    throw error;
  }
  return 'no error';
}

describe('checkStrategy', () => {
  it('applies intents as confirmed: slots, pending while in flight, order ids', () => {
    const result = checkStrategy(scripted([{ at: 100, intent: replace(place(5, 'BUY', 349_000n), place(7, 'SELL', 351_000n)) }]), {
      markets: [{ spec: monUsdc, books: [{ at: 0, ...book('0.0349', '0.0351') }] }],
      confirmAfterMs: 400,
      until: 1_000,
    });
    expect(result.stateAt(99).orders).toEqual([]);
    expect(result.stateAt(100).pendingRequests).toBe(1);
    expect(result.stateAt(499).orders).toEqual([]);
    const final = result.states.get('MON_USDC')!;
    expect(final.pendingRequests).toBe(0);
    expect(final.slots[5]).toMatchObject({ slot: 5, side: 'BUY', price: 349_000n, remaining: 10_000n });
    expect(final.slots[7]).toMatchObject({ slot: 7, side: 'SELL', price: 351_000n });
    expect(typeof final.slots[5]!.orderId).toBe('bigint');
  });

  it('reverts an intent whose slot changed between emission and confirmation (expected order ids)', () => {
    const result = checkStrategy(scripted([{ at: 100, intent: replace(place(0, 'BUY', 349_000n)) }]), {
      markets: [
        {
          spec: monUsdc,
          orders: [{ slot: 0, side: 'BUY', price: 348_000n, size: 10_000n }],
          books: [{ at: 0, ...book('0.0349', '0.0351') }],
          fills: [{ at: 200, slot: 0 }],
        },
      ],
      confirmAfterMs: 400,
      until: 1_000,
    });
    expect(result.reverted).toHaveLength(1);
    expect(result.reverted[0]!.reason).toMatch(/^EXPECTED_ORDER_ID_MISMATCH/);
    expect(result.states.get('MON_USDC')!.orders).toEqual([]);
    expect(result.states.get('MON_USDC')!.position).toBe(10_000n);
  });

  it('reverts a post-only order that would cross; a plain one takes from the book and rests the rest', () => {
    const crossing = checkStrategy(scripted([{ at: 0, intent: replace(place(0, 'BUY', 351_000n)) }]), { markets: [{ spec: monUsdc, books: [{ at: 0, ...book('0.0349', '0.0351') }] }] });
    expect(crossing.reverted[0]!.reason).toMatch(/^INVALID_ORDER: post-only BUY at 351000 would cross 351000/);

    const taking = checkStrategy(scripted([{ at: 0, intent: replace(place(3, 'BUY', 351_010n, 25_000n, false)) }]), {
      markets: [{ spec: monUsdc, books: [{ at: 0, bids: [['0.0349', '100']], asks: [['0.0351', '100'], ['0.0351010', '50'], ['0.0352', '100']] }] }],
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

  it('batches: cancels first, GTC orders in the lowest free slots, IOC never rests, FOK fills fully or reverts', () => {
    const gtc = { tif: 'GTC', executionInstruction: 'POST_ONLY', minSizeAfterBlock: 0n } as const;
    const result = checkStrategy(
      scripted([
        { at: 0, intent: { type: 'PlaceAndCancel', purpose: 't', market: MARKET, cancelSlots: [1], orders: [{ side: 'BUY', price: 348_000n, size: 100n, ...gtc }, { side: 'SELL', price: 352_000n, size: 100n, ...gtc }] } },
        { at: 10, intent: { type: 'PlaceAndCancel', purpose: 't', market: MARKET, cancelSlots: [], orders: [{ side: 'BUY', price: 352_000n, size: 30_000n, tif: 'IOC', executionInstruction: 'NONE', minSizeAfterBlock: 0n }] } },
        { at: 20, intent: { type: 'PlaceAndCancel', purpose: 't', market: MARKET, cancelSlots: [], orders: [{ side: 'SELL', price: 340_000n, size: 1_000_000n, tif: 'FOK', executionInstruction: 'NONE', minSizeAfterBlock: 0n }] } },
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
        until: 100,
      },
    );
    const state = result.states.get('MON_USDC')!;
    expect(state.slots.slice(0, 4).map((order) => order && [order.side, order.price])).toEqual([['BUY', 347_000n], ['BUY', 348_000n], ['SELL', 352_000n], null]);
    // The IOC took the 100 MON offered and dropped the rest.
    expect(state.position).toBe(10_000n);
    expect(result.reverted.map((entry) => entry.reason)).toEqual([expect.stringMatching(/^INVALID_ORDER: FOK order of 1000000 finds only 10000/)]);
  });

  it('fails on a malformed intent (strict), or records it', () => {
    const bad = scripted([{ at: 0, intent: replace(place(62, 'BUY', 349_000n)) }]);
    expect(codeOf(() => checkStrategy(bad, { markets: [monUsdc] }))).toMatch(/^STRATEGY_INTENT_INVALID: scripted emitted an invalid ReplaceSlots at 0: .*slotIdx must be an integer below 62/);
    const twice = scripted([{ at: 0, intent: replace(place(1, 'BUY', 349_000n), { slotIdx: 1, kind: 'cancel' }) }]);
    expect(codeOf(() => checkStrategy(twice, { markets: [monUsdc] }))).toMatch(/repeats an earlier op's slot/);
    const offTick = scripted([{ at: 0, intent: replace(place(1, 'BUY', 349_005n, 50n)) }]);
    const recorded = checkStrategy(offTick, { markets: [monUsdc], strict: false });
    expect(recorded.invalid[0]!.problems).toEqual(['ops[0] (slot 1): price 349005 is not on the tick 10', 'ops[0] (slot 1): size 50 is outside 100..1000000000']);
    expect(recorded.states.get('MON_USDC')!.orders).toEqual([]);
  });

  it('reports a strategy that throws or errors as STRATEGY_FAILED', () => {
    const throws = defineStrategy({
      name: 'throws',
      params: z.strictObject({}),
      create: () => {
        throw new Error('boom');
      },
    });
    expect(codeOf(() => checkStrategy(throws, { markets: [monUsdc] }))).toBe('STRATEGY_FAILED: throws failed to start: boom');
    const errors = defineStrategy({ name: 'errors', params: z.strictObject({}), create: () => concat(of(replace({ slotIdx: 0, kind: 'cancel' })), throwError(() => new Error('lost it'))) });
    expect(codeOf(() => checkStrategy(errors, { markets: [monUsdc] }))).toBe('STRATEGY_FAILED: errors failed: lost it');
  });

  it('refuses bad params, an unknown market and a fill of an empty slot', () => {
    const withParams = defineStrategy({ name: 'p', params: z.strictObject({ n: z.number() }), create: () => of<Intent>() });
    expect(codeOf(() => checkStrategy(withParams, { params: { n: 'x' } as never, markets: [monUsdc] }))).toMatch(/^STRATEGY_CHECK_INVALID: params of p do not match its schema: n:/);
    const run = createStrategyHarness(withParams, { params: { n: 1 }, markets: [monUsdc] }).start();
    expect(codeOf(() => run.book(book('0.0349', '0.0351'), 'WETH_USDC'))).toMatch(/^STRATEGY_CHECK_INVALID: WETH_USDC is not a market of the strategy/);
    expect(codeOf(() => run.fill(3))).toMatch(/^STRATEGY_CHECK_INVALID: at 0: slot 3 of MON_USDC holds no order to fill/);
  });

  it('gives the strategy the clock, a seeded random source and its markets; ticks come in time order', () => {
    const seen: string[] = [];
    const observer = defineStrategy({
      name: 'observer',
      params: z.strictObject({ tag: z.string() }),
      create: (ctx) =>
        new Observable<Intent>(() => {
          const market = ctx.markets.get('MON_USDC')!;
          seen.push(`params ${ctx.params.tag}, random ${ctx.random.next().toFixed(6)}`);
          const books = market.feed.mid$.subscribe((mid) => seen.push(`${ctx.clock.now()} mid ${mid.toFixed()}`));
          const states = market.state$.pipe(take(1)).subscribe((state: OwnMarketState) => seen.push(`state ${state.position}`));
          const ticks = timer(0, 1_000, ctx.clock.scheduler).pipe(take(3)).subscribe((n) => seen.push(`${ctx.clock.now()} tick ${n}`));
          return () => [books, states, ticks].forEach((s) => s.unsubscribe());
        }),
    });
    const run = () => {
      seen.length = 0;
      checkStrategy(observer, {
        params: { tag: 'x' },
        clock: new VirtualClock(1_000),
        seed: 7,
        markets: [{ spec: monUsdc, position: 5n, books: [{ at: 1_000, ...book('0.0349', '0.0351') }, { at: 2_000, ...book('0.0348', '0.0350') }] }],
        until: 5_000,
      });
      return [...seen];
    };
    const first = run();
    expect(first.slice(1)).toEqual(['state 5', '1000 mid 350000', '1000 tick 0', '2000 mid 349000', '2000 tick 1', '3000 tick 2']);
    expect(run()).toEqual(first);
  });
});
