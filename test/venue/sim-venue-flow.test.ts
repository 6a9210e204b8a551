import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.ts';
import { simConfigSchema } from '../../src/config/sim-config.ts';
import { Decimal } from '../../src/core/decimal.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { createSimVenue } from '../../src/venue/create-sim-venue.ts';

const START_MS = Date.UTC(2025, 0, 6);

function shippedConfig() {
  const result = parseConfig(readFileSync('config/sim.yaml', 'utf8'), simConfigSchema, { file: 'config/sim.yaml' });
  if (!result.ok) throw new Error('config/sim.yaml is invalid');
  return result.value;
}

/** Trades and both book sides of every market after `seconds` of virtual time. */
function run(seed: number, seconds: number, backgroundFlow = true) {
  const config = shippedConfig();
  const clock = new VirtualClock(START_MS);
  const venue = createSimVenue({ config, clock, backgroundFlow, seed });
  venue.start();
  clock.advanceBy(seconds * 1000);
  venue.stop();
  return config.markets.map((market) => {
    const spec = venue.marketBySymbol(market.symbol)!;
    const depth = venue.depth(spec, 20, 'committed');
    return { symbol: market.symbol, trades: venue.trades(spec, 1000), bids: depth.bids, asks: depth.asks };
  });
}

describe('the simulated venue with its background flow', () => {
  it('keeps every configured market alive: trades and a two-sided, uncrossed book', () => {
    for (const market of run(1, 60)) {
      expect(market.trades.length, market.symbol).toBeGreaterThan(5);
      expect(market.bids.length, market.symbol).toBeGreaterThan(0);
      expect(market.asks.length, market.symbol).toBeGreaterThan(0);
      expect(new Decimal(market.bids[0]![0]).lt(market.asks[0]![0])).toBe(true);
    }
  });

  it('is the same market for the same seed, another for another seed, and quiet without the flow', () => {
    const a = run(7, 20);
    expect(run(7, 20)).toEqual(a);
    expect(run(8, 20)).not.toEqual(a);
    for (const market of run(7, 20, false)) expect(market.trades).toEqual([]);
  });

  it('stops placing when the venue stops', () => {
    const config = shippedConfig();
    const clock = new VirtualClock(START_MS);
    const venue = createSimVenue({ config, clock, backgroundFlow: true, seed: 3 });
    venue.start();
    clock.advanceBy(10_000);
    venue.stop();
    const block = venue.blockNumber();
    clock.advanceBy(10_000);
    expect(venue.blockNumber()).toBe(block);
    expect(venue.pendingTransactions()).toBe(0);
  });
});
