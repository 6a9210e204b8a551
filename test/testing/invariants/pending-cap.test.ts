import { describe, expect, it } from 'vitest';
import { pendingCapInvariant as invariant } from '../../../src/testing/invariants/index.ts';
import { expectViolation } from './expect-violation.ts';
import { RecordBuilder } from './record-builder.ts';

describe('pending-cap', () => {
  it('passes samples up to one below the relay’s limit', () => {
    const b = new RecordBuilder().sample(0, 0).sample(400, 63).sample(800, 10);
    expect(invariant.check(b.build(), {})).toBeUndefined();
  });

  it('fails the first sample at the limit', () => {
    const b = new RecordBuilder().sample(0, 0).sample(400, 64).sample(800, 70);
    expectViolation(invariant.check(b.build(), {}), 'pending-cap', 400, '64 outcomes were pending at 400 ms: not below the relay\'s limit of 64');
    b.maxPendingOutcomes = 65;
    expectViolation(invariant.check(b.build(), {}), 'pending-cap', 800, '70 outcomes');
  });
});
