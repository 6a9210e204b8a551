/**
 * Reconciliation: what became of a signed request whose answer or outcome was lost (UNKNOWN,
 * TIMEOUT, DISCONNECTED, a connection reset, a restart). Never a blind resend: the request is
 * looked up, and only evidence settles it. Rules, in order (docs/execution.md, "Reconciliation"):
 *
 * 1. Receipt. With a transaction hash (BROADCAST's, or UNKNOWN's `candidateTxHash`), its receipt
 *    over JSON-RPC: success CONFIRMED, failure REVERTED (how `receipt`).
 * 2. Order events. Without a hash, the account's order events: a transaction that no other request
 *    of this engine claims, on the request's market, between its signing and its deadline, whose
 *    created orders are exactly the request's new orders (side, price, size) and which cancelled
 *    every order the request expected in a slot, is its transaction: CONFIRMED (how `order-events`).
 *    Exact matches (nothing else cancelled but the orders it created itself) are assigned first, then
 *    the others (our resting orders cancelled by self-trade), lowest nonce first, one transaction per
 *    request. (A reverted transaction leaves no event: it is settled by rule 3 or 4, and "not
 *    executed" is what a revert means.)
 * 3. Nonce fence. The wallet's intent nonces only increase: once a request with a higher nonce is
 *    CONFIRMED, a lower one either executed before it or never will. So after a CONFIRMED request of
 *    higher nonce, and an order-events pass that started `eventLagMs` after that confirmation (the
 *    user-data index lags the chain) found nothing, the request was not executed.
 * 4. Deadline. Its signed deadline has passed `graceMs` ago with no evidence: not executed (the venue
 *    re-checks the deadline when it executes a transaction and refuses it after that).
 *
 * Before rules 2 to 4, a chain reset: a request sent on a connection that then closed, without a
 * receipt, while the receipt of the transaction the venue last confirmed (the witness) cannot be
 * found any more either, was sent to a chain that is gone (the venue restarted with its state
 * wiped): not executed. Without this it would wait for its deadline, and its strategy with it.
 *
 * "Not executed" resolves the request DROPPED in the journal and the fate (txHash '' when none was
 * ever learnt). The intent is not sent again: the strategy sees its fate and decides.
 */
import type { Address, Hex } from '../protocol/encoding.ts';
import type { OrderEvent } from '../protocol/user-data.ts';
import type { ReceiptReader } from './execution-engine.ts';
import { planCancelledIds, planMarket, planNewOrders, type RequestPlan } from './intent-plan.ts';

/** A request under reconciliation, as the reconciler sees it. */
export interface ReconcileSubject {
  readonly requestId: string;
  readonly nonce: bigint;
  /** What it does; undefined when its body could not be read (then only its hash can settle it). */
  readonly plan: RequestPlan | undefined;
  /** Clock time of its `signed` record. */
  readonly signedAt: number;
  /** Its signed deadline, ms since the epoch. */
  readonly deadlineMs: number;
  readonly txHash: Hex | undefined;
  /** It was awaiting its outcome on a relay connection that closed: sent to the venue as it was then. */
  readonly sentOnClosedConnection?: boolean;
}

export type Verdict =
  | { readonly kind: 'executed'; readonly status: 'CONFIRMED' | 'REVERTED'; readonly txHash: Hex; readonly how: 'receipt' | 'order-events'; readonly blockNumber?: bigint }
  | {
      readonly kind: 'not-executed';
      readonly how: 'receipt' | 'order-events';
      /** Which rule decided it, the DROPPED fate's code (docs/errors.md). */
      readonly code: 'INTENT_DROPPED_VENUE_RESET' | 'INTENT_DROPPED_NONCE_FENCED' | 'INTENT_DROPPED_DEADLINE';
      readonly reason: string;
      readonly details?: Readonly<Record<string, string | number>>;
    }
  | { readonly kind: 'unknown' };

export interface ReconcileRules {
  /** After its deadline plus this much with no evidence, a request was not executed. */
  readonly graceMs: number;
  /** How long the order events may lag a confirmation (the API caches answers 2 s). */
  readonly eventLagMs: number;
}

/** The highest-nonce CONFIRMED request of the wallet and when it was learnt. */
export interface NonceFence {
  readonly nonce: bigint;
  readonly atMs: number;
}

export interface ReconcileContext {
  readonly receipts: ReceiptReader;
  readonly evidence: TxEvidence;
  readonly fence: NonceFence | undefined;
  /** Clock time the current pass started (its order events were read after it). */
  readonly passStartedAt: number;
  /** Clock time now. */
  readonly now: number;
  readonly rules: ReconcileRules;
  /** The transaction the venue last confirmed for the wallet: while its receipt is found, the chain is the one requests were sent to. */
  readonly witness?: Hex;
}

interface CreatedOrder {
  readonly orderId: bigint;
  readonly side: 'BUY' | 'SELL';
  readonly price: bigint;
  readonly size: bigint;
}

interface TxRecord {
  readonly txHash: Hex;
  readonly market: Address;
  timeMs: number;
  readonly created: CreatedOrder[];
  readonly canceled: Set<bigint>;
  readonly keys: Set<string>;
}

/** Block times and our clock may differ a little; windows are widened by this much. */
const SKEW_MS = 5_000;

/**
 * The account's order events grouped by transaction, and which transactions belong to a request of
 * this engine ("claimed"). Fed by the engine's order-events polls.
 *
 * @example
 * const evidence = new TxEvidence();
 * evidence.add(events);
 * evidence.claim(txHash);
 * evidence.match(subject); // the hash of the transaction that must be the subject's, if any
 */
export class TxEvidence {
  readonly #txs = new Map<Hex, TxRecord>();
  readonly #claimed = new Map<Hex, number>();
  /**
   * (time, tx) for every time a tx or claim took, oldest first: `prune` (once per poll) visits only
   * what may be due instead of every tx and claim. Entries whose tx or claim moved on are skipped.
   */
  readonly #txDue = new TimeQueue<Hex>();
  readonly #claimDue = new TimeQueue<Hex>();

  /** Adds order events (any order, duplicates ignored). */
  add(events: readonly OrderEvent[]): void {
    for (const event of events) {
      const txHash = event.transactionHash.toLowerCase() as Hex;
      const timeMs = Date.parse(event.blockTimestamp);
      if (Number.isNaN(timeMs)) continue;
      const data = event.eventData;
      let record = this.#txs.get(txHash);
      if (record === undefined) {
        record = { txHash, market: data.marketAddress.toLowerCase() as Address, timeMs, created: [], canceled: new Set(), keys: new Set() };
        this.#txs.set(txHash, record);
      }
      const key = `${event.eventType}:${data.orderId}${event.eventType === 'trade' ? `:${event.eventData.filledSize}:${event.eventData.updatedSize}` : ''}`;
      if (record.keys.has(key)) continue;
      record.keys.add(key);
      if (record.keys.size === 1 || timeMs < record.timeMs) this.#txDue.push(timeMs, txHash);
      if (timeMs < record.timeMs) record.timeMs = timeMs;
      if (event.eventType === 'order-created') {
        record.created.push({ orderId: BigInt(data.orderId), side: data.isBuy ? 'BUY' : 'SELL', price: BigInt(event.eventData.price), size: BigInt(event.eventData.size) });
      } else if (event.eventType === 'order-canceled') {
        record.canceled.add(BigInt(data.orderId));
      }
    }
  }

  /** Marks a transaction as a known request's (it can no longer be matched to another). */
  claim(txHash: Hex, atMs = 0): void {
    const hash = txHash.toLowerCase() as Hex;
    this.#claimed.set(hash, atMs);
    this.#claimDue.push(atMs, hash);
  }

  isClaimed(txHash: Hex): boolean {
    return this.#claimed.has(txHash.toLowerCase() as Hex);
  }

  /** True when some order event of this transaction was seen. */
  seen(txHash: Hex): boolean {
    return this.#txs.has(txHash.toLowerCase() as Hex);
  }

  /** Transactions indexed. */
  size(): number {
    return this.#txs.size;
  }

  /** Forgets transactions (and claims) older than `beforeMs`. */
  prune(beforeMs: number): void {
    // A tx's current time has an entry (times only decrease); so has a claim's, or it waits for its tx.
    for (let txHash = this.#txDue.popBefore(beforeMs); txHash !== undefined; txHash = this.#txDue.popBefore(beforeMs)) {
      if ((this.#txs.get(txHash)?.timeMs ?? beforeMs) >= beforeMs) continue;
      this.#txs.delete(txHash);
      const atMs = this.#claimed.get(txHash);
      if (atMs !== undefined) this.#claimDue.push(atMs, txHash);
    }
    for (let txHash = this.#claimDue.popBefore(beforeMs); txHash !== undefined; txHash = this.#claimDue.popBefore(beforeMs)) {
      if ((this.#claimed.get(txHash) ?? beforeMs) < beforeMs && !this.#txs.has(txHash)) this.#claimed.delete(txHash);
    }
  }

  /**
   * The unclaimed transaction (not in `taken` either) that must be `subject`'s by rule 2, oldest
   * first; undefined when none. `exact`: nothing cancelled beyond what it expected and created.
   */
  match(subject: ReconcileSubject, mode: 'exact' | 'loose' = 'loose', taken: ReadonlySet<Hex> = new Set()): Hex | undefined {
    const plan = subject.plan;
    if (plan === undefined) return undefined;
    const market = planMarket(plan);
    if (market === undefined) return undefined;
    const wanted = planNewOrders(plan);
    const cancelled = new Set(planCancelledIds(plan));
    const from = subject.signedAt - SKEW_MS;
    const to = subject.deadlineMs + SKEW_MS;
    let best: TxRecord | undefined;
    for (const record of this.#txs.values()) {
      if (record.market !== market.toLowerCase() || record.timeMs < from || record.timeMs > to) continue;
      if (this.#claimed.has(record.txHash) || taken.has(record.txHash)) continue;
      if (!matches(record, wanted, cancelled, mode === 'exact')) continue;
      if (best === undefined || record.timeMs < best.timeMs) best = record;
    }
    return best?.txHash;
  }
}

function matches(record: TxRecord, wanted: readonly { side: string; price: bigint; size: bigint }[], cancelled: ReadonlySet<bigint>, exact: boolean): boolean {
  // Every order it expected in a slot was cancelled (a request's cancels are all or nothing).
  for (const id of cancelled) if (!record.canceled.has(id)) return false;
  if (exact) {
    const createdIds = new Set(record.created.map((order) => order.orderId));
    for (const id of record.canceled) if (!cancelled.has(id) && !createdIds.has(id)) return false;
  }
  if (wanted.length === 0) return record.created.length === 0 && cancelled.size > 0;
  if (record.created.length !== wanted.length) return false;
  const left = wanted.map((order) => `${order.side}:${order.price}:${order.size}`);
  for (const order of record.created) {
    const index = left.indexOf(`${order.side}:${order.price}:${order.size}`);
    if (index < 0) return false;
    left.splice(index, 1);
  }
  return true;
}

/**
 * One reconciliation pass over `subjects`: a verdict for each, from receipts (read concurrently),
 * the order events (exact matches first, then the others, lowest nonce first, one transaction per
 * request), the nonce fence or the deadline; `unknown` when nothing settles it yet, or when its
 * receipt could not be read.
 *
 * @example
 * const verdicts = await reconcilePass(subjects, { receipts, evidence, fence, passStartedAt, now: clock.now(), rules });
 */
export async function reconcilePass(subjects: readonly ReconcileSubject[], context: ReconcileContext): Promise<Map<string, Verdict>> {
  const { receipts, evidence, fence, passStartedAt, now, rules } = context;
  const ordered = [...subjects].sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0));
  const reads = await Promise.all(
    ordered.map((subject) => (subject.txHash === undefined ? Promise.resolve(null) : receipts.receipt(subject.txHash).catch(() => undefined))),
  );
  const verdicts = new Map<string, Verdict>();
  const unreadable = new Set<string>();
  ordered.forEach((subject, index) => {
    if (subject.txHash === undefined) return;
    const receipt = reads[index];
    if (receipt === undefined) unreadable.add(subject.requestId);
    else if (receipt !== null) {
      verdicts.set(subject.requestId, { kind: 'executed', status: receipt.success ? 'CONFIRMED' : 'REVERTED', txHash: subject.txHash, how: 'receipt', blockNumber: receipt.blockNumber });
    }
  });
  // A chain reset: the witness's receipt is gone too, so what was sent before the connection closed
  // went with it, even a transaction whose order events were seen (they were the old chain's).
  const lost = ordered.filter((subject) => subject.sentOnClosedConnection === true && !verdicts.has(subject.requestId) && !unreadable.has(subject.requestId));
  if (lost.length > 0 && context.witness !== undefined && !lost.some((subject) => subject.txHash === context.witness)) {
    const witness = await receipts.receipt(context.witness).catch(() => undefined);
    if (witness === null) {
      for (const subject of lost) {
        verdicts.set(subject.requestId, {
          kind: 'not-executed',
          how: subject.txHash === undefined ? 'order-events' : 'receipt',
          code: 'INTENT_DROPPED_VENUE_RESET',
          reason: "not executed: the venue's chain no longer holds the transaction it last confirmed for the wallet (it restarted with its state wiped), and this request was sent to it before",
        });
      }
    }
  }
  // Order events name the transaction although its receipt was not found (the event index ahead of the node).
  for (const subject of ordered) {
    if (subject.txHash !== undefined && !verdicts.has(subject.requestId) && !unreadable.has(subject.requestId) && evidence.seen(subject.txHash)) {
      verdicts.set(subject.requestId, { kind: 'executed', status: 'CONFIRMED', txHash: subject.txHash, how: 'order-events' });
    }
  }
  const taken = new Set<Hex>();
  for (const mode of ['exact', 'loose'] as const) {
    for (const subject of ordered) {
      if (subject.txHash !== undefined || verdicts.has(subject.requestId)) continue;
      const txHash = evidence.match(subject, mode, taken);
      if (txHash === undefined) continue;
      taken.add(txHash);
      verdicts.set(subject.requestId, { kind: 'executed', status: 'CONFIRMED', txHash, how: 'order-events' });
    }
  }
  for (const subject of ordered) {
    if (verdicts.has(subject.requestId)) continue;
    if (unreadable.has(subject.requestId)) {
      verdicts.set(subject.requestId, { kind: 'unknown' });
      continue;
    }
    verdicts.set(subject.requestId, lastResort(subject, fence, passStartedAt, now, rules));
  }
  return verdicts;
}

/** Rules 3 and 4 for a request nothing else settled. */
function lastResort(subject: ReconcileSubject, fence: NonceFence | undefined, passStartedAt: number, now: number, rules: ReconcileRules): Verdict {
  const how = subject.txHash === undefined ? 'order-events' : 'receipt';
  if (fence !== undefined && fence.nonce > subject.nonce && passStartedAt >= fence.atMs + rules.eventLagMs) {
    return {
      kind: 'not-executed',
      how,
      code: 'INTENT_DROPPED_NONCE_FENCED',
      reason: `not executed: nonce ${fence.nonce} above it was confirmed and nothing shows it`,
      details: { confirmedNonce: fence.nonce.toString() },
    };
  }
  if (now >= subject.deadlineMs + rules.graceMs) {
    return {
      kind: 'not-executed',
      how,
      code: 'INTENT_DROPPED_DEADLINE',
      reason: `not executed: no trace ${rules.graceMs} ms after its deadline`,
      details: { deadlineMs: subject.deadlineMs, graceMs: rules.graceMs },
    };
  }
  return { kind: 'unknown' };
}

/** `reconcilePass` for one request. */
export async function reconcileRequest(subject: ReconcileSubject, context: ReconcileContext): Promise<Verdict> {
  return (await reconcilePass([subject], context)).get(subject.requestId) ?? { kind: 'unknown' };
}

/** A binary min-heap of (time, value). */
class TimeQueue<T> {
  readonly #times: number[] = [];
  readonly #values: T[] = [];

  push(time: number, value: T): void {
    const times = this.#times;
    const values = this.#values;
    let i = times.length;
    times.push(time);
    values.push(value);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (times[parent]! <= time) break;
      times[i] = times[parent]!;
      values[i] = values[parent]!;
      i = parent;
    }
    times[i] = time;
    values[i] = value;
  }

  /** Removes and returns the value of the earliest entry when its time is before `beforeMs`. */
  popBefore(beforeMs: number): T | undefined {
    const times = this.#times;
    const values = this.#values;
    if (times.length === 0 || !(times[0]! < beforeMs)) return undefined;
    const top = values[0]!;
    const time = times.pop()!;
    const value = values.pop()!;
    const n = times.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        let child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && times[child + 1]! < times[child]!) child++;
        if (times[child]! >= time) break;
        times[i] = times[child]!;
        values[i] = values[child]!;
        i = child;
      }
      times[i] = time;
      values[i] = value;
    }
    return top;
  }
}
