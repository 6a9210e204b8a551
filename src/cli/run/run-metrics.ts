/**
 * The metric families of a run for the Prometheus endpoint: orders, fills, volume, PnL, inventory,
 * pending outcomes, market-data poll latency and errors. Amounts are human units as floats (what
 * Prometheus stores); the exact figures are in the summary.
 */
import type { EngineStats } from '../../execution/execution-engine.ts';
import type { MetricFamily, MetricValue } from './metrics-server.ts';
import type { MarketSummary } from '../../runtime/run-tracker.ts';
import type { StrategyTally } from '../../runtime/strategy-host.ts';
import type { EndpointTiming, SourceEndpoint } from '../../runtime/timed-source.ts';

export interface RunMetricsInput {
  readonly markets: readonly MarketSummary[];
  readonly stats: EngineStats;
  readonly timings: ReadonlyMap<SourceEndpoint, Readonly<EndpointTiming>>;
  readonly strategies: readonly { readonly name: string; readonly tally: StrategyTally; failure(): unknown }[];
}

const perMarket = (markets: readonly MarketSummary[], value: (market: MarketSummary) => number | string): MetricValue[] =>
  markets.map((market) => ({ labels: { market: market.symbol }, value: Number(value(market)) }));

/**
 * @example formatMetrics(runMetricFamilies({ markets: tracker.summary(), stats: engine.stats(), timings, strategies }))
 */
export function runMetricFamilies(input: RunMetricsInput): MetricFamily[] {
  const { markets, stats } = input;
  const timings = [...input.timings];
  return [
    { name: 'clobbot_orders_placed_total', help: 'Orders placed by confirmed intents.', type: 'counter', values: perMarket(markets, (m) => m.placed) },
    { name: 'clobbot_orders_cancelled_total', help: 'Orders that left the book without filling completely.', type: 'counter', values: perMarket(markets, (m) => m.cancelled) },
    { name: 'clobbot_orders_open', help: 'Open orders of the account.', type: 'gauge', values: perMarket(markets, (m) => m.openOrders) },
    { name: 'clobbot_fills_total', help: 'Fills of the account’s orders.', type: 'counter', values: perMarket(markets, (m) => m.fills) },
    { name: 'clobbot_volume_base_total', help: 'Filled size, base token.', type: 'counter', values: perMarket(markets, (m) => m.volume) },
    { name: 'clobbot_volume_quote_total', help: 'Filled notional, quote token.', type: 'counter', values: perMarket(markets, (m) => m.notional) },
    { name: 'clobbot_fees_quote_total', help: 'Fees paid, quote token.', type: 'counter', values: perMarket(markets, (m) => m.fees) },
    { name: 'clobbot_position_base', help: 'Position (inventory), base token, signed.', type: 'gauge', values: perMarket(markets, (m) => m.position) },
    { name: 'clobbot_pnl_realized_quote', help: 'Realized PnL, quote token, gross of fees.', type: 'gauge', values: perMarket(markets, (m) => m.realizedPnl) },
    { name: 'clobbot_pnl_unrealized_quote', help: 'Unrealized PnL at the mid, quote token.', type: 'gauge', values: perMarket(markets, (m) => m.unrealizedPnl) },
    { name: 'clobbot_pnl_net_quote', help: 'Realized + unrealized - fees, quote token.', type: 'gauge', values: perMarket(markets, (m) => m.netPnl) },
    { name: 'clobbot_mid_price', help: 'Last mid price, quote per base.', type: 'gauge', values: markets.filter((m) => m.mid !== undefined).map((m) => ({ labels: { market: m.symbol }, value: Number(m.mid) })) },
    { name: 'clobbot_pending_requests', help: 'Requests signed and not yet resolved, per market.', type: 'gauge', values: perMarket(markets, (m) => m.pending) },
    { name: 'clobbot_pending_outcomes_max', help: 'Most outcomes awaited at once on one connection.', type: 'gauge', values: [{ value: stats.maxPendingOutcomes }] },
    {
      name: 'clobbot_intents_total',
      help: 'Intents by how they ended.',
      type: 'counter',
      values: (['signed', 'confirmed', 'reverted', 'rejected', 'refused', 'superseded'] as const).map((status) => ({ labels: { status }, value: stats[status] })),
    },
    {
      name: 'clobbot_stale_slot_reverts_total',
      help: 'Reverts because a slot no longer held the expected order (a fill not seen yet); not errors.',
      type: 'counter',
      values: [{ value: stats.staleSlotReverts }],
    },
    { name: 'clobbot_relay_reconnects_total', help: 'Relay WebSocket reconnections.', type: 'counter', values: [{ value: stats.reconnects }] },
    {
      name: 'clobbot_market_data_requests_total',
      help: 'Market-data calls, by endpoint.',
      type: 'counter',
      values: timings.map(([endpoint, timing]) => ({ labels: { endpoint }, value: timing.calls })),
    },
    {
      name: 'clobbot_market_data_errors_total',
      help: 'Failed market-data calls, by endpoint.',
      type: 'counter',
      values: timings.map(([endpoint, timing]) => ({ labels: { endpoint }, value: timing.errors })),
    },
    {
      name: 'clobbot_market_data_poll_seconds_sum',
      help: 'Total time of market-data calls, by endpoint (divide by the requests for the mean latency).',
      type: 'counter',
      values: timings.map(([endpoint, timing]) => ({ labels: { endpoint }, value: timing.totalMs / 1000 })),
    },
    {
      name: 'clobbot_market_data_poll_seconds_last',
      help: 'Latency of the last market-data call, by endpoint.',
      type: 'gauge',
      values: timings.map(([endpoint, timing]) => ({ labels: { endpoint }, value: timing.lastMs / 1000 })),
    },
    {
      name: 'clobbot_strategy_intents_total',
      help: 'Intents a strategy emitted.',
      type: 'counter',
      values: input.strategies.map((strategy) => ({ labels: { strategy: strategy.name }, value: strategy.tally.emitted })),
    },
    {
      name: 'clobbot_strategy_errors_total',
      help: 'Strategy failures (a thrown error or an invalid intent) and intents refused or rejected.',
      type: 'counter',
      values: input.strategies.map((strategy) => ({
        labels: { strategy: strategy.name },
        value: (strategy.failure() === undefined ? 0 : 1) + [...strategy.tally.codes.values()].reduce((sum, count) => sum + count, 0),
      })),
    },
  ];
}
