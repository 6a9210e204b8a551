/**
 * A real simulated venue for the route tests and the HTTP benchmark: config/sim.yaml, a virtual
 * clock, and a book built by system transactions in produced blocks (maker ladders on both sides,
 * then takers that trade), so depth, trades, klines, ticker and user data all have content.
 */
import { fileURLToPath } from 'node:url';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { loadConfigOrThrow } from '../../src/config/load-config.ts';
import { simConfigSchema, type SimConfig } from '../../src/config/sim-config.ts';
import type { Address } from '../../src/protocol/encoding.ts';
import type { OrderIntent } from '../../src/protocol/intent-types.ts';
import { createSimVenue } from '../../src/venue/create-sim-venue.ts';
import type { MarketSpec } from '../../src/protocol/market-spec.ts';
import type { SimVenueModel } from '../../src/venue/sim-venue.ts';

/** 2024-08-08T00:00:00Z */
export const T0 = Date.UTC(2024, 7, 8);

const configFile = fileURLToPath(new URL('../../config/sim.yaml', import.meta.url));

export function loadSimConfig(): Promise<SimConfig> {
  return loadConfigOrThrow(configFile, simConfigSchema);
}

export const MAKER_BID: Address = '0x00000000000000000000000000000000000b1d01';
export const MAKER_ASK: Address = '0x00000000000000000000000000000000000a5c01';
export const TAKER: Address = '0x000000000000000000000000000000000007a4e1';

export interface VenueFixture {
  readonly config: SimConfig;
  readonly clock: VirtualClock;
  readonly venue: SimVenueModel;
  readonly monUsdc: MarketSpec;
  readonly wethUsdc: MarketSpec;
  /** Produces one block `blockMs` after the previous one. */
  block(): void;
}

function gtc(side: 'BUY' | 'SELL', price: bigint, quantity: bigint): OrderIntent {
  return { side, price, quantity, tif: 'GTC', executionInstruction: 'NONE', minSizeAfterBlock: 0n };
}

function ioc(side: 'BUY' | 'SELL', price: bigint, quantity: bigint): OrderIntent {
  return { side, price, quantity, tif: 'IOC', executionInstruction: 'NONE', minSizeAfterBlock: 0n };
}

/**
 * A venue whose MON_USDC book holds `levels` bid and ask levels (1 to 4 owners per side, 50 orders
 * each), with `trades` taker orders that each fill against the best ask or bid, all committed.
 */
export async function createVenueFixture(options: { readonly levels?: number; readonly trades?: number } = {}): Promise<VenueFixture> {
  const levels = options.levels ?? 60;
  const tradeCount = options.trades ?? 6;
  const config = await loadSimConfig();
  const clock = new VirtualClock(T0);
  const venue = createSimVenue({ config, clock });
  const monUsdc = venue.marketBySymbol('MON_USDC')!;
  const wethUsdc = venue.marketBySymbol('WETH_USDC')!;
  const block = () => {
    clock.advanceBy(config.blockMs);
    venue.produceBlock();
  };
  const fundBoth = (owner: Address) => {
    venue.fund(owner, monUsdc.baseToken.address, 10n ** 30n);
    return venue.fund(owner, monUsdc.quoteToken.address, 10n ** 18n);
  };

  const mid = 350_000n; // 0.035 USDC, in price units of 1e-7 (tick 10)
  const perOwner = 50;
  for (let owner = 0; owner * perOwner < levels; owner++) {
    const count = Math.min(perOwner, levels - owner * perOwner);
    const bidOwner = `${MAKER_BID.slice(0, -2)}${String(owner).padStart(2, '0')}` as Address;
    const askOwner = `${MAKER_ASK.slice(0, -2)}${String(owner).padStart(2, '0')}` as Address;
    const bids = Array.from({ length: count }, (_, i) => gtc('BUY', mid - 10n * BigInt(owner * perOwner + i + 1), 10_000n));
    const asks = Array.from({ length: count }, (_, i) => gtc('SELL', mid + 10n * BigInt(owner * perOwner + i + 1), 10_000n));
    venue.enqueueSystemTx(fundBoth(bidOwner), monUsdc.address, { kind: 'batch', orders: bids, cancelSlotIdxs: [], expectedOrderIds: [] });
    venue.enqueueSystemTx(fundBoth(askOwner), monUsdc.address, { kind: 'batch', orders: asks, cancelSlotIdxs: [], expectedOrderIds: [] });
  }
  block();
  const taker = fundBoth(TAKER);
  for (let i = 0; i < tradeCount; i++) {
    const side = i % 2 === 0 ? 'BUY' : 'SELL';
    const price = side === 'BUY' ? mid + 10_000n : mid - 10_000n;
    venue.enqueueSystemTx(taker, monUsdc.address, { kind: 'batch', orders: [ioc(side, price, 500n)], cancelSlotIdxs: [], expectedOrderIds: [] });
    block();
  }
  // A resting order of the taker, so it has an active order too.
  venue.enqueueSystemTx(taker, monUsdc.address, { kind: 'batch', orders: [gtc('BUY', mid - 100_000n, 100n)], cancelSlotIdxs: [], expectedOrderIds: [] });
  // Past the commit lag: every state shows the same book.
  for (let i = 0; i <= config.stateLagBlocks.committed; i++) block();
  return { config, clock, venue, monUsdc, wethUsdc, block };
}
