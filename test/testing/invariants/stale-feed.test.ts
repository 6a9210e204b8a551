import { describe, expect, it } from 'vitest';
import { staleFeedInvariant as invariant } from '../../../src/testing/invariants/index.ts';
import { expectViolation } from './expect-violation.ts';
import { MON, ownOrder, ownState, RecordBuilder, WETH } from './record-builder.ts';

const ASK = ownOrder(1, 'SELL', 351_000n, 1_000n);

/**
 * Blocks every 400 ms; the feed goes stale at 1000 ms. Blocks after it: 1200, 1600, 2000, 2400:
 * with staleBlocks 3 the cancels execute by 2400 and the engine's view is clear from 2600 (half a
 * block later: the outcome's round trip).
 */
function staleAt1000(): RecordBuilder {
  return new RecordBuilder().blocksUntil(20_000).state(0, ownState([ASK])).health(0, false).health(1_000, true);
}

describe('stale-feed', () => {
  it('passes orders gone by the deadline', () => {
    const b = staleAt1000().state(2_600, ownState([]));
    expect(invariant.check(b.build(), {})).toBeUndefined();
  });

  it('fails an order resting one ms past the deadline, naming it', () => {
    const b = staleAt1000().state(2_601, ownState([]));
    expectViolation(
      invariant.check(b.build(), {}),
      'stale-feed',
      2_600,
      "MON_USDC's feed went stale at 1000 ms and stayed stale; 3 block(s) later (from 2600 ms) no order may rest",
      'yet at 2600 ms it still has 1: SELL 1000 @ 351000 in slot 1 (order 101)',
    );
  });

  it('passes when the feed recovers by the deadline, and for a strategy that quotes blind', () => {
    const recovered = staleAt1000().health(2_600, false);
    expect(invariant.check(recovered.build(), {})).toBeUndefined();
    expect(invariant.check(staleAt1000().build(), { quotesBlind: true })).toBeUndefined();
    const late = staleAt1000().health(2_601, false);
    expectViolation(invariant.check(late.build(), {}), 'stale-feed', 2_600, 'stayed stale');
  });

  it('fails an order placed after the deadline while the feed is still stale', () => {
    const b = staleAt1000().state(2_000, ownState([])).state(5_000, ownState([ASK])).health(5_001, true);
    expectViolation(invariant.check(b.build(), {}), 'stale-feed', 5_000, 'yet at 5000 ms it still has 1');
  });

  it('counts staleBlocks blocks', () => {
    const b = staleAt1000().state(3_400, ownState([]));
    expectViolation(invariant.check(b.build(), {}), 'stale-feed', 2_600, '3 block(s)');
    expect(invariant.check(b.build(), { staleBlocks: 5 })).toBeUndefined();
    b.states.get(MON.symbol)!.pop();
    b.state(3_401, ownState([]));
    expectViolation(invariant.check(b.build(), { staleBlocks: 5 }), 'stale-feed', 3_400, '5 block(s) later (from 3400 ms)');
  });

  it('judges each stale span and each market, reporting the first violation in time', () => {
    const b = new RecordBuilder([MON, WETH]).blocksUntil(20_000);
    b.state(0, ownState([ASK]));
    b.state(0, ownState([ownOrder(0, 'BUY', 299_900n, 100n, { market: WETH })], { market: WETH }), WETH.symbol);
    // MON: stale 1000..1500 (recovers), then stale again from 8000 with the ask resting.
    b.health(1_000, true).health(1_500, false).health(8_000, true);
    // WETH: stale from 6000 with its bid resting.
    b.health(6_000, true, WETH.symbol);
    expectViolation(invariant.check(b.build(), {}), 'stale-feed', 7_800, "WETH_USDC's feed went stale at 6000 ms", 'BUY 100 @ 299900 in slot 0');
    b.state(7_000, ownState([], { market: WETH }), WETH.symbol);
    expectViolation(invariant.check(b.build(), {}), 'stale-feed', 9_800, "MON_USDC's feed went stale at 8000 ms");
  });
});
