/**
 * The engine's own parts, alone: planning an intent against the slots (expected order ids, waiting
 * for unknown ids, CancelAll), signing a plan and reading it back from the signed request, the
 * reconciler's matching of order events to requests (exact before loose, one transaction each,
 * lowest nonce first) and its fence and deadline rules, and the journal's confirmed history.
 */
import { describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import { UINT64_MAX } from '../../src/core/units.ts';
import { planIntent } from '../../src/execution/intent-plan.ts';
import { clientOrderIdOf, createPlanSigner, planOfRequest, requestStampOf } from '../../src/execution/intent-signer.ts';
import { journalHistory } from '../../src/execution/journal-history.ts';
import type { JournalRecord } from '../../src/execution/journal-record.ts';
import { reconcilePass, TxEvidence, type ReconcileSubject } from '../../src/execution/reconciler.ts';
import { RelayMethod } from '../../src/protocol/constants.ts';
import type { Address, Hex } from '../../src/protocol/encoding.ts';
import { encodeRelayRestRequest, parseRelayRestRequest } from '../../src/protocol/relay-request.ts';
import { orderEventSchema, type OrderEvent } from '../../src/protocol/user-data.ts';
import { recoverBatchIntentSigner } from '../../src/protocol/intent-signing.ts';
import type { BatchIntent } from '../../src/protocol/intent-types.ts';
import { buy } from './engine-support.ts';

const MARKET = '0xe7908d59f465e1dfe3bf575f93fdd54226797bfe' as Address;
const EMPTY = UINT64_MAX;
const slots = (entries: Record<number, bigint | undefined>) => Array.from({ length: 62 }, (_, slot) => (slot in entries ? entries[slot] : EMPTY));
const TX = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex;

function event(type: 'order-created' | 'order-canceled', tx: number, orderId: number, price: bigint, atMs = Date.UTC(2024, 7, 8)): OrderEvent {
  const token = { address: MARKET, name: 'T', symbol: 'T', decimal: 6, logoUrl: null };
  const base = { orderId: String(orderId), marketAddress: MARKET, owner: MARKET, isBuy: true, sizePrecision: '100', pricePrecision: '10000000', baseToken: token, quoteToken: token, size: '100', price: String(price) };
  const eventData = type === 'order-created' ? { ...base, baseDeposited: '0', baseDepositedInUsd: '0' } : { ...base, remainingSize: '100', basePositionValue: '0', basePositionValueInUsd: '0' };
  return orderEventSchema.parse({ eventType: type, transactionHash: TX(tx), blockTimestamp: new Date(atMs).toISOString(), eventData });
}

describe('planIntent', () => {
  it('binds each cancel and op to the order id in its slot, uint64 max for an empty slot', () => {
    const ids = slots({ 0: 11n, 3: 14n });
    expect(planIntent({ type: 'PlaceAndCancel', market: MARKET, purpose: 'q', cancelSlots: [3, 1], orders: [] }, () => ids)).toMatchObject({
      status: 'ready',
      plan: { kind: 'batch', cancelSlots: [3, 1], expectedOrderIds: [14n, EMPTY] },
    });
    const ops = [{ slotIdx: 0, kind: 'cancel' as const }, { slotIdx: 5, kind: 'place' as const, side: 'BUY' as const, postOnly: true, price: 10n, size: 1n, minSizeAfterBlock: 0n }];
    expect(planIntent({ type: 'ReplaceSlots', market: MARKET, purpose: 'q', ops }, () => ids)).toMatchObject({ status: 'ready', plan: { kind: 'replace', expectedOrderIds: [11n, EMPTY] } });
  });

  it('waits while a slot it touches holds an order whose id is not known', () => {
    const ids = slots({ 2: undefined, 4: 9n });
    expect(planIntent({ type: 'PlaceAndCancel', market: MARKET, purpose: 'q', cancelSlots: [2], orders: [] }, () => ids)).toEqual({ status: 'wait', slots: [2] });
    expect(planIntent({ type: 'CancelAll', market: MARKET, purpose: 'q' }, () => ids)).toEqual({ status: 'wait', slots: [2] });
    // Told to, a CancelAll cancels what it knows.
    expect(planIntent({ type: 'CancelAll', market: MARKET, purpose: 'q' }, () => ids, { partial: true })).toMatchObject({
      status: 'ready',
      plan: { kind: 'replace', ops: [{ slotIdx: 4, kind: 'cancel' }], expectedOrderIds: [9n] },
      intent: { type: 'ReplaceSlots' },
    });
    expect(planIntent({ type: 'CancelAll', market: MARKET, purpose: 'q' }, () => slots({}))).toEqual({ status: 'empty' });
    expect(planIntent({ type: 'CreateBatchTrigger', market: MARKET, purpose: 'q', orders: [] }, () => ids)).toEqual({ status: 'unsupported' });
  });
});

describe('createPlanSigner', () => {
  it('signs a plan under the network domain and reads it back from the wire body', async () => {
    const account = privateKeyToAccount(`0x${'b2'.repeat(32)}`);
    const signer = createPlanSigner({ signer: account, chainId: 31337, domainVersion: '2', accountId: 7n, authNonce: 3n });
    const requestId = '0191a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
    const plan = { kind: 'batch' as const, market: MARKET, cancelSlots: [1], expectedOrderIds: [5n], orders: [buy(300_000n)] };
    const request = await signer.sign(plan, { requestId, nonce: 42n, deadlineSec: 1_900_000_000n });
    expect(request).toMatchObject({ requestId, method: RelayMethod.executeBatch, wallet: account.address.toLowerCase(), authorization7702: null });
    const parsed = parseRelayRestRequest(encodeRelayRestRequest(request));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(planOfRequest(parsed.value)).toEqual(plan);
    expect(requestStampOf(parsed.value)).toEqual({ nonce: 42n, deadlineSec: 1_900_000_000n });
    const payload = parsed.value.payload as BatchIntent & { signature: Hex };
    expect(payload.header).toMatchObject({ accountId: 7n, authNonce: 3n, clientOrderId: clientOrderIdOf(requestId) });
    expect(await recoverBatchIntentSigner({ domain: signer.domain, intent: payload, signature: payload.signature })).toBe(account.address.toLowerCase());
    expect(signer.domain.version).toBe('2');
  });
});

describe('reconciler', () => {
  const t0 = Date.UTC(2024, 7, 8);
  const subject = (requestId: string, nonce: bigint, price: bigint, cancels: bigint[] = []): ReconcileSubject => ({
    requestId,
    nonce,
    plan: { kind: 'batch', market: MARKET, cancelSlots: cancels.map((_, i) => i), expectedOrderIds: cancels, orders: [buy(price)] },
    signedAt: t0 - 1000,
    deadlineMs: t0 + 60_000,
    txHash: undefined,
  });
  const context = (evidence: TxEvidence, now = t0, fence?: { nonce: bigint; atMs: number }) => ({
    receipts: { receipt: async () => null },
    evidence,
    fence,
    passStartedAt: now,
    now,
    rules: { graceMs: 10_000, eventLagMs: 3_000 },
  });

  it('finds the transaction of a request without a hash by its orders, one transaction per request', async () => {
    const evidence = new TxEvidence();
    evidence.add([event('order-created', 1, 10, 300_000n), event('order-created', 2, 11, 299_000n), event('order-canceled', 2, 3, 1n)]);
    const verdicts = await reconcilePass([subject('a', 1n, 300_000n), subject('b', 2n, 300_000n), subject('c', 3n, 299_000n, [3n])], context(evidence));
    expect(verdicts.get('a')).toMatchObject({ kind: 'executed', status: 'CONFIRMED', txHash: TX(1), how: 'order-events' });
    // Same orders as `a`, but its transaction is taken: nothing settles `b` yet.
    expect(verdicts.get('b')).toEqual({ kind: 'unknown' });
    expect(verdicts.get('c')).toMatchObject({ kind: 'executed', txHash: TX(2) });
    evidence.claim(TX(1));
    expect(evidence.match(subject('a', 1n, 300_000n))).toBeUndefined();
  });

  it('prefers the exact match: a transaction that cancelled more belongs to the request that expected more', async () => {
    const evidence = new TxEvidence();
    // tx 5 cancels orders 1 and 2 and places at 300_000; tx 6 cancels order 1 only and places at 300_000.
    evidence.add([event('order-canceled', 5, 1, 1n), event('order-canceled', 5, 2, 1n), event('order-created', 5, 20, 300_000n)]);
    const verdicts = await reconcilePass([subject('one', 1n, 300_000n, [1n]), subject('both', 2n, 300_000n, [1n, 2n])], context(evidence));
    expect(verdicts.get('both')).toMatchObject({ kind: 'executed', txHash: TX(5) });
    expect(verdicts.get('one')).toEqual({ kind: 'unknown' });
  });

  it('settles a request as not executed after a higher nonce was confirmed and the events caught up, or after its deadline', async () => {
    const evidence = new TxEvidence();
    const lone = subject('lone', 5n, 300_000n);
    expect((await reconcilePass([lone], context(evidence, t0, { nonce: 6n, atMs: t0 - 1_000 }))).get('lone')).toEqual({ kind: 'unknown' });
    expect((await reconcilePass([lone], context(evidence, t0, { nonce: 6n, atMs: t0 - 3_000 }))).get('lone')).toMatchObject({
      kind: 'not-executed',
      code: 'INTENT_DROPPED_NONCE_FENCED',
      reason: expect.stringMatching(/nonce 6 above it/),
      details: { confirmedNonce: '6' },
    });
    expect((await reconcilePass([lone], context(evidence, t0, { nonce: 4n, atMs: t0 - 9_000 }))).get('lone')).toEqual({ kind: 'unknown' });
    expect((await reconcilePass([lone], context(evidence, t0 + 70_000))).get('lone')).toMatchObject({
      kind: 'not-executed',
      code: 'INTENT_DROPPED_DEADLINE',
      reason: expect.stringMatching(/after its deadline/),
      details: { deadlineMs: lone.deadlineMs, graceMs: 10_000 },
    });
  });

  it('reads the receipt of a request with a hash; a failed read settles nothing', async () => {
    const evidence = new TxEvidence();
    const withHash = { ...subject('h', 1n, 300_000n), txHash: TX(9) };
    const receipts = { receipt: async (hash: string) => (hash === TX(9) ? { success: false, blockNumber: 4n } : null) };
    expect((await reconcilePass([withHash], { ...context(evidence), receipts })).get('h')).toEqual({ kind: 'executed', status: 'REVERTED', txHash: TX(9), how: 'receipt', blockNumber: 4n });
    const failing = { receipt: async () => Promise.reject(new Error('rpc down')) };
    expect((await reconcilePass([withHash], { ...context(evidence, t0 + 90_000), receipts: failing })).get('h')).toEqual({ kind: 'unknown' });
  });
});

describe('journalHistory', () => {
  it('lists the confirmed requests in nonce order with their plans', async () => {
    const account = privateKeyToAccount(`0x${'b2'.repeat(32)}`);
    const signer = createPlanSigner({ signer: account, chainId: 31337, domainVersion: '1', accountId: 1n, authNonce: 0n });
    const ids = ['0191a1b2-c3d4-7e5f-8a9b-000000000001', '0191a1b2-c3d4-7e5f-8a9b-000000000002', '0191a1b2-c3d4-7e5f-8a9b-000000000003'];
    const bodies = await Promise.all(
      ids.map(async (requestId, i) => encodeRelayRestRequest(await signer.sign({ kind: 'batch', market: MARKET, cancelSlots: [], expectedOrderIds: [], orders: [buy(300_000n - BigInt(i) * 10n)] }, { requestId, nonce: BigInt(100 + i), deadlineSec: 2_000_000_000n }))),
    );
    let seq = 0;
    const record = (fields: Record<string, unknown>) => ({ seq: ++seq, at: 1_000 + seq, ...fields }) as JournalRecord;
    const records = [
      ...ids.map((requestId, i) => record({ kind: 'signed', requestId, nonce: String(100 + i), method: RelayMethod.executeBatch, intent: { type: 'PlaceAndCancel', market: MARKET, purpose: 'q' }, body: bodies[i], txHash: null })),
      // Outcomes out of nonce order; the second never executed.
      record({ kind: 'resolved', requestId: ids[2], how: 'outcome', status: 'CONFIRMED', txHash: TX(3) }),
      record({ kind: 'resolved', requestId: ids[1], how: 'order-events', status: 'DROPPED' }),
      record({ kind: 'resolved', requestId: ids[0], how: 'receipt', status: 'CONFIRMED', txHash: TX(1) }),
    ];
    const history = journalHistory(records);
    expect(history.confirmed.map((entry) => [entry.requestId, entry.nonce, entry.txHash])).toEqual([
      [ids[0], 100n, TX(1)],
      [ids[2], 102n, TX(3)],
    ]);
    expect(history.nonces).toEqual([100n, 101n, 102n]);
    expect(history.oldestSignedAt).toBe(1_001);
  });
});
