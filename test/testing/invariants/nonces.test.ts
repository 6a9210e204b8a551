import { describe, expect, it } from 'vitest';
import { noncesInvariant as invariant } from '../../../src/testing/invariants/index.ts';
import { expectViolation } from './expect-violation.ts';
import { RecordBuilder } from './record-builder.ts';

describe('nonces', () => {
  it('passes increasing first sends and resends of the same request with its nonce', () => {
    const b = new RecordBuilder();
    const first = b.sign(0, { nonce: 10n });
    b.sign(100, { nonce: 11n });
    b.resend(200, first);
    b.sign(300, { nonce: 20n });
    expect(invariant.check(b.build(), {})).toBeUndefined();
  });

  it('fails a first send whose nonce does not increase (equal, then lower)', () => {
    const equal = new RecordBuilder();
    const previous = equal.sign(0, { nonce: 10n });
    equal.sign(100, { nonce: 10n, requestId: 'req-b' });
    expectViolation(invariant.check(equal.build(), {}), 'nonces', 100, `request req-b signed at 100 ms has nonce 10, not above 10 of the previous request ${previous} (at 0 ms)`);
    const lower = new RecordBuilder();
    lower.sign(0, { nonce: 10n });
    lower.sign(50, { nonce: 12n });
    lower.sign(100, { nonce: 11n, requestId: 'req-c' });
    expectViolation(invariant.check(lower.build(), {}), 'nonces', 100, 'request req-c', 'nonce 11, not above 12');
  });

  it('fails a resend with another request’s nonce, naming whose it is', () => {
    const b = new RecordBuilder();
    const first = b.sign(0, { nonce: 10n });
    const second = b.sign(100, { nonce: 11n });
    b.resend(200, second, 10n);
    expectViolation(invariant.check(b.build(), {}), 'nonces', 200, `the resend of request ${second} at 200 ms carries nonce 10, not its own 11 (10 is request ${first}'s)`);
  });

  it('fails a resend of a request never sent, and a request sent as new twice', () => {
    const ghost = new RecordBuilder();
    ghost.sign(0, { nonce: 10n });
    ghost.signed.push({ at: 50, requestId: 'ghost', nonce: 10n, resend: true });
    expectViolation(invariant.check(ghost.build(), {}), 'nonces', 50, 'request ghost was resent at 50 ms with nonce 10 but never sent before');
    const twice = new RecordBuilder();
    const id = twice.sign(0, { nonce: 10n });
    twice.sign(70, { nonce: 11n, requestId: id });
    expectViolation(invariant.check(twice.build(), {}), 'nonces', 70, `request ${id} was sent as new again at 70 ms (first at 0 ms)`);
  });
});
