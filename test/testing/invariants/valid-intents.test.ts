import { describe, expect, it } from 'vitest';
import { MAX_PRICE_UNITS } from '../../../src/core/units.ts';
import { validIntentsInvariant as invariant } from '../../../src/testing/invariants/index.ts';
import { expectViolation } from './expect-violation.ts';
import { batch, cancelAll, cancelOp, MON, order, placeOp, RecordBuilder, replaceSlots, WETH } from './record-builder.ts';

const check = (b: RecordBuilder) => invariant.check(b.build(), {});

describe('valid-intents', () => {
  it('passes batches, packed replacements and cancels that fit the market', () => {
    const b = new RecordBuilder();
    b.intent(0, batch([order('BUY', 349_000n, 1_000n), order('SELL', 351_000n, 1_000n, 'IOC')], [3]));
    b.intent(100, replaceSlots([placeOp(0, 'BUY', 349_010n, 100n), cancelOp(61), placeOp(5, 'SELL', 351_000n, MON.maxSize, false)]));
    b.intent(200, cancelAll());
    b.intent(300, cancelAll(MON));
    expect(check(b)).toBeUndefined();
  });

  it('fails a price off the tick, naming the intent, the op and the tick', () => {
    const b = new RecordBuilder();
    b.intent(0, batch([order('BUY', 349_000n, 1_000n)]));
    b.intent(250, replaceSlots([placeOp(3, 'BUY', 349_005n, 1_000n)]));
    expectViolation(check(b), 'valid-intents', 250, 'intent #1 (ReplaceSlots quotes on MON_USDC, at 250 ms)', 'ops[0] (slot 3): price 349005 is not on the tick 10');
  });

  it('takes prices up to 0xFFFFFFFE and fails one above', () => {
    const top = MAX_PRICE_UNITS - (MAX_PRICE_UNITS % MON.tickSize);
    const ok = new RecordBuilder();
    ok.intent(0, batch([order('SELL', top, 1_000n)]));
    expect(check(ok)).toBeUndefined();
    const bad = new RecordBuilder();
    bad.intent(10, batch([order('SELL', top + MON.tickSize, 1_000n)]));
    expectViolation(check(bad), 'valid-intents', 10, `orders[0]: price ${top + MON.tickSize} is outside 1..${MAX_PRICE_UNITS}`);
  });

  it('takes sizes exactly at minSize and maxSize and fails one unit outside', () => {
    const ok = new RecordBuilder();
    ok.intent(0, batch([order('BUY', 349_000n, MON.minSize), order('BUY', 348_000n, MON.maxSize)]));
    expect(check(ok)).toBeUndefined();
    const small = new RecordBuilder();
    small.intent(5, batch([order('BUY', 349_000n, MON.minSize - 1n)]));
    expectViolation(check(small), 'valid-intents', 5, 'size 99 is outside 100..1000000000');
    const large = new RecordBuilder();
    large.intent(5, replaceSlots([placeOp(0, 'SELL', 351_000n, MON.maxSize + 1n)]));
    expectViolation(check(large), 'valid-intents', 5, 'size 1000000001 is outside 100..1000000000');
  });

  it('takes slot 61, fails slot 62 and a slot used twice in one intent', () => {
    const ok = new RecordBuilder();
    ok.intent(0, batch([], [61]));
    expect(check(ok)).toBeUndefined();
    const high = new RecordBuilder();
    high.intent(7, batch([], [62]));
    expectViolation(check(high), 'valid-intents', 7, 'cancelSlots: 62 is not a maker slot 0..61');
    const twice = new RecordBuilder();
    twice.intent(8, replaceSlots([cancelOp(4), placeOp(4, 'BUY', 349_000n, 1_000n)]));
    expectViolation(check(twice), 'valid-intents', 8, '4 repeats an earlier op');
  });

  it('fails post-only on an IOC order, an empty intent and a market the strategy does not trade', () => {
    const ioc = new RecordBuilder();
    ioc.intent(1, batch([order('BUY', 349_000n, 1_000n, 'IOC', 'POST_ONLY')]));
    expectViolation(check(ioc), 'valid-intents', 1, 'POST_ONLY needs GTC');
    const empty = new RecordBuilder();
    empty.intent(2, replaceSlots([]));
    expectViolation(check(empty), 'valid-intents', 2, 'ReplaceSlots with no ops');
    const foreign = new RecordBuilder();
    foreign.intent(3, batch([order('BUY', 200_000n, 100n)], [], WETH));
    expectViolation(check(foreign), 'valid-intents', 3, `market ${WETH.address} is not a market of the strategy`);
  });

  it('fails an intent the kit recorded as invalid, with the kit’s problems', () => {
    const b = new RecordBuilder();
    b.intent(0, batch([order('BUY', 349_000n, 1_000n)]));
    b.invalidIntent(40, batch([order('BUY', 349_000n, 1_000n)]), ['the strategy emitted it twice in one tick']);
    expectViolation(check(b), 'valid-intents', 40, 'intent #1 (PlaceAndCancel quotes on MON_USDC, at 40 ms) was found invalid and not sent', 'emitted it twice');
  });

  it('reports the first invalid intent in time', () => {
    const b = new RecordBuilder();
    b.intent(10, batch([order('BUY', 349_000n, 1_000n)]));
    b.intent(20, batch([order('BUY', 349_001n, 1_000n)]));
    b.intent(30, batch([order('BUY', 349_000n, 1n)]));
    b.invalid.push({ at: 50, intent: batch([], [99]), problems: ['late'] });
    expectViolation(check(b), 'valid-intents', 20, 'intent #1', 'not on the tick');
  });
});
