/**
 * The background flow driven against a real MatchingEngine on a virtual clock: an in-test adapter
 * implements the FlowVenue port and executes the queued transactions every 400 ms, like blocks.
 */
import { interval, type Subscription } from 'rxjs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfigOrThrow } from '../../src/config/load-config.ts';
import { simConfigSchema, type SimConfig, type SimFlowConfig } from '../../src/config/sim-config.ts';
import { MAX_PRICE_UNITS } from '../../src/core/units.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import type { Address } from '../../src/protocol/encoding.ts';
import {
  backgroundOwner,
  MAX_BACKGROUND_RESTING,
  startBackgroundFlow,
  WARM_UP_ORDERS_PER_SIDE,
  type BackgroundFlow,
  type BackgroundFlowMarket,
  type FlowBatch,
  type FlowRestingOrder,
  type FlowVenue,
} from '../../src/venue/background-flow.ts';
import type { MarketSpec } from '../../src/protocol/market-spec.ts';
import { MatchingEngine } from '../../src/venue/matching-engine.ts';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';

const START = Date.UTC(2025, 0, 1);
const BLOCK_MS = 400;

interface Enqueued {
  readonly at: number;
  readonly accountId: bigint;
  readonly market: Address;
  readonly tx: FlowBatch;
  /** The flow's mid when the tx was queued (undefined during start). */
  readonly mid: bigint | undefined;
}

/** The FlowVenue port over a MatchingEngine, executing queued transactions at block boundaries. */
class EngineFlowVenue implements FlowVenue {
  readonly log: Enqueued[] = [];
  readonly rejections: { code: string; message: string; tx: FlowBatch }[] = [];
  readonly fundCalls: { owner: Address; token: Address; amount: bigint; at: number }[] = [];
  executed = 0;
  trades = 0;
  flow: BackgroundFlow | undefined;
  private queue: Enqueued[] = [];
  private readonly blocks: Subscription;

  constructor(
    readonly engine: MatchingEngine,
    readonly clock: VirtualClock,
  ) {
    this.blocks = interval(BLOCK_MS, clock.scheduler).subscribe(() => this.block());
  }

  fund(owner: Address, token: Address, amount: bigint): bigint {
    this.fundCalls.push({ owner, token, amount, at: this.clock.now() });
    return this.engine.accounts.fund({ owner, token, amount }).id;
  }

  available(accountId: bigint, token: Address): bigint {
    return this.engine.balance(accountId, token).available;
  }

  bestBidAsk(market: Address) {
    const book = this.engine.book(market)!;
    return { bid: book.bestBid(), ask: book.bestAsk() };
  }

  slots(accountId: bigint, market: Address): readonly (FlowRestingOrder | null)[] | undefined {
    return this.engine.accounts.get(accountId)?.peekSlots(market);
  }

  openOrders(accountId: bigint, market: Address): readonly FlowRestingOrder[] {
    return this.engine.activeOrders(accountId, market);
  }

  enqueue(accountId: bigint, market: Address, tx: FlowBatch): void {
    const entry = { at: this.clock.now(), accountId, market, tx, mid: this.flow?.mid(market) };
    this.log.push(entry);
    this.queue.push(entry);
  }

  block(): void {
    const txs = this.queue;
    this.queue = [];
    for (const { accountId, market, tx } of txs) {
      const result = this.engine.executeBatch({ accountId, market, ...tx });
      this.executed++;
      if (result.ok) this.trades += result.events.filter((event) => event.type === 'OrderFilled').length;
      else this.rejections.push({ code: result.code, message: result.message, tx });
    }
    this.engine.endBlock();
  }

  dispose(): void {
    this.blocks.unsubscribe();
  }
}

const config: SimConfig = await loadConfigOrThrow('config/sim.yaml', simConfigSchema, { env: {} });

function specOf(market: SimConfig['markets'][number]): MarketSpec {
  const token = (symbol: string) => {
    const found = config.tokens.find((t) => t.symbol === symbol)!;
    return { address: found.address as Address, symbol: found.symbol, decimals: found.decimals };
  };
  return {
    symbol: market.symbol,
    address: market.address as Address,
    baseToken: token(market.base),
    quoteToken: token(market.quote),
    pricePrecision: market.pricePrecision,
    sizePrecision: market.sizePrecision,
    tickSize: market.tickSize,
    minSize: market.minSize,
    maxSize: market.maxSize,
    makerFeePps: market.makerFeePps,
    takerFeePps: market.takerFeePps,
  };
}

const SHIPPED: BackgroundFlowMarket[] = config.markets.map((market) => ({ spec: specOf(market), flow: market.flow! }));
const MON_USDC = SHIPPED[0]!;
const WETH_USDC = SHIPPED[1]!;

interface RunOptions {
  readonly markets?: readonly BackgroundFlowMarket[];
  readonly seed?: number;
  readonly durationMs: number;
  readonly stepMs?: number;
  readonly maxRestingPerAccount?: number;
  readonly settleMs?: number;
  readonly onStep?: (venue: EngineFlowVenue, flow: BackgroundFlow) => void;
  readonly venue?: (engine: MatchingEngine, clock: VirtualClock) => EngineFlowVenue;
}

function runFlow(options: RunOptions) {
  const markets = options.markets ?? SHIPPED;
  const clock = new VirtualClock(START);
  const engine = new MatchingEngine({ markets: markets.map((m) => m.spec) });
  const venue = options.venue?.(engine, clock) ?? new EngineFlowVenue(engine, clock);
  const flow = startBackgroundFlow(venue, {
    markets,
    clock,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.maxRestingPerAccount === undefined ? {} : { maxRestingPerAccount: options.maxRestingPerAccount }),
    ...(options.settleMs === undefined ? {} : { settleMs: options.settleMs }),
  });
  venue.flow = flow;
  const step = options.stepMs ?? options.durationMs;
  for (let t = 0; t < options.durationMs; t += step) {
    clock.advanceBy(Math.min(step, options.durationMs - t));
    options.onStep?.(venue, flow);
  }
  return { clock, engine, venue, flow };
}

function withFlow(market: BackgroundFlowMarket, flow: Partial<SimFlowConfig>): BackgroundFlowMarket {
  return { spec: market.spec, flow: { ...market.flow, ...flow } };
}

/**
 * Comparable text of the queued transactions (time, account, market, orders, cancels). Order ids
 * are venue-wide, so `withoutIds` drops them to compare one market across venues.
 */
function transcript(log: readonly Enqueued[], withoutIds = false): string {
  return JSON.stringify(
    log.map(({ at, accountId, market, tx }) => [at, accountId, market, withoutIds ? { ...tx, expectedOrderIds: [] } : tx]),
    (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v),
  );
}

describe('startBackgroundFlow over a MatchingEngine, ten simulated minutes of the shipped config', () => {
  const TEN_MINUTES = 600_000;
  const samples: { at: number; market: BackgroundFlowMarket; bid: bigint | null; ask: bigint | null; mid: bigint }[] = [];
  const mids = new Map<Address, number[]>();
  let maxResting = 0;
  let run: ReturnType<typeof runFlow>;

  beforeAll(() => {
    run = runFlow({
      durationMs: TEN_MINUTES,
      stepMs: 1000,
      onStep(venue, flow) {
        for (const market of SHIPPED) {
          const address = market.spec.address;
          const { bid, ask } = venue.bestBidAsk(address);
          samples.push({ at: venue.clock.now() - START, market, bid, ask, mid: flow.mid(address)! });
          (mids.get(address) ?? mids.set(address, []).get(address)!).push(Number(flow.mid(address)!));
          for (const id of flow.accountIds(address)) maxResting = Math.max(maxResting, venue.openOrders(id, address).length);
        }
      },
    });
  });

  it('keeps the book two-sided and within twice maxDistanceBps of the mid at every second', () => {
    expect(samples.length).toBe(1200);
    for (const { market, bid, ask, mid, at } of samples) {
      const where = `${market.spec.symbol} at ${at} ms`;
      expect(bid, where).not.toBeNull();
      expect(ask, where).not.toBeNull();
      expect(bid! < ask!, where).toBe(true);
      const band = (mid * BigInt(2 * market.flow.maxDistanceBps)) / 10_000n + market.spec.tickSize;
      expect(bid! >= mid - band && bid! <= mid + band, `${where}: bid ${bid} vs mid ${mid}`).toBe(true);
      expect(ask! >= mid - band && ask! <= mid + band, `${where}: ask ${ask} vs mid ${mid}`).toBe(true);
    }
  });

  it('trades, and never has a transaction rejected for balance, slots or order shape', () => {
    const { venue } = run;
    expect(venue.trades).toBeGreaterThan(500);
    const codes = venue.rejections.map((r) => r.code);
    expect(codes.filter((code) => code !== 'EXPECTED_ORDER_ID_MISMATCH')).toEqual([]);
    // A cancel can race a fill of its order in the same block; that is rare and harmless.
    expect(codes.length).toBeLessThan(venue.executed / 100);
    expect(maxResting).toBeLessThanOrEqual(MAX_BACKGROUND_RESTING);
  });

  it('draws arrivals at the configured Poisson rates (within 5 standard deviations)', () => {
    for (const market of SHIPPED) {
      const arrivals = run.flow.arrivals(market.spec.address)!;
      for (const kind of ['limit', 'cancel', 'market'] as const) {
        const expected = market.flow.arrivalsPerSecond[kind] * (TEN_MINUTES / 1000);
        expect(Math.abs(arrivals[kind] - expected), `${market.spec.symbol} ${kind}: ${arrivals[kind]} vs ${expected}`).toBeLessThan(
          5 * Math.sqrt(expected),
        );
      }
      const txs = run.venue.log.filter((e) => e.market === market.spec.address);
      const gtc = txs.filter((e) => e.tx.orders[0]?.tif === 'GTC').length;
      const ioc = txs.filter((e) => e.tx.orders[0]?.tif === 'IOC').length;
      // Every limit arrival places one GTC order (the slot cap never had to skip one here).
      expect(gtc).toBe(arrivals.limit + 2 * WARM_UP_ORDERS_PER_SIDE);
      expect(ioc).toBeLessThanOrEqual(arrivals.market);
      expect(ioc).toBeGreaterThan(arrivals.market * 0.9);
    }
  });

  it('moves the mid with the configured annualised volatility', () => {
    for (const market of SHIPPED) {
      const path = mids.get(market.spec.address)!;
      const returns = path.slice(1).map((mid, i) => Math.log(mid / path[i]!));
      const variance = returns.reduce((sum, r) => sum + r * r, 0) / returns.length;
      const annualised = Math.sqrt(variance * 365 * 24 * 3600);
      expect(annualised / market.flow.volatility, market.spec.symbol).toBeGreaterThan(0.8);
      expect(annualised / market.flow.volatility, market.spec.symbol).toBeLessThan(1.2);
    }
  });

  it('sends only orders on the tick within the market bounds, limits within maxDistanceBps on the passive side of the mid', () => {
    const bad: string[] = [];
    for (const market of SHIPPED) {
      const { spec, flow } = market;
      const sizeMin = (BigInt(Math.round(Number(flow.orderSize.min) * 1e6)) * spec.sizePrecision) / 1_000_000n;
      const sizeMax = (BigInt(Math.round(Number(flow.orderSize.max) * 1e6)) * spec.sizePrecision) / 1_000_000n;
      for (const { tx, mid, market: address, at } of run.venue.log) {
        if (address !== spec.address) continue;
        const where = `${spec.symbol} at ${at}: ${JSON.stringify(tx, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`;
        if (tx.cancelSlotIdxs.length + tx.orders.length !== 1 || tx.expectedOrderIds.length !== tx.cancelSlotIdxs.length) bad.push(where);
        for (const order of tx.orders) {
          if (order.price % spec.tickSize !== 0n || order.price < spec.tickSize || order.price > MAX_PRICE_UNITS) bad.push(`price: ${where}`);
          if (order.quantity < sizeMin || order.quantity > sizeMax) bad.push(`size: ${where}`);
          if (order.quantity < spec.minSize || order.quantity > spec.maxSize) bad.push(`bounds: ${where}`);
          if (order.tif !== 'GTC' || mid === undefined) continue;
          const reach = (mid * BigInt(flow.maxDistanceBps)) / 10_000n + spec.tickSize;
          const passive = order.side === 'BUY' ? order.price <= mid && order.price >= mid - reach - 1n : order.price >= mid && order.price <= mid + reach + 2n;
          if (!passive) bad.push(`distance from mid ${mid}: ${where}`);
        }
      }
    }
    expect(bad).toEqual([]);
  });

  it('funds each background account once per token at start, from stable owner addresses', () => {
    for (const market of SHIPPED) {
      const owners = Array.from({ length: market.flow.accounts }, (_, i) => backgroundOwner(market.spec.symbol, i));
      expect(new Set(owners).size).toBe(owners.length);
      for (const owner of owners) expect(owner).toMatch(/^0x[0-9a-f]{40}$/);
      const ids = run.flow.accountIds(market.spec.address);
      expect(ids.map((id) => run.engine.accounts.get(id)!.owner)).toEqual(owners);
    }
    expect(run.venue.fundCalls.every((call) => call.at === START)).toBe(true);
  });
});

describe('startBackgroundFlow determinism', () => {
  const TWO_MINUTES = 120_000;

  it('gives the same orders for the same seed, however the clock is stepped', () => {
    const a = runFlow({ durationMs: TWO_MINUTES });
    const b = runFlow({ durationMs: TWO_MINUTES, stepMs: 997 });
    expect(a.venue.log.length).toBeGreaterThan(1000);
    expect(transcript(b.venue.log) === transcript(a.venue.log)).toBe(true);
    expect(b.engine.depth(MON_USDC.spec.address, 50)).toEqual(a.engine.depth(MON_USDC.spec.address, 50));
  });

  it('gives other orders for another run seed or another market seed, and keeps markets independent', () => {
    const base = runFlow({ durationMs: TWO_MINUTES });
    const reseeded = runFlow({ durationMs: TWO_MINUTES, seed: 7 });
    expect(transcript(reseeded.venue.log) === transcript(base.venue.log)).toBe(false);

    const onlyMon = (log: readonly Enqueued[]) => log.filter((e) => e.market === MON_USDC.spec.address);
    const otherWeth = runFlow({ durationMs: TWO_MINUTES, markets: [MON_USDC, withFlow(WETH_USDC, { seed: 99 })] });
    const otherMon = runFlow({ durationMs: TWO_MINUTES, markets: [withFlow(MON_USDC, { seed: 99 }), WETH_USDC] });
    // MON_USDC's orders depend only on its own seed (order ids aside: they are venue-wide).
    expect(transcript(onlyMon(otherWeth.venue.log), true) === transcript(onlyMon(base.venue.log), true)).toBe(true);
    expect(transcript(onlyMon(otherMon.venue.log), true) === transcript(onlyMon(base.venue.log), true)).toBe(false);
  });

  it('stops scheduling on stop(), idempotently', () => {
    const { venue, flow, clock } = runFlow({ durationMs: 10_000 });
    flow.stop();
    flow.stop();
    const before = venue.log.length;
    clock.advanceBy(60_000);
    expect(venue.log.length).toBe(before);
  });
});

describe('startBackgroundFlow limits', () => {
  it('never lets an account exceed its resting cap, even with a burst of limit orders and no cancels', () => {
    const hot = withFlow(MON_USDC, { arrivalsPerSecond: { limit: 80, cancel: 0, market: 0 }, accounts: 1 });
    let maxResting = 0;
    const { venue, flow } = runFlow({
      markets: [hot],
      durationMs: 30_000,
      stepMs: BLOCK_MS,
      maxRestingPerAccount: 30,
      onStep(v, f) {
        for (const id of f.accountIds(hot.spec.address)) maxResting = Math.max(maxResting, v.openOrders(id, hot.spec.address).length);
      },
    });
    expect(venue.rejections.filter((r) => r.code !== 'EXPECTED_ORDER_ID_MISMATCH')).toEqual([]);
    expect(maxResting).toBe(30);
    // Cancels of the oldest orders made room again and again.
    expect(venue.log.filter((e) => e.tx.cancelSlotIdxs.length > 0).length).toBeGreaterThan(100);
    expect(flow.arrivals(hot.spec.address)!.limit).toBeGreaterThan(2000);
  });

  it('tops up a background account that runs low, so no order fails on balance', () => {
    class LowFunds extends EngineFlowVenue {
      override available(): bigint {
        return 0n;
      }
    }
    const { venue } = runFlow({ markets: [MON_USDC], durationMs: 5_000, venue: (engine, clock) => new LowFunds(engine, clock) });
    const later = venue.fundCalls.filter((call) => call.at > START);
    expect(later.length).toBeGreaterThan(10);
    expect(venue.rejections).toEqual([]);
  });

  it('refuses a flow whose order sizes do not fit the market', () => {
    const tiny = withFlow(WETH_USDC, { orderSize: { min: '0.00001', max: '0.00002' } });
    const clock = new VirtualClock(START);
    const venue = new EngineFlowVenue(new MatchingEngine({ markets: [tiny.spec] }), clock);
    expect(() => startBackgroundFlow(venue, { markets: [tiny], clock })).toThrow(/no size within minSize..maxSize/);
    venue.dispose();
  });
});

/**
 * The flow keeps its cancel requests per account and scans the live slots instead of building
 * arrays of live orders: its cancels must follow the rules as a plain map of requests says them.
 */
describe('startBackgroundFlow cancels, against a map of every cancel request', () => {
  it('cancels only resting orders, never one whose cancel may still be pending', () => {
    fc.assert(
      fc.property(
        fc.record({
          seed: fc.integer({ min: 0, max: 1000 }),
          settleMs: fc.constantFrom(0, 400, 1000, 2600),
          maxResting: fc.integer({ min: 1, max: 12 }),
          accounts: fc.integer({ min: 1, max: 3 }),
          limit: fc.double({ min: 1, max: 30, noNaN: true }),
          // At least one cancel a second, so every run cancels something (with none it would prove nothing).
          cancel: fc.double({ min: 1, max: 30, noNaN: true }),
        }),
        ({ seed, settleMs, maxResting, accounts, limit, cancel }) => {
          const requested = new Map<bigint, number>();
          let problems = 0;
          let cancels = 0;
          class Checked extends EngineFlowVenue {
            override enqueue(accountId: bigint, market: Address, tx: FlowBatch): void {
              const now = this.clock.now();
              const slots = this.engine.accounts.get(accountId)?.peekSlots(market) ?? [];
              for (const [i, slot] of tx.cancelSlotIdxs.entries()) {
                const id = tx.expectedOrderIds[i]!;
                cancels++;
                // The flow times a request from its arrival, up to 1 ms before the clock's now.
                if (slots[slot]?.id !== id || (requested.get(id) ?? -Infinity) - 1 >= now) problems++;
                requested.set(id, now + settleMs);
              }
              super.enqueue(accountId, market, tx);
            }
          }
          const market = withFlow(MON_USDC, { seed, accounts, arrivalsPerSecond: { limit, cancel, market: 0.5 } });
          const { venue } = runFlow({
            markets: [market],
            durationMs: 60_000,
            stepMs: 1000,
            settleMs,
            maxRestingPerAccount: maxResting,
            venue: (engine, clock) => new Checked(engine, clock),
          });
          venue.dispose();
          expect(cancels).toBeGreaterThan(0);
          expect(problems).toBe(0);
        },
      ),
      fuzzSettings({ numRuns: 25 }),
    );
  });
});
