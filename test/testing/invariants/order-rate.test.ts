import { describe, expect, it } from 'vitest';
import { orderRateInvariant as invariant } from '../../../src/testing/invariants/index.ts';
import type { OrderRequest } from '../../../src/strategy/intents.ts';
import { expectViolation } from './expect-violation.ts';
import { batch, order, RecordBuilder, replaceSlots, cancelOp, RISK } from './record-builder.ts';

const orders = (count: number): OrderRequest[] => Array.from({ length: count }, (_, i) => order('BUY', 349_000n - BigInt(i) * 10n, 1_000n));

describe('order-rate', () => {
  it('passes exactly 20 orders in a second at 20 per second, and a 21st once the first leave the window', () => {
    const b = new RecordBuilder();
    b.sent(0, batch(orders(10)));
    b.sent(500, batch(orders(10)));
    b.sent(1_000, batch(orders(1)));
    expect(invariant.check(b.build(), {})).toBeUndefined();
  });

  it('fails the 21st order within 1000 ms, at its signing, naming the request', () => {
    const b = new RecordBuilder();
    b.sent(0, batch(orders(10)));
    b.sent(500, batch(orders(10)));
    const requestId = b.sent(999, batch(orders(1)));
    expectViolation(invariant.check(b.build(), {}), 'order-rate', 999, '21 orders were signed in the 1000 ms up to 999 ms, above 20 (risk.maxOrdersPerSecond 20)', `request ${requestId}, placed 1`);
  });

  it('counts orders when they are signed, not when emitted, and never those refused or superseded', () => {
    const b = new RecordBuilder();
    b.sent(0, batch(orders(20)));
    b.sent(100, batch(orders(20)), { signedAt: 1_000 });
    const refused = b.intent(200, batch(orders(30)));
    b.fate(200, refused, { status: 'REFUSED', code: 'RISK_ORDER_RATE', message: 'too fast' });
    const superseded = b.intent(300, batch(orders(30)));
    b.fate(400, superseded, { status: 'SUPERSEDED' });
    expect(invariant.check(b.build(), {})).toBeUndefined();
    b.sent(300, batch(orders(1)), { signedAt: 1_999 });
    expectViolation(invariant.check(b.build(), {}), 'order-rate', 1_999, '21 orders');
  });

  it('counts packed places, never cancels', () => {
    const b = new RecordBuilder();
    b.risk = { ...RISK, maxOrdersPerSecond: 2 };
    b.sent(0, replaceSlots([cancelOp(0), cancelOp(1), cancelOp(2)]));
    b.sent(10, batch([order('BUY', 349_000n, 1_000n)], [4, 5]));
    b.sent(20, replaceSlots([cancelOp(3), { slotIdx: 6, kind: 'place', side: 'SELL', postOnly: true, price: 351_000n, size: 1_000n, minSizeAfterBlock: 0n }]));
    expect(invariant.check(b.build(), {})).toBeUndefined();
    b.sent(30, batch([order('BUY', 348_000n, 1_000n)]));
    expectViolation(invariant.check(b.build(), {}), 'order-rate', 30, '3 orders', 'above 2');
  });

  it('uses the engine’s window for a rate below one a second: 0.5/s is 1 order per 2000 ms', () => {
    const b = new RecordBuilder();
    b.risk = { ...RISK, maxOrdersPerSecond: 0.5 };
    b.sent(0, batch(orders(1)));
    b.sent(2_000, batch(orders(1)));
    expect(invariant.check(b.build(), {})).toBeUndefined();
    b.sent(3_999, batch(orders(1)));
    expectViolation(invariant.check(b.build(), {}), 'order-rate', 3_999, '2 orders were signed in the 2000 ms up to 3999 ms, above 1');
  });
});
