/**
 * The venue's static catalog, from the sim config: its tokens and markets (validated market specs),
 * lookups by symbol and address, token metadata and the exchangeInfo symbols.
 *
 * Policies (ours):
 * - Token metadata: `name` from the config (the symbol when absent); `verified`, `isErc20`,
 *   `isStrict` true; `contractRenounced`, `isMintable` false; `logoUrl`, `description`,
 *   `websiteUrl` null; `firstPoolAddress` the first market (config order) that trades the token.
 * - exchangeInfo `baseAssetPrecision` / `quoteAssetPrecision`: the number of decimals of the
 *   market's sizes and prices (log10 of sizePrecision and pricePrecision), i.e. how many decimals
 *   the `qty` and `price` strings of its market data can carry.
 * - exchangeInfo `filters` (Binance's, not in the venue's spec): `PRICE_FILTER` (minPrice one tick,
 *   maxPrice the largest uint32 price on the tick, tickSize) and `LOT_SIZE` (minQty, maxQty, stepSize
 *   one size unit), in human decimals.
 */
import { BaseError } from '../core/base-error.ts';
import { fromUnits, MAX_PRICE_UNITS } from '../core/units.ts';
import type { SimConfig } from '../config/sim-config.ts';
import type { Address } from '../protocol/encoding.ts';
import type { ExchangeSymbol } from '../protocol/market-data.ts';
import type { Token } from '../protocol/tokens.ts';
import { createMarketSpec, type MarketSpec, type TokenSpec } from '../protocol/market-spec.ts';

export interface VenueCatalog {
  readonly tokens: readonly TokenSpec[];
  readonly markets: readonly MarketSpec[];
  marketBySymbol(symbol: string): MarketSpec | undefined;
  marketByAddress(address: Address): MarketSpec | undefined;
  tokenBySymbol(symbol: string): TokenSpec | undefined;
  tokenByAddress(address: Address): TokenSpec | undefined;
  /** A token's display name (the symbol when the config gives none; the address when unknown). */
  tokenName(address: Address): string;
  /** Token metadata (the `data` of the token envelope), or undefined when the venue has no such token. */
  token(address: Address): Token | undefined;
  exchangeSymbols(): ExchangeSymbol[];
}

/** The largest order price on the tick (`MAX_PRICE_UNITS`: uint32, 0xFFFFFFFF reserved). */
function maxPriceOnTick(tickSize: bigint): bigint {
  return (MAX_PRICE_UNITS / tickSize) * tickSize;
}

/** Decimal digits of a power of ten (10^k -> k). */
function digits(precision: bigint): number {
  return precision.toString().length - 1;
}

/**
 * Builds the catalog; a market the engine would refuse throws CONFIG_INVALID.
 *
 * @example const catalog = createVenueCatalog(config); catalog.marketBySymbol('MON_USDC')?.address
 */
export function createVenueCatalog(config: SimConfig): VenueCatalog {
  const tokens: TokenSpec[] = config.tokens.map((t) => Object.freeze({ address: t.address, symbol: t.symbol, decimals: t.decimals }));
  const names = new Map<Address, string>(config.tokens.map((t) => [t.address, t.name ?? t.symbol]));
  const tokensBySymbol = new Map(tokens.map((t) => [t.symbol, t]));
  const tokensByAddress = new Map(tokens.map((t) => [t.address, t]));
  const markets = config.markets.map((m) => {
    const baseToken = tokensBySymbol.get(m.base);
    const quoteToken = tokensBySymbol.get(m.quote);
    // The config schema already checks both; this keeps the type honest.
    if (baseToken === undefined || quoteToken === undefined) {
      throw new BaseError('CONFIG_INVALID', `market ${m.symbol}: its tokens are not under tokens`, { details: { market: m.symbol } });
    }
    return createMarketSpec({
      symbol: m.symbol,
      address: m.address,
      baseToken,
      quoteToken,
      pricePrecision: m.pricePrecision,
      sizePrecision: m.sizePrecision,
      tickSize: m.tickSize,
      minSize: m.minSize,
      maxSize: m.maxSize,
      makerFeePps: m.makerFeePps,
      takerFeePps: m.takerFeePps,
    });
  });
  const bySymbol = new Map(markets.map((m) => [m.symbol, m]));
  const byAddress = new Map(markets.map((m) => [m.address, m]));
  const metadata = new Map<Address, Token>();
  for (const token of tokens) {
    const pool = markets.find((m) => m.baseToken.address === token.address || m.quoteToken.address === token.address);
    metadata.set(
      token.address,
      Object.freeze({
        tokenAddress: token.address,
        name: names.get(token.address) ?? token.symbol,
        symbol: token.symbol,
        decimals: token.decimals,
        logoUrl: null,
        description: null,
        websiteUrl: null,
        verified: true,
        contractRenounced: false,
        isErc20: true,
        isMintable: false,
        isStrict: true,
        firstPoolAddress: pool?.address ?? null,
      }),
    );
  }
  const lower = (address: Address) => address.toLowerCase() as Address;
  return {
    tokens,
    markets,
    marketBySymbol: (symbol) => bySymbol.get(symbol),
    marketByAddress: (address) => byAddress.get(lower(address)),
    tokenBySymbol: (symbol) => tokensBySymbol.get(symbol),
    tokenByAddress: (address) => tokensByAddress.get(lower(address)),
    tokenName: (address) => names.get(lower(address)) ?? address,
    token: (address) => {
      const token = metadata.get(lower(address));
      return token === undefined ? undefined : { ...token };
    },
    exchangeSymbols: () =>
      markets.map((m) => ({
        symbol: m.symbol,
        status: 'TRADING',
        baseAsset: m.baseToken.symbol,
        quoteAsset: m.quoteToken.symbol,
        baseAssetPrecision: digits(m.sizePrecision),
        quoteAssetPrecision: digits(m.pricePrecision),
        filters: [
          {
            filterType: 'PRICE_FILTER',
            minPrice: fromUnits(m.tickSize, m.pricePrecision),
            maxPrice: fromUnits(maxPriceOnTick(m.tickSize), m.pricePrecision),
            tickSize: fromUnits(m.tickSize, m.pricePrecision),
          },
          { filterType: 'LOT_SIZE', minQty: fromUnits(m.minSize, m.sizePrecision), maxQty: fromUnits(m.maxSize, m.sizePrecision), stepSize: fromUnits(1n, m.sizePrecision) },
        ],
      })),
  };
}
