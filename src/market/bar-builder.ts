/**
 * Trades -> candles of any interval, by Binance's rules: a candle's open time is the trade time
 * floored to the interval (`floor(time / interval) * interval`, shifted by `offsetMs` if given),
 * `closeTime = openTime + interval - 1`; open, high, low, close of the trade prices; base volume,
 * quote volume (sum of price x qty) and the number of trades. An interval without trades gets a
 * flat candle at the previous close with volume 0.
 *
 * A pure state machine: `push` a trade and receive the candles it closes; `closeUntil(time)` closes
 * the candles whose interval ended before `time` (the clock passed them). Trades must come in time
 * order; a trade older than the candle in progress cannot be counted any more and is dropped (see
 * `lateTrades`). `buildBars` (operators/build-bars.ts) runs it on a stream and a scheduler.
 */
import { BaseError } from '../core/base-error.ts';
import type { Candle } from './candle.ts';

/** What the bar builder reads of a trade (a `UnitTrade` is one). */
export interface BarTrade {
  /** ms since the epoch. */
  readonly time: number;
  /** Price units. */
  readonly price: bigint;
  /** Size units. */
  readonly qty: bigint;
}

export interface BarBuilderParameters {
  /** Candle length in ms, a positive integer. */
  readonly intervalMs: number;
  /**
   * Shifts the grid of open times to `offsetMs + k * intervalMs` (default 0: aligned to the epoch).
   * Binance's weekly candles open on Mondays: `offsetMs: 4 * 86_400_000` (the epoch was a Thursday).
   */
  readonly offsetMs?: number;
}

/** Binance's weekly candles open on Monday 00:00 UTC, four days after the epoch's Thursday. */
export const WEEKLY_OFFSET_MS = 4 * 86_400_000;

/**
 * @example
 * const bars = new BarBuilder({ intervalMs: 60_000 });
 * bars.push({ time: 1_000, price: 100n, qty: 2n });    // []
 * bars.push({ time: 125_000, price: 101n, qty: 1n });  // [candle 0..59999, flat candle 60000..119999]
 */
export class BarBuilder {
  readonly intervalMs: number;
  readonly offsetMs: number;
  #lateTrades = 0;
  // The candle in progress; `#started` is false before the first trade.
  #started = false;
  #openTime = 0;
  #open = 0n;
  #high = 0n;
  #low = 0n;
  #close = 0n;
  #volume = 0n;
  #quoteVolume = 0n;
  #numTrades = 0;

  constructor(params: BarBuilderParameters) {
    const { intervalMs, offsetMs = 0 } = params;
    if (!Number.isSafeInteger(intervalMs) || intervalMs <= 0 || !Number.isSafeInteger(offsetMs)) {
      throw new BaseError('MARKET_PLAN_INVALID', `bar interval must be a positive integer number of ms, got ${intervalMs}`, {
        details: { intervalMs, offsetMs },
      });
    }
    this.intervalMs = intervalMs;
    this.offsetMs = offsetMs;
  }

  /** Open time of the interval that holds `time`. */
  openTimeOf(time: number): number {
    return this.offsetMs + Math.floor((time - this.offsetMs) / this.intervalMs) * this.intervalMs;
  }

  /** Trades dropped because their interval had already been closed. */
  get lateTrades(): number {
    return this.#lateTrades;
  }

  /** Last ms of the candle in progress, undefined before the first trade. */
  get pendingCloseTime(): number | undefined {
    return this.#started ? this.#openTime + this.intervalMs - 1 : undefined;
  }

  /** The candle in progress as it stands (flat if no trade reached it yet). */
  current(): Candle | undefined {
    return this.#started ? this.#snapshot() : undefined;
  }

  /** Adds a trade; returns the candles it closes, oldest first (flat ones for empty intervals). */
  push(trade: BarTrade): Candle[] {
    const openTime = this.openTimeOf(trade.time);
    if (!this.#started) {
      this.#started = true;
      this.#begin(openTime, trade);
      return [];
    }
    if (openTime < this.#openTime) {
      this.#lateTrades++;
      return [];
    }
    if (openTime === this.#openTime) {
      this.#add(trade);
      return [];
    }
    const closed = this.#closeBefore(openTime);
    this.#begin(openTime, trade);
    return closed;
  }

  /** Closes every candle whose interval ended before `time` (`closeTime < time`), oldest first. */
  closeUntil(time: number): Candle[] {
    if (!this.#started || this.#openTime + this.intervalMs - 1 >= time) return [];
    const closed = this.#closeBefore(this.openTimeOf(time));
    this.#flatAt(this.openTimeOf(time));
    return closed;
  }

  /** Ends a run: the candle in progress if a trade reached it, and forgets it. */
  flush(): Candle | undefined {
    if (!this.#started || this.#numTrades === 0) return undefined;
    const last = this.#snapshot();
    this.#flatAt(this.#openTime + this.intervalMs);
    return last;
  }

  /** The candle in progress and flat candles for every interval before `openTime`. */
  #closeBefore(openTime: number): Candle[] {
    const closed = [this.#snapshot()];
    for (let t = this.#openTime + this.intervalMs; t < openTime; t += this.intervalMs) {
      closed.push({ openTime: t, closeTime: t + this.intervalMs - 1, open: this.#close, high: this.#close, low: this.#close, close: this.#close, volume: 0n, quoteVolume: 0n, numTrades: 0 });
    }
    return closed;
  }

  #flatAt(openTime: number): void {
    this.#openTime = openTime;
    this.#open = this.#high = this.#low = this.#close;
    this.#volume = 0n;
    this.#quoteVolume = 0n;
    this.#numTrades = 0;
  }

  #begin(openTime: number, trade: BarTrade): void {
    this.#openTime = openTime;
    this.#open = this.#high = this.#low = this.#close = trade.price;
    this.#volume = trade.qty;
    this.#quoteVolume = trade.price * trade.qty;
    this.#numTrades = 1;
  }

  #add(trade: BarTrade): void {
    if (this.#numTrades === 0) {
      this.#begin(this.#openTime, trade);
      return;
    }
    const price = trade.price;
    if (price > this.#high) this.#high = price;
    if (price < this.#low) this.#low = price;
    this.#close = price;
    this.#volume += trade.qty;
    this.#quoteVolume += price * trade.qty;
    this.#numTrades++;
  }

  #snapshot(): Candle {
    return {
      openTime: this.#openTime,
      closeTime: this.#openTime + this.intervalMs - 1,
      open: this.#open,
      high: this.#high,
      low: this.#low,
      close: this.#close,
      volume: this.#volume,
      quoteVolume: this.#quoteVolume,
      numTrades: this.#numTrades,
    };
  }
}
