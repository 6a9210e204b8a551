import { map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { Candle } from '../../../src/market/candle.ts';
import { latestCandles } from '../../../src/market/operators/latest-candles.ts';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const candle = (openTime: number, close: bigint): Candle => ({
  openTime,
  closeTime: openTime + 59_999,
  open: close,
  high: close,
  low: close,
  close,
  volume: 1n,
  quoteVolume: close,
  numTrades: 1,
});
const key = (c: Candle) => `${c.openTime / 60_000}:${c.close}`;

describe('latestCandles', () => {
  it('emits new candles and changes of the last one, never an older candle', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const polls = {
        a: [candle(0, 10n), candle(60_000, 11n)],
        b: [candle(0, 10n), candle(60_000, 11n)],
        c: [candle(60_000, 12n), candle(120_000, 13n)],
        d: [candle(0, 99n), candle(120_000, 13n)],
      };
      const out = cold('a 9ms b 9ms c 9ms d', polls).pipe(latestCandles(), map(key));
      expectObservable(out).toBe('(xy) 16ms (zw)', { x: '0:10', y: '1:11', z: '1:12', w: '2:13' });
    });
  });
});
