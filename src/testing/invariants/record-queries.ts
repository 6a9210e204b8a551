/**
 * Reads of a RunRecord that several invariants share: the own state at a time, the orders an intent
 * places and the slots it clears, which fate belongs to which emitted intent, when a number of
 * blocks has passed, when a fill happened, and short descriptions for messages. Pure functions of
 * the record; nothing here judges anything.
 */
import type { IntentFate } from '../../execution/execution-engine.ts';
import type { OrderSide } from '../../protocol/constants.ts';
import type { Address } from '../../protocol/encoding.ts';
import type { MarketSpec } from '../../protocol/market-spec.ts';
import type { Intent } from '../../strategy/intents.ts';
import type { OwnFill, OwnMarketState, OwnOrder } from '../../strategy/strategy-context.ts';
import type { RunRecord, SignedRequest, TimedFate } from '../run-record.ts';
import { DEFAULT_FAULT_GRACE_MS } from './invariant.ts';

// ---- markets and states -------------------------------------------------------------------------

const byAddressCache = new WeakMap<RunRecord, ReadonlyMap<string, MarketSpec>>();

/** The record's market spec of an address (any case), or undefined. */
export function specOf(record: RunRecord, address: Address | string | undefined): MarketSpec | undefined {
  if (address === undefined) return undefined;
  let byAddress = byAddressCache.get(record);
  if (byAddress === undefined) {
    byAddress = new Map([...record.markets.values()].map((spec) => [spec.address.toLowerCase(), spec]));
    byAddressCache.set(record, byAddress);
  }
  return byAddress.get(address.toLowerCase());
}

/** The own state of `symbol` in force at `at`: the last one recorded at or before it. */
export function stateAt(record: RunRecord, symbol: string, at: number): OwnMarketState | undefined {
  const states = record.states.get(symbol) ?? [];
  let lo = 0;
  let hi = states.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (states[mid]!.at <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? undefined : states[lo - 1]!.state;
}

/**
 * The own states of `symbol` from `from` (the one in force then, dated `from`) through those
 * recorded before `until`, in order.
 */
export function statesBetween(record: RunRecord, symbol: string, from: number, until = Infinity): { readonly at: number; readonly state: OwnMarketState }[] {
  const out: { at: number; state: OwnMarketState }[] = [];
  const current = stateAt(record, symbol, from);
  if (current !== undefined && from < until) out.push({ at: from, state: current });
  for (const timed of record.states.get(symbol) ?? []) if (timed.at > from && timed.at < until) out.push(timed);
  return out;
}

/** Own orders with something left to fill. */
export function restingOrders(state: OwnMarketState | undefined): readonly OwnOrder[] {
  return state === undefined ? [] : state.orders.filter((order) => order.remaining > 0n);
}

// ---- intents ------------------------------------------------------------------------------------

/** One new order of an intent. */
export interface Placement {
  /** Where in the intent: `orders[1]`, `ops[0] (slot 3)`. */
  readonly where: string;
  readonly side: OrderSide;
  readonly price: bigint;
  readonly size: bigint;
  /** GTC: it rests if it does not fill (IOC and FOK never rest). */
  readonly rests: boolean;
  /** The slot a packed op names; undefined for a batch order (the venue picks one). */
  readonly slot: number | undefined;
}

/**
 * The new orders an intent places now, in its order. Cancels place nothing; trigger creations place
 * nothing now either (the engine refuses them live).
 */
export function placementsOf(intent: Intent): readonly Placement[] {
  if (intent.type === 'PlaceAndCancel') {
    return intent.orders.map((order, index) => ({ where: `orders[${index}]`, side: order.side, price: order.price, size: order.size, rests: order.tif === 'GTC', slot: undefined }));
  }
  if (intent.type === 'ReplaceSlots') {
    const out: Placement[] = [];
    intent.ops.forEach((op, index) => {
      if (op.kind === 'place') out.push({ where: `ops[${index}] (slot ${op.slotIdx})`, side: op.side, price: op.price, size: op.size, rests: true, slot: op.slotIdx });
    });
    return out;
  }
  return [];
}

/** The slots whose orders an intent removes before it places (`all` for a CancelAll). */
export function clearedSlots(intent: Intent): ReadonlySet<number> | 'all' {
  if (intent.type === 'PlaceAndCancel') return new Set(intent.cancelSlots);
  if (intent.type === 'ReplaceSlots') return new Set(intent.ops.map((op) => op.slotIdx));
  if (intent.type === 'CancelAll') return 'all';
  return new Set();
}

/** One intent the strategy emitted, with the fates the record gives it. */
export interface Emission {
  /** Its position in `record.intents`. */
  readonly index: number;
  readonly at: number;
  readonly intent: Intent;
  /** The kit found it malformed (in `record.invalid`): it was never sent. */
  readonly invalid: boolean;
  /** Its fates, in time order (one, when all is well). */
  readonly fates: readonly TimedFate[];
}

export interface IntentLedger {
  readonly emissions: readonly Emission[];
  /** Fates of intents the strategy did not emit (the engine's own: kill-switch and stop sweeps). */
  readonly foreignFates: readonly TimedFate[];
}

/**
 * Pairs each fate with the emission of its intent: the same intent object (the engine reports the
 * object it was given), the n-th fate of an object with its n-th emission; fates beyond an
 * object's emissions go to its last one.
 */
export function intentLedger(record: RunRecord): IntentLedger {
  const emissions = record.intents.map(({ at, intent }, index) => ({ index, at, intent, invalid: false, fates: [] as TimedFate[] }));
  const byIntent = new Map<Intent, (typeof emissions)[number][]>();
  for (const emission of emissions) {
    const list = byIntent.get(emission.intent);
    if (list === undefined) byIntent.set(emission.intent, [emission]);
    else list.push(emission);
  }
  for (const bad of record.invalid) {
    const list = byIntent.get(bad.intent) ?? [];
    const match = list.find((emission) => !emission.invalid && emission.at === bad.at) ?? list.find((emission) => !emission.invalid);
    if (match !== undefined) match.invalid = true;
  }
  const foreignFates: TimedFate[] = [];
  for (const fate of [...record.fates].sort((a, b) => a.at - b.at)) {
    const list = byIntent.get(fate.intent);
    if (list === undefined) {
      foreignFates.push(fate);
      continue;
    }
    (list.find((emission) => emission.fates.length === 0) ?? list[list.length - 1]!).fates.push(fate);
  }
  return { emissions, foreignFates };
}

/** The request a fate names (the last one signed for its intent), if it was signed. */
export function requestIdOf(fate: IntentFate): string | undefined {
  return 'requestId' in fate ? fate.requestId : undefined;
}

/** The first send of each signed request, by request id (resends skipped). */
export function firstSends(record: RunRecord): ReadonlyMap<string, SignedRequest> {
  const sends = new Map<string, SignedRequest>();
  for (const request of record.signed) if (!request.resend && !sends.has(request.requestId)) sends.set(request.requestId, request);
  return sends;
}

// ---- time ---------------------------------------------------------------------------------------

/**
 * When the `count`-th block after `after` executed (blocks strictly later than it); past the
 * record's last block, one `blockMs` per block still missing.
 */
export function blockDeadline(record: RunRecord, after: number, count: number): number {
  const blocks = record.blocks;
  let lo = 0;
  let hi = blocks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (blocks[mid]!.at <= after) lo = mid + 1;
    else hi = mid;
  }
  const index = lo + count - 1;
  if (index < blocks.length) return blocks[index]!.at;
  const seen = blocks.length - lo;
  const last = seen > 0 ? blocks[blocks.length - 1]!.at : after;
  return last + (count - seen) * record.blockMs;
}

/**
 * When the engine's view must show what the `count`-th block after `after` did: that block's time
 * plus half a block (the outcome and order events reach the engine a relay round trip after the
 * block; half a block is far more than one, and far less than the next block).
 */
export function viewDeadline(record: RunRecord, after: number, count: number): number {
  return blockDeadline(record, after, count) + Math.floor(record.blockMs / 2);
}

/**
 * The first state, from `from` until `until`, in which an own order of `symbol` still rests past
 * its deadline: `count` blocks (in the engine's view, viewDeadline) after the latest of `from`, the
 * moment the engine first knew the order (its id) and the moment it knew the ids of every order
 * resting beside it. An order the engine has not learnt yet (no id: a placement in flight, an
 * outcome withheld, order events shown late) cannot be cancelled, so its time starts when it is
 * learnt.
 */
export function lateOrders(
  record: RunRecord,
  symbol: string,
  from: number,
  count: number,
  until = Infinity,
  faultGraceMs = DEFAULT_FAULT_GRACE_MS,
): { readonly at: number; readonly deadline: number; readonly orders: readonly OwnOrder[] } | undefined {
  const signedAt = new Map(record.signed.filter((request) => !request.resend).map((request) => [request.requestId, request.at]));
  /**
   * A deadline from `start`, made longer when the connection failed the engine in between (a request
   * the relay rejected or that was never sent, a resend after a dropped connection or an unknown
   * answer, a request in flight at the deadline whose outcome took more than two blocks: withheld,
   * delayed, order events shown late), and by two blocks for each request that reverted in between.
   */
  const withGrace = (start: number, deadline: number) => {
    // A failure shortly before the start still costs its retry after it (a rejection's retry-after).
    const within = (at: number) => at >= start - faultGraceMs && at <= deadline;
    const slow = (entry: { readonly at: number; readonly requestId: string }) => {
      const sent = signedAt.get(entry.requestId);
      return sent !== undefined && sent <= deadline && entry.at > deadline && entry.at - sent > 2 * record.blockMs;
    };
    const hindered =
      record.resolved.some((entry) => (within(entry.at) && (entry.status === 'REJECTED' || entry.status === 'NOT_SENT')) || slow(entry)) ||
      record.signed.some((request) => request.resend && within(request.at)) ||
      (record.lateEvents ?? []).some(within);
    // A request that reverted in between (a fill or cancel raced it to its slots) costs one more
    // attempt: two blocks each.
    const raced = record.resolved.filter((entry) => within(entry.at) && entry.status === 'REVERTED').length;
    return deadline + (hindered ? faultGraceMs : 0) + raced * 2 * record.blockMs;
  };
  const knownAt = new Map<bigint, number>();
  const states = statesBetween(record, symbol, from, until);
  // Since when every order resting in the view has its id: a cancel of them all names every id (a
  // slot's cancel reverts whole when an expected id is wrong), so none can go before.
  let completeSince: number | undefined;
  for (let index = 0; index < states.length; index += 1) {
    const { at, state } = states[index]!;
    // The state holds from `at` until the next one (or the end of the span).
    const next = states[index + 1]?.at ?? until;
    let first = Infinity;
    const dues: { order: OwnOrder; due: number }[] = [];
    const resting = restingOrders(state);
    if (resting.some((order) => order.orderId === undefined)) completeSince = undefined;
    else completeSince ??= at;
    for (const order of resting) {
      if (order.orderId === undefined || completeSince === undefined) continue;
      if (!knownAt.has(order.orderId)) knownAt.set(order.orderId, at);
      const start = Math.max(knownAt.get(order.orderId)!, completeSince);
      const due = Math.max(at, withGrace(start, viewDeadline(record, start, count)));
      // The engine's view may lag the venue (a withheld or delayed outcome): gone from the venue's
      // book by the deadline's block is in time.
      const gone = record.venueGone?.get(order.orderId);
      if (gone !== undefined && gone <= withGrace(start, blockDeadline(record, start, count))) continue;
      if (due < next) {
        dues.push({ order, due });
        first = Math.min(first, due);
      }
    }
    if (dues.length > 0) return { at: first, deadline: first, orders: dues.filter(({ due }) => due === first).map(({ order }) => order) };
  }
  return undefined;
}

/** When a fill happened (its block), ms after the start. */
export function fillAt(record: RunRecord, fill: OwnFill): number {
  return fill.timeMs - record.startMs;
}

/** Size units a fill moves the position by: buys +, sells −. */
export function signedSize(fill: OwnFill): bigint {
  return fill.side === 'BUY' ? fill.size : -fill.size;
}

/**
 * A market's fills in the order they happened: block time, then transaction hash, then order id;
 * fills of one order in one transaction keep the order they were reported in.
 */
export function fillsInOrder(fills: readonly OwnFill[], market: Address): OwnFill[] {
  return fills
    .filter((fill) => fill.market.toLowerCase() === market.toLowerCase())
    .sort((a, b) => {
      if (a.timeMs !== b.timeMs) return a.timeMs - b.timeMs;
      if (a.transactionHash !== b.transactionHash) return a.transactionHash < b.transactionHash ? -1 : 1;
      return a.orderId < b.orderId ? -1 : a.orderId > b.orderId ? 1 : 0;
    });
}

// ---- descriptions -------------------------------------------------------------------------------

/** `intent #3 (ReplaceSlots quotes on MON_USDC, at 1200 ms)`. */
export function describeIntent(record: RunRecord, emission: { readonly index?: number; readonly at: number; readonly intent: Intent }): string {
  const { intent } = emission;
  const market = 'market' in intent ? specOf(record, intent.market)?.symbol ?? intent.market : undefined;
  return `intent${emission.index === undefined ? '' : ` #${emission.index}`} (${intent.type} ${intent.purpose}${market === undefined ? '' : ` on ${market}`}, at ${emission.at} ms)`;
}

/** `SELL 500 @ 349050 in slot 2 (order 17)`: the open size and the price, in units. */
export function describeOrder(order: OwnOrder): string {
  const open = order.remaining === order.size ? `${order.size}` : `${order.remaining} (of ${order.size})`;
  return `${order.side} ${open} @ ${order.price}${order.slot === undefined ? '' : ` in slot ${order.slot}`}${order.orderId === undefined ? '' : ` (order ${order.orderId})`}`;
}

/** `the BUY fill of order 17 (500 @ 349000, at 1200 ms, tx 0x1234abcd…)`. */
export function describeFill(record: RunRecord, fill: OwnFill): string {
  return `the ${fill.side} fill of order ${fill.orderId} (${fill.size} @ ${fill.price}, at ${fillAt(record, fill)} ms, tx ${fill.transactionHash.slice(0, 10)}…)`;
}
