/**
 * The feed header's market (feed-header.ts) of a clobbot venue's market: the tick and lot sizes as
 * decimals, the fees as fractions, and the whole MarketSpec so a backtest trades the same market.
 */
import type { MarketSpec } from '../protocol/market-spec.ts';
import { FEE_DENOMINATOR } from '../protocol/market-spec.ts';
import { formatScaled } from './decimal-scale.ts';
import type { FeedMarket } from './feed-header.ts';

/** Decimal places of a power of ten. */
const places = (powerOfTen: bigint): number => powerOfTen.toString().length - 1;

/**
 * @example feedMarketOf(spec) // { symbol: 'MON_USDC', tickSize: '0.0001', lotSize: '0.001', makerFee: '0.0001', … }
 */
export function feedMarketOf(spec: MarketSpec): FeedMarket {
  return {
    symbol: spec.symbol,
    baseAsset: spec.baseToken.symbol,
    quoteAsset: spec.quoteToken.symbol,
    tickSize: formatScaled(spec.tickSize, places(spec.pricePrecision)),
    lotSize: formatScaled(1n, places(spec.sizePrecision)),
    makerFee: formatScaled(spec.makerFeePps, places(FEE_DENOMINATOR)),
    takerFee: formatScaled(spec.takerFeePps, places(FEE_DENOMINATOR)),
    venue: {
      address: spec.address,
      pricePrecision: String(spec.pricePrecision),
      sizePrecision: String(spec.sizePrecision),
      tickSize: String(spec.tickSize),
      minSize: String(spec.minSize),
      maxSize: String(spec.maxSize),
      makerFeePps: String(spec.makerFeePps),
      takerFeePps: String(spec.takerFeePps),
      baseToken: { ...spec.baseToken },
      quoteToken: { ...spec.quoteToken },
    },
  };
}
