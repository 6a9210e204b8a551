import { map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { poll } from '../../../src/market/operators/poll.ts';
import { shareEvents, shareLatest } from '../../../src/market/operators/share-latest.ts';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('shared polling', () => {
  it('polls once per period for two subscribers, and replays the latest answer to a late one', () => {
    const scheduler = newScheduler();
    const calls: number[] = [];
    scheduler.run(({ cold, expectObservable }) => {
      let n = 0;
      const answers = poll(
        () => {
          calls.push(scheduler.now());
          return cold('a|', { a: n++ });
        },
        { everyMs: 10, scheduler },
      ).pipe(
        map((event) => (event.kind === 'value' ? event.value : -1)),
        shareLatest(),
      );
      expectObservable(answers, '^ 25ms !').toBe('a 9ms b 9ms c', { a: 0, b: 1, c: 2 });
      // joins at 5: gets answer 0 at once (replayed), then the shared ones
      expectObservable(answers, '-----^ 25ms !').toBe('-----a 4ms b 9ms c 9ms d', { a: 0, b: 1, c: 2, d: 3 });
    });
    // one call per period while anyone listens: 0, 10, 20, 30; none after the last leaves at 31
    expect(calls).toEqual([0, 10, 20, 30]);
  });

  it('stops polling when the last subscriber leaves and starts afresh for the next', () => {
    const scheduler = newScheduler();
    const calls: number[] = [];
    scheduler.run(({ cold, expectObservable }) => {
      const answers = poll(
        () => {
          calls.push(scheduler.now());
          return cold('a|', { a: 'A' });
        },
        { everyMs: 10, scheduler },
      ).pipe(shareEvents());
      expectObservable(answers.pipe(map(() => 'x')), '^ 14ms !').toBe('x 9ms x');
      expectObservable(answers.pipe(map(() => 'x')), '^ 4ms !').toBe('x');
      expectObservable(answers.pipe(map(() => 'x')), '-- 40ms ^ 4ms !').toBe('-- 40ms x');
    });
    expect(calls).toEqual([0, 10, 42]);
  });
});
