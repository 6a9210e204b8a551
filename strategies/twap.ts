/**
 * The reference TWAP: buys or sells `quantity` over `duration` in `slices` equal steps. At slice k
 * (k = 0 … slices-1, at start + k × duration / slices) the target executed so far is
 * quantity × (k + 1) / slices; what is missing from it is sent:
 * - `mode: ioc`: an IOC order priced `slippageBps` through the best opposite price (never beyond
 *   `limitPrice`); what does not fill is caught up by the next slices.
 * - `mode: limit`: one post-only order resting at the best price of its own side (never beyond
 *   `limitPrice`), re-priced and re-sized at each slice to what is missing.
 * It stops when its own fills reach the quantity (or what is left is below the market's minimum
 * size), or when the window ends; in limit mode it cancels its resting order first. Then its intent
 * stream completes. While the engine's trading state is not ACTIVE (the kill switch tripped, the run
 * stopping) its slices place nothing; in limit mode they cancel the resting order instead.
 * It reports its figures to the run's summary (`ctx.reportFigures`), and logs them in its `twap finished`
 * line: what it executed, the average price of its fills and their slippage against the arrival mid
 * (the first mid it saw), in bps, positive when the execution cost (see `twapExecution`).
 * docs/strategies.md, "twap".
 */
import { filter, Observable, Subscription, take, timer } from 'rxjs';
import {
  BaseError,
  createQuoteManager,
  decimalAmount,
  Decimal,
  defineStrategy,
  durationMs,
  fromUnits,
  planQuotes,
  priceAtOffset,
  toPriceUnits,
  toUnits,
  z,
  type Intent,
  type OrderBookView,
  type OwnMarketState,
} from 'clobbot/strategy';

export const twapParams = z.strictObject({
  side: z.preprocess((value) => (typeof value === 'string' ? value.toUpperCase() : value), z.enum(['BUY', 'SELL'])),
  /** Base-token quantity to execute (human decimal). */
  quantity: decimalAmount({ positive: true }),
  /** The window, with its unit: `90s`, `10m`, `1h` (a bare number is refused). */
  duration: durationMs,
  slices: z.number().int().min(1).max(10_000),
  mode: z.enum(['ioc', 'limit']).default('ioc'),
  /** Worst price (human decimal): a buy never pays more, a sell never takes less. */
  limitPrice: decimalAmount({ positive: true }).optional(),
  /** ioc: how far through the best opposite price the order may take. */
  slippageBps: z.number().min(0).max(5_000).default(10),
});

export type TwapParams = z.output<typeof twapParams>;

/** How long an IOC slice may wait for its fills before its unfilled rest counts as not filled (ms). */
export const IOC_SETTLE_MS = 5_000;

export interface TwapExecution {
  /** Volume-weighted average fill price (human decimal string); null without fills. */
  readonly avgPrice: string | null;
  /** The mid when the TWAP started (human decimal string); null when no book was seen. */
  readonly arrivalMid: string | null;
  /**
   * (avg − arrival) / arrival in bps for a buy, (arrival − avg) / arrival for a sell: positive is a
   * cost. Two decimals; null without fills or arrival mid.
   */
  readonly slippageBps: string | null;
}

/**
 * The execution figures of a TWAP from its fills' volume (Σ size × price, in size × price units), its
 * executed size (size units) and its arrival mid (price units).
 *
 * @example twapExecution({ side: 'BUY', notional: 351_000n * 2n, executed: 2n, arrivalMid: new Decimal(350_000), pricePrecision: 10_000_000n })
 * // { avgPrice: '0.0351', arrivalMid: '0.035', slippageBps: '28.57' }
 */
export function twapExecution(input: {
  readonly side: 'BUY' | 'SELL';
  readonly notional: bigint;
  readonly executed: bigint;
  readonly arrivalMid: Decimal | undefined;
  readonly pricePrecision: bigint;
}): TwapExecution {
  const places = input.pricePrecision.toString().length - 1 + 4;
  const avgUnits = input.executed === 0n ? undefined : new Decimal(input.notional.toString()).div(input.executed.toString());
  const human = (units: Decimal) => units.div(input.pricePrecision.toString()).toDecimalPlaces(places).toFixed();
  let slippageBps: string | null = null;
  if (avgUnits !== undefined && input.arrivalMid !== undefined && input.arrivalMid.gt(0)) {
    const diff = input.side === 'BUY' ? avgUnits.minus(input.arrivalMid) : input.arrivalMid.minus(avgUnits);
    slippageBps = diff.div(input.arrivalMid).times(10_000).toFixed(2);
  }
  return {
    avgPrice: avgUnits === undefined ? null : human(avgUnits),
    arrivalMid: input.arrivalMid === undefined ? null : human(input.arrivalMid),
    slippageBps,
  };
}

/** Size units due by the end of slice `index` (0-based): the quantity's share, the last slice all of it. */
export function twapDue(quantity: bigint, slices: number, index: number): bigint {
  return (quantity * BigInt(index + 1)) / BigInt(slices);
}

export default defineStrategy({
  name: 'twap',
  params: twapParams,
  create: (ctx) => {
    const markets = [...ctx.markets.values()];
    const market = markets[0];
    if (market === undefined || markets.length !== 1) {
      throw new BaseError('CONFIG_INVALID', `twap trades exactly one market; it was given ${markets.length}`, { details: { markets: [...ctx.markets.keys()] } });
    }
    const { spec } = market;
    const params = ctx.params;
    const side = params.side;
    const quantity = toUnits(params.quantity, spec.sizePrecision, 'down');
    if (quantity < spec.minSize) {
      throw new BaseError('CONFIG_INVALID', `twap: quantity ${params.quantity} is below ${spec.symbol}'s minimum order size`, { details: { market: spec.symbol } });
    }
    const limit = params.limitPrice === undefined ? undefined : toPriceUnits(params.limitPrice, spec, side === 'BUY' ? 'buy' : 'sell');
    const log = ctx.logger;

    return new Observable<Intent>((subscriber) => {
      const subscriptions = new Subscription();
      const quotes = createQuoteManager({ market: spec, purpose: 'twap' });
      let book: OrderBookView | undefined;
      let state: OwnMarketState | undefined;
      let executed = 0n;
      /** Σ size × price of its fills (size units × price units): the average fill price. */
      let notional = 0n;
      /** The first mid seen: the arrival price its slippage is measured against. */
      let arrivalMid: Decimal | undefined;
      let finished = false;
      /** Why it finished; undefined while it runs (or when the run stopped first). */
      let finishReason: string | undefined;
      /** False while the engine's trading state is not ACTIVE: nothing is placed. */
      let active = true;
      /**
       * IOC slices whose fills may still be on their way: fills reach a strategy seconds after the
       * block (order events), so without this the next slice would send the same quantity again.
       * What was sent in the last IOC_SETTLE_MS minus what was filled since counts as in flight.
       */
      const recentSends: { size: bigint; at: number }[] = [];
      const recentFills: { size: bigint; at: number }[] = [];
      const inFlight = (): bigint => {
        const since = ctx.clock.now() - IOC_SETTLE_MS;
        while (recentSends.length > 0 && recentSends[0]!.at < since) recentSends.shift();
        while (recentFills.length > 0 && recentFills[0]!.at < since) recentFills.shift();
        const sent = recentSends.reduce((sum, entry) => sum + entry.size, 0n);
        const filled = recentFills.reduce((sum, entry) => sum + entry.size, 0n);
        return sent > filled ? sent - filled : 0n;
      };

      /** Its figures, human decimals: for the run's summary and its `twap finished` line. */
      const figures = () => ({
        side,
        quantity: fromUnits(quantity, spec.sizePrecision),
        executed: fromUnits(executed, spec.sizePrecision),
        ...twapExecution({ side, notional, executed, arrivalMid, pricePrecision: spec.pricePrecision }),
        finished: finishReason ?? null,
      });
      ctx.reportFigures(figures);

      /** IOC price: through the best opposite price by the slippage, capped at the limit; undefined when it cannot fill. */
      const takingPrice = (): bigint | undefined => {
        const best = side === 'BUY' ? book?.bestAsk()?.price : book?.bestBid()?.price;
        if (best === undefined) return undefined;
        let price = priceAtOffset(new Decimal(best.toString()), -params.slippageBps, side, spec.tickSize) ?? best;
        if (side === 'BUY' ? price < best : price > best) price = best;
        if (limit !== undefined) {
          if (side === 'BUY' ? limit < best : limit > best) return undefined;
          if (side === 'BUY' ? price > limit : price < limit) price = limit;
        }
        return price;
      };

      /** Passive price: the best of its own side (or one tick inside the other side), capped at the limit. */
      const restingPrice = (): bigint | undefined => {
        const own = side === 'BUY' ? book?.bestBid()?.price : book?.bestAsk()?.price;
        const other = side === 'BUY' ? book?.bestAsk()?.price : book?.bestBid()?.price;
        let price = own ?? (other === undefined ? undefined : side === 'BUY' ? other - spec.tickSize : other + spec.tickSize);
        if (price === undefined || price < 1n) return undefined;
        if (limit !== undefined && (side === 'BUY' ? price > limit : price < limit)) price = limit;
        return price;
      };

      const slice = (index: number) => {
        if (finished || state === undefined) return;
        if (state.pendingRequests > 0) {
          log.debug({ slice: index }, 'twap: a request is pending; the next slice catches up');
          return;
        }
        if (!active) {
          // Nothing new while the engine places nothing; limit mode pulls its resting order.
          log.debug({ slice: index }, 'twap: trading is not active; the slice places nothing');
          if (params.mode === 'limit') {
            const intent = quotes.update(state, { bids: [], asks: [] });
            if (intent !== undefined) subscriber.next(intent);
          }
          return;
        }
        const missing = twapDue(quantity, params.slices, index) - executed - inFlight();
        const size = missing > spec.maxSize ? spec.maxSize : missing;
        if (params.mode === 'ioc') {
          if (size < spec.minSize) return;
          const price = takingPrice();
          if (price === undefined) {
            log.debug({ slice: index }, 'twap: no price within the limit; the next slice catches up');
            return;
          }
          recentSends.push({ size, at: ctx.clock.now() });
          subscriber.next({
            type: 'PlaceAndCancel',
            purpose: 'twap',
            market: spec.address,
            cancelSlots: [],
            orders: [{ side, price, size, tif: 'IOC', executionInstruction: 'NONE', minSizeAfterBlock: 0n }],
          });
          return;
        }
        const price = restingPrice();
        const level = price === undefined || size < spec.minSize ? [] : [{ price, size }];
        const intent = quotes.update(state, side === 'BUY' ? { bids: level, asks: [] } : { bids: [], asks: level });
        if (intent !== undefined) subscriber.next(intent);
      };

      const finish = (reason: string) => {
        if (finished) return;
        finished = true;
        finishReason = reason;
        log.info({ market: spec.symbol, ...figures() }, 'twap finished');
        if (params.mode === 'ioc') {
          subscriber.complete();
          return;
        }
        // Cancel the resting order once nothing is in flight, then complete.
        subscriptions.add(
          market.state$.pipe(filter((current) => current.pendingRequests === 0), take(1)).subscribe((current) => {
            const plan = planQuotes(current, { bids: [], asks: [] }, { market: spec, purpose: 'twap', whilePending: 'proceed' });
            if (plan.intent !== undefined) subscriber.next(plan.intent);
            subscriber.complete();
          }),
        );
      };

      subscriptions.add(ctx.tradingState$.subscribe((trading) => (active = trading.state === 'ACTIVE')));
      subscriptions.add(
        market.feed.book$.subscribe((value) => {
          book = value;
          arrivalMid ??= value.mid();
        }),
      );
      subscriptions.add(market.state$.subscribe((value) => (state = value)));
      subscriptions.add(
        market.fills$.subscribe((fill) => {
          if (fill.side !== side) return;
          executed += fill.size;
          notional += fill.size * fill.price;
          recentFills.push({ size: fill.size, at: ctx.clock.now() });
          if (executed >= quantity) finish('quantity reached');
          else if (quantity - executed < spec.minSize) finish('what is left is below the minimum order size');
        }),
      );
      const sliceMs = params.duration / params.slices;
      subscriptions.add(timer(0, sliceMs, ctx.clock.scheduler).pipe(take(params.slices)).subscribe(slice));
      subscriptions.add(timer(params.duration, ctx.clock.scheduler).subscribe(() => finish('window ended')));
      return () => subscriptions.unsubscribe();
    });
  },
});
