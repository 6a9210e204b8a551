/**
 * A MarketDataSource that times every call on the clock and counts failures per endpoint, for the
 * status line and the metrics endpoint (poll latency, market-data errors), and hands each call's
 * duration to `onTimed` when given (the metrics' poll histogram). Calls pass through unchanged; the
 * raw-body fast path (`depthBody`) is kept when the source has it.
 */
import type { Clock } from '../core/clock.ts';
import type { MarketDataSource } from '../clients/market-data-source.ts';

export type SourceEndpoint = 'depth' | 'trades' | 'ticker' | 'klines' | 'exchangeInfo';

export interface EndpointTiming {
  /** Calls answered (successfully or not). */
  calls: number;
  errors: number;
  /** Sum of the call durations, ms. */
  totalMs: number;
  /** Duration of the last call, ms. */
  lastMs: number;
}

export interface TimedSource {
  readonly source: MarketDataSource;
  /** Timings per endpoint; updated in place. */
  readonly timings: ReadonlyMap<SourceEndpoint, Readonly<EndpointTiming>>;
}

/**
 * @example
 * const { source, timings } = timeSource(createMarketDataClient(context, { baseUrl }), liveClock);
 * timings.get('depth')?.lastMs
 */
export function timeSource(inner: MarketDataSource, clock: Pick<Clock, 'now'>, onTimed?: (endpoint: SourceEndpoint, ms: number) => void): TimedSource {
  const timings = new Map<SourceEndpoint, EndpointTiming>();
  const timed = async <T>(endpoint: SourceEndpoint, call: () => Promise<T>): Promise<T> => {
    let timing = timings.get(endpoint);
    if (timing === undefined) {
      timing = { calls: 0, errors: 0, totalMs: 0, lastMs: 0 };
      timings.set(endpoint, timing);
    }
    const started = clock.now();
    try {
      return await call();
    } catch (error) {
      timing.errors += 1;
      throw error;
    } finally {
      const elapsed = clock.now() - started;
      timing.calls += 1;
      timing.totalMs += elapsed;
      timing.lastMs = elapsed;
      onTimed?.(endpoint, elapsed);
    }
  };
  const depthBody = inner.depthBody;
  const source: MarketDataSource = {
    depth: (parameters, options) => timed('depth', () => inner.depth(parameters, options)),
    ...(depthBody === undefined ? {} : { depthBody: (parameters, options) => timed('depth', () => depthBody.call(inner, parameters, options)) }),
    trades: (parameters, options) => timed('trades', () => inner.trades(parameters, options)),
    ticker24hr: (parameters, options) => timed('ticker', () => inner.ticker24hr(parameters, options)),
    klines: (parameters, options) => timed('klines', () => inner.klines(parameters, options)),
    exchangeInfo: (options) => timed('exchangeInfo', () => inner.exchangeInfo(options)),
  };
  return { source, timings };
}
