/**
 * The fill rules of a candle backtest, as backtrader's and Freqtrade's brokers fill orders on bars
 * (docs/backtesting.md, "Candle backtests"). A bar shows only its open, high, low and close, so the
 * book at a bar's open is taken to be that one price:
 * - an order arriving at a bar's open (every order: a strategy acts on a closed bar, and its intent
 *   reaches the venue at the next bar's open) is marketable when the open is at or through its
 *   price, and then fills at the open as a taker;
 * - a resting limit order fills in a later bar whose range reaches its price: at its price, or at
 *   the open when the bar opens through it.
 * Prices are in any one unit (ticks or price units), as long as all are.
 */
import type { OrderSide } from '../protocol/constants.ts';

/**
 * Whether an order arriving at `open` takes at once: a buy priced at or above the open, a sell at or
 * below it.
 *
 * @example marketableAtOpen('BUY', 101n, 100n) // true: fills at 100 as a taker
 */
export function marketableAtOpen(side: OrderSide, price: bigint, open: bigint): boolean {
  return side === 'BUY' ? open <= price : open >= price;
}

/**
 * The price a resting limit order fills at in the bar `open`, `high`, `low`; undefined when the bar
 * does not reach it.
 *
 * @example
 * restingFillPrice('BUY', 100n, 104n, 106n, 99n) // 100n: the range reached it
 * restingFillPrice('BUY', 100n, 98n, 103n, 97n)  // 98n: the bar opened through it
 * restingFillPrice('SELL', 100n, 95n, 99n, 94n)  // undefined
 */
export function restingFillPrice(side: OrderSide, price: bigint, open: bigint, high: bigint, low: bigint): bigint | undefined {
  if (side === 'BUY') return open <= price ? open : low <= price ? price : undefined;
  return open >= price ? open : high >= price ? price : undefined;
}
