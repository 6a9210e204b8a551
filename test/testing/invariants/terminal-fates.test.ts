import { describe, expect, it } from 'vitest';
import { terminalFatesInvariant as invariant } from '../../../src/testing/invariants/index.ts';
import { expectViolation } from './expect-violation.ts';
import { batch, cancelAll, cancelOp, MON, order, RecordBuilder, replaceSlots } from './record-builder.ts';

const quotes = () => replaceSlots([cancelOp(0)]);

describe('terminal-fates', () => {
  it('passes one fate per intent, every request resolved, and the engine’s own sweeps', () => {
    const b = new RecordBuilder();
    b.sent(0, quotes());
    b.sent(100, batch([order('BUY', 349_000n, 1_000n)]), { status: 'REVERTED' });
    const refused = b.intent(200, quotes());
    b.fate(200, refused, { status: 'REFUSED', code: 'RISK_MAX_POSITION', message: 'too long' });
    b.invalidIntent(300, replaceSlots([]), ['ReplaceSlots with no ops']);
    b.execute(cancelAll(MON), 400);
    expect(invariant.check(b.build(), {})).toBeUndefined();
  });

  it('passes a retried intent: its first request resolved REJECTED, its fate naming the second', () => {
    const b = new RecordBuilder();
    const intent = b.intent(0, quotes());
    const first = b.sign(10);
    b.resolve(50, first, 'REJECTED');
    const second = b.sign(1_050);
    b.resolve(1_500, second, 'CONFIRMED');
    b.fate(1_500, intent, { status: 'CONFIRMED', requestId: second, txHash: '0xabc' });
    expect(invariant.check(b.build(), {})).toBeUndefined();
  });

  it('fails an intent that got no fate, at its emission', () => {
    const b = new RecordBuilder();
    b.sent(0, quotes());
    b.intent(250, quotes());
    expectViolation(invariant.check(b.build(), {}), 'terminal-fates', 250, 'intent #1 (ReplaceSlots quotes on MON_USDC, at 250 ms) got no fate');
  });

  it('fails an intent with two fates, at the second', () => {
    const b = new RecordBuilder();
    const intent = quotes();
    b.sent(0, intent);
    b.fate(900, intent, { status: 'REFUSED', code: 'ENGINE_STOPPED', message: 'stopping' });
    expectViolation(invariant.check(b.build(), {}), 'terminal-fates', 900, 'intent #0', 'got a second fate: CONFIRMED at 500 ms, then REFUSED at 900 ms');
  });

  it('pairs the same intent object emitted twice with its two fates, and misses the third', () => {
    const b = new RecordBuilder();
    const intent = quotes();
    b.sent(0, intent);
    b.sent(1_000, intent);
    expect(invariant.check(b.build(), {})).toBeUndefined();
    b.intent(2_000, intent);
    expectViolation(invariant.check(b.build(), {}), 'terminal-fates', 2_000, 'intent #2', 'got no fate');
  });

  it('fails an invalid intent that got a fate anyway', () => {
    const b = new RecordBuilder();
    const intent = b.invalidIntent(10, replaceSlots([]), ['ReplaceSlots with no ops']);
    b.fate(20, intent, { status: 'REFUSED', code: 'RISK_MARKET_UNKNOWN', message: 'no' });
    expectViolation(invariant.check(b.build(), {}), 'terminal-fates', 20, 'was invalid and never sent, yet got the fate REFUSED at 20 ms');
  });

  it('fails a fate naming a request that was never signed', () => {
    const b = new RecordBuilder();
    const intent = b.intent(0, quotes());
    b.fate(300, intent, { status: 'CONFIRMED', requestId: 'req-x', txHash: '0x1' });
    expectViolation(invariant.check(b.build(), {}), 'terminal-fates', 300, 'the CONFIRMED fate of a ReplaceSlots quotes at 300 ms names request req-x, which was never signed');
  });

  it('fails a signed request that never got a final status (lost), at its signing', () => {
    const b = new RecordBuilder();
    b.sent(0, quotes());
    const lost = b.sign(700, { nonce: 5_000n });
    b.sent(800, quotes());
    expectViolation(invariant.check(b.build(), {}), 'terminal-fates', 700, `request ${lost} (nonce 5000) signed at 700 ms never got a final status: it is lost`);
  });

  it('fails a request resolved twice, and a resolution of a request never signed', () => {
    const twice = new RecordBuilder();
    const id = twice.sent(0, quotes());
    twice.resolve(2_000, id, 'DROPPED');
    expectViolation(invariant.check(twice.build(), {}), 'terminal-fates', 2_000, `request ${id} was resolved twice: at 500 ms, then DROPPED at 2000 ms`);
    const stray = new RecordBuilder();
    stray.resolve(40, 'req-y', 'CONFIRMED');
    expectViolation(invariant.check(stray.build(), {}), 'terminal-fates', 40, 'request req-y was resolved (CONFIRMED) at 40 ms but never signed');
  });
});
