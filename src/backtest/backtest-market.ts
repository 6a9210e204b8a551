/**
 * The market a backtest trades and the venue it runs: the run file's market that the feed records
 * (matched by symbol, `BTC_USDT` and `BTCUSDT` alike), its parameters (given whole in the run file,
 * or the sim config's market of that symbol), the feed's ticks and lots in that market's units, and a
 * venue config with that one market, no background flow (the recording is the flow) and the run's
 * funding.
 */
import { BaseError } from '../core/base-error.ts';
import type { RunConfig, RunMarket } from '../config/run-config.ts';
import { runMarketSymbol } from '../config/run-config.ts';
import { simConfigSchema, simMarketOf, type SimConfig } from '../config/sim-config.ts';
import { createVenueCatalog } from '../venue/venue-catalog.ts';
import { createMarketSpec, type MarketSpec } from '../protocol/market-spec.ts';
import { parseStep } from '../feeds/decimal-scale.ts';
import type { FeedHeader } from '../feeds/feed-header.ts';

/** A token the sim config does not fund gets this much (human amount) in a backtest. */
export const DEFAULT_BACKTEST_FUNDING = '1000000';

export interface BacktestMarket {
  /** The run file's `markets` entry traded. */
  readonly entry: RunMarket;
  readonly spec: MarketSpec;
  /** The venue of the backtest: the sim config's chain, relay and auth settings with only this market. */
  readonly simConfig: SimConfig;
  /** Price units per feed tick and size units per feed lot. */
  readonly unitsPerTick: bigint;
  readonly unitsPerLot: bigint;
}

const plain = (symbol: string) => symbol.replace(/[^0-9a-z]/gi, '').toUpperCase();

/** `step` (a decimal) in units of 1 / `precision`, when it is a whole number of them. */
function unitsOf(step: string, precision: bigint): bigint | undefined {
  const { mantissa, decimals } = parseStep(step);
  const scaled = mantissa * precision;
  const divisor = 10n ** BigInt(decimals);
  return scaled % divisor === 0n ? scaled / divisor : undefined;
}

/**
 * @example const market = backtestMarket({ config, sim, header, feedPath: 'btcusdt.arrow', runFile: 'config/backtest-btcusdt.yaml' });
 */
export function backtestMarket(params: { readonly config: RunConfig; readonly sim: SimConfig; readonly header: FeedHeader; readonly feedPath: string; readonly runFile: string }): BacktestMarket {
  const { config, sim, header, feedPath, runFile } = params;
  const feedSymbol = header.market.symbol;
  const entry = config.markets.find((candidate) => plain(runMarketSymbol(candidate)) === plain(feedSymbol));
  const foreign = (why: string) => new BaseError('FEED_FOREIGN', `${feedPath}: ${why}`, { details: { path: feedPath, symbol: feedSymbol } });
  if (entry === undefined) throw foreign(`a feed of ${feedSymbol}, but ${runFile} trades ${config.markets.map(runMarketSymbol).join(', ')}`);
  const symbol = runMarketSymbol(entry);
  const spec = typeof entry === 'string' ? createVenueCatalog(sim).marketBySymbol(symbol) : createMarketSpec(entry);
  if (spec === undefined) throw foreign(`${runFile} lists ${symbol} by symbol, and its sim config has no such market: give the market whole in the run file`);
  const unitsPerTick = unitsOf(header.market.tickSize, spec.pricePrecision);
  const unitsPerLot = unitsOf(header.market.lotSize, spec.sizePrecision);
  if (unitsPerTick === undefined || unitsPerTick % spec.tickSize !== 0n) {
    throw foreign(`its tick size ${header.market.tickSize} is not a whole number of ${symbol}'s ticks (${spec.tickSize} units of 1/${spec.pricePrecision})`);
  }
  if (unitsPerLot === undefined) throw foreign(`its lot size ${header.market.lotSize} is finer than ${symbol}'s size unit (1/${spec.sizePrecision})`);
  const funding = Object.fromEntries(
    [spec.baseToken.symbol, spec.quoteToken.symbol].map((token) => [token, sim.funding.default[token] ?? DEFAULT_BACKTEST_FUNDING]),
  );
  const simConfig = simConfigSchema.parse({
    ...sim,
    tokens: [spec.baseToken, spec.quoteToken].map((token) => ({ symbol: token.symbol, name: token.symbol, address: token.address, decimals: token.decimals })),
    markets: [simMarketOf(spec)],
    funding: { default: funding, accounts: [] },
    faults: {},
  });
  return { entry, spec, simConfig, unitsPerTick, unitsPerLot };
}
