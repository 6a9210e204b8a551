import { describe, expect, it } from 'vitest';
import { isBaseError } from '../../../src/core/base-error.ts';
import { checkInvariants, DEFAULT_INVARIANTS, defineInvariant, placementsOf, stateAt } from '../../../src/testing/invariants/index.ts';
import { batch, cancelAll, MON, order, ownOrder, ownState, placeOp, RecordBuilder, replaceSlots } from './record-builder.ts';

const BID = ownOrder(0, 'BUY', 349_000n, 1_000n);
const ASK = ownOrder(1, 'SELL', 351_000n, 1_000n);

/** A quiet, well-behaved run: quotes, a fill, a requote, the stop's sweep. */
function cleanRun(): RecordBuilder {
  const b = new RecordBuilder().blocksUntil(10_000).health(0, false);
  b.durationMs = 10_000;
  b.state(0, ownState([]));
  b.sent(100, replaceSlots([placeOp(0, 'BUY', 349_000n, 1_000n), placeOp(1, 'SELL', 351_000n, 1_000n)]));
  b.state(600, ownState([BID, ASK]));
  b.fill(2_000, { side: 'SELL', size: 1_000n, price: 351_000n, orderId: ASK.orderId! });
  b.state(3_000, ownState([BID], { position: -1_000n }));
  b.sent(3_100, replaceSlots([placeOp(1, 'SELL', 351_000n, 1_000n)]));
  b.state(3_600, ownState([BID, ASK], { position: -1_000n }));
  b.stop(9_000);
  b.execute(cancelAll(MON), 9_000);
  b.state(9_500, ownState([], { position: -1_000n }));
  for (const block of b.blocks) b.sample(block.at, block.at < 600 || (block.at > 3_100 && block.at < 3_600) ? 1 : 0);
  return b;
}

describe('the invariant list', () => {
  it('holds the eleven invariants, named in kebab-case and described', () => {
    expect(DEFAULT_INVARIANTS.map((invariant) => invariant.name)).toEqual([
      'valid-intents',
      'no-self-cross',
      'position-limit',
      'order-rate',
      'kill-switch',
      'nothing-after-stop',
      'terminal-fates',
      'nonces',
      'pending-cap',
      'stale-feed',
      'accounting',
    ]);
    for (const invariant of DEFAULT_INVARIANTS) expect(invariant.description.length).toBeGreaterThan(20);
  });

  it('finds nothing wrong with a well-behaved run', () => {
    expect(checkInvariants(cleanRun().build(), DEFAULT_INVARIANTS)).toEqual([]);
  });

  it('reports each broken invariant’s first violation, in the list’s order', () => {
    const b = cleanRun();
    b.intent(9_100, batch([order('BUY', 351_000n, 1_000n)])); // at the own ask, after the stop, never answered
    b.sample(9_200, 64);
    const violations = checkInvariants(b.build(), DEFAULT_INVARIANTS);
    expect(violations.map(({ invariant, at }) => [invariant, at])).toEqual([
      ['no-self-cross', 9_100],
      ['nothing-after-stop', 9_100],
      ['terminal-fates', 9_100],
      ['pending-cap', 9_200],
    ]);
  });
});

describe('defineInvariant', () => {
  it('stamps the invariant’s name on what its check finds', () => {
    const noIoc = defineInvariant('no-ioc', 'The strategy never takes liquidity.', (record) => {
      const taking = record.intents.find(({ intent }) => intent.type === 'PlaceAndCancel' && intent.orders.some((each) => each.tif !== 'GTC'));
      return taking && { at: taking.at, message: `a ${taking.intent.type} takes liquidity at ${taking.at} ms` };
    });
    const b = cleanRun();
    expect(noIoc.check(b.build(), {})).toBeUndefined();
    b.intent(500, batch([order('BUY', 351_000n, 1_000n, 'IOC')]));
    expect(noIoc.check(b.build(), {})).toEqual({ invariant: 'no-ioc', at: 500, message: 'a PlaceAndCancel takes liquidity at 500 ms' });
  });

  it('gives authors the helpers the kit’s own invariants use', () => {
    const record = cleanRun().build();
    expect(stateAt(record, MON.symbol, 2_999)?.orders).toEqual([BID, ASK]);
    expect(stateAt(record, MON.symbol, -1)).toBeUndefined();
    expect(placementsOf(record.intents[0]!.intent).map(({ side, price, slot }) => [side, price, slot])).toEqual([
      ['BUY', 349_000n, 0],
      ['SELL', 351_000n, 1],
    ]);
  });

  it('refuses a name that is not kebab-case, an empty description and a check that is not a function', () => {
    const attempt = (name: string, description: string, check: unknown) => () => defineInvariant(name, description, check as never);
    for (const bad of [attempt('NoIoc', 'x', () => undefined), attempt('no ioc', 'x', () => undefined), attempt('no-ioc', ' ', () => undefined), attempt('no-ioc', 'x', 'nope')]) {
      let caught: unknown;
      try {
        bad();
      } catch (error) {
        caught = error;
      }
      expect(isBaseError(caught, 'STRATEGY_CHECK_INVALID')).toBe(true);
    }
  });
});
