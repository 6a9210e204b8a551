import { describe, expect, it } from 'vitest';
import { IntentQueue, type DroppedIntent } from '../../src/execution/intent-queue.ts';
import type { Intent } from '../../src/strategy/intents.ts';
import { MARKET_A, MARKET_B, placement, slotCancel } from './execution-support.ts';

const cancelAll = (purpose: string, market?: typeof MARKET_A): Intent => ({ type: 'CancelAll', purpose, ...(market ? { market } : {}) });

function drain<M>(queue: IntentQueue<M>, placementsAllowed = true): M[] {
  const out: M[] = [];
  for (let next = queue.take({ placementsAllowed }); next; next = queue.take({ placementsAllowed })) out.push(next.meta);
  return out;
}

describe('IntentQueue', () => {
  it('takes risk-reducing intents first, FIFO among themselves, then placements in order', () => {
    const queue = new IntentQueue<string>({ policy: 'queue' });
    queue.push(placement(MARKET_A), 'p1');
    queue.push(slotCancel(MARKET_A), 'c1');
    queue.push(placement(MARKET_B), 'p2');
    queue.push(cancelAll('kill-switch'), 'k1');
    queue.push({ type: 'CancelTrigger', purpose: 'triggers', triggerId: `0x${'01'.repeat(32)}` }, 'c2');
    expect(queue.size).toBe(5);
    expect(queue.snapshot().map((entry) => entry.meta)).toEqual(['c1', 'k1', 'c2', 'p1', 'p2']);
    expect(drain(queue)).toEqual(['c1', 'k1', 'c2', 'p1', 'p2']);
    expect(queue.take()).toBeUndefined();
  });

  it('queue keeps every intent, even of the same market and purpose', () => {
    const queue = new IntentQueue<number>({ policy: 'queue' });
    for (let i = 0; i < 5; i++) expect(queue.push(placement(MARKET_A, 'quotes', BigInt(i + 1)), i)).toMatchObject({ status: 'queued', superseded: [] });
    expect(drain(queue)).toEqual([0, 1, 2, 3, 4]);
  });

  it('coalesce: a newer placement supersedes the queued one of its market and purpose, in its place', () => {
    const queue = new IntentQueue<string>({ policy: 'coalesce' });
    const dropped: DroppedIntent<string>[] = [];
    queue.dropped$.subscribe((item) => dropped.push(item));
    queue.push(placement(MARKET_A, 'quotes'), 'a1');
    queue.push(placement(MARKET_B, 'quotes'), 'b1');
    queue.push(placement(MARKET_A, 'hedge'), 'h1');
    const result = queue.push(placement(MARKET_A.toUpperCase().replace('0X', '0x') as typeof MARKET_A, 'quotes', 101n), 'a2');
    expect(result.status).toBe('queued');
    expect(result.status === 'queued' && result.superseded.map((item) => [item.meta, item.reason, item.supersededBy])).toEqual([['a1', 'superseded', 4]]);
    expect(dropped.map((item) => item.meta)).toEqual(['a1']);
    expect(queue.size).toBe(3);
    expect(drain(queue)).toEqual(['a2', 'b1', 'h1']);
  });

  it('coalesce: a newer cancel removes the stale placement of its key; queued cancels are never dropped', () => {
    const queue = new IntentQueue<string>({ policy: 'coalesce' });
    queue.push(slotCancel(MARKET_A, 'quotes', 1), 'c1');
    queue.push(placement(MARKET_A, 'quotes'), 'a1');
    queue.push(placement(MARKET_B, 'quotes'), 'b1');
    const result = queue.push(slotCancel(MARKET_A, 'quotes', 2), 'c2');
    expect(result.status === 'queued' && result.superseded.map((item) => item.meta)).toEqual(['a1']);
    queue.push(placement(MARKET_A, 'quotes'), 'a2');
    expect(drain(queue)).toEqual(['c1', 'c2', 'b1', 'a2']);
  });

  it('coalesce: CancelAll without a market supersedes its purpose on every market', () => {
    const queue = new IntentQueue<string>({ policy: 'coalesce' });
    queue.push(placement(MARKET_A, 'quotes'), 'a1');
    queue.push(placement(MARKET_B, 'quotes'), 'b1');
    queue.push(placement(MARKET_B, 'hedge'), 'h1');
    const result = queue.push(cancelAll('quotes'), 'all');
    expect(result.status === 'queued' && result.superseded.map((item) => item.meta)).toEqual(['a1', 'b1']);
    expect(drain(queue)).toEqual(['all', 'h1']);
  });

  it('reject: refuses placements beyond the bound, never a cancel', () => {
    const queue = new IntentQueue<string>({ policy: 'reject', maxQueued: 2 });
    const dropped: string[] = [];
    queue.dropped$.subscribe((item) => dropped.push(`${item.meta}:${item.reason}`));
    queue.push(placement(MARKET_A), 'p1');
    queue.push(placement(MARKET_A), 'p2');
    expect(queue.push(placement(MARKET_B), 'p3')).toMatchObject({ status: 'refused', dropped: { meta: 'p3', reason: 'refused' } });
    expect(queue.push(slotCancel(MARKET_A), 'c1').status).toBe('queued');
    expect(dropped).toEqual(['p3:refused']);
    expect(drain(queue)).toEqual(['c1', 'p1', 'p2']);
  });

  it('while placements are not allowed, only risk-reducing intents come out', () => {
    const queue = new IntentQueue<string>({ policy: 'coalesce' });
    queue.push(placement(MARKET_A), 'p1');
    queue.push(slotCancel(MARKET_B), 'c1');
    expect(drain(queue, false)).toEqual(['c1']);
    expect(queue.size).toBe(1);
    expect(drain(queue)).toEqual(['p1']);
  });

  it('clearPlacements drops every placement as cleared and keeps the cancels', () => {
    const queue = new IntentQueue<string>({ policy: 'queue' });
    const dropped: string[] = [];
    queue.dropped$.subscribe({ next: (item) => dropped.push(`${item.meta}:${item.reason}`), complete: () => dropped.push('done') });
    queue.push(placement(MARKET_A), 'p1');
    queue.push(slotCancel(MARKET_A), 'c1');
    queue.push(placement(MARKET_B), 'p2');
    expect(queue.clearPlacements().map((item) => item.meta)).toEqual(['p1', 'p2']);
    expect(queue.placementSize).toBe(0);
    queue.push(placement(MARKET_A), 'p3');
    expect(drain(queue)).toEqual(['c1', 'p3']);
    queue.close();
    expect(dropped).toEqual(['p1:cleared', 'p2:cleared', 'done']);
  });
});
