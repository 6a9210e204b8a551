/**
 * The chaos figures from what a run observed: a signed request is accounted for by the venue's
 * answer or outcome, or by the journal's not-sent settlement, and lost otherwise; two CONFIRMED
 * attempts of one intent are a duplicate placement; a nonce on two requests is a reuse; recovery
 * runs from each fault to the next accepted placement.
 */
import { describe, expect, it } from 'vitest';
import { chaosFigures, chaosPassed, quantile, type ChaosObservations } from '../../src/cli/chaos/chaos-figures.ts';
import { clientOrderIdOf } from '../../src/execution/intent-signer.ts';
import type { JournalRecord } from '../../src/execution/journal-record.ts';
import type { Address, Hex } from '../../src/protocol/encoding.ts';
import type { OutcomeStatus } from '../../src/protocol/constants.ts';
import type { RelaySubmission } from '../../src/venue/sim-venue.ts';

const WALLET: Address = '0x1111111111111111111111111111111111111111';
const id = (n: number) => `0191a1b2-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const tx = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`;
let seq = 0;

function signed(n: number, nonce: number, retryOf?: number): JournalRecord {
  seq += 1;
  return {
    seq,
    at: 0,
    kind: 'signed',
    requestId: id(n),
    nonce: String(nonce),
    method: 'wallet.execute_batch',
    intent: null,
    body: '{}',
    txHash: null,
    ...(retryOf === undefined ? {} : { retryOf: id(retryOf) }),
  };
}

function notSent(n: number): JournalRecord {
  seq += 1;
  return { seq, at: 0, kind: 'resolved', requestId: id(n), how: 'never-sent', status: 'NOT_SENT' };
}

function broadcast(n: number, nonce: number, atMs: number): RelaySubmission {
  return {
    atMs,
    wallet: WALLET,
    method: 'wallet.execute_batch',
    nonce: BigInt(nonce),
    clientOrderId: clientOrderIdOf(id(n)),
    result: { status: 'BROADCAST', txHash: tx(n), sponsorAddress: WALLET, sponsorNonce: 0n, transactionType: 'DYNAMIC_FEE' },
  };
}

function rejected(n: number, nonce: number): RelaySubmission {
  return {
    atMs: 0,
    wallet: WALLET,
    method: 'wallet.execute_batch',
    nonce: BigInt(nonce),
    clientOrderId: clientOrderIdOf(id(n)),
    result: { status: 'REJECTED', code: 'RATE_LIMITED', message: 'slow down', retryable: true, retryAfterMs: 1000, candidateTxHash: null, sponsorAddress: null, sponsorNonce: null },
  };
}

function observed(parts: Partial<ChaosObservations>): ChaosObservations {
  return {
    journal: [],
    submissions: [],
    outcomes: new Map(),
    faultTimes: [],
    maxPendingOutcomes: 3,
    cap: 64,
    reconnects: 0,
    restarts: 0,
    rateLimitViolations: 0,
    openOrdersAfterStop: 0,
    positionMismatches: 0,
    ...parts,
  };
}

describe('chaos figures', () => {
  it('accounts for every request the venue answered or the journal settled, and counts the rest as lost', () => {
    const outcomes = new Map<Hex, OutcomeStatus>([
      [tx(1), 'CONFIRMED'],
      [tx(3), 'REVERTED'],
    ]);
    const figures = chaosFigures(
      observed({
        // 1 confirmed, 2 rejected by the venue, 3 reverted, 4 never sent (settled), 5 signed and then nothing.
        journal: [signed(1, 10), signed(2, 11), signed(3, 12), signed(4, 13), notSent(4), signed(5, 14)],
        submissions: [broadcast(1, 10, 100), rejected(2, 11), broadcast(3, 12, 200)],
        outcomes,
      }),
    );
    expect(figures).toMatchObject({ intents_signed: 5, intents_with_terminal_state: 4, lost: 1, duplicate_placements: 0, nonce_reuses: 0 });
    expect(chaosPassed(figures)).toBe(false);
  });

  it('finds two executed attempts of one intent, and a nonce on two requests', () => {
    const outcomes = new Map<Hex, OutcomeStatus>([
      [tx(1), 'CONFIRMED'],
      [tx(2), 'CONFIRMED'],
      [tx(3), 'CONFIRMED'],
    ]);
    const figures = chaosFigures(
      observed({
        // 2 retries 1 and both executed; 3 carries 2's nonce.
        journal: [signed(1, 10), signed(2, 11, 1), signed(3, 11)],
        submissions: [broadcast(1, 10, 100), broadcast(2, 11, 200), broadcast(3, 11, 300)],
        outcomes,
      }),
    );
    expect(figures).toMatchObject({ lost: 0, duplicate_placements: 1, nonce_reuses: 1 });
  });

  it('measures recovery from each fault to the next accepted placement, and passes a clean run', () => {
    const outcomes = new Map<Hex, OutcomeStatus>([1, 2, 3].map((n) => [tx(n), 'CONFIRMED'] as const));
    const figures = chaosFigures(
      observed({
        journal: [signed(1, 10), signed(2, 11), signed(3, 12)],
        submissions: [broadcast(1, 10, 1_000), broadcast(2, 11, 5_000), broadcast(3, 12, 9_500)],
        outcomes,
        // Recovered in 500, 1 000 and 3 500 ms; the last fault has no placement after it.
        faultTimes: [500, 4_000, 6_000, 9_900],
      }),
    );
    expect(figures).toMatchObject({ lost: 0, recovery_ms_p50: 1_000, recovery_ms_p99: 3_500 });
    expect(chaosPassed(figures)).toBe(true);
    expect(chaosPassed({ ...figures, max_pending_outcomes: 64 })).toBe(false);
    expect(chaosPassed({ ...figures, position_mismatch: 1 })).toBe(false);
    expect(quantile([], 0.5)).toBeNull();
  });
});
