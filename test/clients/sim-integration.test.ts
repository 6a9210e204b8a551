/**
 * Every client against the real simulated venue (createSimServer on a free port): market data and
 * every market-data error code, tokens, quotes, relay sign-in and REST, active orders, and the
 * order-events cursor over many windows with hundreds of events sharing one second; then
 * `clobbot market` in-process against it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActiveOrdersClient } from '../../src/clients/active-orders-client.ts';
import type { HttpTransport } from '../../src/clients/http-transport.ts';
import { createFetchTransport } from '../../src/clients/http-transport.ts';
import { createMarketDataClient } from '../../src/clients/market-data-client.ts';
import { MarketDataError } from '../../src/clients/market-data-error.ts';
import { createOrderEventsClient } from '../../src/clients/order-events-client.ts';
import { orderEvents, type OrderEventsBatch } from '../../src/clients/order-events.ts';
import { createQuoteClient } from '../../src/clients/quote-client.ts';
import { createRelayAuthClient } from '../../src/clients/relay-auth-client.ts';
import { createRelayRestClient } from '../../src/clients/relay-rest-client.ts';
import { DEFAULT_RETRY_POLICY } from '../../src/clients/retry-policy.ts';
import type { ClientContext } from '../../src/clients/send-request.ts';
import { createTokenClient } from '../../src/clients/token-client.ts';
import { UserDataError } from '../../src/clients/user-data-error.ts';
import { createWeightBudget } from '../../src/clients/weight-budget.ts';
import { liveClock } from '../../src/core/clock.ts';
import { seededRandom } from '../../src/core/random.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { MarketErrorCode, RelayMethod, type KlineInterval } from '../../src/protocol/constants.ts';
import { JwtStore } from '../../src/protocol/jwt-store.ts';
import { parseRelayRestRequest, type RelayRestRequest } from '../../src/protocol/relay-request.ts';
import { runCli } from '../support/cli-harness.ts';
import { settle } from './support.ts';
import {
  OTHER_WALLET,
  OWNER,
  WALLET,
  authorizeSignerRequest,
  lower,
  nextRequestId,
  postJson,
  restingBuy,
  signedBatch,
  startTestVenue,
  waitForReceipt,
  type TestVenue,
} from '../sim/relay-harness.ts';

interface Recording {
  readonly transport: HttpTransport;
  readonly log: { url: string; status: number }[];
  inFlight(): number;
  /** Resolves once no request is on the wire. */
  idle(): Promise<void>;
}

/** A live transport that remembers the URL and status of every exchange. */
function recordingTransport(): Recording {
  const inner = createFetchTransport();
  const log: { url: string; status: number }[] = [];
  let inFlight = 0;
  let idle: { promise: Promise<void>; resolve: () => void } | undefined;
  return {
    log,
    inFlight: () => inFlight,
    idle: () => {
      if (inFlight === 0) return Promise.resolve();
      if (idle === undefined) {
        let resolve!: () => void;
        idle = { promise: new Promise<void>((done) => (resolve = done)), resolve };
      }
      return idle.promise;
    },
    transport: async (request) => {
      inFlight += 1;
      try {
        const answer = await inner(request);
        log.push({ url: request.url, status: answer.status });
        return answer;
      } finally {
        inFlight -= 1;
        if (inFlight === 0) {
          idle?.resolve();
          idle = undefined;
        }
      }
    },
  };
}

/**
 * Real sockets on virtual time: runs `work` to its end, jumping the clock to its next action only
 * while no request is on the wire and every callback has run (nothing else could happen then).
 */
async function onVirtualTime<T>(clock: VirtualClock, recording: Recording, work: Promise<T>, maxSteps = 10_000): Promise<T> {
  let done = false;
  const finished = work.finally(() => (done = true));
  finished.catch(() => undefined);
  for (let step = 0; step < maxSteps; step += 1) {
    await recording.idle();
    await settle();
    if (done) return finished;
    if (recording.inFlight() > 0) continue;
    clock.advanceTo(clock.nextDueTime() ?? clock.now());
  }
  throw new Error(`onVirtualTime: not done after ${maxSteps} clock steps (at ${clock.now()})`);
}

/** A venue (1 s blocks) and a recording transport on one virtual clock from 2025-01-01 00:00:30; the venue is stopped after `test`. */
async function onVirtualVenue(test: (setup: { readonly clock: VirtualClock; readonly virtualVenue: TestVenue; readonly recording: Recording }) => Promise<void>): Promise<void> {
  const clock = new VirtualClock(Date.UTC(2025, 0, 1, 0, 0, 30));
  const virtualVenue = await startTestVenue({ clock, blockMs: 1_000 });
  try {
    await test({ clock, virtualVenue, recording: recordingTransport() });
  } finally {
    await virtualVenue.stop();
  }
}

let venue: TestVenue;
let context: ClientContext;
let log: { url: string; status: number }[];
const market = () => venue.config.markets[0]!;

beforeAll(async () => {
  venue = await startTestVenue({ blockMs: 20 });
  const recording = recordingTransport();
  log = recording.log;
  context = { transport: recording.transport, clock: liveClock, random: seededRandom(11) };
});
afterAll(() => venue.stop());

describe('market data against the simulated venue', () => {
  it('reads depth, trades, ticker, klines and exchangeInfo, syncing the budget with the server count', async () => {
    const client = createMarketDataClient(context, { baseUrl: venue.url });
    const info = await client.exchangeInfo();
    expect(info.symbols.map((symbol) => symbol.symbol)).toEqual(venue.config.markets.map((entry) => entry.symbol));
    const depth = await client.depth({ symbol: market().symbol, limit: 5, state: 'proposed' });
    expect(depth.E).toBeGreaterThan(0);
    // The raw body (for the feed's fast parser) is the same answer, unparsed.
    expect(JSON.parse(await client.depthBody!({ symbol: market().symbol, limit: 5, state: 'proposed' }))).toMatchObject({ lastUpdateId: expect.any(Number), bids: depth.bids, asks: depth.asks });
    expect(await client.trades({ symbol: market().symbol, limit: 10 })).toBeInstanceOf(Array);
    expect((await client.ticker24hr({ symbol: market().symbol })).symbol).toBe(market().symbol);
    // No trades yet (no background flow): no candles, but a well-formed answer.
    expect(await client.klines({ symbol: market().symbol, interval: '1m', limit: 3 })).toBeInstanceOf(Array);
    // 10 + 1 + 1 + 1 + 1, and the server counted the same.
    expect(client.budget.used()).toBeGreaterThanOrEqual(14);
  });

  it('every market-data error code arrives typed with Binance code', async () => {
    const client = createMarketDataClient(context, { baseUrl: venue.url });
    const code = (promise: Promise<unknown>) => promise.then(
      () => undefined,
      (error: unknown) => (error instanceof MarketDataError ? [error.code, error.binanceCode, error.message] : error),
    );
    expect(await code(client.depth({ symbol: '' }))).toEqual(['MARKET_DATA_BAD_REQUEST', -1102, "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed. (code -1102)"]);
    expect(await code(client.depth({ symbol: 'NOPE_USDC' }))).toEqual(['MARKET_DATA_BAD_REQUEST', -1121, 'Invalid symbol. (code -1121)']);
    expect(await code(client.depthBody!({ symbol: 'NOPE_USDC' }))).toEqual(['MARKET_DATA_BAD_REQUEST', -1121, 'Invalid symbol. (code -1121)']);
    expect(await code(client.trades({ symbol: 'mon_usdc' }))).toEqual(['MARKET_DATA_BAD_REQUEST', -1100, expect.stringContaining("Illegal characters found in parameter 'symbol'")]);
    expect(await code(client.depth({ symbol: market().symbol, limit: 5001 }))).toEqual(['MARKET_DATA_BAD_REQUEST', -1130, "Data sent for parameter 'limit' is not valid. (code -1130)"]);
    expect(await code(client.klines({ symbol: market().symbol, interval: '2m' as KlineInterval }))).toEqual(['MARKET_DATA_BAD_REQUEST', -1120, 'Invalid interval. (code -1120)']);
  });

  it('-1003: a client whose budget is far above the server one is refused with Retry-After and pauses the host', async () => {
    const limited = await startTestVenue({ blockMs: 50 });
    try {
      const budget = createWeightBudget(liveClock, { weightPerMinute: 1_000_000 });
      const client = createMarketDataClient(context, { baseUrl: limited.url, budget, retry: { ...DEFAULT_RETRY_POLICY, maxAttempts: 1 } });
      // 250 requests of weight 10: over the server's 1200 in any minute they fall in.
      const results = await Promise.all(Array.from({ length: 250 }, () => client.depth({ symbol: 'MON_USDC', limit: 1000 }).then(() => undefined, (error: unknown) => error)));
      const refused = results.filter((result) => result !== undefined);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused[0]).toBeInstanceOf(MarketDataError);
      expect(refused[0]).toMatchObject({ code: 'MARKET_DATA_RATE_LIMITED', binanceCode: MarketErrorCode.TOO_MANY_REQUESTS, status: 429 });
      expect((refused[0] as MarketDataError).retryAfterMs).toBeGreaterThan(0);
      expect(budget.pausedUntil()).toBeGreaterThan(liveClock.now());
      // The server's count came back in X-MBX-USED-WEIGHT-1M: ours rose to it.
      expect(budget.used()).toBeGreaterThanOrEqual(1_200);
    } finally {
      await limited.stop();
    }
  });

  it('a burst of subscribers through the default budget never draws a 429 (venue and client on one virtual clock)', async () => {
    await onVirtualVenue(async ({ clock, virtualVenue, recording }) => {
      const client = createMarketDataClient({ transport: recording.transport, clock, random: seededRandom(3) }, { baseUrl: virtualVenue.url });
      await onVirtualTime(clock, recording, Promise.all(Array.from({ length: 150 }, () => client.depth({ symbol: 'MON_USDC', limit: 1000 }))));
      expect(recording.log).toHaveLength(150);
      expect(recording.log.every((entry) => entry.status === 200)).toBe(true);
      expect(clock.now()).toBeGreaterThanOrEqual(Date.UTC(2025, 0, 1, 0, 1, 30));
    });
  });
});

describe('tokens and quotes against the simulated venue', () => {
  it('reads token metadata; an unknown token is a 404', async () => {
    const tokens = createTokenClient(context, { baseUrl: venue.url });
    const mon = venue.config.tokens.find((token) => token.symbol === 'MON')!;
    expect(await tokens.token(mon.address.toUpperCase().replace('0X', '0x'))).toMatchObject({ tokenAddress: mon.address, symbol: 'MON', decimals: 18 });
    await expect(tokens.token(`0x${'99'.repeat(20)}`)).rejects.toMatchObject({ code: 'HTTP_UNEXPECTED_STATUS', status: 404 });
  });

  it('quotes with one cached JWT and never draws a 429 from the per-token limit (venue and client on one virtual clock)', async () => {
    await onVirtualVenue(async ({ clock, virtualVenue, recording }) => {
      const quotes = createQuoteClient({ transport: recording.transport, clock, random: seededRandom(5) }, { baseUrl: virtualVenue.url });
      const usdc = venue.config.tokens.find((token) => token.symbol === 'USDC')!.address;
      const mon = venue.config.tokens.find((token) => token.symbol === 'MON')!.address;
      const request = { userAddress: lower(OWNER), tokenIn: usdc, tokenOut: mon, amount: '1000000', slippageTolerance: 50, autoSlippage: false };
      const started = clock.now();
      const answers = await onVirtualTime(clock, recording, Promise.all([quotes.quote(request), quotes.quote(request), quotes.quote(request)]));
      for (const answer of answers) expect(answer).toMatchObject({ type: 'swap_calculation' });
      expect(recording.log.filter((entry) => entry.url.endsWith('/api/generate-token'))).toHaveLength(1);
      expect(recording.log.filter((entry) => entry.url.endsWith('/api/quote')).map((entry) => entry.status)).toEqual([200, 200, 200]);
      // One quote a second per token: the third went 2 s after the first.
      expect(clock.now() - started).toBeGreaterThanOrEqual(2_000);
    });
  });
});

describe('relay, orders and order events against the simulated venue', () => {
  const store = new JwtStore();
  let accountId: bigint;

  const batch = async (parameters: Parameters<typeof signedBatch>[2]): Promise<RelayRestRequest> => ({
    requestId: nextRequestId(),
    method: RelayMethod.executeBatch,
    wallet: lower(WALLET),
    payload: await signedBatch(venue, WALLET, parameters),
    authorization7702: null,
  });

  it('signs in, authorizes the trading wallet over REST, and answers REJECTED as a value', async () => {
    const funded = await postJson(`${venue.url}/sim/fund`, { owner: lower(OWNER), token: 'USDC', amount: '1000000000000' });
    accountId = BigInt(funded.body.accountId);
    const auth = createRelayAuthClient(context, { baseUrl: venue.url, network: 'sim', store });
    const jwt = await auth.authenticate(WALLET);
    expect(jwt.wallet).toBe(lower(WALLET));
    const relay = createRelayRestClient(context, { baseUrl: venue.url, network: 'sim', store });
    const parsed = parseRelayRestRequest(await authorizeSignerRequest(venue, OWNER, WALLET));
    if (!parsed.ok) throw new Error(parsed.error.message);
    const answer = await relay.send(parsed.value);
    expect(answer).toMatchObject({ status: 'BROADCAST', transactionType: 'SET_CODE', requestId: parsed.value.requestId });
    if (answer.status !== 'BROADCAST') return;
    expect((await waitForReceipt(venue.url, answer.txHash)).status).toBe('success');

    const unknownMarket = await relay.send(await batch({ accountId, market: `0x${'77'.repeat(20)}`, orders: [restingBuy()] }));
    expect(unknownMarket).toMatchObject({ status: 'REJECTED', code: 'UNKNOWN_MARKET', requestId: expect.any(String) });
    // Another wallet has no JWT: nothing is sent.
    await expect(relay.send({ ...(await batch({ accountId, market: market().address, orders: [restingBuy()] })), wallet: lower(OTHER_WALLET) })).rejects.toMatchObject({
      code: 'RELAY_NOT_AUTHENTICATED',
    });
    // A wrong signature on sign-in is the relay's AUTHENTICATION_FAILED.
    const impostor = { address: OTHER_WALLET.address, signMessage: WALLET.signMessage };
    await expect(auth.authenticate(impostor)).rejects.toMatchObject({ code: 'RELAY_AUTH_FAILED', relayCode: 'AUTHENTICATION_FAILED', status: 401 });
  });

  it('places, cancels and replaces 60 orders three times; active orders and every event come back, nothing twice', async () => {
    const relay = createRelayRestClient(context, { baseUrl: venue.url, network: 'sim', store });
    const activeClient = createActiveOrdersClient(context, { baseUrl: venue.url });
    const eventsClient = createOrderEventsClient(context, { baseUrl: venue.url });
    const startSecond = Math.floor(liveClock.now() / 1000) - 1;
    const sixty = Array.from({ length: 60 }, (_, i) => restingBuy(100n + BigInt(i)));
    const send = async (request: RelayRestRequest) => {
      const answer = await relay.send(request);
      if (answer.status !== 'BROADCAST') throw new Error(`batch not broadcast: ${JSON.stringify(answer)}`);
      expect((await waitForReceipt(venue.url, answer.txHash)).status).toBe('success');
    };
    await send(await batch({ accountId, market: market().address, orders: sixty }));
    for (let round = 0; round < 2; round += 1) {
      const { orders } = await activeClient.activeOrders({ user: OWNER.address, marketAddress: market().address });
      const ids = [...orders].sort((a, b) => a.orderid - b.orderid).map((order) => BigInt(order.orderid));
      await send(await batch({ accountId, market: market().address, orders: sixty, cancelSlotIdxs: ids.map((_, slot) => slot), expectedOrderIds: ids }));
    }

    const active = await activeClient.activeOrders({ user: lower(WALLET), marketAddress: market().address, limit: 10 });
    expect(active.orders).toHaveLength(10);
    expect(active.pagination.total).toBe(60);
    expect(active.orders[0]).toMatchObject({ marketaddress: market().address, isbuy: true, iscanceled: false, lpid: expect.any(String) });

    const all = await eventsClient.page({ user: lower(OWNER), limit: 1_000 });
    expect(all.pagination.total).toBe(300);
    const before = log.length;
    const batches: OrderEventsBatch[] = [];
    for await (const item of orderEvents(eventsClient, { user: lower(OWNER), fromTimestamp: startSecond, pageLimit: 7, follow: false })) batches.push(item);
    const keys = batches.flatMap((item) => item.events.map((event) => event.key));
    expect(new Set(keys).size).toBe(300);
    expect(keys).toHaveLength(300);
    const requests = log.slice(before).map((entry) => new URL(entry.url).searchParams);
    expect(requests.length).toBeGreaterThan(40);
    expect(requests.some((query) => Number(query.get('offset') ?? 0) > 0)).toBe(true);
    const created = batches.flatMap((item) => item.events).find((event) => event.event.eventType === 'order-created')!;
    expect(created.amounts).toMatchObject({ eventType: 'order-created' });
    if (created.amounts.eventType === 'order-created') expect(created.amounts.price.toFixed()).toBe('0.03');

    const canceled: OrderEventsBatch[] = [];
    for await (const item of orderEvents(eventsClient, { user: lower(OWNER), eventType: 'order-canceled', market: market().address, fromTimestamp: startSecond, pageLimit: 25, follow: false })) {
      canceled.push(item);
    }
    expect(canceled.flatMap((item) => item.events)).toHaveLength(120);
  });

  it('a refused user-data query is a UserDataError', async () => {
    const activeClient = createActiveOrdersClient(context, { baseUrl: venue.url });
    await expect(activeClient.activeOrders({ user: lower(OWNER), marketAddress: `0x${'77'.repeat(20)}` })).rejects.toBeInstanceOf(UserDataError);
  });
});

describe('clobbot market against the simulated venue', () => {
  it('prints depth as a table and as JSON', async () => {
    const table = await runCli(['market', 'depth', '--symbol', 'MON_USDC', '--url', venue.url, '--limit', '5']);
    expect(table.stderr).toBe('');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^MON_USDC depth {2}lastUpdateId \d+ {2}block time \S+ {2}\d+ bids, \d+ asks\n\s*BID QTY\s+BID PRICE\s+ASK PRICE\s+ASK QTY\n/);
    expect(table.stdout).toContain('0.03');
    const json = await runCli(['market', 'depth', '--symbol', 'MON_USDC', '--url', venue.url, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ lastUpdateId: expect.any(Number), bids: expect.any(Array), asks: expect.any(Array) });
  });

  it('prints trades, ticker, klines and info', async () => {
    for (const [request, expected] of [
      ['trades', /^MON_USDC trades/],
      ['ticker', /^MON_USDC 24h ticker\n {2}last/],
      ['klines', /^MON_USDC klines 5m {2}\d+ candles\n\s*OPEN TIME/],
      ['info', /^exchange info {2}timezone UTC.*1 of 2 symbols\nSYMBOL\s+STATUS/],
    ] as const) {
      const run = await runCli(['market', request, '--symbol', 'MON_USDC', '--url', venue.url, '--limit', '2', '--interval', '5m']);
      expect(run.stderr, request).toBe('');
      expect(run.code, request).toBe(0);
      expect(run.stdout, request).toMatch(expected);
    }
  });

  it('an unknown symbol is the -1121 message and exit 2; a bad limit or interval too', async () => {
    expect(await runCli(['market', 'depth', '--symbol', 'NOPE_USDC', '--url', venue.url])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error MARKET_DATA_BAD_REQUEST: Invalid symbol. (code -1121)\n',
    });
    expect((await runCli(['market', 'depth', '--symbol', 'MON_USDC', '--url', venue.url, '--limit', '0'])).stderr).toBe(
      "error MARKET_DATA_BAD_REQUEST: Data sent for parameter 'limit' is not valid. (code -1130)\n",
    );
    expect((await runCli(['market', 'klines', '--symbol', 'MON_USDC', '--url', venue.url, '--interval', '7m'])).code).toBe(2);
  });

  it('an unreachable server is a clear message and exit 1; usage mistakes exit 2', async () => {
    const closed = await startTestVenue();
    const url = closed.url;
    await closed.stop();
    const down = await runCli(['market', 'ticker', '--symbol', 'MON_USDC', '--url', url]);
    expect(down.code).toBe(1);
    expect(down.stdout).toBe('');
    expect(down.stderr).toMatch(new RegExp(`^error HTTP_UNAVAILABLE: the market-data server ${url} cannot be reached: .*ECONNREFUSED`));
    expect((await runCli(['market', 'depth', '--url', url])).stderr).toMatch(/^error CLI_USAGE: market: depth needs --symbol/);
    expect((await runCli(['market', 'candles', '--symbol', 'X'])).code).toBe(2);
    expect((await runCli(['market', 'depth', '--symbol', 'X', '--limit', 'ten'])).code).toBe(2);
    expect((await runCli(['market', 'depth', '--symbol', 'X', '--network', 'testnet'])).stderr).toMatch(/publishes no market-data host: pass --url/);
    expect((await runCli(['market', 'depth', '--symbol', 'X', '--url', 'ftp://x'])).stderr).toMatch(/^error NETWORK_HOST_INVALID/);
  });
});
