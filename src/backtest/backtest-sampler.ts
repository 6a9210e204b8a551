/**
 * What a backtest samples on the clock while it runs (every `everyMs` of virtual time): the account's
 * equity (quote raw units: its quote plus its base valued at the recorded mid, fees already paid),
 * its position, whether it had a bid and an ask resting, and the recorded mid with its own best
 * quotes (for the report's price chart). Exact: balances come from the venue in raw units.
 */
import { interval, type Subscription } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import { amountScale, quoteRaw, type MarketSpec } from '../protocol/market-spec.ts';
import type { SimVenueModel } from '../venue/sim-venue.ts';
import type { EquitySample, InventorySample, QuoteSample } from './backtest-metrics.ts';

export interface PriceSample {
  readonly atMs: number;
  /** Price units; undefined when not known. */
  readonly mid: bigint | undefined;
  readonly bestBid: bigint | undefined;
  readonly bestAsk: bigint | undefined;
}

export interface BacktestSamples {
  readonly equity: EquitySample[];
  readonly inventory: InventorySample[];
  readonly quotes: QuoteSample[];
  readonly prices: PriceSample[];
}

export interface BacktestSampler {
  readonly samples: BacktestSamples;
  /** Takes one sample now (also at the start and the end). */
  sample(): void;
  readonly subscription: Subscription;
}

/**
 * @example const sampler = startBacktestSampler({ clock, venue, spec, accountId, mid: () => replay.mid(), everyMs: 1_000 });
 */
export function startBacktestSampler(params: {
  readonly clock: Clock;
  readonly venue: SimVenueModel;
  readonly spec: MarketSpec;
  readonly accountId: bigint;
  readonly mid: () => bigint | undefined;
  readonly everyMs: number;
}): BacktestSampler {
  const { clock, venue, spec, accountId } = params;
  const scale = amountScale(spec);
  /** Size units of a raw base amount (floored). */
  const sizeOf = (raw: bigint) => (raw * scale.baseDiv) / scale.baseMul;
  const total = (token: MarketSpec['baseToken']) => {
    const { available, locked } = venue.balance(accountId, token.address);
    return available + locked;
  };
  const initialBase = sizeOf(total(spec.baseToken));
  const samples: BacktestSamples = { equity: [], inventory: [], quotes: [], prices: [] };
  let lastMid: bigint | undefined;
  const sample = () => {
    const atMs = clock.now();
    const mid = params.mid() ?? lastMid;
    lastMid = mid;
    const base = sizeOf(total(spec.baseToken));
    const quote = total(spec.quoteToken);
    if (mid !== undefined) samples.equity.push({ atMs, equity: quote + quoteRaw(scale, mid, base) });
    samples.inventory.push({ atMs, position: base - initialBase });
    let bestBid: bigint | undefined;
    let bestAsk: bigint | undefined;
    for (const order of venue.openOrders(accountId, spec.address)) {
      if (order.side === 'BUY' && (bestBid === undefined || order.price > bestBid)) bestBid = order.price;
      if (order.side === 'SELL' && (bestAsk === undefined || order.price < bestAsk)) bestAsk = order.price;
    }
    samples.quotes.push({ atMs, hasBid: bestBid !== undefined, hasAsk: bestAsk !== undefined });
    samples.prices.push({ atMs, mid, bestBid, bestAsk });
  };
  sample();
  const subscription = interval(params.everyMs, clock.scheduler).subscribe(sample);
  return { samples, sample, subscription };
}
