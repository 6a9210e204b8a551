/**
 * The metrics of a run for its Prometheus endpoint, on a prom-client registry of its own (never the
 * global one: tests start several runs in one process): prom-client's process and Node runtime
 * metrics; two histograms observed as things happen (an intent's time to its fate, each REST poll's
 * duration); and the run's figures (orders, fills, volume, PnL, inventory, pending outcomes,
 * intents, market-data calls, strategies) read from its state at each scrape. Amounts are human
 * units as floats (what Prometheus stores); the exact figures are in the summary.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EngineStats, IntentFate } from '../../execution/execution-engine.ts';
import type { MarketSummary } from '../../runtime/run-tracker.ts';
import type { StrategyTally } from '../../runtime/strategy-host.ts';
import type { EndpointTiming, SourceEndpoint } from '../../runtime/timed-source.ts';
import type { PollEndpoint } from '../../runtime/trading-runtime.ts';

/**
 * Seconds from an intent's submission to its fate: a refusal is immediate, an outcome takes a block
 * or two (plus any wait in the queue), a request settled by reconciliation its 60 s deadline and more.
 */
export const INTENT_OUTCOME_BUCKETS: readonly number[] = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120];
/** Seconds of one REST poll: about a millisecond on loopback, tens of ms over the internet, 10 s at the clients' timeout. */
export const POLL_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface RunMetricsInput {
  readonly markets: readonly MarketSummary[];
  readonly stats: EngineStats;
  readonly timings: ReadonlyMap<SourceEndpoint, Readonly<EndpointTiming>>;
  readonly strategies: readonly { readonly name: string; readonly tally: StrategyTally; failure(): unknown }[];
}

export interface RunMetrics {
  readonly registry: Registry;
  /** One REST poll (the runtime's `onPollTimed`). */
  observePoll(endpoint: PollEndpoint, ms: number): void;
  /** One strategy intent's time from its submission to its fate (the runtime's `onIntentSettled`). */
  observeIntent(fate: IntentFate, ms: number): void;
  /** Registers the run's figures, each read from `read()` at a scrape. Once, when the run is built. */
  follow(read: () => RunMetricsInput): void;
}

interface Sample {
  readonly labels?: Record<string, string>;
  readonly value: number;
}

/**
 * `read` at most once per scrape: prom-client calls every metric's `collect()` in one synchronous
 * pass, and the run's summary walks every order seen, so a dozen families must not read it a dozen times.
 */
function oncePerScrape<T>(read: () => T): () => T {
  let cached: { readonly value: T } | undefined;
  return () => {
    if (cached === undefined) {
      cached = { value: read() };
      queueMicrotask(() => (cached = undefined));
    }
    return cached.value;
  };
}

/**
 * @example
 * const metrics = createRunMetrics();
 * const runtime = createTradingRuntime({ ...params, onPollTimed: metrics.observePoll, onIntentSettled: metrics.observeIntent });
 * metrics.follow(() => ({ markets: runtime.tracker.summary(), stats: runtime.engine.stats(), timings: runtime.marketData.timings, strategies: runtime.hosts }));
 * await startMetricsServer({ port: 9464, registry: metrics.registry });
 */
export function createRunMetrics(): RunMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const intents = new Histogram({
    name: 'clobbot_intent_outcome_seconds',
    help: 'Time from a strategy intent’s submission to the engine to its fate, by fate.',
    labelNames: ['status'],
    buckets: [...INTENT_OUTCOME_BUCKETS],
    registers: [registry],
  });
  const polls = new Histogram({
    name: 'clobbot_poll_seconds',
    help: 'Duration of one REST poll (answered or failed), by endpoint.',
    labelNames: ['endpoint'],
    buckets: [...POLL_BUCKETS],
    registers: [registry],
  });
  return {
    registry,
    observePoll: (endpoint, ms) => polls.observe({ endpoint }, ms / 1000),
    observeIntent: (fate, ms) => intents.observe({ status: fate.status.toLowerCase() }, ms / 1000),
    follow: (read) => registerRunFigures(registry, oncePerScrape(read)),
  };
}

function registerRunFigures(registry: Registry, read: () => RunMetricsInput): void {
  const family = (type: 'counter' | 'gauge', name: string, help: string, labelNames: readonly string[], samples: (input: RunMetricsInput) => readonly Sample[]) => {
    // A metric joins its registry as it is made; reset first drops label sets gone since the last scrape.
    const config = { name, help, labelNames: [...labelNames], registers: [registry] };
    if (type === 'gauge') {
      new Gauge({
        ...config,
        collect() {
          this.reset();
          for (const { labels, value } of samples(read())) this.set(labels ?? {}, value);
        },
      });
    } else {
      // The run holds the totals: each scrape states them (a counter cannot be set: reset, then add).
      new Counter({
        ...config,
        collect() {
          this.reset();
          for (const { labels, value } of samples(read())) this.inc(labels ?? {}, value);
        },
      });
    }
  };
  const perMarket = (value: (market: MarketSummary) => number | string) => (input: RunMetricsInput) =>
    input.markets.map((market) => ({ labels: { market: market.symbol }, value: Number(value(market)) }));
  const perEndpoint = (value: (timing: Readonly<EndpointTiming>) => number) => (input: RunMetricsInput) =>
    [...input.timings].map(([endpoint, timing]) => ({ labels: { endpoint }, value: value(timing) }));

  family('counter', 'clobbot_orders_placed_total', 'Orders placed by confirmed intents.', ['market'], perMarket((m) => m.placed));
  family('counter', 'clobbot_orders_cancelled_total', 'Orders that left the book without filling completely.', ['market'], perMarket((m) => m.cancelled));
  family('gauge', 'clobbot_orders_open', 'Open orders of the account.', ['market'], perMarket((m) => m.openOrders));
  family('counter', 'clobbot_fills_total', 'Fills of the account’s orders.', ['market'], perMarket((m) => m.fills));
  family('counter', 'clobbot_volume_base_total', 'Filled size, base token.', ['market'], perMarket((m) => m.volume));
  family('counter', 'clobbot_volume_quote_total', 'Filled notional, quote token.', ['market'], perMarket((m) => m.notional));
  family('counter', 'clobbot_fees_quote_total', 'Fees paid, quote token.', ['market'], perMarket((m) => m.fees));
  family('gauge', 'clobbot_position_base', 'Position (inventory), base token, signed.', ['market'], perMarket((m) => m.position));
  family('gauge', 'clobbot_pnl_realized_quote', 'Realized PnL, quote token, gross of fees.', ['market'], perMarket((m) => m.realizedPnl));
  family('gauge', 'clobbot_pnl_unrealized_quote', 'Unrealized PnL at the mid, quote token.', ['market'], perMarket((m) => m.unrealizedPnl));
  family('gauge', 'clobbot_pnl_net_quote', 'Realized + unrealized - fees, quote token.', ['market'], perMarket((m) => m.netPnl));
  family('gauge', 'clobbot_mid_price', 'Last mid price, quote per base.', ['market'], ({ markets }) =>
    markets.filter((m) => m.mid !== undefined).map((m) => ({ labels: { market: m.symbol }, value: Number(m.mid) })),
  );
  family('gauge', 'clobbot_pending_requests', 'Requests signed and not yet resolved, per market.', ['market'], perMarket((m) => m.pending));
  family('gauge', 'clobbot_pending_outcomes_max', 'Most outcomes awaited at once on one connection.', [], ({ stats }) => [{ value: stats.maxPendingOutcomes }]);
  family('counter', 'clobbot_intents_total', 'Intents by how they ended.', ['status'], ({ stats }) =>
    (['signed', 'confirmed', 'reverted', 'rejected', 'refused', 'superseded'] as const).map((status) => ({ labels: { status }, value: stats[status] })),
  );
  family('counter', 'clobbot_stale_slot_reverts_total', 'Reverts because a slot no longer held the expected order (a fill not seen yet); not errors.', [], ({ stats }) => [
    { value: stats.staleSlotReverts },
  ]);
  family('counter', 'clobbot_relay_reconnects_total', 'Relay WebSocket reconnections.', [], ({ stats }) => [{ value: stats.reconnects }]);
  family('counter', 'clobbot_market_data_requests_total', 'Market-data calls, by endpoint.', ['endpoint'], perEndpoint((t) => t.calls));
  family('counter', 'clobbot_market_data_errors_total', 'Failed market-data calls, by endpoint.', ['endpoint'], perEndpoint((t) => t.errors));
  family('counter', 'clobbot_market_data_poll_seconds_sum', 'Total time of market-data calls, by endpoint (divide by the requests for the mean latency).', ['endpoint'], perEndpoint((t) => t.totalMs / 1000));
  family('gauge', 'clobbot_market_data_poll_seconds_last', 'Latency of the last market-data call, by endpoint.', ['endpoint'], perEndpoint((t) => t.lastMs / 1000));
  family('counter', 'clobbot_strategy_intents_total', 'Intents a strategy emitted.', ['strategy'], ({ strategies }) =>
    strategies.map((strategy) => ({ labels: { strategy: strategy.name }, value: strategy.tally.emitted })),
  );
  family('counter', 'clobbot_strategy_errors_total', 'Strategy failures (a thrown error or an invalid intent) and intents refused or rejected.', ['strategy'], ({ strategies }) =>
    strategies.map((strategy) => ({
      labels: { strategy: strategy.name },
      value: (strategy.failure() === undefined ? 0 : 1) + [...strategy.tally.codes.values()].reduce((sum, count) => sum + count, 0),
    })),
  );
}
