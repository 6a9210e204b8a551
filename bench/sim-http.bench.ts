/**
 * Market-data requests per second served by the simulated venue on loopback: `GET /api/v3/depth`
 * (limit 100) and `GET /api/v3/trades` (default limit 500) against a real venue (config/sim.yaml)
 * holding a 200-level book per side and 600 trades; and `GET /api/v3/exchangeInfo`, a small answer,
 * for the cost of the HTTP face alone. 32 requests are kept in flight over a keep-alive http.Agent;
 * client and server share this process (and its one core), so the figures are floors.
 */
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { loadConfigOrThrow } from '../src/config/load-config.ts';
import { simConfigSchema } from '../src/config/sim-config.ts';
import { createLogger } from '../src/core/logger.ts';
import { seededRandom } from '../src/core/random.ts';
import { VirtualClock } from '../src/core/virtual-clock.ts';
import type { Address } from '../src/protocol/encoding.ts';
import type { OrderIntent } from '../src/protocol/intent-types.ts';
import { createHttpServer, type HttpServer } from '../src/sim/http-server.ts';
import { createSimDispatch } from '../src/sim/route-dispatch.ts';
import { createFaultModel } from '../src/sim/fault-model.ts';
import { marketDataRoutes } from '../src/sim/market-data-routes.ts';
import { createWeightLimiter } from '../src/sim/weight-limiter.ts';
import { createSimVenue } from '../src/venue/create-sim-venue.ts';
import type { Benchmark } from './harness.ts';

const CONCURRENCY = 32;
const LEVELS_PER_SIDE = 200;
const TRADES = 600;

const order = (side: 'BUY' | 'SELL', price: bigint, quantity: bigint, tif: 'GTC' | 'IOC'): OrderIntent => ({
  side,
  price,
  quantity,
  tif,
  executionInstruction: 'NONE',
  minSizeAfterBlock: 0n,
});

async function createServer(): Promise<{ server: HttpServer; url: string }> {
  const config = await loadConfigOrThrow(fileURLToPath(new URL('../config/sim.yaml', import.meta.url)), simConfigSchema);
  const clock = new VirtualClock(Date.UTC(2024, 7, 8));
  const venue = createSimVenue({ config, clock });
  const market = venue.marketBySymbol('MON_USDC')!;
  const block = () => {
    clock.advanceBy(config.blockMs);
    venue.produceBlock();
  };
  const account = (n: number) => {
    const owner = `0x${n.toString(16).padStart(40, '0')}` as Address;
    venue.fund(owner, market.baseToken.address, 10n ** 30n);
    return venue.fund(owner, market.quoteToken.address, 10n ** 18n);
  };
  const mid = 350_000n;
  // 50 orders per account (of 62 slots), one level each.
  for (let a = 0; a < LEVELS_PER_SIDE / 50; a++) {
    const levels = (side: 'BUY' | 'SELL') =>
      Array.from({ length: 50 }, (_, i) => order(side, side === 'BUY' ? mid - 10n * BigInt(a * 50 + i + 1) : mid + 10n * BigInt(a * 50 + i + 1), 1_000_000n, 'GTC'));
    venue.enqueueSystemTx(account(0x100 + a), market.address, { kind: 'batch', orders: levels('BUY'), cancelSlotIdxs: [], expectedOrderIds: [] });
    venue.enqueueSystemTx(account(0x200 + a), market.address, { kind: 'batch', orders: levels('SELL'), cancelSlotIdxs: [], expectedOrderIds: [] });
  }
  block();
  const taker = account(0x300);
  for (let i = 0; i < TRADES; i += 50) {
    const orders = Array.from({ length: 50 }, (_, j) => ((i + j) % 2 === 0 ? order('BUY', mid + 10_000n, 100n, 'IOC') : order('SELL', mid - 10_000n, 100n, 'IOC')));
    venue.enqueueSystemTx(taker, market.address, { kind: 'batch', orders, cancelSlotIdxs: [], expectedOrderIds: [] });
    block();
  }
  for (let i = 0; i <= config.stateLagBlocks.committed; i++) block();
  if (venue.trades(market, 1000).length < TRADES) throw new Error('benchmark venue: fewer trades than planned');

  const routes = marketDataRoutes(venue, {
    limiter: createWeightLimiter(clock, { weightPerMinute: Number.MAX_SAFE_INTEGER }),
    faults: createFaultModel({ clock, random: seededRandom(1) }),
  });
  const server = createHttpServer({ dispatch: createSimDispatch({ routes, maxBodyBytes: config.http.maxBodyBytes, logger: createLogger({ level: 'silent' }) }), logger: createLogger({ level: 'silent' }), clock });
  const { url } = await server.listen(0);
  return { server, url };
}

/**
 * The server and client agent, created on first use and closed once no run has started for a
 * second (the harness has no teardown, and open sockets would keep the process alive).
 */
let shared: Promise<{ server: HttpServer; url: string; agent: Agent }> | undefined;
let idle: NodeJS.Timeout | undefined;

function acquire() {
  clearTimeout(idle);
  shared ??= createServer().then((started) => ({ ...started, agent: new Agent({ keepAlive: true, maxSockets: CONCURRENCY }) }));
  return shared;
}

function release(): void {
  clearTimeout(idle);
  idle = setTimeout(() => {
    const current = shared;
    shared = undefined;
    void current?.then(({ server, agent }) => {
      agent.destroy();
      return server.close();
    });
  }, 1000);
}

function get(agent: Agent, url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const call = request(url, { agent }, (response) => {
      if (response.statusCode !== 200) reject(new Error(`HTTP ${response.statusCode} for ${url}`));
      response.on('data', () => undefined);
      response.on('end', resolve);
      response.on('error', reject);
    });
    call.on('error', reject);
    call.end();
  });
}

async function load(path: string, requests: number): Promise<number> {
  const { url, agent } = await acquire();
  let sent = 0;
  const worker = async () => {
    while (sent < requests) {
      sent += 1;
      await get(agent, `${url}${path}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  } finally {
    release();
  }
  return requests;
}

export const benchmarks: readonly Benchmark[] = [
  {
    name: 'sim http: GET /api/v3/depth limit=100 (32 in flight)',
    unit: 'requests',
    run: () => load('/api/v3/depth?symbol=MON_USDC&limit=100', 3000),
  },
  {
    name: 'sim http: GET /api/v3/trades limit=500 (32 in flight)',
    unit: 'requests',
    run: () => load('/api/v3/trades?symbol=MON_USDC', 600),
  },
  {
    // A small answer: what the HTTP framing, routing, query parsing and weight limiter cost alone.
    name: 'sim http: GET /api/v3/exchangeInfo (32 in flight)',
    unit: 'requests',
    run: () => load('/api/v3/exchangeInfo', 6000),
  },
];
