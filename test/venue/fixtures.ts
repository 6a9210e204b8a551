/** Markets, accounts and helpers shared by the venue tests. */
import { UINT64_MAX } from '../../src/core/units.ts';
import type { Address } from '../../src/protocol/encoding.ts';
import type { OrderIntent } from '../../src/protocol/intent-types.ts';
import type { MarketSpec } from '../../src/protocol/market-spec.ts';
import { MatchingEngine, type BatchResult } from '../../src/venue/matching-engine.ts';
import type { VenueEvent } from '../../src/venue/venue-events.ts';

export const EMPTY = UINT64_MAX;

export function address(n: number): Address {
  return `0x${n.toString(16).padStart(40, '0')}`;
}

export const MON = { address: address(0xa1), symbol: 'MON', decimals: 18 } as const;
export const USDC = { address: address(0xa2), symbol: 'USDC', decimals: 6 } as const;
export const WETH = { address: address(0xa3), symbol: 'WETH', decimals: 3 } as const;

/**
 * MON_USDC: price units of 0.01 USDC, size units of 0.001 MON, so quoteRaw = price * size * 10
 * exactly and baseRaw = size * 10^15. Maker fee 0.1 %, taker fee 0.2 %.
 */
export const monUsdc: MarketSpec = {
  symbol: 'MON_USDC',
  address: address(0xb1),
  baseToken: MON,
  quoteToken: USDC,
  pricePrecision: 100n,
  sizePrecision: 1000n,
  tickSize: 5n,
  minSize: 10n,
  maxSize: 1_000_000n,
  makerFeePps: 10_000n,
  takerFeePps: 20_000n,
};

/**
 * WETH_USDC with conversions that floor: quoteRaw = floor(price * size / 100),
 * baseRaw = floor(size / 10) (WETH has 3 decimals, sizes are 1e-4), taker fee 25 %, maker fee 7 pps.
 */
export const wethUsdc: MarketSpec = {
  symbol: 'WETH_USDC',
  address: address(0xb2),
  baseToken: WETH,
  quoteToken: USDC,
  pricePrecision: 10_000n,
  sizePrecision: 10_000n,
  tickSize: 1n,
  minSize: 1n,
  maxSize: 10_000n,
  makerFeePps: 7n,
  takerFeePps: 2_500_000n,
};

export function order(partial: Partial<OrderIntent> & Pick<OrderIntent, 'side' | 'price' | 'quantity'>): OrderIntent {
  return { tif: 'GTC', executionInstruction: 'NONE', minSizeAfterBlock: 0n, ...partial };
}

export function newEngine(markets: readonly MarketSpec[] = [monUsdc]): MatchingEngine {
  return new MatchingEngine({ markets });
}

/** Opens an account for owner `n` and credits it. */
export function funded(engine: MatchingEngine, n: number, amounts: { base?: bigint; quote?: bigint; market?: MarketSpec } = {}): bigint {
  const market = amounts.market ?? monUsdc;
  const account = engine.accounts.open(address(0x1000 + n));
  if (amounts.base) engine.accounts.credit(account, market.baseToken.address, amounts.base);
  if (amounts.quote) engine.accounts.credit(account, market.quoteToken.address, amounts.quote);
  return account.id;
}

/** Places orders (no cancels) and returns the accepted result, failing the test otherwise. */
export function placeOk(engine: MatchingEngine, accountId: bigint, orders: OrderIntent[], market: MarketSpec = monUsdc) {
  const result = engine.executeBatch({ accountId, market: market.address, cancelSlotIdxs: [], expectedOrderIds: [], orders });
  if (!result.ok) throw new Error(`expected accepted batch, got ${result.code}: ${result.message}`);
  return result;
}

export function place(engine: MatchingEngine, accountId: bigint, orders: OrderIntent[], market: MarketSpec = monUsdc): BatchResult {
  return engine.executeBatch({ accountId, market: market.address, cancelSlotIdxs: [], expectedOrderIds: [], orders });
}

export function eventsOf<T extends VenueEvent['type']>(events: readonly VenueEvent[], type: T): Extract<VenueEvent, { type: T }>[] {
  return events.filter((event): event is Extract<VenueEvent, { type: T }> => event.type === type);
}

/** Everything observable about the engine, as plain data, for before/after comparisons. */
export function venueSnapshot(engine: MatchingEngine, accountIds: readonly bigint[], markets: readonly MarketSpec[]) {
  const tokens = [...new Set(markets.flatMap((m) => [m.baseToken.address, m.quoteToken.address]))];
  return {
    nextOrderId: engine.nextOrderId,
    markets: markets.map((m) => {
      const book = engine.book(m.address)!;
      const side = (isBid: boolean) =>
        [...book.orders(isBid)].map((o) => ({
          id: o.id,
          accountId: o.accountId,
          price: o.price,
          remaining: o.remaining,
          locked: o.locked,
          slot: o.slot,
          minSizeAfterBlock: o.minSizeAfterBlock,
        }));
      return { nextTradeId: engine.nextTradeId(m.address), bids: side(true), asks: side(false), depth: book.depth(1000) };
    }),
    fees: tokens.map((token) => engine.feesCollected(token)),
    accounts: accountIds.map((id) => ({
      balances: tokens.map((token) => engine.balance(id, token)),
      slots: markets.map((m) => engine.slotOrderIds(id, m.address)),
    })),
  };
}
