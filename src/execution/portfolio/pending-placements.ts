/**
 * The engine's own requests as the portfolio knows them: each signed intent as a placement (its
 * new orders, and the orders its cancels target) from `markPending` until its slots settle, its
 * status as the relay's outcomes come (`applyOutcome`), and the transaction that carries it.
 *
 * Separate from the order registry because it holds only what the engine itself said, never an
 * order event: the registry resolves the orders a cancel targets (`PlacementTargets`), takes the
 * confirmed placements into its slot replay, and asks here which requests still count and which
 * placement a transaction is.
 */
import type { Clock } from '../../core/clock.ts';
import type { Address, Hex } from '../../protocol/encoding.ts';
import type { Intent } from '../../strategy/intents.ts';
import type { CancelTarget, NewOrder, OrderRecord, Placement } from '../slot-replay.ts';

/** What the engine learned about a signed request. */
export type RequestStatus = 'BROADCAST' | 'CONFIRMED' | 'REVERTED' | 'DROPPED' | 'REJECTED' | 'UNKNOWN';

/** What a new placement needs of the order registry. */
export interface PlacementTargets {
  /** The tracked market's address; throws PORTFOLIO_REQUEST_CONFLICT when it is not tracked. */
  tracked(market: Address, requestId: string): Address;
  /** Every tracked market. */
  all(): Iterable<Address>;
  /** The live order in each slot of `market`, as the last replay put it. */
  table(market: Address): readonly (OrderRecord | null)[];
  /** The order a cancel of `slot` targets: the one expected there (`expected`, uint64 max for none), else the one there now. */
  target(market: Address, slot: number, expected: bigint | undefined): OrderRecord | undefined;
}

export class PendingPlacements {
  readonly #clock: Pick<Clock, 'now'>;
  readonly #targets: PlacementTargets;
  readonly #requests = new Map<string, Placement>();
  /** The tracked requests still in flight (status pending), in the order they were marked. */
  readonly #inFlight = new Set<Placement>();
  readonly #byTx = new Map<Hex, Placement>();
  #confirmSeq = 0;

  constructor(clock: Pick<Clock, 'now'>, targets: PlacementTargets) {
    this.#clock = clock;
    this.#targets = targets;
  }

  /** The requests in flight, in the order they were marked. */
  get inFlight(): ReadonlySet<Placement> {
    return this.#inFlight;
  }

  /** Whether `requestId` is tracked: in flight, or confirmed and not settled in every market. */
  has(requestId: string): boolean {
    return this.#requests.has(requestId);
  }

  /** The tracked request `requestId`. */
  get(requestId: string): Placement | undefined {
    return this.#requests.get(requestId);
  }

  /** The tracked placement that transaction `tx` carries. */
  ofTransaction(tx: Hex): Placement | undefined {
    return this.#byTx.get(tx);
  }

  /** Tracks `intent`, signed now, as in flight (the caller checked `has(requestId)`). */
  mark(requestId: string, intent: Intent, expected: readonly bigint[] | undefined): Placement {
    const placement = this.#placementOf(requestId, intent, expected);
    this.#requests.set(requestId, placement);
    this.#inFlight.add(placement);
    return placement;
  }

  /** Records that `placement` is carried by `tx`. */
  bindTransaction(placement: Placement, tx: Hex): void {
    placement.txHash = tx;
    this.#byTx.set(tx, placement);
  }

  /**
   * Applies an outcome to the in-flight request `requestId`; undefined when it is not in flight.
   * A CONFIRMED placement is stamped (time, order) and left to the caller to replay.
   */
  applyOutcome(requestId: string, status: RequestStatus, txHash: Hex | undefined): Placement | undefined {
    const placement = this.#requests.get(requestId);
    if (placement === undefined || placement.status !== 'pending') return undefined;
    if (txHash !== undefined && placement.txHash === undefined) this.bindTransaction(placement, txHash);
    switch (status) {
      case 'BROADCAST':
      case 'UNKNOWN':
        break;
      case 'CONFIRMED':
        this.#inFlight.delete(placement);
        placement.status = 'confirmed';
        placement.confirmedAt = this.#clock.now();
        placement.confirmSeq = ++this.#confirmSeq;
        break;
      case 'REVERTED':
      case 'DROPPED':
      case 'REJECTED':
        this.#inFlight.delete(placement);
        this.forget(placement);
        break;
    }
    return placement;
  }

  /** Stops tracking `placement` (it failed, or no replay needs it any more). */
  forget(placement: Placement): void {
    this.#requests.delete(placement.requestId);
    if (placement.txHash !== undefined && this.#byTx.get(placement.txHash) === placement) this.#byTx.delete(placement.txHash);
  }

  #placementOf(requestId: string, intent: Intent, expected: readonly bigint[] | undefined): Placement {
    const targets = this.#targets;
    // Object.assign, not `{ ...base, more }`: that spread costs microseconds per placement.
    const base = {
      requestId,
      status: 'pending' as const,
      signedAt: this.#clock.now(),
      txHash: undefined,
      confirmedAt: 0,
      confirmSeq: 0,
      records: [],
      unsettledIn: new Set<Address>(),
    };
    switch (intent.type) {
      case 'PlaceAndCancel': {
        const market = targets.tracked(intent.market, requestId);
        return Object.assign({}, base, {
          markets: new Set([market]),
          market,
          newOrders: intent.orders.map((order) => ({ side: order.side, price: order.price, size: order.size, tif: order.tif, slot: undefined })),
          cancels: intent.cancelSlots.map((slot, i) => ({ market, slot, target: targets.target(market, slot, expected?.[i]) })),
        });
      }
      case 'ReplaceSlots': {
        const market = targets.tracked(intent.market, requestId);
        const newOrders: NewOrder[] = [];
        for (const op of intent.ops) {
          if (op.kind === 'place') newOrders.push({ side: op.side, price: op.price, size: op.size, tif: 'GTC', slot: op.slotIdx });
        }
        return Object.assign({}, base, {
          markets: new Set([market]),
          market,
          newOrders,
          cancels: intent.ops.map((op, i) => ({ market, slot: op.slotIdx, target: targets.target(market, op.slotIdx, expected?.[i]) })),
        });
      }
      case 'CancelAll': {
        const markets = intent.market === undefined ? [...targets.all()] : [targets.tracked(intent.market, requestId)];
        const cancels: CancelTarget[] = [];
        for (const market of markets) {
          targets.table(market).forEach((record, slot) => {
            if (record !== null) cancels.push({ market, slot, target: record });
          });
        }
        return Object.assign({}, base, { markets: new Set(markets), market: undefined, newOrders: [], cancels });
      }
      case 'CancelTrigger':
      case 'CreateBatchTrigger':
      case 'CreateReplaceTrigger':
        return Object.assign({}, base, { markets: new Set<Address>(), market: undefined, newOrders: [], cancels: [] });
    }
  }
}
