/**
 * The public trade history of each market and what Binance-compatible market data derives from it:
 * recent trades, klines and the rolling 24-hour ticker. Built from the matching engine's fills with
 * the time of their block; formatted as human decimal strings through the market's precisions.
 *
 * Rules (Binance unless marked):
 * - trades: `id` per market from 1; `price`, `qty`, `quoteQty` (= price x qty, exact) human
 *   decimals; `time` the block's ms; `isBuyerMaker` = the taker sold; `isBestMatch` true.
 * - klines: candles of `[openTime, openTime + interval - 1]`, openTime aligned to the interval
 *   (UTC; weeks open on Monday 00:00). From the candle of the market's first trade to the candle
 *   that holds `now`; an interval without trades is a flat candle at the previous close with volume 0.
 *   `startTime` keeps candles with openTime >= startTime, `endTime` those with openTime <= endTime;
 *   with a startTime the first `limit` candles, otherwise the newest `limit`.
 * - ticker: the trades of the window `(now - 24 h, now]`; bid and ask are given by the caller (the
 *   venue passes the committed book). With no trade in the window, open, high, low and last are the
 *   last price ever (0 before the first trade), volumes 0 (ours). `priceChangePercent` has 3 decimals.
 * - Memory (ours): the newest 1,000,000 trades per market are kept.
 */
import { Decimal } from '../core/decimal.ts';
import { fromUnits } from '../core/units.ts';
import { KLINE_INTERVAL_MS, type OrderSide } from '../protocol/constants.ts';
import type { Address } from '../protocol/encoding.ts';
import type { Kline, Ticker24hr, Trade } from '../protocol/market-data.ts';
import { invariantBroken } from './invariant.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import type { KlinesParameters } from './sim-venue.ts';
import type { OrderFilled } from './venue-events.ts';

/** Trades kept per market (older ones are dropped). */
export const MAX_TRADES_PER_MARKET = 1_000_000;
const DAY_MS = 86_400_000;
/** 1970-01-05, the first Monday after the epoch: weekly candles open on Mondays. */
const WEEK_ORIGIN_MS = 4 * DAY_MS;

interface TradeRecord {
  readonly id: number;
  readonly price: bigint;
  readonly size: bigint;
  readonly time: number;
  readonly takerSide: OrderSide;
  /** Its wire form, made on its first answer and shared by every later one (most trades of a busy market are never asked for). */
  wire: Trade | undefined;
}

interface MarketTrades {
  readonly spec: MarketSpec;
  readonly trades: TradeRecord[];
  /** pricePrecision * sizePrecision: the scale of price x size. */
  readonly notionalScale: bigint;
}

/** The best level of one side of a book, in price and size units. */
export type TopLevel = readonly [price: bigint, size: bigint];

/** First index in `trades` whose time is >= `time`. */
function lowerBound(trades: readonly TradeRecord[], time: number): number {
  let lo = 0;
  let hi = trades.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (trades[mid]!.time < time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The open time of the candle of `interval` that holds `time`. */
export function klineOpenTime(interval: KlinesParameters['interval'], time: number): number {
  const ms = KLINE_INTERVAL_MS[interval];
  const origin = interval === '1w' ? WEEK_ORIGIN_MS : 0;
  return Math.floor((time - origin) / ms) * ms + origin;
}

/**
 * Trades, klines and tickers of the venue's markets.
 *
 * @example
 * const history = new MarketHistory([monUsdc]);
 * history.recordFill(fill, block.timestamp);
 * history.trades(monUsdc, 500);
 */
export class MarketHistory {
  private readonly markets = new Map<Address, MarketTrades>();

  /** `maxTrades`: trades kept per market (default MAX_TRADES_PER_MARKET). */
  constructor(
    markets: readonly MarketSpec[],
    private readonly maxTrades: number = MAX_TRADES_PER_MARKET,
  ) {
    for (const spec of markets) {
      this.markets.set(spec.address, { spec, trades: [], notionalScale: spec.pricePrecision * spec.sizePrecision });
    }
  }

  private of(market: MarketSpec): MarketTrades {
    const state = this.markets.get(market.address);
    if (state === undefined) invariantBroken('market history of an unknown market', { market: market.address });
    return state;
  }

  /** Records one fill at its block's time (ms). */
  recordFill(fill: OrderFilled, time: number): void {
    this.recordTrade(fill.market, fill.tradeId, fill.price, fill.size, fill.takerSide, time);
  }

  /** Records one trade (price and size units) at its time (ms): a fill, or a recorded market's print. */
  recordTrade(market: Address, tradeId: bigint, price: bigint, size: bigint, takerSide: OrderSide, time: number): void {
    const state = this.markets.get(market);
    if (state === undefined) invariantBroken('fill on an unknown market', { market });
    const last = state.trades[state.trades.length - 1];
    if (last !== undefined && time < last.time) invariantBroken('trade time went backwards', { market });
    state.trades.push({ id: Number(tradeId), price, size, time, takerSide, wire: undefined });
    if (state.trades.length > this.maxTrades + this.maxTrades / 10) {
      state.trades.splice(0, state.trades.length - this.maxTrades);
    }
  }

  /** How many trades of the market are kept. */
  tradeCount(market: MarketSpec): number {
    return this.of(market).trades.length;
  }

  /** The newest `limit` trades, oldest first. */
  trades(market: MarketSpec, limit: number): Trade[] {
    const state = this.of(market);
    const { trades, spec, notionalScale } = state;
    const from = Math.max(0, trades.length - Math.max(0, Math.floor(limit)));
    const out: Trade[] = [];
    for (let i = from; i < trades.length; i++) {
      const trade = trades[i]!;
      trade.wire ??= Object.freeze({
        id: trade.id,
        price: fromUnits(trade.price, spec.pricePrecision),
        qty: fromUnits(trade.size, spec.sizePrecision),
        quoteQty: fromUnits(trade.price * trade.size, notionalScale),
        time: trade.time,
        isBuyerMaker: trade.takerSide === 'SELL',
        isBestMatch: true,
      });
      out.push(trade.wire);
    }
    return out;
  }

  /** Candles of `parameters.interval` as of `now` (ms). */
  klines(market: MarketSpec, parameters: KlinesParameters, now: number): Kline[] {
    const { spec, trades, notionalScale } = this.of(market);
    const limit = Math.max(0, Math.floor(parameters.limit));
    const first = trades[0];
    if (first === undefined || limit === 0) return [];
    const { interval } = parameters;
    const ms = KLINE_INTERVAL_MS[interval];
    const newest = trades[trades.length - 1]!;
    let lo = klineOpenTime(interval, first.time);
    let hi = klineOpenTime(interval, Math.max(now, newest.time));
    if (parameters.endTime !== undefined) hi = Math.min(hi, klineOpenTime(interval, parameters.endTime));
    if (parameters.startTime !== undefined) {
      const start = klineOpenTime(interval, parameters.startTime);
      lo = Math.max(lo, start < parameters.startTime ? start + ms : start);
      hi = Math.min(hi, lo + (limit - 1) * ms);
    } else {
      lo = Math.max(lo, hi - (limit - 1) * ms);
    }
    const out: Kline[] = [];
    let index = lowerBound(trades, lo);
    // The close before `lo`: the last trade before it (the first candle always has a trade).
    let close = index > 0 ? trades[index - 1]!.price : first.price;
    for (let openTime = lo; openTime <= hi; openTime += ms) {
      const closeTime = openTime + ms - 1;
      const open = index < trades.length && trades[index]!.time <= closeTime ? trades[index]!.price : close;
      let high = open;
      let low = open;
      let volume = 0n;
      let notional = 0n;
      let count = 0;
      while (index < trades.length && trades[index]!.time <= closeTime) {
        const t = trades[index]!;
        if (t.price > high) high = t.price;
        if (t.price < low) low = t.price;
        volume += t.size;
        notional += t.price * t.size;
        close = t.price;
        count++;
        index++;
      }
      if (count === 0) close = open;
      out.push({
        openTime,
        open: fromUnits(open, spec.pricePrecision),
        high: fromUnits(high, spec.pricePrecision),
        low: fromUnits(low, spec.pricePrecision),
        close: fromUnits(close, spec.pricePrecision),
        volume: fromUnits(volume, spec.sizePrecision),
        closeTime,
        quoteVolume: fromUnits(notional, notionalScale),
        numTrades: count,
      });
    }
    return out;
  }

  /** The rolling 24-hour ticker as of `now` (ms), with the given best bid and ask. */
  ticker24hr(market: MarketSpec, now: number, book: { readonly bid: TopLevel | undefined; readonly ask: TopLevel | undefined }): Ticker24hr {
    const { spec, trades, notionalScale } = this.of(market);
    const openTime = now - DAY_MS;
    const from = lowerBound(trades, openTime + 1);
    const lastEver = trades[trades.length - 1];
    let open = lastEver?.price ?? 0n;
    let high = open;
    let low = open;
    let last = open;
    let lastQty = 0n;
    let volume = 0n;
    let notional = 0n;
    let count = 0;
    let to = from;
    while (to < trades.length && trades[to]!.time <= now) to++;
    if (to > from) {
      open = trades[from]!.price;
      high = open;
      low = open;
      for (let i = from; i < to; i++) {
        const t = trades[i]!;
        if (t.price > high) high = t.price;
        if (t.price < low) low = t.price;
        volume += t.size;
        notional += t.price * t.size;
      }
      last = trades[to - 1]!.price;
      lastQty = trades[to - 1]!.size;
      count = to - from;
    }
    const price = (units: bigint) => fromUnits(units, spec.pricePrecision);
    const size = (units: bigint) => fromUnits(units, spec.sizePrecision);
    let percent = open === 0n ? '0.000' : new Decimal((last - open).toString()).mul(100).div(open.toString()).toFixed(3);
    if (/^-0\.0+$/.test(percent)) percent = percent.slice(1);
    const average = volume === 0n ? '0' : new Decimal(notional.toString()).div(volume.toString()).div(spec.pricePrecision.toString()).toFixed(8);
    return {
      symbol: spec.symbol,
      priceChange: fromUnits(last - open, spec.pricePrecision),
      priceChangePercent: percent,
      weightedAvgPrice: average,
      lastPrice: price(last),
      lastQty: size(lastQty),
      bidPrice: price(book.bid?.[0] ?? 0n),
      bidQty: size(book.bid?.[1] ?? 0n),
      askPrice: price(book.ask?.[0] ?? 0n),
      askQty: size(book.ask?.[1] ?? 0n),
      openPrice: price(open),
      highPrice: price(high),
      lowPrice: price(low),
      volume: size(volume),
      quoteVolume: fromUnits(notional, notionalScale),
      openTime,
      closeTime: now,
      firstId: count === 0 ? -1 : trades[from]!.id,
      lastId: count === 0 ? -1 : trades[to - 1]!.id,
      count,
    };
  }
}
