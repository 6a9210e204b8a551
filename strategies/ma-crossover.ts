/**
 * The reference bar strategy: a moving-average crossover. On each closed bar of `ctx.feed.klines$`
 * it updates the simple moving averages of the last `fast` and `slow` closes; when the fast one
 * crosses above the slow one it goes long `size`, when it crosses back to or below it goes flat
 * (a spot market: long or flat, never short). Orders are market orders as this venue has them: IOC
 * orders priced `slippageBps` through the bar's close, so a gap beyond that price fills nothing
 * (the next bar tries again at its own close). The averages need `slow` bars first; the regime they
 * show then is the starting point, not a crossing.
 *
 * Bars come from the bar builder over the market's trades when it runs live (or on an event feed),
 * and from the feed itself in a candle backtest: the same code either way. It trades when the bar
 * closes, so it assumes bars far longer than the time its fills take to reach it (a minute against
 * a few seconds); it waits while a request of its own is pending. docs/strategies.md, "ma-crossover".
 */
import { filter, map, withLatestFrom } from 'rxjs';
import { Decimal, decimalAmount, defineStrategy, fromUnits, priceAtOffset, toUnits, z, BaseError, type Candle, type Intent, type OwnMarketState, type TradingState } from 'clobbot/strategy';

export const maCrossoverParams = z
  .strictObject({
    /** Bars of the fast average. */
    fast: z.number().int().min(1).max(10_000),
    /** Bars of the slow average (more than `fast`). */
    slow: z.number().int().min(2).max(10_000),
    /** Base-token size of the long position (human decimal). */
    size: decimalAmount({ positive: true }),
    /** How far through the bar's close its IOC orders may fill. */
    slippageBps: z.number().min(0).max(5_000).default(50),
  })
  .refine((params) => params.fast < params.slow, { path: ['fast'], message: 'fast must be fewer bars than slow' });

export type MaCrossoverParams = z.output<typeof maCrossoverParams>;

/**
 * Simple moving averages of the last `fast` and `slow` closes, as exact sums, and the crossings
 * they make. `push` returns `up` or `down` on the bar of a crossing, undefined otherwise.
 *
 * @example
 * const averages = new CrossingAverages(2, 3);
 * [10n, 10n, 10n, 13n].map((close) => averages.push(close)); // [undefined, undefined, undefined, 'up']
 */
export class CrossingAverages {
  readonly #fast: number;
  readonly #slow: number;
  // The periods as bigints once, for the comparison of every bar.
  readonly #fastBig: bigint;
  readonly #slowBig: bigint;
  readonly #closes: bigint[];
  #count = 0;
  #fastSum = 0n;
  #slowSum = 0n;
  #above: boolean | undefined;

  constructor(fast: number, slow: number) {
    this.#fast = fast;
    this.#slow = slow;
    this.#fastBig = BigInt(fast);
    this.#slowBig = BigInt(slow);
    this.#closes = new Array<bigint>(slow).fill(0n);
  }

  push(close: bigint): 'up' | 'down' | undefined {
    const slow = this.#slow;
    const at = this.#count % slow;
    // The ring holds the last `slow` closes: the one `slow` bars back leaves the slow sum, the one `fast` back the fast sum.
    if (this.#count >= slow) this.#slowSum -= this.#closes[at]!;
    if (this.#count >= this.#fast) this.#fastSum -= this.#closes[(this.#count - this.#fast) % slow]!;
    this.#closes[at] = close;
    this.#fastSum += close;
    this.#slowSum += close;
    this.#count += 1;
    if (this.#count < slow) return undefined;
    // fastSum / fast > slowSum / slow, without dividing.
    const above = this.#fastSum * this.#slowBig > this.#slowSum * this.#fastBig;
    const was = this.#above;
    this.#above = above;
    if (was === undefined || was === above) return undefined;
    return above ? 'up' : 'down';
  }
}

export default defineStrategy({
  name: 'ma-crossover',
  params: maCrossoverParams,
  create: (ctx) => {
    const { fast, slow, slippageBps } = ctx.params;
    const markets = [...ctx.markets.values()];
    if (markets.length !== 1) {
      throw new BaseError('CONFIG_INVALID', `ma-crossover trades exactly one market, got ${markets.length} (${[...ctx.markets.keys()].join(', ')})`, { details: { markets: [...ctx.markets.keys()] } });
    }
    const { spec, feed, state$ } = markets[0]!;
    const size = toUnits(ctx.params.size, spec.sizePrecision, 'down');
    if (size < spec.minSize || size > spec.maxSize) {
      throw new BaseError('CONFIG_INVALID', `ma-crossover: size ${ctx.params.size} is outside ${spec.symbol}'s order sizes (${fromUnits(spec.minSize, spec.sizePrecision)} .. ${fromUnits(spec.maxSize, spec.sizePrecision)})`, {
        details: { size: ctx.params.size },
      });
    }
    const averages = new CrossingAverages(fast, slow);
    let target = 0n;
    let bars = 0;
    let crossesUp = 0;
    let crossesDown = 0;
    ctx.reportFigures(() => ({ bars, crossesUp, crossesDown, target: fromUnits(target, spec.sizePrecision) }));

    /** The IOC order that brings `state`'s position to the target, priced through `close`; undefined when none is due. */
    const order = (close: bigint, state: OwnMarketState, trading: TradingState): Intent | undefined => {
      const missing = target - state.position;
      const quantity = missing < 0n ? -missing : missing;
      if (trading.state !== 'ACTIVE' || state.pendingRequests > 0 || quantity < spec.minSize) return undefined;
      const side = missing > 0n ? 'BUY' : 'SELL';
      // Through the close: up for a buy (the offset of an ask), down for a sell (of a bid).
      const price = priceAtOffset(new Decimal(close.toString()), slippageBps, side === 'BUY' ? 'SELL' : 'BUY', spec.tickSize);
      if (price === undefined) return undefined;
      return {
        type: 'PlaceAndCancel',
        market: spec.address,
        purpose: 'crossover',
        cancelSlots: [],
        orders: [{ side, price, size: quantity > spec.maxSize ? spec.maxSize : quantity, tif: 'IOC', executionInstruction: 'NONE', minSizeAfterBlock: 0n }],
      };
    };

    return feed.klines$.pipe(
      withLatestFrom(state$, ctx.tradingState$),
      map(([bar, state, trading]: [Candle, OwnMarketState, TradingState]) => {
        bars += 1;
        const crossing = averages.push(bar.close);
        if (crossing === 'up') {
          crossesUp += 1;
          target = size;
        } else if (crossing === 'down') {
          crossesDown += 1;
          target = 0n;
        }
        return order(bar.close, state, trading);
      }),
      filter((intent) => intent !== undefined),
    );
  },
});
