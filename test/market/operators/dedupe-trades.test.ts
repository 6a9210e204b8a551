import { concatMap, map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { dedupeTrades } from '../../../src/market/operators/dedupe-trades.ts';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const trades = (...ids: number[]) => ids.map((id) => ({ id }));
const ids = (batch: { trades: readonly { id: number }[] }) => batch.trades.map((trade) => trade.id);

describe('dedupeTrades', () => {
  it('emits each trade once, in id order, across overlapping polls', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const polls = {
        a: trades(1, 2, 3),
        b: trades(2, 3, 4, 5),
        c: trades(3, 4, 5),
        d: trades(5, 6),
      };
      const out = cold('a-b-c-d', polls).pipe(dedupeTrades(), map(ids));
      expectObservable(out).toBe('a-b-c-d', { a: [1, 2, 3], b: [4, 5], c: [], d: [6] });
    });
  });

  it('follows ids that begin again only when the source may have restarted', () => {
    const restarts: [number, number][] = [];
    // Asked for `b` (no failure before it) and for `c` (the source failed before it).
    const answers = [false, true];
    newScheduler().run(({ cold, expectObservable }) => {
      const polls = { a: trades(40, 41), b: trades(1, 2), c: trades(2, 3), d: trades(1, 2, 3, 4) };
      const out = cold('abcd', polls).pipe(
        dedupeTrades({ restarted: () => answers.shift()!, onRestart: (newest, last) => restarts.push([newest, last]) }),
        map(ids),
      );
      // No failure before `b`: its ids are old and dropped. The source fails before `c`: its ids
      // begin a new sequence, and `d` goes on from it.
      expectObservable(out).toBe('abcd', { a: [40, 41], b: [], c: [2, 3], d: [4] });
    });
    expect(restarts).toEqual([[3, 41]]);
    expect(answers).toEqual([]);
  });

  it('sorts unordered polls and drops duplicates inside one poll', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const polls = { a: trades(3, 1, 2, 2), b: trades(6, 5, 4, 3, 6) };
      const out = cold('a 9ms b', polls).pipe(
        dedupeTrades(),
        concatMap((batch) => batch.trades),
        map((trade) => trade.id),
      );
      expectObservable(out).toBe('(abc) 5ms (def)', { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6 });
    });
  });

  it('reports a gap when a poll starts beyond the last seen id + 1, and still emits its trades', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const polls = { a: trades(1, 2, 3), b: trades(7, 8), c: trades(8, 9), d: trades(10) };
      const out = cold('abcd', polls).pipe(dedupeTrades());
      expectObservable(out).toBe('abcd', {
        a: { trades: trades(1, 2, 3), lastId: 3 },
        b: { trades: trades(7, 8), gap: { expected: 4, got: 7 }, lastId: 8 },
        c: { trades: trades(9), lastId: 9 },
        d: { trades: trades(10), lastId: 10 },
      });
    });
  });

  it('continues after a given id (a resubscribed feed), an empty poll changes nothing', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const polls = { a: trades(), b: trades(40, 41, 42), c: trades(45) };
      const out = cold('abc', polls).pipe(dedupeTrades({ afterId: 41 }));
      expectObservable(out).toBe('abc', {
        a: { trades: [], lastId: 41 },
        b: { trades: trades(42), lastId: 42 },
        c: { trades: trades(45), gap: { expected: 43, got: 45 }, lastId: 45 },
      });
    });
  });
});
