import { describe, expect, it } from 'vitest';
import { killSwitchInvariant as invariant } from '../../../src/testing/invariants/index.ts';
import { expectViolation } from './expect-violation.ts';
import { batch, cancelAll, cancelOp, MON, order, ownOrder, ownState, placeOp, RecordBuilder, replaceSlots, WETH } from './record-builder.ts';

const BID = ownOrder(0, 'BUY', 349_000n, 1_000n);

/**
 * Blocks every 400 ms; the kill switch trips at 1000 ms. The first block after it is at 1200 and the
 * second at 1600: with killBlocks 1 the cancels execute by 1600 and the engine's view is clear from
 * 1800 (half a block later: the outcome's round trip).
 */
function tripped(): RecordBuilder {
  return new RecordBuilder().blocksUntil(10_000).state(0, ownState([BID])).kill(1_000);
}

describe('kill-switch', () => {
  it('passes when nothing tripped, whatever rests', () => {
    const b = new RecordBuilder().blocksUntil(10_000).state(0, ownState([BID]));
    expect(invariant.check(b.build(), {})).toBeUndefined();
  });

  it('passes when the orders are gone by the deadline and cancels are signed after the trip', () => {
    const b = tripped().state(1_600, ownState([]));
    b.execute(cancelAll(MON), 1_001);
    b.sent(1_100, replaceSlots([cancelOp(0)]), { signedAt: 1_150 });
    expect(invariant.check(b.build(), {})).toBeUndefined();
  });

  it('fails an order still resting in the engine’s view after the deadline, naming it', () => {
    const b = tripped().state(1_801, ownState([]));
    expectViolation(
      invariant.check(b.build(), {}),
      'kill-switch',
      1_800,
      'the kill switch tripped at 1000 ms (drawdown: drawdown 250 USDC from the peak)',
      '1 block(s) later (from 1800 ms) no order may rest, yet at 1800 ms MON_USDC still has 1: BUY 1000 @ 349000 in slot 0 (order 100)',
    );
  });

  it('gives more time with killBlocks', () => {
    const b = tripped().state(1_801, ownState([]));
    expect(invariant.check(b.build(), { killBlocks: 2 })).toBeUndefined();
    b.state(2_200, ownState([BID])).state(2_201, ownState([]));
    expectViolation(invariant.check(b.build(), { killBlocks: 2 }), 'kill-switch', 2_200, '2 block(s) later (from 2200 ms)');
  });

  it('fails an order learnt after the trip that rests past its own deadline, in any market', () => {
    const b = new RecordBuilder([MON, WETH]).blocksUntil(10_000).kill(1_000);
    b.state(0, ownState([]));
    b.state(0, ownState([], { market: WETH }), WETH.symbol);
    b.state(3_000, ownState([ownOrder(2, 'SELL', 300_000n, 100n, { market: WETH })], { market: WETH }), WETH.symbol);
    // Learnt at 3000 ms: one block later (3200, 3600) and half a block for the view, it must be gone.
    expectViolation(invariant.check(b.build(), {}), 'kill-switch', 3_800, 'at 3800 ms WETH_USDC still has 1: SELL 100 @ 300000 in slot 2');
  });

  it('fails a placement signed after the trip, even one emitted before it', () => {
    const b = tripped().state(1_600, ownState([]));
    const requestId = b.sent(900, replaceSlots([placeOp(3, 'SELL', 351_000n, 1_000n)]), { signedAt: 1_001 });
    expectViolation(invariant.check(b.build(), {}), 'kill-switch', 1_001, 'yet intent #0 (ReplaceSlots quotes on MON_USDC, at 900 ms) was signed at 1001 ms', `(request ${requestId}) and places 1 order(s)`);
  });

  it('passes a placement signed at the trip’s own ms', () => {
    const b = tripped().state(1_600, ownState([]));
    b.sent(900, batch([order('BUY', 348_000n, 1_000n)]), { signedAt: 1_000 });
    expect(invariant.check(b.build(), {})).toBeUndefined();
  });

  it('fails a placement emitted after the trip, even one the engine refuses', () => {
    const b = tripped().state(1_600, ownState([]));
    const refused = b.intent(1_200, batch([order('BUY', 348_000n, 1_000n)]));
    b.fate(1_200, refused, { status: 'REFUSED', code: 'RISK_KILL_SWITCH', message: 'kill switch tripped' });
    expectViolation(invariant.check(b.build(), {}), 'kill-switch', 1_200, 'yet intent #0 (PlaceAndCancel', 'places 1 order(s)');
  });

  it('counts blocks from blockMs past the record’s last block', () => {
    const b = new RecordBuilder().state(0, ownState([BID])).kill(1_000).state(2_000, ownState([]));
    expect(invariant.check(b.build(), {})).toBeUndefined();
    b.states.get(MON.symbol)!.pop();
    b.state(2_001, ownState([]));
    expectViolation(invariant.check(b.build(), {}), 'kill-switch', 2_000, 'from 2000 ms');
  });

  it('extrapolates from the last recorded block when the record ends before the deadline', () => {
    const b = new RecordBuilder().blocksUntil(1_200).state(0, ownState([BID])).kill(1_000).state(1_801, ownState([]));
    expectViolation(invariant.check(b.build(), {}), 'kill-switch', 1_800, 'from 1800 ms');
  });

  describe('judges each order from when the engine could cancel it', () => {
    const PENDING = { ...ownOrder(1, 'SELL', 351_000n, 1_000n), orderId: undefined };
    const ASK = ownOrder(1, 'SELL', 351_000n, 1_000n, { orderId: 101n });

    it('starts an order learnt after the trip, and its neighbours, when every id is known', () => {
      // The ask's id arrives at 2500: nothing could be cancelled before (one cancel names every id).
      const b = new RecordBuilder().blocksUntil(10_000).state(0, ownState([BID])).kill(1_000).state(1_100, ownState([BID, PENDING])).state(2_500, ownState([BID, ASK]));
      // Blocks after 2500: 2800, 3200; the view half a block later: 3400.
      expect(invariant.check(b.state(3_400, ownState([])).build(), {})).toBeUndefined();
      b.states.get(MON.symbol)!.pop();
      expectViolation(invariant.check(b.state(3_401, ownState([])).build(), {}), 'kill-switch', 3_400, 'from 3400 ms');
    });

    it('takes the venue’s book over a lagging view', () => {
      const b = tripped().state(5_000, ownState([]));
      expectViolation(invariant.check(b.build(), {}), 'kill-switch', 1_800);
      // The venue's book lost order 100 in the block at 1600: the view learnt it late (a withheld outcome).
      expect(invariant.check(b.build({ venueGone: new Map([[100n, 1_600]]) }), {})).toBeUndefined();
      expectViolation(invariant.check(b.build({ venueGone: new Map([[100n, 2_000]]) }), {}), 'kill-switch', 1_800);
    });

    it('gives a failed connection faultGraceMs more, and a raced request two blocks', () => {
      const rejected = tripped().state(11_800, ownState([]));
      const requestId = rejected.sign(1_100);
      rejected.resolve(1_200, requestId, 'REJECTED');
      expect(invariant.check(rejected.build(), {})).toBeUndefined();
      expectViolation(invariant.check(rejected.build(), { faultGraceMs: 9_000 }), 'kill-switch', 10_800);
      const raced = tripped().state(2_601, ownState([]));
      raced.resolve(1_600, raced.sign(1_100), 'REVERTED');
      expectViolation(invariant.check(raced.build(), {}), 'kill-switch', 2_600);
      raced.states.get(MON.symbol)!.pop();
      expect(invariant.check(raced.state(2_600, ownState([])).build(), {})).toBeUndefined();
    });
  });
});
