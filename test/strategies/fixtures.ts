/** Markets of the strategy tests: MON_USDC as config/sim.yaml defines it, and a second market. */
import { toUnits, type MarketSpec } from 'clobbot';

const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as const;

/** Prices in 1e-7 USDC on a tick of 10 (0.000001), sizes in 0.01 MON, min 1 MON; taker fee 2 bp. */
export const monUsdc: MarketSpec = {
  symbol: 'MON_USDC',
  address: address(0xb1),
  baseToken: { address: address(0xa1), symbol: 'MON', decimals: 18 },
  quoteToken: { address: address(0xa2), symbol: 'USDC', decimals: 6 },
  pricePrecision: 10_000_000n,
  sizePrecision: 100n,
  tickSize: 10n,
  minSize: 100n,
  maxSize: 1_000_000_000n,
  makerFeePps: 0n,
  takerFeePps: 2_000n,
};

/** Prices in cents, sizes in 1e-4 WETH. */
export const wethUsdc: MarketSpec = {
  symbol: 'WETH_USDC',
  address: address(0xb2),
  baseToken: { address: address(0xa3), symbol: 'WETH', decimals: 18 },
  quoteToken: { address: address(0xa2), symbol: 'USDC', decimals: 6 },
  pricePrecision: 100n,
  sizePrecision: 10_000n,
  tickSize: 1n,
  minSize: 10n,
  maxSize: 10_000_000n,
  makerFeePps: 0n,
  takerFeePps: 2_000n,
};

/** A MON_USDC book `bid / ask` (human prices) with `depth` MON at each of five levels a tick apart. */
export function book(bid: string, ask: string, depth = '100000') {
  const bidUnits = toUnits(bid, monUsdc.pricePrecision);
  const askUnits = toUnits(ask, monUsdc.pricePrecision);
  const size = toUnits(depth, monUsdc.sizePrecision);
  return {
    bids: Array.from({ length: 5 }, (_, i) => [bidUnits - BigInt(i) * 10n, size] as const),
    asks: Array.from({ length: 5 }, (_, i) => [askUnits + BigInt(i) * 10n, size] as const),
  };
}
