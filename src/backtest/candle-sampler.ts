/**
 * What a candle backtest samples at the end of its bars, in the shape an event backtest's sampler
 * gives (backtest-sampler.ts), so both share their metrics and outputs: equity (quote plus base at
 * the bar's close, fees paid), position, whether a bid and an ask rested, and the close as the mid
 * with the own best quotes. A bar count is not known before the feed is read, so the samples stay
 * bounded by thinning: every `stride`-th bar is sampled, and when `maxSamples` are held every other
 * one is dropped and the stride doubles. The samples are then evenly spaced in bars.
 */
import type { BacktestSamples } from './backtest-sampler.ts';

export interface CandleSampler {
  readonly samples: BacktestSamples;
  /** Bars between two samples (a power of two). */
  readonly stride: number;
  /** Whether bar `bar` (0-based) is sampled. */
  due(bar: number): boolean;
  add(atMs: number, equity: bigint, position: bigint, mid: bigint, bestBid: bigint | undefined, bestAsk: bigint | undefined): void;
}

/**
 * `maxSamples` is even; `expectedBars`, when known, sets the first stride so that they fit without thinning.
 *
 * @example const sampler = createCandleSampler(100_000, 524_288); if (sampler.due(bar)) sampler.add(endMs, equity, position, close, bid, ask);
 */
export function createCandleSampler(maxSamples: number, expectedBars = 0): CandleSampler {
  const samples: BacktestSamples = { equity: [], inventory: [], quotes: [], prices: [] };
  let stride = 1;
  while (expectedBars / stride > maxSamples) stride *= 2;
  const thin = <T>(series: T[]) => {
    let kept = 0;
    for (let i = 0; i < series.length; i += 2) series[kept++] = series[i]!;
    series.length = kept;
  };
  return {
    samples,
    get stride() {
      return stride;
    },
    due: (bar) => bar % stride === 0,
    add(atMs, equity, position, mid, bestBid, bestAsk) {
      if (samples.equity.length >= maxSamples) {
        thin(samples.equity);
        thin(samples.inventory);
        thin(samples.quotes);
        thin(samples.prices);
        stride *= 2;
      }
      samples.equity.push({ atMs, equity });
      samples.inventory.push({ atMs, position });
      samples.quotes.push({ atMs, hasBid: bestBid !== undefined, hasAsk: bestAsk !== undefined });
      samples.prices.push({ atMs, mid, bestBid, bestAsk });
    },
  };
}
