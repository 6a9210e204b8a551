/**
 * What the background flow reads of one account's maker slots: which resting orders are live (no
 * cancel of theirs may still be pending), how many, the oldest, the farthest from the mid, the n-th.
 *
 * Each arrival used to build arrays of the live orders (and sort them); these scan the venue's
 * slots array in place instead, and keep the pending cancels in two short arrays rather than a map:
 * a handful are pending at a time, and their times only grow.
 */
import type { OrderSide } from '../protocol/constants.ts';

/** What the flow reads of a resting order of one of its accounts. */
export interface FlowRestingOrder {
  readonly id: bigint;
  /** Maker slot 0..61. */
  readonly slot: number;
  readonly side: OrderSide;
  /** Price units. */
  readonly price: bigint;
  /** Open size, size units. */
  readonly remaining: bigint;
}

/** An account's slots in slot order, null (or a hole) where empty. */
export type FlowSlotList = readonly (FlowRestingOrder | null | undefined)[];

/** The cancels an account enqueued that may still be pending, in enqueue order. */
export class PendingCancels {
  private readonly ids: bigint[] = [];
  private readonly until: number[] = [];

  /** Records a cancel of `orderId` that may be pending until `until` (never earlier than the last). */
  add(orderId: bigint, until: number): void {
    this.ids.push(orderId);
    this.until.push(until);
  }

  /** Forgets the cancels that can no longer be pending at `at` (times never go back). */
  expire(at: number): void {
    let expired = 0;
    while (expired < this.until.length && this.until[expired]! <= at) expired++;
    if (expired > 0) {
      this.ids.splice(0, expired);
      this.until.splice(0, expired);
    }
  }

  /** True when a cancel of `orderId` may still be pending (after `expire`). */
  has(orderId: bigint): boolean {
    const ids = this.ids;
    for (let i = 0; i < ids.length; i++) if (ids[i] === orderId) return true;
    return false;
  }
}

function isLive(order: FlowRestingOrder | null | undefined, cancels: PendingCancels): order is FlowRestingOrder {
  return order !== null && order !== undefined && !cancels.has(order.id);
}

/** Resting orders in the slots. */
export function openCount(slots: FlowSlotList): number {
  let open = 0;
  for (let i = 0; i < slots.length; i++) if (slots[i] !== null && slots[i] !== undefined) open++;
  return open;
}

/** Resting orders without a pending cancel. */
export function liveCount(slots: FlowSlotList, cancels: PendingCancels): number {
  let live = 0;
  for (let i = 0; i < slots.length; i++) if (isLive(slots[i], cancels)) live++;
  return live;
}

/** The live order of lowest id above `after` (the oldest after it), or undefined. */
export function oldestLiveAfter(slots: FlowSlotList, cancels: PendingCancels, after: bigint): FlowRestingOrder | undefined {
  let oldest: FlowRestingOrder | undefined;
  for (let i = 0; i < slots.length; i++) {
    const order = slots[i];
    if (order === null || order === undefined || order.id <= after || (oldest !== undefined && order.id >= oldest.id)) continue;
    if (!cancels.has(order.id)) oldest = order;
  }
  return oldest;
}

/** The live order farthest from `mid` (price units), the first in slot order of equals; undefined when none. */
export function farthestLive(slots: FlowSlotList, cancels: PendingCancels, mid: number): FlowRestingOrder | undefined {
  let target: FlowRestingOrder | undefined;
  let farthest = -1;
  for (let i = 0; i < slots.length; i++) {
    const order = slots[i];
    if (!isLive(order, cancels)) continue;
    const distance = Math.abs(Number(order.price) - mid);
    if (target === undefined || distance > farthest) {
      farthest = distance;
      target = order;
    }
  }
  return target;
}

/** The `n`-th live order in slot order (from 0), or undefined. */
export function nthLive(slots: FlowSlotList, cancels: PendingCancels, n: number): FlowRestingOrder | undefined {
  let k = n;
  for (let i = 0; i < slots.length; i++) {
    const order = slots[i];
    if (isLive(order, cancels) && k-- === 0) return order;
  }
  return undefined;
}

/** Resting buys and sells over several accounts' slots, added to `counts`. */
export function countSides(slots: FlowSlotList, counts: { bids: number; asks: number }): void {
  for (let i = 0; i < slots.length; i++) {
    const order = slots[i];
    if (order === null || order === undefined) continue;
    if (order.side === 'BUY') counts.bids++;
    else counts.asks++;
  }
}
