/**
 * A candlestick in integer units: what the bar builder makes and what `klines$` emits. Field names
 * and time rules follow the wire `Kline` (Binance): `closeTime = openTime + interval - 1`.
 */
import { fromUnits } from '../core/units.ts';
import type { Kline } from '../protocol/market-data.ts';
import { decimalToUnits } from './decimal-scanner.ts';
import { marketDecimals, type MarketPrecision } from './market-precision.ts';

export interface Candle {
  /** Start of the interval, ms. */
  readonly openTime: number;
  /** Last ms of the interval: `openTime + interval - 1`. */
  readonly closeTime: number;
  /** Price units. A candle without trades is flat at the previous close. */
  readonly open: bigint;
  readonly high: bigint;
  readonly low: bigint;
  readonly close: bigint;
  /** Base volume, size units. */
  readonly volume: bigint;
  /** Quote volume: the sum of price x qty, in price units x size units (scale pricePrecision x sizePrecision). */
  readonly quoteVolume: bigint;
  readonly numTrades: number;
}

/**
 * A candle -> the wire `Kline` with human decimal strings.
 *
 * @example candleToKline(candle, market).close // '61837.63'
 */
export function candleToKline(candle: Candle, market: MarketPrecision): Kline {
  const price = (units: bigint) => fromUnits(units, market.pricePrecision);
  return {
    openTime: candle.openTime,
    open: price(candle.open),
    high: price(candle.high),
    low: price(candle.low),
    close: price(candle.close),
    volume: fromUnits(candle.volume, market.sizePrecision),
    closeTime: candle.closeTime,
    quoteVolume: fromUnits(candle.quoteVolume, market.pricePrecision * market.sizePrecision),
    numTrades: candle.numTrades,
  };
}

/**
 * A wire `Kline` -> a candle in the market's units (exact: `UNITS_NOT_REPRESENTABLE` when a value
 * is finer than the precision).
 */
export function klineToCandle(kline: Kline, market: MarketPrecision): Candle {
  const decimals = marketDecimals(market);
  const price = (text: string, field: string) => decimalToUnits(text, decimals.price, `$.${field}`);
  return {
    openTime: kline.openTime,
    closeTime: kline.closeTime,
    open: price(kline.open, 'open'),
    high: price(kline.high, 'high'),
    low: price(kline.low, 'low'),
    close: price(kline.close, 'close'),
    volume: decimalToUnits(kline.volume, decimals.size, '$.volume'),
    quoteVolume: decimalToUnits(kline.quoteVolume, decimals.price + decimals.size, '$.quoteVolume'),
    numTrades: kline.numTrades,
  };
}
