/**
 * Random pushes, takes (with and without placements allowed) and clears, under each policy:
 * (a) risk-reducing intents come out before placements; (b) with coalesce, at most one placement
 * per (market, purpose) is queued and nothing newer of its key was pushed after it; (c) every pushed
 * intent is taken, or reported dropped exactly once. fast-check prints the seed and path of a failure.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IntentQueue, type DroppedIntent } from '../../src/execution/intent-queue.ts';
import { QUEUE_POLICIES } from '../../src/config/run-config.ts';
import { isRiskReducing, type Intent } from '../../src/strategy/intents.ts';
import { MARKET_A, MARKET_B, placement, slotCancel } from './execution-support.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const MARKETS = [MARKET_A, MARKET_B, '0xcccccccccccccccccccccccccccccccccccccccc' as typeof MARKET_A];
const PURPOSES = ['quotes', 'hedge'];

const intentArb: fc.Arbitrary<Intent> = fc
  .record({ kind: fc.integer({ min: 0, max: 9 }), market: fc.constantFrom(...MARKETS), purpose: fc.constantFrom(...PURPOSES) })
  .map(({ kind, market, purpose }): Intent => {
    if (kind <= 4) return placement(market, purpose);
    if (kind === 5) return { type: 'ReplaceSlots', market, purpose, ops: [{ slotIdx: 1, kind: 'place', side: 'SELL', postOnly: true, price: 5n, size: 1n, minSizeAfterBlock: 0n }] };
    if (kind === 6) return slotCancel(market, purpose);
    if (kind === 7) return { type: 'CancelAll', purpose, market };
    if (kind === 8) return { type: 'CancelAll', purpose };
    return { type: 'CancelTrigger', purpose, triggerId: `0x${'0a'.repeat(32)}` };
  });

type Op =
  | { readonly kind: 'push'; readonly intent: Intent }
  | { readonly kind: 'take'; readonly placementsAllowed: boolean }
  | { readonly kind: 'clear' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: intentArb.map((intent) => ({ kind: 'push' as const, intent })) },
  { weight: 3, arbitrary: fc.boolean().map((placementsAllowed) => ({ kind: 'take' as const, placementsAllowed })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

const marketOf = (intent: Intent) => ('market' in intent && intent.market !== undefined ? intent.market : undefined);
/** Whether a later intent `newer` targets the key of the queued placement `older` (coalesce's rule). */
const sameKey = (older: Intent, newer: Intent) =>
  older.purpose === newer.purpose && (marketOf(newer) === undefined ? newer.type === 'CancelAll' : marketOf(newer) === marketOf(older));

describe('IntentQueue properties', () => {
  for (const policy of QUEUE_POLICIES) {
    it(`${policy}: cancels first, coalesced keys newest, nothing lost`, () => {
      fc.assert(
        fc.property(fc.array(opArb, { maxLength: 120 }), fc.integer({ min: 0, max: 8 }), (ops, maxQueued) => {
          const queue = new IntentQueue<number>({ policy, maxQueued });
          const pushed: Intent[] = [];
          const taken: number[] = [];
          const reported: DroppedIntent<number>[] = [];
          const returned: number[] = [];
          queue.dropped$.subscribe((item) => reported.push(item));
          const check = () => {
            const queued = queue.snapshot();
            expect(queued.length).toBe(queue.size);
            if (policy === 'coalesce') {
              const keys = new Set<string>();
              for (const entry of queued.filter((item) => !item.riskReducing)) {
                const key = `${marketOf(entry.intent)}|${entry.intent.purpose}`;
                expect(keys.has(key), `two queued placements for ${key}`).toBe(false);
                keys.add(key);
                // the newest: no later push targets its key
                expect(pushed.slice(entry.meta + 1).some((later) => sameKey(entry.intent, later))).toBe(false);
              }
            }
            if (policy === 'reject') expect(queue.placementSize).toBeLessThanOrEqual(Math.max(maxQueued, 0));
          };
          for (const op of ops) {
            if (op.kind === 'push') {
              const meta = pushed.length;
              pushed.push(op.intent);
              const result = queue.push(op.intent, meta);
              if (result.status === 'queued') returned.push(...result.superseded.map((item) => item.meta));
              else returned.push(result.dropped.meta);
              if (isRiskReducing(op.intent)) expect(result.status).toBe('queued');
            } else if (op.kind === 'take') {
              const risky = queue.riskReducingSize;
              const next = queue.take({ placementsAllowed: op.placementsAllowed });
              if (next !== undefined) {
                taken.push(next.meta);
                // (a) a placement comes out only when no risk-reducing intent waits, and only when allowed
                if (!next.riskReducing) {
                  expect(risky).toBe(0);
                  expect(op.placementsAllowed).toBe(true);
                }
              } else if (!op.placementsAllowed) {
                expect(queue.riskReducingSize).toBe(0);
              } else {
                expect(queue.size).toBe(0);
              }
            } else {
              returned.push(...queue.clearPlacements().map((item) => item.meta));
            }
            check();
          }
          // order within each lane: risk-reducing FIFO; placements FIFO under queue and reject
          const rest = queue.snapshot().map((entry) => entry.meta);
          for (let next = queue.take(); next; next = queue.take()) taken.push(next.meta);
          expect(taken.slice(taken.length - rest.length)).toEqual(rest);
          const risk = taken.filter((meta) => isRiskReducing(pushed[meta]!));
          expect(risk).toEqual([...risk].sort((a, b) => a - b));
          if (policy !== 'coalesce') {
            const placements = taken.filter((meta) => !isRiskReducing(pushed[meta]!));
            expect(placements).toEqual([...placements].sort((a, b) => a - b));
          }
          // (c) nothing lost, nothing twice: taken + dropped = pushed, and each drop reported once
          expect(reported.map((item) => item.meta)).toEqual(returned);
          const outcomes = [...taken, ...returned].sort((a, b) => a - b);
          expect(outcomes).toEqual(pushed.map((_, index) => index));
          for (const item of reported) {
            expect(isRiskReducing(item.intent)).toBe(false);
            if (item.reason === 'superseded') expect(item.supersededBy).toBeGreaterThan(item.seq);
          }
        }),
        fuzzSettings({ numRuns: 300 }),
      );
    });
  }
});
