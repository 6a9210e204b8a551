import { map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { BarTrade } from '../../../src/market/bar-builder.ts';
import type { Candle } from '../../../src/market/candle.ts';
import { buildBars } from '../../../src/market/operators/build-bars.ts';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
/** `openTime:open/high/low/close:volume:count` */
const brief = (c: Candle) => `${c.openTime}:${c.open}/${c.high}/${c.low}/${c.close}:${c.volume}:${c.numTrades}`;

describe('buildBars', () => {
  it('closes each candle when the clock passes its close, flat ones for empty intervals', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      // trade times equal their frame (the virtual clock is the trade clock)
      const trades: Record<string, BarTrade> = {
        a: { time: 1, price: 100n, qty: 2n },
        b: { time: 3, price: 105n, qty: 1n },
        c: { time: 4, price: 98n, qty: 1n },
        d: { time: 12, price: 99n, qty: 5n },
      };
      const candles = cold('-a-bc-------d', trades).pipe(buildBars({ intervalMs: 10, scheduler }), map(brief));
      expectObservable(candles, '^ 45ms !').toBe('----------a---------b---------c---------d', {
        a: '0:100/105/98/98:4:3', // closed at 10 by the clock
        b: '10:99/99/99/99:5:1', // its only trade came at 12
        c: '20:99/99/99/99:0:0', // empty interval: flat at the previous close
        d: '30:99/99/99/99:0:0',
      });
    });
  });

  it('waits graceMs after the close for late trades', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const trades: Record<string, BarTrade> = {
        a: { time: 1, price: 100n, qty: 1n },
        b: { time: 9, price: 101n, qty: 1n }, // arrives at frame 12, within the grace
      };
      const candles = cold('-a----------b', trades).pipe(buildBars({ intervalMs: 10, scheduler, graceMs: 3 }), map(brief));
      expectObservable(candles, '^ 14ms !').toBe('-------------a', { a: '0:100/101/100/101:2:2' });
    });
  });

  it('without a scheduler, only trades close candles; completion emits the candle in progress', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const trades: Record<string, BarTrade> = {
        a: { time: 5, price: 7n, qty: 1n },
        b: { time: 35, price: 8n, qty: 2n },
        c: { time: 36, price: 6n, qty: 1n },
      };
      const candles = cold('a 9ms b 9ms c 9ms |', trades).pipe(buildBars({ intervalMs: 10 }), map(brief));
      expectObservable(candles).toBe('10ms (xyz) 15ms (w|)', {
        x: '0:7/7/7/7:1:1',
        y: '10:7/7/7/7:0:0',
        z: '20:7/7/7/7:0:0',
        w: '30:8/8/6/6:3:2',
      });
    });
  });
});
