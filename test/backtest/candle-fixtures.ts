/**
 * Hand-made candle feeds and a candle backtest run of them, for the candle backtest's and the
 * crossover's tests: a BTC_USDT market in cents and thousandths of a BTC (the feed's ticks and lots
 * are the market's units), fees 1 bp maker and 2 bp taker, bars a minute apart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/core/logger.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { createMarketSpec, type MarketSpec } from '../../src/protocol/market-spec.ts';
import { createCandleFeedWriter, openCandleFeed } from '../../src/feeds/candle-feed.ts';
import type { StrategyDefinition } from '../../src/strategy/define-strategy.ts';
import type { IntentFateReport, OwnFill } from '../../src/strategy/strategy-context.ts';
import { createCandleBacktest, type CandleRun } from '../../src/backtest/candle-backtest.ts';

export const btcUsdt: MarketSpec = createMarketSpec({
  symbol: 'BTC_USDT',
  address: '0x00000000000000000000000000000000000b7c01',
  baseToken: { address: '0x00000000000000000000000000000000000b7c02', symbol: 'BTC', decimals: 8 },
  quoteToken: { address: '0x00000000000000000000000000000000000b7c03', symbol: 'USDT', decimals: 6 },
  pricePrecision: 100n,
  sizePrecision: 1_000n,
  tickSize: 1n,
  minSize: 1n,
  maxSize: 1_000_000n,
  makerFeePps: 1_000n,
  takerFeePps: 2_000n,
});

/** 2026-01-01T00:00:00Z: bar k opens k minutes later. */
export const T0 = Date.UTC(2026, 0, 1);
export const MINUTE = 60_000;

/** One bar as open, high, low, close in cents. */
export type Bar = readonly [open: number, high: number, low: number, close: number];

/** Writes `bars` as a candle feed of `symbol` (default BTC_USDT) in cents and thousandths. */
export function writeBars(path: string, bars: readonly Bar[], symbol = 'BTC_USDT'): void {
  const writer = createCandleFeedWriter(path, {
    format: 'clobbot-feed',
    version: 1,
    kind: 'candles',
    market: { symbol, tickSize: '0.01', lotSize: '0.001' },
    source: { kind: 'binance-klines', files: [], interval: '1m' },
  });
  bars.forEach(([open, high, low, close], k) => {
    const openNs = BigInt(T0 + k * MINUTE) * 1_000_000n;
    writer.append(openNs, openNs + BigInt(MINUTE - 1) * 1_000_000n, BigInt(open), BigInt(high), BigInt(low), BigInt(close), 5_000n, 5_000n * BigInt(close), 10n);
  });
  writer.finish();
}

export interface BarsRun {
  readonly run: CandleRun;
  readonly fills: OwnFill[];
  readonly reports: IntentFateReport[];
}

/**
 * Runs `definition` with `params` on `bars` through the candle backtest (funding: 100 BTC, 1,000,000 USDT).
 *
 * @example const { fills } = await runBars([[10_000, 10_100, 9_900, 10_050]], crossover, { fast: 2, slow: 3, size: '1' });
 */
export async function runBars(bars: readonly Bar[], definition: StrategyDefinition, params: unknown, options: { readonly markets?: readonly string[]; readonly symbol?: string } = {}): Promise<BarsRun> {
  const dir = mkdtempSync(join(tmpdir(), 'clobbot-candle-test-'));
  try {
    const path = join(dir, 'bars.arrow');
    writeBars(path, bars, options.symbol);
    const feed = await openCandleFeed(path);
    try {
      const backtest = createCandleBacktest({
        feed,
        spec: btcUsdt,
        unitsPerTick: 1n,
        unitsPerLot: 1n,
        strategies: [{ name: 'tested', module: 'test', resolved: 'test', definition, markets: options.markets ?? ['BTC_USDT'], params: definition.params.parse(params) }],
        funding: { base: 100n * 10n ** 8n, quote: 1_000_000n * 10n ** 6n },
        seed: 1,
        clock: new VirtualClock(0),
        logger: createLogger({ level: 'silent' }),
      });
      const fills: OwnFill[] = [];
      const reports: IntentFateReport[] = [];
      backtest.fills$.subscribe((fill) => fills.push(fill));
      backtest.reports$.subscribe((report) => reports.push(report));
      return { run: await backtest.run(), fills, reports };
    } finally {
      await feed.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A run file trading the BTC_USDT market of the candle feeds that the candle CLI tests import
 * (prices in cents, sizes in millionths, taker fee 1,000 pps), with one strategy `crossover` of
 * `strategyModule` and its `params` (YAML flow mapping).
 */
export const btcUsdtRunFile = (strategyModule: string, params = '{ fast: 3, slow: 8, size: "0.01", slippageBps: 5 }') => `network: testnet
hosts: { exchangeUrl: https://exchange.testnet.example, userUrl: https://user.testnet.example, rpcUrl: https://rpc.testnet.example }
wallet: { privateKeyEnv: CLOBBOT_PRIVATE_KEY }
account: { id: 1 }
markets:
  - symbol: BTC_USDT
    address: "0x00000000000000000000000000000000000b7c01"
    baseToken: { address: "0x00000000000000000000000000000000000b7c02", symbol: BTC, decimals: 8 }
    quoteToken: { address: "0x00000000000000000000000000000000000b7c03", symbol: USDT, decimals: 6 }
    pricePrecision: 100
    sizePrecision: 1000000
    tickSize: 1
    minSize: 10
    maxSize: 100000000
    makerFeePps: 0
    takerFeePps: 1000
strategies:
  - name: crossover
    module: ${strategyModule}
    markets: [BTC_USDT]
    idleTimeout: off
    params: ${params}
risk: { maxPosition: "0.3", maxOrderSize: "0.05", maxNotional: "5000", priceBandBps: 100, maxOrdersPerSecond: 20, maxOpenOrders: 8 }
logging: { level: warn }
`;
