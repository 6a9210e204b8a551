/**
 * What a run did, per market, from the engine's streams: intents and their fates, orders placed
 * (in CONFIRMED intents), orders that left the book without filling completely (cancelled), fills,
 * volume, fees, position, realized PnL (the engine's) and unrealized PnL at the last mid (average
 * cost over the run's fills), the most requests pending at once. Read by the status line, the
 * metrics endpoint and the final summary, in human units (decimal strings).
 */
import { merge, type Observable, type Subscription } from 'rxjs';
import { Decimal } from '../core/decimal.ts';
import type { Address } from '../protocol/encoding.ts';
import type { EngineStats, IntentReport } from '../execution/execution-engine.ts';
import { applyFill, FLAT_POSITION, unrealizedPnl, type CostPosition } from '../execution/average-cost.ts';
import type { OwnFill, OwnMarketState } from '../strategy/strategy-context.ts';
import { amountScale, quoteRaw, type MarketSpec } from '../protocol/market-spec.ts';

/** The engine's streams the tracker reads. */
export interface TrackedEngine {
  readonly reports$: Observable<IntentReport>;
  readonly fills$: Observable<OwnFill>;
  state$(market: Address): Observable<OwnMarketState>;
  stats(): EngineStats;
}

interface SeenOrder {
  readonly size: bigint;
  gone: boolean;
}

interface Tally {
  readonly spec: MarketSpec;
  intents: number;
  confirmed: number;
  failed: number;
  refused: number;
  placed: number;
  fills: number;
  readonly filledOrders: Set<bigint>;
  readonly filledByOrder: Map<bigint, bigint>;
  readonly seen: Map<bigint, SeenOrder>;
  /** Ids of the orders of the latest state: only they can be gone from the next one. */
  live: Set<bigint>;
  baseVolume: bigint;
  quoteVolume: bigint;
  fillFees: bigint;
  /** Fills that happened before this run started (an earlier run's, read again after a restart). */
  readonly carried: { fills: number; baseVolume: bigint; quoteVolume: bigint; fees: bigint };
  cost: CostPosition;
  state: OwnMarketState | undefined;
  maxPending: number;
  mid: Decimal | undefined;
}

/** One market of a run, in human units (decimal strings; signed values carry their sign). */
export interface MarketSummary {
  readonly symbol: string;
  readonly base: string;
  readonly quote: string;
  /** Intents that named this market, and how they ended. */
  readonly intents: number;
  readonly confirmed: number;
  /** REVERTED, DROPPED or REJECTED. */
  readonly failed: number;
  /** REFUSED before signing (risk, kill switch). */
  readonly refused: number;
  readonly placed: number;
  readonly cancelled: number;
  /** Orders with at least one fill. */
  readonly filled: number;
  readonly fills: number;
  readonly openOrders: number;
  /** Base token. */
  readonly volume: string;
  /** Quote token. */
  readonly notional: string;
  /** Quote token. */
  readonly fees: string;
  /** Base token, signed. */
  readonly position: string;
  /** Quote token, signed, gross of fees. */
  readonly realizedPnl: string;
  /** Quote token, signed, at `mid`. */
  readonly unrealizedPnl: string;
  /** realized + unrealized - fees. */
  readonly netPnl: string;
  /** The last mid, quote per base; undefined when never known. */
  readonly mid: string | undefined;
  /** The most requests pending at once on this market. */
  readonly maxPending: number;
  readonly pending: number;
  /**
   * Fills from before this run (an earlier run's, read again after a restart): not in `fills`,
   * `filled`, `volume`, `notional` nor `fees`; the position and PnL are the account's and include them.
   */
  readonly carriedOver: { readonly fills: number; readonly volume: string; readonly notional: string; readonly fees: string };
}

/** A signed raw amount as a human decimal string of `decimals`. */
export function humanAmount(raw: bigint, scale: bigint): string {
  return new Decimal(raw.toString()).div(scale.toString()).toFixed();
}

function placedOrders(report: IntentReport): number {
  const { intent } = report;
  if (intent.type === 'PlaceAndCancel') return intent.orders.length;
  if (intent.type === 'ReplaceSlots') return intent.ops.filter((op) => op.kind === 'place').length;
  return 0;
}

/**
 * Follows the engine's streams for the markets of a run.
 *
 * @example
 * const tracker = new RunTracker(specs);
 * const subscription = tracker.attach(engine);
 * tracker.summary()[0]?.position // '-2000'
 */
export class RunTracker {
  readonly #tallies = new Map<Address, Tally>();
  #intents = 0;
  /** Fills before this clock time are an earlier run's (see `startRun`). */
  #runStartMs = Number.NEGATIVE_INFINITY;

  constructor(specs: readonly MarketSpec[]) {
    for (const spec of specs) {
      this.#tallies.set(spec.address, {
        spec,
        intents: 0,
        confirmed: 0,
        failed: 0,
        refused: 0,
        placed: 0,
        fills: 0,
        filledOrders: new Set(),
        filledByOrder: new Map(),
        seen: new Map(),
        live: new Set(),
        baseVolume: 0n,
        quoteVolume: 0n,
        fillFees: 0n,
        carried: { fills: 0, baseVolume: 0n, quoteVolume: 0n, fees: 0n },
        cost: FLAT_POSITION,
        state: undefined,
        maxPending: 0,
        mid: undefined,
      });
    }
  }

  /** Subscribes to the engine's reports, fills and every market's state. */
  attach(engine: TrackedEngine): Subscription {
    const states = [...this.#tallies.keys()].map((market) => engine.state$(market));
    const subscription = engine.reports$.subscribe((report) => this.onReport(report));
    subscription.add(engine.fills$.subscribe((fill) => this.onFill(fill)));
    subscription.add(merge(...states).subscribe((state) => this.onState(state)));
    return subscription;
  }

  /**
   * Marks the start of this run: fills older than `atMs` (an earlier run's, which the engine reads
   * again after a restart) count apart, as carried over, not as this run's.
   */
  startRun(atMs: number): void {
    this.#runStartMs = atMs;
  }

  /** The latest mid of a market, in price units. */
  onMid(market: Address, mid: Decimal): void {
    const tally = this.#tallies.get(market);
    if (tally !== undefined) tally.mid = mid;
  }

  onReport(report: IntentReport): void {
    this.#intents += 1;
    const market = 'market' in report.intent ? report.intent.market : undefined;
    const tally = market === undefined ? undefined : this.#tallies.get(market);
    if (tally === undefined) return;
    tally.intents += 1;
    switch (report.fate.status) {
      case 'CONFIRMED':
        tally.confirmed += 1;
        tally.placed += placedOrders(report);
        break;
      case 'REVERTED':
      case 'DROPPED':
      case 'REJECTED':
        tally.failed += 1;
        break;
      case 'REFUSED':
        tally.refused += 1;
        break;
      case 'SUPERSEDED':
        break;
    }
  }

  onFill(fill: OwnFill): void {
    const tally = this.#tallies.get(fill.market);
    if (tally === undefined) return;
    const quote = quoteRaw(amountScale(tally.spec), fill.price, fill.size);
    tally.filledByOrder.set(fill.orderId, (tally.filledByOrder.get(fill.orderId) ?? 0n) + fill.size);
    // The position carries every fill; the run's own figures only its own.
    tally.cost = applyFill(tally.cost, fill.side, fill.size, quote);
    if (fill.timeMs < this.#runStartMs) {
      tally.carried.fills += 1;
      tally.carried.baseVolume += fill.size;
      tally.carried.quoteVolume += quote;
      tally.carried.fees += fill.fee;
      return;
    }
    tally.fills += 1;
    tally.filledOrders.add(fill.orderId);
    tally.baseVolume += fill.size;
    tally.quoteVolume += quote;
    tally.fillFees += fill.fee;
  }

  onState(state: OwnMarketState): void {
    const tally = this.#tallies.get(state.market);
    if (tally === undefined) return;
    tally.state = state;
    if (state.pendingRequests > tally.maxPending) tally.maxPending = state.pendingRequests;
    const live = new Set<bigint>();
    for (const order of state.orders) {
      if (order.orderId === undefined) continue;
      live.add(order.orderId);
      const seen = tally.seen.get(order.orderId);
      if (seen === undefined) tally.seen.set(order.orderId, { size: order.size, gone: false });
      else seen.gone = false;
    }
    // Only the previous state's orders can have gone (a run sees thousands of orders over time).
    for (const orderId of tally.live) if (!live.has(orderId)) tally.seen.get(orderId)!.gone = true;
    tally.live = live;
  }

  /** Intents reported by the engine, on any market. */
  intents(): number {
    return this.#intents;
  }

  /** The orders of each market the engine last knew as open (by id when known), in run-file order. */
  openOrders(): { readonly symbol: string; readonly orderIds: readonly bigint[]; readonly withoutId: number }[] {
    return [...this.#tallies.values()].map((tally) => {
      const orders = tally.state?.orders ?? [];
      const orderIds = orders.flatMap((order) => (order.orderId === undefined ? [] : [order.orderId]));
      return { symbol: tally.spec.symbol, orderIds, withoutId: orders.length - orderIds.length };
    });
  }

  /** Every market, in the order of the run file. */
  summary(): MarketSummary[] {
    return [...this.#tallies.values()].map((tally) => summarize(tally));
  }
}

function summarize(tally: Tally): MarketSummary {
  const { spec, state } = tally;
  const quoteScale = 10n ** BigInt(spec.quoteToken.decimals);
  let cancelled = 0;
  for (const [orderId, seen] of tally.seen) {
    if (seen.gone && (tally.filledByOrder.get(orderId) ?? 0n) < seen.size) cancelled += 1;
  }
  const position = state?.position ?? tally.cost.size;
  const realized = state?.realizedPnl ?? tally.cost.realized;
  // Fees of every fill the engine knows (the account's, for the PnL); the run's own are its fills'.
  const fees = state?.fees ?? tally.fillFees + tally.carried.fees;
  const mark = tally.mid === undefined ? undefined : BigInt(tally.mid.toDecimalPlaces(0).toFixed());
  const unrealized = mark === undefined || tally.cost.size === 0n ? 0n : unrealizedPnl(amountScale(spec), tally.cost, mark);
  return {
    symbol: spec.symbol,
    base: spec.baseToken.symbol,
    quote: spec.quoteToken.symbol,
    intents: tally.intents,
    confirmed: tally.confirmed,
    failed: tally.failed,
    refused: tally.refused,
    placed: tally.placed,
    cancelled,
    filled: tally.filledOrders.size,
    fills: tally.fills,
    openOrders: state?.orders.length ?? 0,
    volume: humanAmount(tally.baseVolume, spec.sizePrecision),
    notional: humanAmount(tally.quoteVolume, quoteScale),
    fees: humanAmount(tally.fillFees, quoteScale),
    position: humanAmount(position, spec.sizePrecision),
    realizedPnl: humanAmount(realized, quoteScale),
    unrealizedPnl: humanAmount(unrealized, quoteScale),
    netPnl: humanAmount(realized + unrealized - fees, quoteScale),
    mid: tally.mid === undefined ? undefined : tally.mid.div(spec.pricePrecision.toString()).toFixed(),
    maxPending: tally.maxPending,
    pending: state?.pendingRequests ?? 0,
    carriedOver: {
      fills: tally.carried.fills,
      volume: humanAmount(tally.carried.baseVolume, spec.sizePrecision),
      notional: humanAmount(tally.carried.quoteVolume, quoteScale),
      fees: humanAmount(tally.carried.fees, quoteScale),
    },
  };
}
