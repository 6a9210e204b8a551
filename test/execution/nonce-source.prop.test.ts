/**
 * Any interleaving of next() calls, clock moves (forward and back) and restarts (a new source with
 * the journal's floor) yields strictly increasing nonces within the skew, or a typed refusal exactly
 * when the next nonce would be beyond it. fast-check prints the seed and path of a failure.
 */
import fc from 'fast-check';
import { asyncScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createNonceSource, type NonceSource } from '../../src/execution/nonce-source.ts';
import { hasCode, T0 } from './execution-support.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

type Op = { readonly kind: 'next'; readonly times: number } | { readonly kind: 'move'; readonly ms: number } | { readonly kind: 'restart' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('next' as const), times: fc.integer({ min: 1, max: 50 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('move' as const), ms: fc.integer({ min: -90_000, max: 90_000 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

describe('nonce source properties', () => {
  it('is strictly increasing within the skew, or refuses with NONCE_SKEW_EXCEEDED', () => {
    let refusals = 0;
    let issued = 0;
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), fc.integer({ min: 1, max: 120_000 }), (ops, skew) => {
        let now = T0;
        const clock = { now: () => now, scheduler: asyncScheduler };
        let journalFloor = 0n; // what the journal would hold: every nonce handed out
        let source: NonceSource = createNonceSource({ clock }, { maxFutureSkewMs: skew });
        for (const step of ops) {
          if (step.kind === 'move') now = Math.max(1, now + step.ms);
          else if (step.kind === 'restart') source = createNonceSource({ clock }, { floor: journalFloor, maxFutureSkewMs: skew });
          else {
            for (let i = 0; i < step.times; i++) {
              const expected = BigInt(now) > journalFloor ? BigInt(now) : journalFloor + 1n;
              let nonce: bigint;
              try {
                nonce = source.next();
              } catch (error) {
                expect(hasCode(error, 'NONCE_SKEW_EXCEEDED')).toBe(true);
                expect(expected - BigInt(now)).toBeGreaterThan(BigInt(skew));
                refusals += 1;
                continue;
              }
              expect(nonce).toBe(expected);
              expect(nonce).toBeGreaterThan(journalFloor);
              expect(nonce - BigInt(now)).toBeLessThanOrEqual(BigInt(skew));
              expect(nonce).toBeGreaterThanOrEqual(BigInt(now));
              journalFloor = nonce;
              issued += 1;
            }
          }
        }
      }),
      fuzzSettings({ numRuns: 300 }),
    );
    // Both branches were exercised.
    expect(refusals).toBeGreaterThan(0);
    expect(issued).toBeGreaterThan(refusals);
  });
});
