/**
 * The chain's receipt store (checked receipts indexed at once, unique ones when a lookup misses,
 * the oldest dropped past the limit) against the simple version: one map in execution order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import type { Address, Hex } from '../../src/protocol/encoding.ts';
import { Chain, type ChainReceipt } from '../../src/venue/chain.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const FROM: Address = '0x00000000000000000000000000000000000000f1';
const TO: Address = '0x00000000000000000000000000000000000000f2';

const hashOf = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`;

/** A chain whose transactions revert when their payload is true. */
function newChain(maxReceipts: number): Chain<boolean, null> {
  return new Chain<boolean, null>(
    { clock: new VirtualClock(0) },
    {
      chainId: 1,
      blockMs: 400,
      stateLagBlocks: { voted: 0, finalized: 0, committed: 0 },
      genesis: null,
      execute: (tx) => ({ success: !tx.payload, reason: tx.payload ? 'X: failed' : null, logCount: 0 }),
      snapshot: () => null,
      maxReceipts,
    },
  );
}

const action = fc.oneof(
  fc.record({ kind: fc.constant('enqueue' as const), unique: fc.boolean(), fail: fc.boolean() }),
  fc.record({ kind: fc.constant('block' as const) }),
  fc.record({ kind: fc.constant('lookup' as const), n: fc.integer({ min: 0, max: 80 }) }),
  fc.record({ kind: fc.constant('pending' as const), n: fc.integer({ min: 0, max: 80 }) }),
);

describe('Chain receipts', () => {
  it('answer like one map of the newest maxReceipts receipts, whatever the mix of checked and unique', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.array(action, { maxLength: 150 }), (maxReceipts, actions) => {
        const chain = newChain(maxReceipts);
        const model = new Map<Hex, ChainReceipt>();
        const pending = new Set<Hex>();
        let next = 0;
        for (const step of actions) {
          if (step.kind === 'enqueue') {
            const tx = { hash: hashOf(next++), from: FROM, to: TO, type: 'DYNAMIC_FEE' as const, payload: step.fail };
            if (step.unique) chain.enqueueUnique(tx);
            else chain.enqueue(tx);
            pending.add(tx.hash);
          } else if (step.kind === 'block') {
            for (const receipt of chain.produceBlock().receipts) {
              model.set(receipt.transactionHash, receipt);
              if (model.size > maxReceipts) model.delete(model.keys().next().value!);
            }
            pending.clear();
          } else if (step.kind === 'lookup') {
            expect(chain.receipt(hashOf(step.n))).toBe(model.get(hashOf(step.n)));
          } else {
            expect(chain.isPending(hashOf(step.n))).toBe(pending.has(hashOf(step.n)));
          }
        }
        for (let n = 0; n <= next; n++) expect(chain.receipt(hashOf(n))).toBe(model.get(hashOf(n)));
      }),
      fuzzSettings({ numRuns: 300 }),
    );
  });

  it('still refuses a checked hash that executed, after unique ones were indexed and dropped around it', () => {
    const chain = newChain(3);
    const tx = (n: number) => ({ hash: hashOf(n), from: FROM, to: TO, type: 'DYNAMIC_FEE' as const, payload: false });
    chain.enqueueUnique(tx(1));
    chain.enqueue(tx(2));
    chain.produceBlock();
    expect(chain.receipt(hashOf(1))?.transactionIndex).toBe(0);
    expect(() => chain.enqueue(tx(2))).toThrow(/submitted twice/);
    chain.enqueueUnique(tx(3));
    chain.enqueueUnique(tx(4));
    chain.produceBlock();
    expect(chain.receipt(hashOf(1))).toBeUndefined();
    expect(chain.receipt(hashOf(2))?.blockNumber).toBe(1n);
    chain.enqueueUnique(tx(5));
    chain.produceBlock();
    expect(chain.receipt(hashOf(2))).toBeUndefined();
    expect(() => chain.enqueue(tx(2))).not.toThrow();
  });
});
