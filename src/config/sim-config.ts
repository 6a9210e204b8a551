/**
 * The config of the local simulated venue (`clobbot sim`, and the in-process venue of `clobbot run`):
 * chain, blocks and their consensus lags, auth and rate limits, tokens, markets with their background
 * order flow, account funding and fault injection. Units and fees are bigint; human amounts (prices,
 * balances, order sizes of the background flow) stay decimal strings.
 */
import { z } from 'zod';
import type { MarketSpec } from '../protocol/market-spec.ts';
import { Decimal } from '../core/decimal.ts';
import { UINT32_MAX, UINT96_MAX } from '../core/units.ts';
import { MARKET_DATA_WEIGHT_PER_MINUTE, ORDER_EVENTS_CACHE_MS } from '../protocol/constants.ts';
import { faultSettingsSchema } from './fault-config.ts';
import { configAddress, decimalAmount, integerUnits, intInRange, marketSymbol, tokenSymbol } from './fields.ts';
import { NETWORK_DEFAULTS } from './network-config.ts';

/** Fees are in pps: parts per 10^7 of the traded amount (1000 pps = 1 bp). */
export const PPS_DENOMINATOR = 10_000_000n;

/** Addresses of the simulated venue's contracts when the config does not set them (ours). */
export const DEFAULT_SIM_CONTRACTS = Object.freeze({
  accountCore: '0x2cb356a5955b415cd5f7b3241b08b473a4743999',
  tradingWalletDelegate: '0x65a31520110c40aa3b01d5c2656aa264fa77ab0f',
} as const);

/** The relay's sponsor (the `from` of every sponsored transaction) when the config does not set it (ours: keccak256("clobbot.sim.sponsor")). */
export const DEFAULT_SIM_SPONSOR = '0xa92b993cf1745125791b10a35238bc408baf44a5';

/** Largest default distance of an intent nonce (ms since the epoch) ahead of the venue's clock (ours). */
export const DEFAULT_MAX_NONCE_SKEW_MS = 60_000;

function isPowerOfTen(value: bigint): boolean {
  let rest = value;
  while (rest > 1n && rest % 10n === 0n) rest /= 10n;
  return rest === 1n;
}

const tokenSchema = z.strictObject({
  symbol: tokenSymbol,
  address: configAddress,
  decimals: intInRange(0, 36),
  name: z.string().min(1).max(64).optional(),
});

const flowSchema = z
  .strictObject({
    /** Same seed, same market. */
    seed: intInRange(0, 2 ** 32 - 1),
    /** Starting mid price (quote per base, human decimal). */
    midPrice: decimalAmount({ positive: true }),
    /** Annualised volatility of the mid's geometric random walk (0.8 = 80 %). */
    volatility: z.number().min(0).max(20),
    /** Poisson arrival rates of background actions. */
    arrivalsPerSecond: z
      .strictObject({
        limit: z.number().min(0).max(10_000).default(4),
        cancel: z.number().min(0).max(10_000).default(3),
        market: z.number().min(0).max(10_000).default(0.5),
      })
      .prefault({}),
    /** Size range of background orders, base-token units (human decimal). */
    orderSize: z.strictObject({ min: decimalAmount({ positive: true }), max: decimalAmount({ positive: true }) }),
    /** Background limit orders rest at most this far from the mid. */
    maxDistanceBps: intInRange(1, 10_000).default(50),
    /** Background accounts placing the flow (funded by the venue itself). */
    accounts: intInRange(1, 100).default(4),
  })
  .superRefine((flow, ctx) => {
    if (new Decimal(flow.orderSize.min).gt(flow.orderSize.max)) {
      ctx.addIssue({ code: 'custom', path: ['orderSize', 'min'], message: 'expected orderSize.min <= orderSize.max' });
    }
  });

const marketSchema = z
  .strictObject({
    /** `BASE_QUOTE`, from the token symbols. */
    symbol: marketSymbol,
    address: configAddress,
    base: tokenSymbol,
    quote: tokenSymbol,
    /** Price-precision units per 1 quote per base: a power of ten. */
    pricePrecision: integerUnits({ min: 1n, max: UINT32_MAX }),
    /** Size-precision units per 1 base token: a power of ten. */
    sizePrecision: integerUnits({ min: 1n, max: UINT96_MAX }),
    /** Smallest price step, price-precision units. */
    tickSize: integerUnits({ min: 1n, max: UINT32_MAX }),
    /** Smallest and largest order size, size-precision units. */
    minSize: integerUnits({ min: 1n, max: UINT96_MAX }),
    maxSize: integerUnits({ min: 1n, max: UINT96_MAX }),
    makerFeePps: integerUnits({ max: PPS_DENOMINATOR }),
    takerFeePps: integerUnits({ max: PPS_DENOMINATOR }),
    /** Background order flow; a market without it only moves with the bots' own orders. */
    flow: flowSchema.optional(),
  })
  .superRefine((market, ctx) => {
    for (const key of ['pricePrecision', 'sizePrecision'] as const) {
      if (!isPowerOfTen(market[key])) ctx.addIssue({ code: 'custom', path: [key], message: 'expected a power of ten (1, 10, 100, …)' });
    }
    if (market.minSize > market.maxSize) ctx.addIssue({ code: 'custom', path: ['minSize'], message: 'expected minSize <= maxSize' });
    if (market.symbol !== `${market.base}_${market.quote}`) {
      ctx.addIssue({ code: 'custom', path: ['symbol'], message: `expected ${market.base}_${market.quote} (base_quote)` });
    }
    if (market.base === market.quote) ctx.addIssue({ code: 'custom', path: ['quote'], message: 'expected a token other than the base' });
  });

/** Token symbol -> human amount. */
const balancesSchema = z.record(tokenSymbol, decimalAmount());

/**
 * The simulated venue's config schema. Strict: an unknown key is an error at that key.
 *
 * @example const result = await loadConfig('config/sim.yaml', simConfigSchema);
 */
export const simConfigSchema = z
  .strictObject({
    chainId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).default(NETWORK_DEFAULTS.sim.chainId),
    /** A block every this many ms. */
    blockMs: intInRange(10, 60_000).default(400),
    /** Blocks after which a block is voted, finalized and committed (depth `state`). */
    stateLagBlocks: z
      .strictObject({
        voted: intInRange(0, 1000).default(1),
        finalized: intInRange(0, 1000).default(2),
        committed: intInRange(0, 1000).default(3),
      })
      .prefault({})
      .superRefine((lags, ctx) => {
        if (lags.finalized < lags.voted) ctx.addIssue({ code: 'custom', path: ['finalized'], message: 'expected finalized >= voted' });
        if (lags.committed < lags.finalized) ctx.addIssue({ code: 'custom', path: ['committed'], message: 'expected committed >= finalized' });
      }),
    auth: z
      .strictObject({
        /** Lifetime of relay JWTs. */
        jwtLifetimeSec: intInRange(1, 30 * 86_400).default(3600),
        /** Lifetime of quote tokens from generate-token. */
        quoteTokenLifetimeSec: intInRange(1, 30 * 86_400).default(3600),
      })
      .prefault({}),
    marketData: z
      .strictObject({
        /** Request weight budget per minute per client IP; over it, HTTP 429 -1003. */
        weightPerMinute: intInRange(1, 1_000_000).default(MARKET_DATA_WEIGHT_PER_MINUTE),
      })
      .prefault({}),
    userData: z
      .strictObject({
        /** Order-events responses are cached this long per parameter combination. */
        orderEventsCacheMs: intInRange(0, 600_000).default(ORDER_EVENTS_CACHE_MS),
      })
      .prefault({}),
    http: z
      .strictObject({
        /** Larger request bodies are refused (HTTP 413). */
        maxBodyBytes: intInRange(1024, 16 * 1024 * 1024).default(1024 * 1024),
      })
      .prefault({}),
    contracts: z
      .strictObject({
        accountCore: configAddress.default(DEFAULT_SIM_CONTRACTS.accountCore),
        tradingWalletDelegate: configAddress.default(DEFAULT_SIM_CONTRACTS.tradingWalletDelegate),
      })
      .prefault({}),
    tokens: z.array(tokenSchema).min(1),
    markets: z.array(marketSchema).min(1),
    relay: z
      .strictObject({
        /** An intent nonce (ms since the epoch) may be at most this far ahead of the venue's clock. */
        maxNonceSkewMs: intInRange(0, 86_400_000).default(DEFAULT_MAX_NONCE_SKEW_MS),
        /** The sponsor that pays for and sends every relayed transaction. */
        sponsorAddress: configAddress.default(DEFAULT_SIM_SPONSOR),
        /** EIP-712 trading-wallet domain version the venue verifies intents under ("1"; the venue's newer contracts use "2"). */
        tradingWalletDomainVersion: z.string().regex(/^[0-9A-Za-z.\-]{1,16}$/, 'expected a short version string such as "1"').default('1'),
      })
      .prefault({}),
    funding: z
      .strictObject({
        /** Credited to the account of `clobbot run` on an in-process venue. */
        default: balancesSchema.default({}),
        /** Accounts created and credited at start. */
        accounts: z.array(z.strictObject({ owner: configAddress, balances: balancesSchema })).default([]),
      })
      .prefault({}),
    /** Standing fault settings (fault-config.ts). */
    faults: faultSettingsSchema.prefault({}),
  })
  .superRefine((sim, ctx) => {
    const tokens = new Set<string>();
    const addresses = new Map<string, string>();
    const claim = (address: string, path: (string | number)[], what: string) => {
      const owner = addresses.get(address);
      if (owner !== undefined) ctx.addIssue({ code: 'custom', path, message: `address already used by ${owner}` });
      else addresses.set(address, what);
    };
    sim.tokens.forEach((token, index) => {
      if (tokens.has(token.symbol)) ctx.addIssue({ code: 'custom', path: ['tokens', index, 'symbol'], message: `token ${token.symbol} is defined twice` });
      tokens.add(token.symbol);
      claim(token.address, ['tokens', index, 'address'], `token ${token.symbol}`);
    });
    const symbols = new Set<string>();
    sim.markets.forEach((market, index) => {
      if (symbols.has(market.symbol)) ctx.addIssue({ code: 'custom', path: ['markets', index, 'symbol'], message: `market ${market.symbol} is defined twice` });
      symbols.add(market.symbol);
      claim(market.address, ['markets', index, 'address'], `market ${market.symbol}`);
      for (const side of ['base', 'quote'] as const) {
        if (!tokens.has(market[side])) ctx.addIssue({ code: 'custom', path: ['markets', index, side], message: `token ${market[side]} is not under tokens` });
      }
    });
    const checkBalances = (balances: Readonly<Record<string, string>>, path: (string | number)[]) => {
      for (const symbol of Object.keys(balances)) {
        if (!tokens.has(symbol)) ctx.addIssue({ code: 'custom', path: [...path, symbol], message: `token ${symbol} is not under tokens` });
      }
    };
    checkBalances(sim.funding.default, ['funding', 'default']);
    sim.funding.accounts.forEach((account, index) => checkBalances(account.balances, ['funding', 'accounts', index, 'balances']));
  });

export type SimConfig = z.output<typeof simConfigSchema>;
export type SimMarketConfig = SimConfig['markets'][number];
export type SimTokenConfig = SimConfig['tokens'][number];
export type SimFlowConfig = NonNullable<SimMarketConfig['flow']>;

/**
 * A market spec as the `markets` entry of a sim config that offers it (its tokens by symbol; no
 * background flow): how a backtest or a strategy check puts a given market on an in-process venue.
 *
 * @example simConfigSchema.parse({ tokens, markets: [simMarketOf(spec)] })
 */
export function simMarketOf(spec: MarketSpec): Omit<SimMarketConfig, 'flow'> {
  return {
    symbol: spec.symbol,
    address: spec.address.toLowerCase() as MarketSpec['address'],
    base: spec.baseToken.symbol,
    quote: spec.quoteToken.symbol,
    pricePrecision: spec.pricePrecision,
    sizePrecision: spec.sizePrecision,
    tickSize: spec.tickSize,
    minSize: spec.minSize,
    maxSize: spec.maxSize,
    makerFeePps: spec.makerFeePps,
    takerFeePps: spec.takerFeePps,
  };
}
