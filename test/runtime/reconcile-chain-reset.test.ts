/**
 * The reconciler's chain-reset rule (src/execution/reconciler.ts), which lets a run recover from a
 * venue that restarted with its state wiped (test/runtime/venue-restart.test.ts): a request sent on a
 * connection that closed, with no receipt, is settled as not executed only when the receipt of the
 * transaction the venue last confirmed is gone too. A plain connection drop (the witness still there)
 * settles nothing early, and a request not sent on a closed connection is never touched by it.
 * After a reset, order events seen of the request before it were the old chain's: they do not make
 * it executed.
 */
import { describe, expect, it } from 'vitest';
import type { Hex } from '../../src/protocol/encoding.ts';
import type { ReceiptReader } from '../../src/execution/execution-engine.ts';
import { reconcilePass, TxEvidence, type ReconcileSubject } from '../../src/execution/reconciler.ts';
import { created } from '../execution/portfolio-fixtures.ts';

const NOW = Date.UTC(2026, 0, 1, 0, 1);
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex;
const WITNESS = hash(1);
const LOST = hash(2);

/** Receipts of the transactions a chain holds. */
function chainWith(held: readonly Hex[]): ReceiptReader {
  return { receipt: (txHash) => Promise.resolve(held.includes(txHash as Hex) ? { success: true, blockNumber: 7n } : null) };
}

function subject(overrides: Partial<ReconcileSubject> = {}): ReconcileSubject {
  return { requestId: 'r-lost', nonce: 5n, plan: undefined, signedAt: NOW - 5_000, deadlineMs: NOW + 55_000, txHash: LOST, sentOnClosedConnection: true, ...overrides };
}

async function verdictOf(receipts: ReceiptReader, of: ReconcileSubject, witness: Hex | undefined, evidence = new TxEvidence()) {
  const verdicts = await reconcilePass([of], {
    receipts,
    evidence,
    fence: undefined,
    passStartedAt: NOW,
    now: NOW,
    rules: { graceMs: 10_000, eventLagMs: 3_000 },
    ...(witness === undefined ? {} : { witness }),
  });
  return verdicts.get(of.requestId);
}

describe('reconciliation: a chain reset', () => {
  it('settles a request of a closed connection as not executed when the witness is gone too', async () => {
    const verdict = await verdictOf(chainWith([]), subject(), WITNESS);
    expect(verdict).toEqual({ kind: 'not-executed', how: 'receipt', code: 'INTENT_DROPPED_VENUE_RESET', reason: expect.stringContaining('restarted with its state wiped') });
  });

  it('waits (unknown) while the witness is still on the chain: a dropped connection alone proves nothing', async () => {
    expect(await verdictOf(chainWith([WITNESS]), subject(), WITNESS)).toEqual({ kind: 'unknown' });
  });

  it('waits without a witness, and for a request not sent on a closed connection', async () => {
    expect(await verdictOf(chainWith([]), subject(), undefined)).toEqual({ kind: 'unknown' });
    expect(await verdictOf(chainWith([]), subject({ sentOnClosedConnection: false }), WITNESS)).toEqual({ kind: 'unknown' });
  });

  it('takes a receipt of the request itself first', async () => {
    expect(await verdictOf(chainWith([LOST]), subject(), WITNESS)).toMatchObject({ kind: 'executed', status: 'CONFIRMED', txHash: LOST, how: 'receipt' });
  });

  it("counts order events seen of the request only while the witness is there: after a reset they were the old chain's", async () => {
    const seen = () => {
      const evidence = new TxEvidence();
      evidence.add([created({ tx: LOST, timeMs: NOW - 4_000 }, 9n, 'BUY', 100n, 1000n)]);
      return evidence;
    };
    expect(await verdictOf(chainWith([]), subject(), WITNESS, seen())).toMatchObject({ kind: 'not-executed', code: 'INTENT_DROPPED_VENUE_RESET' });
    expect(await verdictOf(chainWith([WITNESS]), subject(), WITNESS, seen())).toMatchObject({ kind: 'executed', status: 'CONFIRMED', txHash: LOST, how: 'order-events' });
    expect(await verdictOf(chainWith([]), subject({ sentOnClosedConnection: false }), WITNESS, seen())).toMatchObject({ kind: 'executed', status: 'CONFIRMED', how: 'order-events' });
  });
});
