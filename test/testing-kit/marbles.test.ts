/**
 * runMarbles and marbleClock on real streams of the project: the buildBars operator and the
 * reference TWAP strategy, timed by the injected clock. Each is also run with the clock not injected
 * (wall time): its marbles must fail, since runMarbles leaves RxJS's default schedulers on wall time.
 */
import { debounceTime, finalize, map, NEVER, of, timer, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { liveClock, type Clock } from '../../src/core/clock.ts';
import { createLogger } from '../../src/core/logger.ts';
import { seededRandom } from '../../src/core/random.ts';
import type { BarTrade } from '../../src/market/bar-builder.ts';
import type { Candle } from '../../src/market/candle.ts';
import { buildBars } from '../../src/market/operators/build-bars.ts';
import { OrderBook } from '../../src/market/order-book-model.ts';
import { MAKER_SLOTS } from '../../src/protocol/constants.ts';
import type { PlaceAndCancel } from '../../src/strategy/intents.ts';
import type { OwnFill, OwnMarketState, StrategyContext, StrategyMarket } from '../../src/strategy/strategy-context.ts';
import { createMarbleScheduler, marbleClock, runMarbles } from '../../src/testing/marbles.ts';
import twap, { type TwapParams } from '../../strategies/twap.ts';
import { monUsdc } from '../strategies/fixtures.ts';

/** The assertion error `run` throws: a timeline that differs from its marbles, not any other failure. */
function mismatch(run: () => unknown): { actual: unknown; expected: unknown } {
  try {
    run();
  } catch (error) {
    expect(error).toMatchObject({ name: 'AssertionError' });
    return error as { actual: unknown; expected: unknown };
  }
  throw new Error('the marbles matched');
}

describe('marbleClock', () => {
  it("is a Clock on the TestScheduler's virtual time", () => {
    const scheduler = createMarbleScheduler();
    const clock: Clock = marbleClock(scheduler);
    expect(clock.scheduler).toBe(scheduler);
    expect(clock.now()).toBe(0);
    scheduler.schedule(() => expect(clock.now()).toBe(250), 250);
    scheduler.flush();
    expect(clock.now()).toBe(250);
  });
});

describe('runMarbles', () => {
  it('runs in run mode (1 frame = 1 ms, time progression) with the clock reading the frame', () => {
    runMarbles(({ cold, expectObservable, clock, time }) => {
      expect(time('---|')).toBe(3);
      const stamps = cold('a 9ms b 90ms c|').pipe(map(() => clock.now()));
      expectObservable(stamps).toBe('a 9ms b 90ms c|', { a: 0, b: 10, c: 101 });
    });
  });

  it("throws vitest's assertion error on a mismatch, with both timelines", () => {
    const error = mismatch(() =>
      runMarbles(({ cold, expectObservable }) => {
        expectObservable(cold('a 9ms b|')).toBe('a 8ms b|');
      }),
    );
    const frames = (messages: unknown) => (messages as { frame: number }[]).map((message) => message.frame);
    expect(frames(error.actual)).toEqual([0, 10, 11]);
    expect(frames(error.expected)).toEqual([0, 9, 10]);
  });

  it('ends what it watched and restores TestScheduler when it returns, or throws', () => {
    let finalized = 0;
    const watched = () => timer(60_000).pipe(finalize(() => (finalized += 1))); // on wall time: never due in the test
    runMarbles(({ expectObservable }) => expectObservable(watched()).toBe(''));
    expect(finalized).toBe(1);
    mismatch(() => runMarbles(({ expectObservable }) => expectObservable(watched()).toBe('a')));
    expect(finalized).toBe(2);
    expect(TestScheduler.frameTimeFactor).toBe(10);
  });

  it('times an operator on the injected scheduler', () => {
    runMarbles(({ cold, expectObservable, expectSubscriptions, clock }) => {
      const source = cold('a 10ms b 99ms c|');
      expectObservable(source.pipe(debounceTime(50, clock.scheduler))).toBe('61ms b 50ms (c|)');
      expectSubscriptions(source.subscriptions).toBe('^ 111ms !');
    });
  });

  it('fails a stream timed on the default scheduler, which TestScheduler.run would let pass', () => {
    const forgotten = (source: Observable<string>) => source.pipe(debounceTime(50));
    // RxJS's own run mode makes asyncScheduler virtual: the missing scheduler goes unnoticed.
    new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ cold, expectObservable }) => {
      expectObservable(forgotten(cold('a 10ms b 99ms c|'))).toBe('61ms b 50ms (c|)');
    });
    mismatch(() =>
      runMarbles(({ cold, expectObservable }) => {
        expectObservable(forgotten(cold('a 10ms b 99ms c|'))).toBe('61ms b 50ms (c|)');
      }),
    );
  });
});

/** `openTime:open/high/low/close:volume:count` */
const brief = (c: Candle) => `${c.openTime}:${c.open}/${c.high}/${c.low}/${c.close}:${c.volume}:${c.numTrades}`;

describe('buildBars on a marble clock', () => {
  const trades: Record<string, BarTrade> = {
    a: { time: 1, price: 100n, qty: 2n },
    b: { time: 3, price: 105n, qty: 1n },
    c: { time: 4, price: 98n, qty: 1n },
    d: { time: 12, price: 99n, qty: 5n },
  };
  const candles = { a: '0:100/105/98/98:4:3', b: '10:99/99/99/99:5:1', c: '20:99/99/99/99:0:0', d: '30:99/99/99/99:0:0' };

  /** Candles of 10 ms, closed by `clock`'s scheduler; the test ends at 45 ms. */
  const check = (clockOf: (injected: Clock) => Clock) =>
    runMarbles(({ cold, expectObservable, clock }) => {
      const bars = cold('-a-bc-------d', trades).pipe(buildBars({ intervalMs: 10, scheduler: clockOf(clock).scheduler }), map(brief));
      // Closed by the clock at 10 (a), 20 (b: its trade came at 12), then flat candles of empty intervals.
      expectObservable(bars, '^ 45ms !').toBe('----------a---------b---------c---------d', candles);
    });

  it('closes each candle when the virtual clock passes its close', () => {
    check((injected) => injected);
  });

  it('fails when the clock is not injected (candles closed on wall time)', () => {
    const error = mismatch(() => check(() => liveClock));
    // Only what the trades close: the first candle, when the trade at 12 comes; none by the clock.
    expect(error.actual).toEqual([{ frame: 12, notification: { kind: 'N', value: candles.a, error: undefined } }]);
  });
});

describe('the reference TWAP strategy on a marble clock', () => {
  const params: TwapParams = twap.params.parse({ side: 'buy', quantity: '1000', duration: '10s', slices: 5 });
  const book = OrderBook.fromLevels(monUsdc, {
    lastUpdateId: 1,
    bids: [{ price: 349_000n, size: 10_000_000n }],
    asks: [{ price: 351_000n, size: 10_000_000n }],
  });
  const state: OwnMarketState = { market: monUsdc.address, slots: Array(MAKER_SLOTS).fill(null), orders: [], pendingRequests: 0, position: 0n, realizedPnl: 0n, fees: 0n };
  const fill = (size: bigint): OwnFill => ({ market: monUsdc.address, orderId: 1n, transactionHash: `0x${'1'.repeat(64)}`, timeMs: 0, side: 'BUY', size, price: 351_000n, fee: 0n, liquidity: 'taker' });

  function context(clock: Clock, market: Pick<StrategyMarket, 'state$' | 'fills$'> & { book$: StrategyMarket['feed']['book$'] }): StrategyContext<TwapParams> {
    const feed = { book$: market.book$, bbo$: NEVER, mid$: NEVER, trades$: NEVER, ticker$: NEVER, klines$: NEVER, health$: NEVER };
    return {
      params,
      markets: new Map([[monUsdc.symbol, { spec: monUsdc, feed, state$: market.state$, fills$: market.fills$ }]]),
      clock,
      random: seededRandom(1),
      logger: createLogger({ level: 'silent' }),
      tradingState$: of({ state: 'ACTIVE' as const }),
      fates$: NEVER,
      reportFigures: () => undefined,
    };
  }

  /** Each IOC's size in units. */
  const sizes = (intents: Observable<unknown>) => intents.pipe(map((intent) => (intent as PlaceAndCancel).orders[0]!.size));

  it('sends a slice every 2 s, sized on the clock (IOC sends count as in flight for 5 s), and completes at 10 s', () => {
    runMarbles(({ cold, expectObservable, expectSubscriptions, clock }) => {
      const book$ = cold('b', { b: book });
      const intents = twap.create(context(clock, { book$, state$: cold('s', { s: state }), fills$: NEVER }));
      // Due 20000 more each slice; the sends of the last 5 s are in flight: 0 and 2 s leave 20000 each,
      // at 4 s 60000 - 40000; at 6 s the send at 0 has left the window: 80000 - 40000, at 8 s 100000 - 60000.
      expectObservable(sizes(intents)).toBe('a 1999ms b 1999ms c 1999ms d 1999ms e 1999ms |', { a: 20_000n, b: 20_000n, c: 20_000n, d: 40_000n, e: 40_000n });
      expectSubscriptions(book$.subscriptions).toBe('^ 9999ms !');
    });
  });

  it('emits the IOC through the ask by the slippage', () => {
    runMarbles(({ cold, expectObservable, clock }) => {
      const intents = twap.create(context(clock, { book$: cold('b', { b: book }), state$: cold('s', { s: state }), fills$: NEVER }));
      const order = { side: 'BUY', price: 351_350n, size: 20_000n, tif: 'IOC', executionInstruction: 'NONE', minSizeAfterBlock: 0n };
      expectObservable(intents, '^ 1s !').toBe('a', { a: { type: 'PlaceAndCancel', purpose: 'twap', market: monUsdc.address, cancelSlots: [], orders: [order] } });
    });
  });

  it('stops when its fills reach the quantity (a hot fills stream)', () => {
    runMarbles(({ cold, hot, expectObservable, clock }) => {
      const fills$ = hot('3s f', { f: fill(100_000n) });
      const intents = twap.create(context(clock, { book$: cold('b', { b: book }), state$: cold('s', { s: state }), fills$ }));
      expectObservable(sizes(intents)).toBe('a 1999ms b 999ms |', { a: 20_000n, b: 20_000n });
    });
  });

  it('fails when the clock is not injected (slices on wall time, in-flight window on Date.now)', () => {
    const error = mismatch(() =>
      runMarbles(({ cold, expectObservable }) => {
        const intents = twap.create(context(liveClock, { book$: cold('b', { b: book }), state$: cold('s', { s: state }), fills$: NEVER }));
        expectObservable(sizes(intents)).toBe('a 1999ms b 1999ms c 1999ms d 1999ms e 1999ms |', { a: 20_000n, b: 20_000n, c: 20_000n, d: 40_000n, e: 40_000n });
      }),
    );
    // Not one slice in virtual time: the timer runs on wall time.
    expect(error.actual).toEqual([]);
  });
});
