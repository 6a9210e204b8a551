import { defer, distinctUntilChanged, map, tap } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/logger.ts';
import { FeedHealthBoard } from '../../src/market/feed-health.ts';
import { poll } from '../../src/market/operators/poll.ts';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('FeedHealthBoard with a poller (staleness reports)', () => {
  it('goes idle -> pending -> ok, stale since the first failure of a run, ok again on recovery', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const board = new FeedHealthBoard(['depth', 'trades', 'ticker'], createLogger({ level: 'silent' }));
      const error = new Error('HTTP 503');
      const script = ['a|', '#', '-#', 'a|'];
      let call = 0;
      const depth$ = defer(() => {
        board.started('depth', scheduler.now());
        return poll(() => cold(script[Math.min(call++, script.length - 1)]!, { a: 1 }, error), { everyMs: 10, scheduler });
      }).pipe(tap((event) => (event.kind === 'error' ? board.failed('depth', event) : board.ok('depth', event.at))));
      expectObservable(board.health$.pipe(map((health) => health.depth)), '^ 45ms !').toBe('(ipo) 5ms s 10ms t 19ms u', {
        i: { status: 'idle' },
        p: { status: 'pending', since: 0 },
        o: { status: 'ok', at: 0 },
        // fails at 10: retry at 10 + 10
        s: { status: 'stale', since: 10, error, failures: 1, retryAt: 20, lastOkAt: 0 },
        // the retry at 20 fails at 21: still stale since 10, next at 21 + 20
        t: { status: 'stale', since: 10, error, failures: 2, retryAt: 41, lastOkAt: 0 },
        u: { status: 'ok', at: 41 },
      });
      // the other sources are untouched
      expectObservable(board.health$.pipe(map((health) => health.trades.status), distinctUntilChanged()), '^ 45ms !').toBe('i', { i: 'idle' });
      expectObservable(depth$.pipe(map((event) => event.kind)), '^ 45ms !').toBe('v 9ms e 10ms e 19ms v', { v: 'value', e: 'error' });
    });
  });

  it('reports a trade gap and the next good poll', () => {
    const board = new FeedHealthBoard(['depth', 'trades', 'ticker'], createLogger({ level: 'silent' }));
    board.started('trades', 0);
    board.gap('trades', { expected: 11, got: 15 }, 1_000);
    expect(board.current.trades).toEqual({ status: 'gap', at: 1_000, expected: 11, got: 15 });
    board.ok('trades', 2_000);
    expect(board.current.trades).toEqual({ status: 'ok', at: 2_000 });
    board.stopped('trades');
    expect(board.current.trades).toEqual({ status: 'idle' });
    expect(board.current.klines).toBeUndefined();
  });
});
