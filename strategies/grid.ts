/**
 * The reference grid: maker orders on a ladder of prices `stepBps` apart, `levels` each side of a
 * center. Every grid price below the mid holds a bid and every one above an ask, except the grid
 * price nearest the mid, which stays empty: after a bid fills the price has come down to it, so it
 * is left empty and the ask one step above sells what was bought, one step higher (and the other
 * way round). `mode: static` keeps the center (the `center` param, or the first mid); `recenter`
 * moves it to the mid when the mid is more than `recenterBps` (default: the grid's half-width) from
 * it. While the engine's trading state is not ACTIVE (the kill switch tripped, the run stopping) it
 * cancels its orders and places nothing new. docs/strategies.md, "grid".
 */
import { combineLatest, filter, map, merge, scan, withLatestFrom, type Observable } from 'rxjs';
import {
  BaseError,
  createQuoteManager,
  Decimal,
  decimalAmount,
  defineStrategy,
  MAX_PRICE_UNITS,
  priceOnTick,
  toUnits,
  z,
  type DesiredQuotes,
  type Intent,
  type Logger,
  type MarketSpec,
  type QuoteLevel,
  type StrategyMarket, type TradingState
} from 'clobbot/strategy';

export const gridParams = z
  .strictObject({
    /** Grid prices each side of the center (2 × levels orders rest). */
    levels: z.number().int().min(1).max(30),
    /** Distance between grid prices, in bps of the center (at least one tick). */
    stepBps: z.number().gt(0).max(1_000),
    /** Base-token size of each order (human decimal). */
    size: decimalAmount({ positive: true }),
    /** The center price (human decimal); default: the first mid. */
    center: decimalAmount({ positive: true }).optional(),
    mode: z.enum(['static', 'recenter']).default('static'),
    /** recenter: move the center when the mid is further than this from it. Default levels × stepBps. */
    recenterBps: z.number().gt(0).max(5_000).optional(),
  })
  .superRefine((params, ctx) => {
    if (params.mode === 'static' && params.recenterBps !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['recenterBps'], message: 'recenterBps applies to mode: recenter only' });
    }
  });

export type GridParams = z.output<typeof gridParams>;

/**
 * The grid prices around `center` (price units on the tick), ascending: `center + k × step` for
 * k = -levels..levels, step = stepBps of the center on the tick, at least one tick.
 *
 * @example gridPrices(350_000n, { levels: 2, stepBps: 10 }, 10n) // [349300n, 349650n, 350000n, 350350n, 350700n]
 */
export function gridPrices(center: bigint, params: Pick<GridParams, 'levels' | 'stepBps'>, tickSize: bigint): bigint[] {
  const raw = priceOnTick(new Decimal(center.toString()).times(params.stepBps).div(10_000), tickSize, 'BUY') ?? 0n;
  const step = raw < tickSize ? tickSize : raw;
  const prices: bigint[] = [];
  for (let k = -params.levels; k <= params.levels; k++) {
    const price = center + BigInt(k) * step;
    if (price >= 1n && price <= MAX_PRICE_UNITS) prices.push(price);
  }
  return prices;
}

/**
 * Bids on the grid prices below the one nearest the mid, asks on those above it (ties: the lower
 * one is nearest).
 */
export function gridQuotes(prices: readonly bigint[], mid: Decimal, size: bigint): DesiredQuotes {
  let nearest = -1;
  let best: Decimal | undefined;
  prices.forEach((price, index) => {
    const distance = new Decimal(price.toString()).minus(mid).abs();
    if (best === undefined || distance.lt(best)) {
      best = distance;
      nearest = index;
    }
  });
  const bids: QuoteLevel[] = [];
  const asks: QuoteLevel[] = [];
  prices.forEach((price, index) => {
    if (index < nearest) bids.push({ price, size });
    else if (index > nearest) asks.push({ price, size });
  });
  return { bids, asks };
}

/** No orders: what the grid wants while it may not add risk. */
const NO_QUOTES: DesiredQuotes = Object.freeze({ bids: [], asks: [] });

function gridMarket(market: StrategyMarket, params: GridParams, tradingState$: Observable<TradingState>, log: Logger): Observable<Intent> {
  const spec: MarketSpec = market.spec;
  const size = toUnits(params.size, spec.sizePrecision, 'down');
  if (size < spec.minSize || size > spec.maxSize) {
    throw new BaseError('CONFIG_INVALID', `grid: size ${params.size} is outside ${spec.symbol}'s order sizes (${spec.minSize}..${spec.maxSize} units)`, {
      details: { market: spec.symbol, size: params.size },
    });
  }
  const recenterBps = params.recenterBps ?? params.levels * params.stepBps;
  const fixedCenter = params.center === undefined ? undefined : priceOnTick(new Decimal(toUnits(params.center, spec.pricePrecision, 'down').toString()), spec.tickSize, 'BUY');
  // Partly filled orders stay (any remainder is within tolerance): the remainder keeps its place in the queue.
  const quotes = createQuoteManager({ market: spec, threshold: { sizeBps: 10_000 }, purpose: 'grid' });

  /** The grid for the next mid: the same one unless it is the first or the mid has left the re-centring band. */
  const nextGrid = (grid: Grid | undefined, mid: Decimal): Grid | undefined => {
    if (grid !== undefined) {
      const moved = new Decimal(grid.center.toString()).minus(mid).abs().times(10_000).div(grid.center.toString());
      if (params.mode === 'static' || moved.lte(recenterBps)) return { ...grid, mid };
    }
    const center = grid === undefined && fixedCenter !== undefined ? fixedCenter : priceOnTick(mid, spec.tickSize, 'BUY');
    if (center === undefined) return grid;
    if (grid !== undefined) log.info({ market: spec.symbol, from: grid.center.toString(), to: center.toString() }, 'grid re-centred');
    return { center, prices: gridPrices(center, params, spec.tickSize), mid };
  };

  const grid$ = market.feed.mid$.pipe(
    scan(nextGrid, undefined),
    filter((grid): grid is Grid => grid !== undefined),
  );
  // Not ACTIVE (HALTED: the kill switch tripped, or the run is stopping): no orders wanted, so the
  // resting ones are cancelled and nothing is placed. The change itself sends nothing: the engine
  // cancels every order on a kill or a stop, and the next mid or own state (the engine's cancels in
  // flight: the quote manager waits for them) cancels whatever is still resting.
  const active$ = tradingState$.pipe(map((trading) => trading.state === 'ACTIVE'));
  return combineLatest([grid$, market.state$]).pipe(
    withLatestFrom(active$),
    map(([[grid, state], active]) => quotes.update(state, active ? gridQuotes(grid.prices, grid.mid, size) : NO_QUOTES)),
    filter((intent): intent is NonNullable<typeof intent> => intent !== undefined),
  );
}

interface Grid {
  /** Price units on the tick. */
  readonly center: bigint;
  readonly prices: readonly bigint[];
  /** The latest mid, price units. */
  readonly mid: Decimal;
}

export default defineStrategy({
  name: 'grid',
  params: gridParams,
  create: (ctx) => merge(...[...ctx.markets.values()].map((market) => gridMarket(market, ctx.params, ctx.tradingState$, ctx.logger))),
});
