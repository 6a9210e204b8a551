/**
 * TxEvidence.prune (which visits only what may be due) forgets exactly what the plain rule does:
 * every tx whose time is before the cut-off, then every claim before it whose tx is not indexed.
 * fast-check prints the seed and path of a failure.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Hex } from '../../src/protocol/encoding.ts';
import type { OrderEvent } from '../../src/protocol/user-data.ts';
import { TxEvidence } from '../../src/execution/reconciler.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const HASHES = Array.from({ length: 5 }, (_, i) => `0x${String(i + 1).repeat(64)}` as Hex);
const T0 = Date.parse('2026-01-01T00:00:00.000Z');

type Op =
  | { readonly kind: 'add'; readonly tx: number; readonly at: number; readonly orderId: number }
  | { readonly kind: 'claim'; readonly tx: number; readonly at: number }
  | { readonly kind: 'prune'; readonly before: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), tx: fc.nat(4), at: fc.nat(20), orderId: fc.nat(3) }),
  fc.record({ kind: fc.constant('claim' as const), tx: fc.nat(4), at: fc.nat(20) }),
  fc.record({ kind: fc.constant('prune' as const), before: fc.nat(22) }),
);

function event(tx: Hex, atMs: number, orderId: number): OrderEvent {
  return {
    eventType: 'order-canceled',
    transactionHash: tx,
    blockTimestamp: new Date(T0 + atMs).toISOString(),
    eventData: { marketAddress: `0x${'e7'.repeat(20)}`, orderId: String(orderId), isBuy: true, price: '1', size: '1', remainingSize: '1' },
  } as unknown as OrderEvent;
}

describe('TxEvidence.prune', () => {
  it('forgets what the plain rule forgets', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const evidence = new TxEvidence();
        const txs = new Map<Hex, { timeMs: number; keys: Set<number> }>();
        const claimed = new Map<Hex, number>();
        for (const step of ops) {
          if (step.kind === 'add') {
            const tx = HASHES[step.tx]!;
            evidence.add([event(tx, step.at, step.orderId)]);
            const record = txs.get(tx) ?? { timeMs: T0 + step.at, keys: new Set<number>() };
            txs.set(tx, record);
            if (!record.keys.has(step.orderId)) {
              record.keys.add(step.orderId);
              record.timeMs = Math.min(record.timeMs, T0 + step.at);
            }
          } else if (step.kind === 'claim') {
            evidence.claim(HASHES[step.tx]!, T0 + step.at);
            claimed.set(HASHES[step.tx]!, T0 + step.at);
          } else {
            const before = T0 + step.before;
            evidence.prune(before);
            for (const [tx, record] of txs) if (record.timeMs < before) txs.delete(tx);
            for (const [tx, at] of claimed) if (at < before && !txs.has(tx)) claimed.delete(tx);
          }
          expect(evidence.size()).toBe(txs.size);
          for (const tx of HASHES) {
            expect(evidence.seen(tx)).toBe(txs.has(tx));
            expect(evidence.isClaimed(tx)).toBe(claimed.has(tx));
          }
        }
      }),
      fuzzSettings({ numRuns: 2000 }),
    );
  });
});
