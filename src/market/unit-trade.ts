/**
 * A trade in integer units: what `trades$` emits and what the bar builder reads.
 */
import type { Trade } from '../protocol/market-data.ts';
import { decimalToUnits } from './decimal-scanner.ts';
import { marketDecimals, type MarketPrecision } from './market-precision.ts';

export interface UnitTrade {
  /** The venue's trade id: increasing, one apart between consecutive trades. */
  readonly id: number;
  /** Trade time, ms since the epoch. */
  readonly time: number;
  /** Price units. */
  readonly price: bigint;
  /** Size units (base). */
  readonly qty: bigint;
  /** True when the buyer was the resting order (the taker sold). */
  readonly isBuyerMaker: boolean;
}

/**
 * Wire trades -> unit trades at a market's precision. A price or quantity finer than the
 * precision is `UNITS_NOT_REPRESENTABLE`.
 *
 * @example tradesToUnits([{ id: 1, price: '61837.63', qty: '0.02', time: 0, isBuyerMaker: true }], market)[0]?.price // 6183763n
 */
export function tradesToUnits(trades: readonly Trade[], market: MarketPrecision): UnitTrade[] {
  const decimals = marketDecimals(market);
  return trades.map((trade, i) => ({
    id: trade.id,
    time: trade.time,
    price: decimalToUnits(trade.price, decimals.price, `$[${i}].price`),
    qty: decimalToUnits(trade.qty, decimals.size, `$[${i}].qty`),
    isBuyerMaker: trade.isBuyerMaker,
  }));
}
