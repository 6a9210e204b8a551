import { describe, expect, it } from 'vitest';
import { nothingAfterStopInvariant as invariant } from '../../../src/testing/invariants/index.ts';
import { expectViolation } from './expect-violation.ts';
import { cancelOp, RecordBuilder, replaceSlots } from './record-builder.ts';

describe('nothing-after-stop', () => {
  it('passes intents up to the stop’s own ms, and any intent when the run was not stopped', () => {
    const b = new RecordBuilder();
    b.intent(4_000, replaceSlots([cancelOp(0)]));
    b.intent(5_000, replaceSlots([cancelOp(1)]));
    expect(invariant.check(b.build(), {})).toBeUndefined();
    b.stop(5_000);
    expect(invariant.check(b.build(), {})).toBeUndefined();
  });

  it('fails the first intent after the stop', () => {
    const b = new RecordBuilder().stop(5_000);
    b.intent(4_000, replaceSlots([cancelOp(0)]));
    b.intent(5_001, replaceSlots([cancelOp(1)]));
    b.intent(6_000, replaceSlots([cancelOp(2)]));
    expectViolation(invariant.check(b.build(), {}), 'nothing-after-stop', 5_001, 'intent #1 (ReplaceSlots quotes on MON_USDC, at 5001 ms) was emitted 1 ms after the stop at 5000 ms');
  });
});
