/**
 * The ledger across runs (account-ledger.ts): whatever runs a sequence of fills is split into, and
 * however late each run sees them, carrying checkpoints from run to run counts every fill exactly
 * once: the final ledger is the ledger of all fills counted in one go.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countedBy, EMPTY_LEDGER, extendLedger, type LedgerCheckpoint, type LedgerFill } from '../../src/execution/account-ledger.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const fillArb = fc.record({ timeMs: fc.integer({ min: 1, max: 10_000 }), side: fc.constantFrom('BUY' as const, 'SELL' as const), size: fc.bigInt({ min: 1n, max: 1_000n }), price: fc.bigInt({ min: 1n, max: 100n }), fee: fc.bigInt({ min: 0n, max: 10n }) });

/** Fills with unique keys in canonical (time) order. */
const fillsArb = fc.array(fillArb, { maxLength: 40 }).map((raw) =>
  raw
    .map((fill, index): LedgerFill => ({ key: `k${index}`, timeMs: fill.timeMs, side: fill.side, size: fill.size, quote: fill.size * fill.price, fee: fill.fee }))
    .sort((a, b) => a.timeMs - b.timeMs || (a.key < b.key ? -1 : 1)),
);

describe('account ledger', () => {
  it('counts every fill once across any split into runs, with late-seen fills', () => {
    fc.assert(
      fc.property(fillsArb, fc.array(fc.integer({ min: 0, max: 10_000 }), { maxLength: 6 }), fc.integer({ min: 0, max: 500 }), (fills, stops, lag) => {
        const all = extendLedger(EMPTY_LEDGER, fills, 0);
        // Run i stops at stops[i] (sorted): it has seen every fill up to that time, and its horizon
        // is `lag` before it (fills inside the lag window are listed, not behind the horizon).
        let carried: LedgerCheckpoint = EMPTY_LEDGER;
        for (const stopAt of [...stops].sort((a, b) => a - b).concat(10_001)) {
          // A restarted run reads events from before the carried horizon: the counted ones are skipped.
          const seen = fills.filter((fill) => fill.timeMs <= stopAt && !countedBy(carried, fill.timeMs, fill.key));
          carried = extendLedger(carried, seen, Math.max(0, stopAt - lag));
        }
        expect(carried.fills).toBe(fills.length);
        expect(carried.position).toEqual(all.position);
        expect(carried.fees).toBe(all.fees);
        // Nothing listed behind the horizon: the list stays as short as the lag window.
        for (const timeMs of carried.recent.values()) expect(timeMs).toBeGreaterThanOrEqual(carried.throughMs);
      }),
      fuzzSettings({ numRuns: 300 }),
    );
  });

  it('a fill the checkpoint did not see, behind no horizon, is counted when it comes', () => {
    const early: LedgerFill = { key: 'a', timeMs: 100, side: 'BUY', size: 5n, quote: 50n, fee: 1n };
    const checkpoint = extendLedger(EMPTY_LEDGER, [early], 90);
    expect(countedBy(checkpoint, 100, 'a')).toBe(true);
    expect(countedBy(checkpoint, 100, 'b')).toBe(false);
    expect(countedBy(checkpoint, 89, 'c')).toBe(true);
    expect(checkpoint.position).toEqual({ size: 5n, basis: 50n, realized: 0n });
  });
});
