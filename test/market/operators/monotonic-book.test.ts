import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { monotonicBook } from '../../../src/market/operators/monotonic-book.ts';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const book = (lastUpdateId: number) => ({ lastUpdateId });

describe('monotonicBook', () => {
  it('drops books with an older or equal lastUpdateId than the last emitted', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const books = { a: book(5), b: book(4), c: book(5), d: book(7), e: book(6), f: book(8) };
      expectObservable(cold('abcdef', books).pipe(monotonicBook())).toBe('a--d-f', books);
    });
  });

  it('starts after a given id and tells of each drop', () => {
    const drops: [number, number][] = [];
    newScheduler().run(({ cold, expectObservable }) => {
      const books = { a: book(3), b: book(10), c: book(11), d: book(2) };
      const kept = cold('abcd', books).pipe(monotonicBook({ afterUpdateId: 10, onDrop: (b, last) => drops.push([b.lastUpdateId, last]) }));
      expectObservable(kept).toBe('--c-', books);
    });
    expect(drops).toEqual([
      [3, 10],
      [10, 10],
      [2, 11],
    ]);
  });

  it('takes an older book as a new sequence only when the source may have restarted, and never an equal one', () => {
    const restarts: [number, number][] = [];
    // Asked for `b` (the source failed before it), `d` and `e` (no failure before them).
    const answers = [true, false, false];
    newScheduler().run(({ cold, expectObservable }) => {
      const books = { a: book(50), b: book(3), c: book(5), d: book(2), e: book(4) };
      const kept = cold('abcde', books).pipe(
        monotonicBook({
          restarted: () => answers.shift()!,
          onRestart: (b, last) => restarts.push([b.lastUpdateId, last]),
        }),
      );
      // `b` is older but begins a new sequence; `d` and `e` are lagging answers, dropped.
      expectObservable(kept).toBe('abc--', books);
    });
    expect(restarts).toEqual([[3, 50]]);
    expect(answers).toEqual([]);
  });

  it('keeps its state per subscription', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      const books = { a: book(1), b: book(2) };
      const source = cold('ab', books).pipe(monotonicBook());
      expectObservable(source).toBe('ab', books);
      expectObservable(source).toBe('ab', books);
    });
  });
});
