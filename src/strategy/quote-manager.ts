/**
 * The quote manager: from desired quotes (price levels and sizes per side, in units) and the current
 * maker slots to the smallest set of slot operations that makes the slots hold those quotes.
 *
 * Rules (docs/strategies.md, "The quote manager"):
 * 1. Keep. A resting order is kept when it matches a desired level of its side within the requote
 *    threshold: price within `ticks` ticks or `bps` of the desired price (whichever allows more),
 *    remaining size within `sizeBps` of the desired size. Orders and levels are paired by a maximum
 *    matching (closest prices first), so as many orders as possible are kept.
 * 2. Change. Every other order in the manager's slots is cancelled, every unmatched level placed:
 *    - `packed` (default): one `ReplaceSlots`. An unmatched order's slot takes an unmatched level
 *      (a place op into a slot cancels its order first: one op instead of two), same side first;
 *      orders left over get cancel ops, levels left over go into the lowest empty slots. Each op
 *      touches a different slot and changes it, so there are exactly as many ops as slots changed.
 *    - `batch`: one `PlaceAndCancel` that cancels the unmatched orders' slots and places the unmatched
 *      levels as GTC orders (the venue puts each in its lowest free slot). For engines or venues that
 *      prefer batches; it costs a cancel and an order where `packed` has one op.
 * 3. Nothing changed, nothing sent: when every order is kept and every level matched, no intent.
 * 4. Pending. While `pendingRequests > 0` for the market, or an order in the manager's slots has no
 *    order id yet, its slots have changes in flight: the manager sends nothing (`whilePending: 'wait'`,
 *    the default) and plans again on the next state. `whilePending: 'proceed'` plans against the
 *    slots as they are (the engine binds each op to the order it expects, so a stale op reverts
 *    rather than doing harm).
 * 5. Never a slot >= 62 (MAKER_SLOTS), never one slot twice, only the slots given in `slots`
 *    (default all): orders in other slots are neither kept nor cancelled.
 *
 * Why one file of this size: the five rules above act on one plan (the matching decides what the
 * packed and batch forms change); its repeat checks already live in quote-repeats.ts.
 */
import { BaseError } from '../core/base-error.ts';
import { Decimal } from '../core/decimal.ts';
import { MAX_PRICE_UNITS } from '../core/units.ts';
import { MAKER_SLOTS, type OrderSide } from '../protocol/constants.ts';
import type { PackedOp } from '../protocol/packed-ops.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import type { OrderRequest, PlaceAndCancel, ReplaceSlots } from './intents.ts';
import type { OwnMarketState, OwnOrder } from './strategy-context.ts';
import { rememberLevels, sameIntent, sameLevels } from './quote-repeats.ts';

/** One desired quote: price units on the tick, size units in minSize..maxSize. */
export interface QuoteLevel {
  readonly price: bigint;
  readonly size: bigint;
}

/** The quotes a strategy wants resting, per side (any order; the same price twice is two orders). */
export interface DesiredQuotes {
  readonly bids: readonly QuoteLevel[];
  readonly asks: readonly QuoteLevel[];
}

/** How far a resting order may be from its desired level and still be kept. Default: exact. */
export interface RequoteThreshold {
  /** Price distance in ticks (a whole number). */
  readonly ticks?: number;
  /** Price distance in basis points of the desired price. */
  readonly bps?: number;
  /** Remaining size within this many basis points of the desired size (10 000: anything up to twice). */
  readonly sizeBps?: number;
}

/** What the manager needs of the market. A MarketSpec fits. */
export type QuoteMarket = Pick<MarketSpec, 'address' | 'tickSize' | 'minSize' | 'maxSize'>;

export interface PlanQuotesOptions {
  readonly market: QuoteMarket;
  readonly threshold?: RequoteThreshold;
  /** The slots this manager may use, e.g. to share a market between strategies. Default: all 0..61. */
  readonly slots?: readonly number[];
  /** `packed` (default): ReplaceSlots; `batch`: PlaceAndCancel. */
  readonly mode?: 'packed' | 'batch';
  /** Post-only orders (default true): a quote that would cross is refused instead of taking. */
  readonly postOnly?: boolean;
  /** Default 0. */
  readonly minSizeAfterBlock?: bigint;
  /** The intents' purpose (default `quotes`): a newer one supersedes a queued older one. */
  readonly purpose?: string;
  /** See rule 4. Default `wait`. */
  readonly whilePending?: 'wait' | 'proceed';
}

/** A new order of a plan; `slot` undefined in batch mode (the venue picks it). */
export interface PlannedOrder {
  readonly slot: number | undefined;
  readonly side: OrderSide;
  readonly price: bigint;
  readonly size: bigint;
}

export interface QuotePlan {
  /** `changed`: `intent` holds the operations; `unchanged`: nothing to do; `pending`: waiting (rule 4). */
  readonly status: 'changed' | 'unchanged' | 'pending';
  readonly intent: ReplaceSlots | PlaceAndCancel | undefined;
  /** Slots whose order is kept, ascending. */
  readonly kept: readonly number[];
  /** Slots whose order is cancelled or replaced, ascending. */
  readonly cancelled: readonly number[];
  readonly placed: readonly PlannedOrder[];
}

/** The part of the own state the manager reads. */
export type QuoteSlotsState = Pick<OwnMarketState, 'slots' | 'pendingRequests'>;

interface Ratio {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

interface ResolvedOptions {
  readonly market: QuoteMarket;
  readonly tickDistance: bigint;
  readonly priceRatio: Ratio | undefined;
  readonly sizeRatio: Ratio | undefined;
  readonly owned: readonly number[];
  readonly mode: 'packed' | 'batch';
  readonly postOnly: boolean;
  readonly minSizeAfterBlock: bigint;
  readonly purpose: string;
  readonly wait: boolean;
}

const BPS = 10_000n;

function invalid(message: string, details: Record<string, unknown> = {}): never {
  throw new BaseError('QUOTES_INVALID', message, { details });
}

function ratioOf(name: string, value: number | undefined): Ratio | undefined {
  if (value === undefined || value === 0) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) invalid(`threshold.${name} must be a finite number >= 0`, { [name]: String(value) });
  const [numerator, denominator] = new Decimal(value).toFraction() as [Decimal, Decimal];
  return { numerator: BigInt(numerator.toFixed(0)), denominator: BigInt(denominator.toFixed(0)) };
}

function resolveOptions(options: PlanQuotesOptions): ResolvedOptions {
  const { market } = options;
  if (market.tickSize < 1n) invalid('market.tickSize must be positive');
  const threshold = options.threshold ?? {};
  const ticks = threshold.ticks ?? 0;
  if (!Number.isSafeInteger(ticks) || ticks < 0) invalid('threshold.ticks must be a whole number >= 0', { ticks: String(ticks) });
  const owned = options.slots === undefined ? Array.from({ length: MAKER_SLOTS }, (_, slot) => slot) : [...new Set(options.slots)].sort((a, b) => a - b);
  for (const slot of owned) {
    if (!Number.isInteger(slot) || slot < 0 || slot >= MAKER_SLOTS) invalid(`slots: ${slot} is not a maker slot 0..${MAKER_SLOTS - 1}`, { slot });
  }
  if (options.slots !== undefined && owned.length !== options.slots.length) invalid('slots: a slot is listed twice');
  return {
    market,
    tickDistance: BigInt(ticks) * market.tickSize,
    priceRatio: ratioOf('bps', threshold.bps),
    sizeRatio: ratioOf('sizeBps', threshold.sizeBps),
    owned,
    mode: options.mode ?? 'packed',
    postOnly: options.postOnly ?? true,
    minSizeAfterBlock: options.minSizeAfterBlock ?? 0n,
    purpose: options.purpose ?? 'quotes',
    wait: (options.whilePending ?? 'wait') === 'wait',
  };
}

function checkLevels(desired: DesiredQuotes, options: ResolvedOptions): void {
  const { market } = options;
  checkSide('bids', desired.bids, market);
  checkSide('asks', desired.asks, market);
  const count = desired.bids.length + desired.asks.length;
  if (count > options.owned.length) invalid(`${count} quotes need more than the ${options.owned.length} slots the manager may use`, { quotes: count });
}

function checkSide(sideName: 'bids' | 'asks', levels: readonly QuoteLevel[], market: QuoteMarket): void {
  for (let index = 0; index < levels.length; index++) {
    const level = levels[index]!;
    if (typeof level.price !== 'bigint' || typeof level.size !== 'bigint') invalid(`${sideName}[${index}]: price and size must be bigint units`);
    if (level.price < 1n || level.price > MAX_PRICE_UNITS) invalid(`${sideName}[${index}]: price ${level.price} is outside 1..${MAX_PRICE_UNITS}`, { price: level.price.toString() });
    if (level.price % market.tickSize !== 0n) invalid(`${sideName}[${index}]: price ${level.price} is not a multiple of the tick ${market.tickSize}`, { price: level.price.toString() });
    if (level.size < market.minSize || level.size > market.maxSize) {
      invalid(`${sideName}[${index}]: size ${level.size} is outside ${market.minSize}..${market.maxSize}`, { size: level.size.toString() });
    }
  }
}

const abs = (value: bigint) => (value < 0n ? -value : value);

function withinRatio(difference: bigint, reference: bigint, ratio: Ratio | undefined): boolean {
  return ratio !== undefined && difference * BPS * ratio.denominator <= ratio.numerator * reference;
}

function compatible(order: OwnOrder, level: QuoteLevel, options: ResolvedOptions): boolean {
  const priceGap = abs(order.price - level.price);
  const priceOk = priceGap === 0n || priceGap <= options.tickDistance || withinRatio(priceGap, level.price, options.priceRatio);
  if (!priceOk) return false;
  const sizeGap = abs(order.remaining - level.size);
  return sizeGap === 0n || withinRatio(sizeGap, level.size, options.sizeRatio);
}

interface Resting {
  readonly slot: number;
  readonly order: OwnOrder;
}

/**
 * A maximum matching of desired levels to resting orders of one side (Kuhn's augmenting paths;
 * at most 62 a side), each level trying its closest compatible orders first. Returns, for each
 * resting order, the index of its level or -1.
 */
function matchSide(levels: readonly QuoteLevel[], resting: readonly Resting[], options: ResolvedOptions): number[] {
  const levelOfResting = new Array<number>(resting.length).fill(-1);
  if (resting.length === 0) return levelOfResting;
  const candidates: number[][] = [];
  for (const level of levels) {
    const fits: { index: number; gap: bigint; slot: number }[] = [];
    for (let index = 0; index < resting.length; index++) {
      const entry = resting[index]!;
      if (compatible(entry.order, level, options)) fits.push({ index, gap: abs(entry.order.price - level.price), slot: entry.slot });
    }
    fits.sort((a, b) => (a.gap === b.gap ? a.slot - b.slot : a.gap < b.gap ? -1 : 1));
    candidates.push(fits.map((fit) => fit.index));
  }
  for (let level = 0; level < levels.length; level++) augment(candidates, levelOfResting, level, new Array<boolean>(resting.length).fill(false));
  return levelOfResting;
}

/** One augmenting-path step of `matchSide`: finds `level` an order, moving other levels along if need be. */
function augment(candidates: readonly (readonly number[])[], levelOfResting: number[], level: number, visited: boolean[]): boolean {
  for (const index of candidates[level]!) {
    if (visited[index]) continue;
    visited[index] = true;
    const holder = levelOfResting[index]!;
    if (holder === -1 || augment(candidates, levelOfResting, holder, visited)) {
      levelOfResting[index] = level;
      return true;
    }
  }
  return false;
}

/** Matches one side: kept slots to `kept`, the other orders' slots to `spareSlots`, unmatched levels to `spareLevels`. */
function sortOutSide(levels: readonly QuoteLevel[], resting: readonly Resting[], options: ResolvedOptions, kept: number[], spareSlots: number[], spareLevels: QuoteLevel[]): void {
  const levelOfResting = matchSide(levels, resting, options);
  const matched = new Array<boolean>(levels.length).fill(false);
  for (let index = 0; index < resting.length; index++) {
    const level = levelOfResting[index]!;
    if (level === -1) spareSlots.push(resting[index]!.slot);
    else {
      kept.push(resting[index]!.slot);
      matched[level] = true;
    }
  }
  for (let index = 0; index < levels.length; index++) if (!matched[index]) spareLevels.push(levels[index]!);
}

const NO_CHANGES = { kept: [] as number[], cancelled: [] as number[], placed: [] as PlannedOrder[] };

function planWith(state: QuoteSlotsState, desired: DesiredQuotes, options: ResolvedOptions, levelsChecked = false): QuotePlan {
  if (!levelsChecked) checkLevels(desired, options);
  const restingBySide: Record<OrderSide, Resting[]> = { BUY: [], SELL: [] };
  let unsettled = false;
  for (const slot of options.owned) {
    const order = state.slots[slot];
    if (order === null || order === undefined) continue;
    if (order.orderId === undefined) unsettled = true;
    restingBySide[order.side].push({ slot, order });
  }
  if (options.wait && (state.pendingRequests > 0 || unsettled)) return { status: 'pending', intent: undefined, ...NO_CHANGES };

  const kept: number[] = [];
  const spareResting: Record<OrderSide, number[]> = { BUY: [], SELL: [] };
  const spareLevels: Record<OrderSide, QuoteLevel[]> = { BUY: [], SELL: [] };
  sortOutSide(desired.bids, restingBySide.BUY, options, kept, spareResting.BUY, spareLevels.BUY);
  sortOutSide(desired.asks, restingBySide.SELL, options, kept, spareResting.SELL, spareLevels.SELL);
  kept.sort((a, b) => a - b);
  const cancelled = [...spareResting.BUY, ...spareResting.SELL].sort((a, b) => a - b);
  if (cancelled.length === 0 && spareLevels.BUY.length === 0 && spareLevels.SELL.length === 0) {
    return { status: 'unchanged', intent: undefined, kept, cancelled: [], placed: [] };
  }
  return options.mode === 'batch' ? batchPlan(state, kept, cancelled, spareLevels, options) : packedPlan(state, kept, cancelled, spareResting, spareLevels, options);
}

function packedPlan(
  state: QuoteSlotsState,
  kept: number[],
  cancelled: number[],
  spareResting: Record<OrderSide, number[]>,
  spareLevels: Record<OrderSide, QuoteLevel[]>,
  options: ResolvedOptions,
): QuotePlan {
  const placed: PlannedOrder[] = [];
  const cancelOnly: number[] = [];
  // Same side first: a bid replaces a bid.
  const leftSlots: number[] = [];
  const leftLevels: { side: OrderSide; level: QuoteLevel }[] = [];
  for (const side of ['BUY', 'SELL'] as const) {
    const slots = [...spareResting[side]].sort((a, b) => a - b);
    const levels = spareLevels[side];
    const pairs = Math.min(slots.length, levels.length);
    for (let i = 0; i < pairs; i++) placed.push({ slot: slots[i]!, side, ...levels[i]! });
    leftSlots.push(...slots.slice(pairs));
    for (const level of levels.slice(pairs)) leftLevels.push({ side, level });
  }
  leftSlots.sort((a, b) => a - b);
  const crossPairs = Math.min(leftSlots.length, leftLevels.length);
  for (let i = 0; i < crossPairs; i++) placed.push({ slot: leftSlots[i]!, side: leftLevels[i]!.side, ...leftLevels[i]!.level });
  cancelOnly.push(...leftSlots.slice(crossPairs));
  const empty = options.owned.filter((slot) => state.slots[slot] === null || state.slots[slot] === undefined);
  const newLevels = leftLevels.slice(crossPairs);
  // checkLevels bounds the levels by the owned slots, so there is an empty slot for each.
  newLevels.forEach(({ side, level }, i) => placed.push({ slot: empty[i]!, side, ...level }));

  const ops: PackedOp[] = [
    ...cancelOnly.map((slotIdx): PackedOp => ({ slotIdx, kind: 'cancel' })),
    ...placed.map(
      (order): PackedOp => ({
        slotIdx: order.slot!,
        kind: 'place',
        side: order.side,
        postOnly: options.postOnly,
        price: order.price,
        size: order.size,
        minSizeAfterBlock: options.minSizeAfterBlock,
      }),
    ),
  ].sort((a, b) => a.slotIdx - b.slotIdx);
  placed.sort((a, b) => a.slot! - b.slot!);
  const intent: ReplaceSlots = { type: 'ReplaceSlots', purpose: options.purpose, market: options.market.address, ops };
  return { status: 'changed', intent, kept, cancelled, placed };
}

function batchPlan(state: QuoteSlotsState, kept: number[], cancelled: number[], spareLevels: Record<OrderSide, QuoteLevel[]>, options: ResolvedOptions): QuotePlan {
  const placed: PlannedOrder[] = [
    ...spareLevels.BUY.map((level): PlannedOrder => ({ slot: undefined, side: 'BUY', ...level })),
    ...spareLevels.SELL.map((level): PlannedOrder => ({ slot: undefined, side: 'SELL', ...level })),
  ];
  let live = 0;
  for (let slot = 0; slot < MAKER_SLOTS; slot++) if (state.slots[slot]) live++;
  if (live - cancelled.length + placed.length > MAKER_SLOTS) {
    invalid(`the batch would leave ${live - cancelled.length + placed.length} orders resting, more than ${MAKER_SLOTS} slots`);
  }
  const orders: OrderRequest[] = placed.map((order) => ({
    side: order.side,
    price: order.price,
    size: order.size,
    tif: 'GTC',
    executionInstruction: options.postOnly ? 'POST_ONLY' : 'NONE',
    minSizeAfterBlock: options.minSizeAfterBlock,
  }));
  const intent: PlaceAndCancel = { type: 'PlaceAndCancel', purpose: options.purpose, market: options.market.address, cancelSlots: cancelled, orders };
  return { status: 'changed', intent, kept, cancelled, placed };
}

/**
 * The slot operations that turn the current slots into the desired quotes (see the rules above).
 * Throws QUOTES_INVALID for a level off the tick, out of range or outside minSize..maxSize, or more
 * levels than slots.
 *
 * @example
 * const plan = planQuotes(state, { bids: [{ price: 349_300n, size: 200_000n }], asks: [] }, {
 *   market: spec,
 *   threshold: { bps: 4 },
 * });
 * if (plan.intent) intents.next(plan.intent);
 */
export function planQuotes(state: QuoteSlotsState, desired: DesiredQuotes, options: PlanQuotesOptions): QuotePlan {
  return planWith(state, desired, resolveOptions(options));
}

export interface QuoteManager {
  /** The plan for this state and these quotes (as `planQuotes`). */
  plan(state: QuoteSlotsState, desired: DesiredQuotes): QuotePlan;
  /**
   * The intent to send, if any: the plan's intent, except that the same intent is not sent twice
   * for the same state object (a strategy that re-plans on every book before the engine has taken
   * its last intent would otherwise repeat it).
   */
  update(state: QuoteSlotsState, desired: DesiredQuotes): ReplaceSlots | PlaceAndCancel | undefined;
}

/**
 * A quote manager with fixed options (checked once) that also drops repeats of its last intent.
 *
 * @example
 * const quotes = createQuoteManager({ market: spec, threshold: { bps: params.requoteThresholdBps } });
 * combineLatest([feed.book$, market.state$]).pipe(
 *   map(([book, state]) => quotes.update(state, desiredQuotes(book, state))),
 *   filter((intent) => intent !== undefined),
 * );
 */
export function createQuoteManager(options: PlanQuotesOptions): QuoteManager {
  const resolved = resolveOptions(options);
  let lastState: QuoteSlotsState | undefined;
  let lastIntent: ReplaceSlots | PlaceAndCancel | undefined;
  // The last planned call's state and levels: the same again plans the same, so it sends nothing (its
  // intent, if any, went out then or was a repeat then). Strategies re-plan on every book.
  let calledState: QuoteSlotsState | undefined;
  const calledLevels: (number | bigint)[] = [];
  return {
    plan: (state, desired) => planWith(state, desired, resolved),
    update(state, desired) {
      const sameDesired = sameLevels(calledLevels, desired);
      if (state === calledState && sameDesired) return undefined;
      // Levels equal to the last planned ones passed the checks then.
      const plan = planWith(state, desired, resolved, sameDesired);
      calledState = state;
      if (!sameDesired) rememberLevels(calledLevels, desired);
      if (plan.intent === undefined) return undefined;
      if (state === lastState && lastIntent !== undefined && sameIntent(plan.intent, lastIntent)) return undefined;
      lastState = state;
      lastIntent = plan.intent;
      return plan.intent;
    },
  };
}
