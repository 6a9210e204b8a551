import { describe, expect, it } from 'vitest';
import { noSelfCrossInvariant as invariant } from '../../../src/testing/invariants/index.ts';
import { expectViolation } from './expect-violation.ts';
import { batch, cancelOp, order, ownOrder, ownState, placeOp, RecordBuilder, replaceSlots } from './record-builder.ts';

const BID = ownOrder(0, 'BUY', 349_000n, 1_000n);
const ASK = ownOrder(1, 'SELL', 350_000n, 1_000n);

/** Own bid 349_000 in slot 0 and ask 350_000 in slot 1 from time 0. */
function quoted(): RecordBuilder {
  return new RecordBuilder().state(0, ownState([BID, ASK]));
}

describe('no-self-cross', () => {
  it('passes a buy one tick under the own ask and a sell one tick over the own bid', () => {
    const b = quoted();
    b.intent(100, batch([order('BUY', 349_990n, 1_000n)]));
    b.intent(100, batch([order('SELL', 349_010n, 1_000n, 'IOC')]));
    expect(invariant.check(b.build(), {})).toBeUndefined();
  });

  it('fails a buy at the own ask, naming the placement and the own order', () => {
    const b = quoted();
    b.intent(100, batch([order('BUY', 349_990n, 1_000n)]));
    b.intent(200, replaceSlots([placeOp(5, 'BUY', 350_000n, 2_000n)]));
    expectViolation(invariant.check(b.build(), {}), 'no-self-cross', 200, 'intent #1', 'ops[0] (slot 5) BUY 2000 @ 350000 crosses the own SELL 1000 @ 350000 in slot 1 (order 101)');
  });

  it('fails a sell at the own bid, also when it would not rest (IOC)', () => {
    const b = quoted();
    b.intent(300, batch([order('SELL', 349_000n, 1_000n, 'IOC')]));
    expectViolation(invariant.check(b.build(), {}), 'no-self-cross', 300, 'orders[0] SELL 1000 @ 349000 crosses the own BUY 1000 @ 349000 in slot 0');
  });

  it('lets an intent cross an own order it cancels or replaces first', () => {
    const replaced = quoted();
    replaced.intent(100, replaceSlots([placeOp(1, 'BUY', 350_000n, 1_000n)]));
    replaced.intent(100, replaceSlots([cancelOp(0), placeOp(7, 'SELL', 349_000n, 1_000n)]));
    expect(invariant.check(replaced.build(), {})).toBeUndefined();
    const cancelled = quoted();
    cancelled.intent(100, batch([order('BUY', 350_500n, 1_000n)], [1]));
    expect(invariant.check(cancelled.build(), {})).toBeUndefined();
  });

  it('judges an intent against the state in force at its time (the last at or before it)', () => {
    const b = new RecordBuilder().state(0, ownState([])).state(200, ownState([ASK])).state(500, ownState([]));
    b.intent(199, batch([order('BUY', 350_000n, 1_000n)]));
    b.intent(500, batch([order('BUY', 350_000n, 1_000n)]));
    expect(invariant.check(b.build(), {})).toBeUndefined();
    b.intent(200, batch([order('BUY', 350_000n, 1_000n)]));
    expectViolation(invariant.check(b.build(), {}), 'no-self-cross', 200, 'intent #2');
  });

  it('fails an intent whose own orders cross each other; an IOC order does not rest to be crossed', () => {
    const b = new RecordBuilder();
    b.intent(10, batch([order('BUY', 350_000n, 1_000n, 'IOC'), order('SELL', 349_000n, 1_000n)]));
    expect(invariant.check(b.build(), {})).toBeUndefined();
    b.intent(20, batch([order('BUY', 350_000n, 1_000n), order('SELL', 350_000n, 1_000n)]));
    expectViolation(invariant.check(b.build(), {}), 'no-self-cross', 20, 'orders[1] SELL 1000 @ 350000 crosses its own orders[0] BUY 1000 @ 350000');
  });

  it('ignores filled-out orders and intents the kit found invalid (never sent)', () => {
    const b = new RecordBuilder().state(0, ownState([ownOrder(1, 'SELL', 350_000n, 1_000n, { remaining: 0n })]));
    b.intent(10, batch([order('BUY', 350_000n, 1_000n)]));
    b.state(20, ownState([ASK]));
    b.invalidIntent(30, batch([order('BUY', 350_000n, 1_000n)]), ['rejected by the kit']);
    expect(invariant.check(b.build(), {})).toBeUndefined();
  });
});
