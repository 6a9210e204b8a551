/**
 * Background order flow of the simulated venue: a seeded synthetic market so the books are alive
 * without any bot. Per market (its own seed, so adding a market never changes another's flow):
 *
 * - Mid: geometric Brownian motion with the configured annualised volatility (zero drift, a year of
 *   365 days: the venue trades around the clock), sampled exactly at each arrival time.
 * - Arrivals: one Poisson process of rate `limit + cancel + market` per second (exponential
 *   inter-arrival times); each arrival is a limit, cancel or market order in proportion to its rate,
 *   from a background account picked uniformly.
 * - Limit: GTC (not post-only: one that crosses a stale order trades) at a distance uniform in
 *   `0..maxDistanceBps` from the mid, snapped to the tick on the passive side (buys down, sells up),
 *   size uniform in `orderSize`. The side balances the book: an empty side of the book gets 90 % of
 *   the arrivals, otherwise the side with fewer background orders is favoured.
 * - Cancel: one of the account's resting orders, the one farthest from the mid half the time, a
 *   uniform one otherwise.
 * - Market: IOC with a limit `maxDistanceBps` through the mid, on a side whose best price it crosses.
 * - Slots: an account keeps at most MAX_BACKGROUND_RESTING orders per market (of 62 slots): when a
 *   limit arrival would exceed it, its oldest orders are cancelled first (each in its own tx).
 * - Funds: each account is credited 10,000 worst-case orders of both tokens at start and topped up
 *   (venue credit, not a transaction) whenever it has less than 1,000 worst-case orders available.
 *
 * Time and randomness come only from the clock's scheduler and the seeded source, so the same seed
 * on the same clock gives the same orders, whatever steps the clock is advanced by.
 *
 * Why one file of this size: the arrival process, its seeded draws and the order it takes them in are
 * one thing (the same seed must give the same flow); the slot scans live in flow-slots.ts.
 */
import type { SchedulerAction, Subscription } from 'rxjs';
import { keccak256, stringToHex } from 'viem';
import { BaseError } from '../core/base-error.ts';
import type { Clock } from '../core/clock.ts';
import { Decimal } from '../core/decimal.ts';
import { seededRandom, type RandomSource } from '../core/random.ts';
import { MAX_PRICE_UNITS, toUnits } from '../core/units.ts';
import type { SimFlowConfig } from '../config/sim-config.ts';
import { MAKER_SLOTS, type OrderSide } from '../protocol/constants.ts';
import type { Address } from '../protocol/encoding.ts';
import type { OrderIntent } from '../protocol/intent-types.ts';
import { amountScale, baseRaw, feeRaw, quoteRaw, type AmountScale, type MarketSpec } from '../protocol/market-spec.ts';
import {
  countSides,
  farthestLive,
  liveCount,
  nthLive,
  oldestLiveAfter,
  openCount,
  PendingCancels,
  type FlowRestingOrder,
  type FlowSlotList,
} from './flow-slots.ts';

export type { FlowRestingOrder };

// ---- the port --------------------------------------------------------------------------------

/** A `wallet.execute_batch` of a background account, decoded (no header, no signature). */
export interface FlowBatch {
  readonly kind: 'batch';
  readonly orders: readonly OrderIntent[];
  readonly cancelSlotIdxs: readonly number[];
  /** One per cancel slot: the order id in that slot. */
  readonly expectedOrderIds: readonly bigint[];
}

/**
 * What the background flow needs of the venue. Reads see the executed state (the newest block);
 * `enqueue` queues a transaction for the next block, like a relay submission.
 */
export interface FlowVenue {
  /** Opens the owner's account if needed, credits `amount` raw units of `token`, returns the account id. */
  fund(owner: Address, token: Address, amount: bigint): bigint;
  /** Available (unlocked) raw balance of `token`. */
  available(accountId: bigint, token: Address): bigint;
  /** Best bid and ask of a market, price units (null: that side is empty). */
  bestBidAsk(market: Address): { readonly bid: bigint | null; readonly ask: bigint | null };
  /**
   * The account's maker slots on `market` in slot order, null where empty; undefined before its
   * first order there. The venue's live array: once it exists, the same array for good (the flow
   * keeps it, and reads it only synchronously).
   */
  slots(accountId: bigint, market: Address): FlowSlotList | undefined;
  /** Queues a transaction of `accountId` on `market` for the next block. */
  enqueue(accountId: bigint, market: Address, tx: FlowBatch): void;
}

// ---- parameters ------------------------------------------------------------------------------

/** Resting orders a background account keeps at most per market (the other slots are margin). */
export const MAX_BACKGROUND_RESTING = 40;
/** Orders per side placed at start, so the book is two-sided from the first block. */
export const WARM_UP_ORDERS_PER_SIDE = 5;
/** Credited per account and token at start and on each top-up, in worst-case orders. */
const FUND_ORDERS = 10_000n;
/** Top up when less than this many worst-case orders are available. */
const REFILL_ORDERS = 1_000n;
/** Arrivals handled in one wake-up at most (a live process that slept skips the backlog). */
const MAX_CATCH_UP = 10_000;
const MS_PER_YEAR = 365 * 24 * 3600 * 1000;

export interface BackgroundFlowMarket {
  readonly spec: MarketSpec;
  readonly flow: SimFlowConfig;
}

export interface BackgroundFlowOptions {
  /** Markets with their flow; markets without one are simply not listed. */
  readonly markets: readonly BackgroundFlowMarket[];
  readonly clock: Clock;
  /** Mixed into each market's `flow.seed` (e.g. `clobbot sim --seed`); absent: the configured seeds. */
  readonly seed?: number;
  /**
   * How long after `enqueue` a transaction may still be pending (ms): its order counts against the
   * slot cap and its cancel is not repeated until then. At least one block; default 1000.
   */
  readonly settleMs?: number;
  /** Resting orders per account and market at most; default MAX_BACKGROUND_RESTING. */
  readonly maxRestingPerAccount?: number;
}

export interface FlowArrivals {
  readonly limit: number;
  readonly cancel: number;
  readonly market: number;
}

export interface BackgroundFlow {
  /** Stops scheduling arrivals. Idempotent; queued transactions stay queued. */
  stop(): void;
  /** The model mid of a market in price units (floored), as of its last arrival. */
  mid(market: Address): bigint | undefined;
  /** The background accounts of a market, in index order. */
  accountIds(market: Address): readonly bigint[];
  /** Arrivals so far of a market, by kind (warm-up orders not included). */
  arrivals(market: Address): FlowArrivals | undefined;
}

/**
 * The owner address of background account `index` of a market: the last 20 bytes of
 * keccak256("clobbot sim background <symbol> <index>").
 *
 * @example backgroundOwner('MON_USDC', 0) // '0x…' (stable)
 */
export function backgroundOwner(symbol: string, index: number): Address {
  return `0x${keccak256(stringToHex(`clobbot sim background ${symbol} ${index}`)).slice(-40)}`;
}

/** A market's seed, with the optional run seed mixed in. */
function marketSeed(flowSeed: number, runSeed: number | undefined): number {
  if (runSeed === undefined) return flowSeed >>> 0;
  return (Math.imul(flowSeed ^ 0x5bd1e995, 0x9e3779b1) ^ Math.imul(runSeed + 0x632be5ab, 0x85ebca6b)) >>> 0;
}

/** Uniform bigint in `lo..hi` (inclusive) from 32-bit draws. */
function uniformBigInt(random: RandomSource, lo: bigint, hi: bigint): bigint {
  const span = hi - lo + 1n;
  if (span <= 1n) return lo;
  if (span <= 1n << 32n) return lo + BigInt(Math.floor(random.next() * Number(span)));
  let bits = 0n;
  let value = 0n;
  while (1n << bits < span << 16n) {
    value = (value << 32n) | BigInt(Math.floor(random.next() * 4294967296));
    bits += 32n;
  }
  return lo + (value % span);
}

/** Standard normal (Box-Muller, one value per two draws). */
function normal(random: RandomSource): number {
  const u1 = 1 - random.next(); // (0, 1]
  const u2 = random.next();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

interface FlowAccount {
  readonly id: bigint;
  readonly owner: Address;
  /** Enqueue times of GTC orders that may not have executed yet. */
  readonly pendingPlaces: number[];
  /** Its orders whose cancel was enqueued and may still be pending. */
  readonly cancels: PendingCancels;
  /** The venue's slots array of the account, once it exists. */
  slots: FlowSlotList | undefined;
}

const NO_SLOTS: FlowSlotList = [];

/** The flow of one market. */
class MarketFlow {
  readonly spec: MarketSpec;
  readonly arrivals = { limit: 0, cancel: 0, market: 0 };
  readonly accounts: FlowAccount[] = [];
  private readonly scale: AmountScale;
  private readonly random: RandomSource;
  private readonly tick: bigint;
  private readonly tickN: number;
  private readonly maxPrice: bigint;
  private readonly sizeMin: bigint;
  private readonly sizeMax: bigint;
  private readonly maxDistance: number;
  private readonly sigma: number;
  private readonly rates: FlowArrivals;
  private readonly totalRate: number;
  private readonly maxFeePps: bigint;
  private readonly accountCount: number;
  /** Mid in price units (a float: the random model), and when it was last sampled. */
  midUnits: number;
  private midAt: number;
  /** Float ms of the next arrival. */
  private nextAt: number;
  private subscription: Subscription | null = null;
  /** Scratch of `chooseLimitSide`. */
  private readonly sideCounts = { bids: 0, asks: 0 };

  constructor(
    private readonly venue: FlowVenue,
    private readonly clock: Clock,
    market: BackgroundFlowMarket,
    seed: number,
    private readonly settleMs: number,
    private readonly maxResting: number,
  ) {
    const { spec, flow } = market;
    this.spec = spec;
    this.scale = amountScale(spec);
    this.random = seededRandom(seed);
    this.tick = spec.tickSize;
    this.tickN = Number(spec.tickSize);
    this.maxPrice = (MAX_PRICE_UNITS / spec.tickSize) * spec.tickSize;
    const sizeMin = toUnits(flow.orderSize.min, spec.sizePrecision, 'up');
    const sizeMax = toUnits(flow.orderSize.max, spec.sizePrecision, 'down');
    this.sizeMin = sizeMin < spec.minSize ? spec.minSize : sizeMin;
    this.sizeMax = sizeMax > spec.maxSize ? spec.maxSize : sizeMax;
    if (this.sizeMin > this.sizeMax) {
      throw new BaseError(
        'CONFIG_INVALID',
        `market ${spec.symbol}: flow.orderSize ${flow.orderSize.min}..${flow.orderSize.max} has no size within minSize..maxSize`,
        { details: { market: spec.symbol, minSize: spec.minSize.toString(), maxSize: spec.maxSize.toString() } },
      );
    }
    this.maxDistance = flow.maxDistanceBps / 10_000;
    this.sigma = flow.volatility;
    this.rates = { ...flow.arrivalsPerSecond };
    this.totalRate = this.rates.limit + this.rates.cancel + this.rates.market;
    this.maxFeePps = spec.makerFeePps > spec.takerFeePps ? spec.makerFeePps : spec.takerFeePps;
    const mid = new Decimal(flow.midPrice).times(spec.pricePrecision.toString()).toNumber();
    this.midUnits = Math.min(Math.max(mid, this.tickN), Number(this.maxPrice));
    this.midAt = clock.now();
    this.nextAt = this.midAt;
    this.accountCount = flow.accounts;
  }

  /** Funds the accounts, queues the warm-up orders and schedules the first arrival. */
  start(): void {
    for (let i = 0; i < this.accountCount; i++) {
      const owner = backgroundOwner(this.spec.symbol, i);
      const id = this.venue.fund(owner, this.spec.baseToken.address, this.baseNeed() * FUND_ORDERS);
      this.venue.fund(owner, this.spec.quoteToken.address, this.quoteNeed() * FUND_ORDERS);
      this.accounts.push({ id, owner, pendingPlaces: [], cancels: new PendingCancels(), slots: undefined });
    }
    this.warmUp();
    if (this.totalRate > 0) {
      this.nextAt = this.clock.now() + this.interArrivalMs();
      this.scheduleNext();
    }
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = null;
  }

  private scheduleNext(): void {
    this.subscription = this.clock.scheduler.schedule(wakeFlow, this.nextDelay(), this);
  }

  private nextDelay(): number {
    return Math.max(0, Math.ceil(this.nextAt) - this.clock.now());
  }

  wake(action: SchedulerAction<MarketFlow>): void {
    const now = this.clock.now();
    let handled = 0;
    while (this.nextAt <= now) {
      if (handled++ >= MAX_CATCH_UP) {
        this.nextAt = now;
        break;
      }
      this.arrive(this.nextAt);
      this.nextAt += this.interArrivalMs();
    }
    // The action reschedules itself, as `scheduler.schedule` would queue a new one (same order).
    if (this.subscription !== null) this.subscription = action.schedule(this, this.nextDelay());
  }

  private interArrivalMs(): number {
    return (-Math.log(1 - this.random.next()) / this.totalRate) * 1000;
  }

  /** Moves the mid to time `at` along its geometric Brownian motion. */
  private stepMid(at: number): void {
    const dt = (at - this.midAt) / MS_PER_YEAR;
    this.midAt = at;
    if (dt <= 0 || this.sigma === 0) return;
    const z = normal(this.random);
    const next = this.midUnits * Math.exp(-0.5 * this.sigma * this.sigma * dt + this.sigma * Math.sqrt(dt) * z);
    this.midUnits = Math.min(Math.max(next, this.tickN), Number(this.maxPrice));
  }

  private arrive(at: number): void {
    this.stepMid(at);
    const pick = this.random.next() * this.totalRate;
    const account = this.accounts[Math.floor(this.random.next() * this.accounts.length)]!;
    if (pick < this.rates.limit) {
      this.arrivals.limit++;
      this.limitOrder(account, this.chooseLimitSide(), at);
    } else if (pick < this.rates.limit + this.rates.cancel) {
      this.arrivals.cancel++;
      this.cancelOne(account, at);
    } else {
      this.arrivals.market++;
      this.marketOrder(account);
    }
  }

  // ---- prices and sizes ------------------------------------------------------------------------

  private floorTick(units: number): bigint {
    const price = BigInt(Math.floor(units / this.tickN)) * this.tick;
    return price < this.tick ? this.tick : price > this.maxPrice ? this.maxPrice : price;
  }

  private ceilTick(units: number): bigint {
    const price = BigInt(Math.ceil(units / this.tickN)) * this.tick;
    return price < this.tick ? this.tick : price > this.maxPrice ? this.maxPrice : price;
  }

  /** The highest price a background buy pays: the market-order limit. */
  private buyLimit(): bigint {
    return this.ceilTick(this.midUnits * (1 + this.maxDistance));
  }

  private sellLimit(): bigint {
    return this.floorTick(this.midUnits * (1 - this.maxDistance));
  }

  private size(): bigint {
    return uniformBigInt(this.random, this.sizeMin, this.sizeMax);
  }

  /** Worst-case raw quote of one background buy at the current mid. */
  private quoteNeed(): bigint {
    const quote = quoteRaw(this.scale, this.buyLimit(), this.sizeMax);
    const need = quote + feeRaw(quote, this.maxFeePps);
    return need > 0n ? need : 1n;
  }

  private baseNeed(): bigint {
    const need = baseRaw(this.scale, this.sizeMax);
    return need > 0n ? need : 1n;
  }

  /** Credits the account when it is running low on the token a `side` order spends. */
  private ensureFunds(account: FlowAccount, side: OrderSide): void {
    const token = side === 'BUY' ? this.spec.quoteToken.address : this.spec.baseToken.address;
    const need = side === 'BUY' ? this.quoteNeed() : this.baseNeed();
    if (this.venue.available(account.id, token) < need * REFILL_ORDERS) this.venue.fund(account.owner, token, need * FUND_ORDERS);
  }

  // ---- actions -------------------------------------------------------------------------------

  private chooseLimitSide(): OrderSide {
    const { bid, ask } = this.venue.bestBidAsk(this.spec.address);
    let pBid: number;
    if (bid === null && ask !== null) pBid = 0.9;
    else if (ask === null && bid !== null) pBid = 0.1;
    else {
      const counts = this.sideCounts;
      counts.bids = 0;
      counts.asks = 0;
      for (const account of this.accounts) countSides(this.slotsOf(account), counts);
      pBid = (counts.asks + 1) / (counts.bids + counts.asks + 2);
    }
    return this.random.next() < pBid ? 'BUY' : 'SELL';
  }

  private placeLimit(account: FlowAccount, side: OrderSide, at: number): void {
    const distance = this.maxDistance * this.random.next();
    const price = side === 'BUY' ? this.floorTick(this.midUnits * (1 - distance)) : this.ceilTick(this.midUnits * (1 + distance));
    const quantity = this.size();
    this.ensureFunds(account, side);
    this.venue.enqueue(account.id, this.spec.address, {
      kind: 'batch',
      orders: [{ side, quantity, price, tif: 'GTC', executionInstruction: 'NONE', minSizeAfterBlock: 0n }],
      cancelSlotIdxs: [],
      expectedOrderIds: [],
    });
    account.pendingPlaces.push(at);
  }

  /** A limit arrival: makes room under the slot cap (oldest orders first), then places. */
  private limitOrder(account: FlowAccount, side: OrderSide, at: number): void {
    const pending = account.pendingPlaces;
    while (pending.length > 0 && pending[0]! + this.settleMs <= at) pending.shift();
    // Orders placed but maybe not executed yet count against the cap: a burst waits for its block.
    if (pending.length >= this.maxResting) return;
    const slots = this.slotsOf(account);
    account.cancels.expire(at);
    const excess = liveCount(slots, account.cancels) + pending.length + 1 - this.maxResting;
    // The `excess` oldest live orders, oldest first: a scan each (excess is small).
    let after = -1n;
    for (let n = 0; n < excess; n++) {
      const oldest = oldestLiveAfter(slots, account.cancels, after)!;
      after = oldest.id;
      this.enqueueCancel(account, oldest, at);
    }
    // The cancels just queued run first; earlier ones may still fail, so they are not counted.
    if (openCount(slots) - Math.max(excess, 0) + pending.length >= MAKER_SLOTS) return;
    this.placeLimit(account, side, at);
  }

  private cancelOne(account: FlowAccount, at: number): void {
    const slots = this.slotsOf(account);
    account.cancels.expire(at);
    const live = liveCount(slots, account.cancels);
    if (live === 0) return;
    const target =
      this.random.next() < 0.5
        ? farthestLive(slots, account.cancels, this.midUnits)
        : nthLive(slots, account.cancels, Math.floor(this.random.next() * live));
    this.enqueueCancel(account, target!, at);
  }

  private marketOrder(account: FlowAccount): void {
    const { bid, ask } = this.venue.bestBidAsk(this.spec.address);
    const buyLimit = this.buyLimit();
    const sellLimit = this.sellLimit();
    const canBuy = ask !== null && ask <= buyLimit;
    const canSell = bid !== null && bid >= sellLimit;
    const coin = this.random.next();
    const quantity = this.size();
    if (!canBuy && !canSell) return;
    const side: OrderSide = canBuy && canSell ? (coin < 0.5 ? 'BUY' : 'SELL') : canBuy ? 'BUY' : 'SELL';
    this.ensureFunds(account, side);
    this.venue.enqueue(account.id, this.spec.address, {
      kind: 'batch',
      orders: [
        { side, quantity, price: side === 'BUY' ? buyLimit : sellLimit, tif: 'IOC', executionInstruction: 'NONE', minSizeAfterBlock: 0n },
      ],
      cancelSlotIdxs: [],
      expectedOrderIds: [],
    });
  }

  private slotsOf(account: FlowAccount): FlowSlotList {
    return (account.slots ??= this.venue.slots(account.id, this.spec.address)) ?? NO_SLOTS;
  }

  private enqueueCancel(account: FlowAccount, order: FlowRestingOrder, at: number): void {
    this.venue.enqueue(account.id, this.spec.address, {
      kind: 'batch',
      orders: [],
      cancelSlotIdxs: [order.slot],
      expectedOrderIds: [order.id],
    });
    account.cancels.add(order.id, at + this.settleMs);
  }

  /** Places WARM_UP_ORDERS_PER_SIDE orders per side, round robin over the accounts. */
  private warmUp(): void {
    const at = this.clock.now();
    for (let i = 0; i < WARM_UP_ORDERS_PER_SIDE * 2; i++) {
      const account = this.accounts[i % this.accounts.length]!;
      this.placeLimit(account, i % 2 === 0 ? 'BUY' : 'SELL', at);
    }
  }
}

function wakeFlow(this: SchedulerAction<MarketFlow>, flow?: MarketFlow): void {
  flow!.wake(this);
}

/**
 * Starts the background flow of every listed market on `venue`: funds its accounts, queues the
 * warm-up orders at once, then schedules arrivals on `clock.scheduler`.
 *
 * @example
 * const flow = startBackgroundFlow(venue, { markets: [{ spec: monUsdc, flow: config.markets[0].flow }], clock });
 * clock.advanceBy(60_000); // a minute of limit, cancel and market orders queued on the venue
 * flow.stop();
 */
export function startBackgroundFlow(venue: FlowVenue, options: BackgroundFlowOptions): BackgroundFlow {
  const settleMs = options.settleMs ?? 1000;
  const maxResting = options.maxRestingPerAccount ?? MAX_BACKGROUND_RESTING;
  if (!(settleMs >= 0) || !Number.isInteger(maxResting) || maxResting < 1 || maxResting >= MAKER_SLOTS) {
    throw new BaseError('CONFIG_INVALID', `background flow: settleMs must be >= 0 and maxRestingPerAccount in 1..${MAKER_SLOTS - 1}`, {
      details: { settleMs, maxResting },
    });
  }
  const flows = new Map<Address, MarketFlow>();
  for (const market of options.markets) {
    const flow = new MarketFlow(venue, options.clock, market, marketSeed(market.flow.seed, options.seed), settleMs, maxResting);
    flows.set(market.spec.address, flow);
  }
  // Every market is validated before any account is funded.
  for (const flow of flows.values()) flow.start();
  return {
    stop() {
      for (const flow of flows.values()) flow.stop();
    },
    mid(market) {
      const flow = flows.get(market);
      return flow === undefined ? undefined : BigInt(Math.floor(flow.midUnits));
    },
    accountIds(market) {
      return flows.get(market)?.accounts.map((account) => account.id) ?? [];
    },
    arrivals(market) {
      const flow = flows.get(market);
      return flow === undefined ? undefined : { ...flow.arrivals };
    },
  };
}
