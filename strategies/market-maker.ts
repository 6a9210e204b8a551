/**
 * The reference market maker: `levels` quotes a side around the mid (or the microprice), the first
 * `spreadBps` from it and each next `levelSpacingBps` further, `size` each; the quotes shift toward
 * the inventory target by up to `skewBps`; a side whose fills would take the position beyond
 * `maxInventory` is not quoted; a resting quote is replaced only when it is more than
 * `requoteThresholdBps` from where it should be. While the engine's trading state is not ACTIVE (the
 * kill switch tripped, the run stopping) it pulls its quotes and places nothing new.
 * docs/strategies.md, "market-maker".
 *
 * Written only against the public API, as users write theirs (rxjs for the streams).
 */
import { combineLatest, distinctUntilChanged, filter, map, merge, startWith, tap, withLatestFrom, type Observable } from 'rxjs';
import {
  BaseError,
  createQuoteManager,
  decimalAmount,
  Decimal,
  defineStrategy,
  priceAtOffset,
  signedDecimalAmount,
  toSignedUnits,
  toUnits,
  z,
  type BookLevel,
  type DesiredQuotes,
  type Intent,
  type Logger,
  type MarketSpec,
  type OrderBookView,
  type QuoteLevel,
  type StrategyMarket, type TradingState
} from 'clobbot/strategy';

const bps = () => z.number().min(0).max(5_000);

export const marketMakerParams = z
  .strictObject({
    /** Quotes per side. */
    levels: z.number().int().min(1).max(31),
    /** Distance of the first level from the reference price. */
    spreadBps: bps(),
    /** Distance between consecutive levels. */
    levelSpacingBps: bps().default(0),
    /** Base-token size of each quote (human decimal). */
    size: decimalAmount({ positive: true }),
    priceSource: z.enum(['mid', 'microprice']).default('mid'),
    /** Position (base token, signed) the skew pulls toward. */
    targetInventory: signedDecimalAmount().default('0'),
    /** Largest absolute position: a level whose fill (with the levels inside it) would pass it is not quoted. */
    maxInventory: decimalAmount({ positive: true }),
    /** Shift of all quotes toward the target when the position is maxInventory away from it. */
    skewBps: bps().default(0),
    /** Keep a resting quote while its price is within this many bps of the desired one. */
    requoteThresholdBps: bps().default(0),
  })
  .superRefine((params, ctx) => {
    const outer = params.spreadBps + (params.levels - 1) * params.levelSpacingBps + params.skewBps;
    if (outer >= 10_000) ctx.addIssue({ code: 'custom', path: ['spreadBps'], message: 'spreadBps + (levels - 1) × levelSpacingBps + skewBps must stay below 10000' });
  });

export type MarketMakerParams = z.output<typeof marketMakerParams>;

/** The params of one market in its units. */
export interface MarketMakerUnits {
  readonly spec: MarketSpec;
  readonly params: MarketMakerParams;
  /** Size units per level. */
  readonly size: bigint;
  /** Size units, signed. */
  readonly target: bigint;
  /** Size units. */
  readonly maxInventory: bigint;
}

/** Part of a quote kept while partly filled: at least half of the level size must remain. */
const SIZE_TOLERANCE_BPS = 5_000;

/** The params in a market's units; sizes outside the market's limits are a config error. */
export function marketMakerUnits(spec: MarketSpec, params: MarketMakerParams): MarketMakerUnits {
  const size = toUnits(params.size, spec.sizePrecision, 'down');
  if (size < spec.minSize || size > spec.maxSize) {
    throw new BaseError('CONFIG_INVALID', `market-maker: size ${params.size} is outside ${spec.symbol}'s order sizes (${spec.minSize}..${spec.maxSize} units)`, {
      details: { market: spec.symbol, size: params.size },
    });
  }
  return {
    spec,
    params,
    size,
    target: toSignedUnits(params.targetInventory, spec.sizePrecision, 'down'),
    maxInventory: toUnits(params.maxInventory, spec.sizePrecision, 'down'),
  };
}

/**
 * What the reference price is multiplied by for a position: 1 − ratio × skewBps / 10 000, the ratio
 * being (position − target) / maxInventory within −1..1. A long position (above target) moves every
 * quote down, so asks fill sooner and bids later.
 */
export function skewFactor(position: bigint, units: MarketMakerUnits): Decimal {
  let ratio = new Decimal((position - units.target).toString()).div(units.maxInventory.toString());
  if (ratio.gt(1)) ratio = new Decimal(1);
  if (ratio.lt(-1)) ratio = new Decimal(-1);
  return new Decimal(1).minus(ratio.times(units.params.skewBps).div(10_000));
}

/**
 * The quotes wanted for a book and a position: none without a reference price (a side of the book
 * is empty); otherwise `levels` a side around the skewed reference, never crossing the book, minus
 * the levels the inventory limit forbids.
 *
 * @example marketMakerQuotes(book, 0n, units).bids[0] // { price: 349_300n, size: 200_000n }
 */
export function marketMakerQuotes(book: OrderBookView, position: bigint, units: MarketMakerUnits, skew: Decimal = skewFactor(position, units)): DesiredQuotes {
  const { spec, params, size, maxInventory } = units;
  const reference = params.priceSource === 'mid' ? book.mid() : book.microprice();
  if (reference === undefined) return { bids: [], asks: [] };
  const center = reference.times(skew);
  const bestBid = book.bestBid()?.price;
  const bestAsk = book.bestAsk()?.price;
  const bids: QuoteLevel[] = [];
  const asks: QuoteLevel[] = [];
  for (let level = 0; level < params.levels; level++) {
    const offset = params.spreadBps + level * params.levelSpacingBps;
    const filled = BigInt(level + 1) * size;
    let bid = priceAtOffset(center, offset, 'BUY', spec.tickSize);
    if (bid !== undefined && bestAsk !== undefined && bid >= bestAsk) bid = bestAsk - spec.tickSize;
    if (bid !== undefined && bid > 0n && position + filled <= maxInventory) bids.push({ price: bid, size });
    let ask = priceAtOffset(center, offset, 'SELL', spec.tickSize);
    if (ask !== undefined && bestBid !== undefined && ask <= bestBid) ask = bestBid + spec.tickSize;
    if (ask !== undefined && position - filled >= -maxInventory) asks.push({ price: ask, size });
  }
  return { bids, asks };
}

/** No quotes: what the strategy wants while it may not add risk. */
const NO_QUOTES: DesiredQuotes = Object.freeze({ bids: [], asks: [] });

function quoteMarket(market: StrategyMarket, params: MarketMakerParams, tradingState$: Observable<TradingState>, log: Logger): Observable<Intent> {
  const units = marketMakerUnits(market.spec, params);
  const quotes = createQuoteManager({
    market: market.spec,
    threshold: { bps: params.requoteThresholdBps, sizeBps: SIZE_TOLERANCE_BPS },
    purpose: 'quotes',
  });
  // The quotes depend only on the top of the book (its prices, and its sizes for the microprice) and
  // the position, which most new books and states leave as they were: keep the last ones for those.
  const withSizes = params.priceSource !== 'mid';
  let last: { bid: BookLevel | undefined; ask: BookLevel | undefined; position: bigint; skew: Decimal; quotes: DesiredQuotes } | undefined;
  const sameLevel = (a: BookLevel | undefined, b: BookLevel | undefined) => (a === undefined || b === undefined ? a === b : a.price === b.price && (!withSizes || a.size === b.size));
  const desired = (book: OrderBookView, position: bigint): DesiredQuotes => {
    const bid = book.bestBid();
    const ask = book.bestAsk();
    if (last === undefined || last.position !== position || !sameLevel(last.bid, bid) || !sameLevel(last.ask, ask)) {
      // The skew changes only with the position (fills), far less often than the book.
      const skew = last !== undefined && last.position === position ? last.skew : skewFactor(position, units);
      last = { bid, ask, position, skew, quotes: marketMakerQuotes(book, position, units, skew) };
    }
    return last.quotes;
  };
  // Not ACTIVE (HALTED: the kill switch tripped, or the run is stopping): no quotes wanted, so the
  // resting ones are cancelled and nothing is placed. The change itself sends nothing: the engine
  // cancels every order on a kill or a stop, and the next book or own state (the engine's cancels in
  // flight: the quote manager waits for them) cancels whatever is still resting.
  const active$ = tradingState$.pipe(map((trading) => trading.state === 'ACTIVE'));
  // A stale book (its polls failing) is no ground to quote on: the quotes are pulled until it is fresh.
  const fresh$ = market.feed.health$.pipe(
    map((health) => health.depth.status !== 'stale'),
    startWith(true),
    distinctUntilChanged(),
  );
  return combineLatest([market.feed.book$, market.state$, fresh$]).pipe(
    withLatestFrom(active$),
    map(([[book, state, fresh], active]) => quotes.update(state, active && fresh ? desired(book, state.position) : NO_QUOTES)),
    filter((intent): intent is NonNullable<typeof intent> => intent !== undefined),
    tap((intent) => log.debug({ market: market.spec.symbol, type: intent.type }, 'requote')),
  );
}

export default defineStrategy({
  name: 'market-maker',
  params: marketMakerParams,
  create: (ctx) => merge(...[...ctx.markets.values()].map((market) => quoteMarket(market, ctx.params, ctx.tradingState$, ctx.logger))),
});
