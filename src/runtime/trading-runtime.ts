/**
 * The composition root of every kind of run: from a venue connection and a clock it builds the
 * market feeds, the relay session, the relay transports (WebSocket with REST failover), the user-data
 * and receipt readers, the execution engine and one strategy host per strategy, and it knows how to
 * start and stop them in order. Live, against the local venue on loopback, and on virtual time
 * against the in-process venue, only the two seams differ: the clock, and the connection's HTTP
 * transport and relay socket factory (NautilusTrader's kernel picks TestClock or LiveClock and the
 * clients the same way). `clobbot run` only sequences a run and maps its end to an exit code.
 */
import { BehaviorSubject, filter, Subscription, type Observable } from 'rxjs';
import type { BaseError } from '../core/base-error.ts';
import type { Clock } from '../core/clock.ts';
import type { Decimal } from '../core/decimal.ts';
import type { IdSource } from '../core/ids.ts';
import type { Logger } from '../core/logger.ts';
import { seededRandom } from '../core/random.ts';
import type { RunConfig } from '../config/run-config.ts';
import type { Address } from '../protocol/encoding.ts';
import { createActiveOrdersClient } from '../clients/active-orders-client.ts';
import { createMarketDataClient } from '../clients/market-data-client.ts';
import { createRelayWsClient } from '../clients/relay-ws-client.ts';
import type { ClientContext } from '../clients/send-request.ts';
import { createMarketFeed, type MarketFeed } from '../market/create-market-feed.ts';
import type { LoadedStrategy } from '../strategy/load-strategy.ts';
import type { OwnFill, StrategyMarket, TradingState } from '../strategy/strategy-context.ts';
import { createExecutionEngine } from '../execution/create-execution-engine.ts';
import type { EngineStats, ExecutionEngine } from '../execution/execution-engine.ts';
import type { JournalFs } from '../execution/journal.ts';
import { createRelaySession, type RelaySession } from '../execution/relay-session.ts';
import { createFailoverTransport, createRestRelayTransport, createWsRelayTransport, type RelayTransport } from '../execution/relay-transport.ts';
import type { WalletSigner } from '../execution/signer-source.ts';
import { RunTracker } from './run-tracker.ts';
import { describeStop, type StopReason } from './stop-reason.ts';
import { createStrategyHost, type StrategyHost } from './strategy-host.ts';
import { timeSource, type TimedSource } from './timed-source.ts';
import type { VenueConnection } from './venue-connection.ts';
import { createReceiptReader, createUserDataReader } from './venue-readers.ts';
import { feedTiming, marketFeedPlanOf } from './market-feed-timing.ts';
import { tapMarketData } from '../feeds/market-data-tap.ts';
import { followOwnOrders, rawOwnOrderSink } from '../feeds/own-order-recorder.ts';
import { createMarketRecording, type MarketRecording } from './market-recording.ts';

export type { StopReason } from './stop-reason.ts';

/** How long the stop waits for the outcomes of the final cancels. */
const STOP_TIMEOUT_MS = 30_000;
/** Orders the active-orders query asks for at most: every maker slot and then some. */
const ACTIVE_ORDERS_LIMIT = 100;

export interface TradingRuntimeParameters {
  readonly venue: VenueConnection;
  readonly clock: Clock;
  readonly config: Pick<RunConfig, 'strategies' | 'engine' | 'risk'>;
  readonly strategies: readonly LoadedStrategy[];
  readonly wallet: WalletSigner;
  /** Seeds every random source of the run (jitter, strategies' `ctx.random`). */
  readonly seed: number;
  readonly ids: IdSource;
  readonly logger: Logger;
  readonly journalDir: string;
  /** The journal's file system (a virtual run skips fsync). Default node:fs. */
  readonly journalFs?: JournalFs;
  /** A strategy silent this long gets a warning. */
  /** How long the stop waits for the final cancels and every signed request. Default 30 s. */
  readonly stopTimeoutMs?: number;
  readonly idleWarnMs: number;
  /** `--record <dir>`: records every market's data as received, and the bot's own orders, into raw recordings in `dir`. */
  readonly recordDir?: string;
}

/** What the stop found. */
export interface RuntimeStopped {
  readonly stats: EngineStats;
  /** Open orders the venue still lists per market symbol (undefined when it could not tell). */
  readonly leftOpen: ReadonlyMap<string, number> | undefined;
}

export interface TradingRuntime {
  readonly engine: ExecutionEngine;
  /** The raw recordings of `recordDir`, once started. */
  readonly recording: MarketRecording | undefined;
  readonly tracker: RunTracker;
  readonly hosts: readonly StrategyHost[];
  /** Market-data call timings per endpoint (status line, metrics). */
  readonly marketData: TimedSource;
  /**
   * The run's trading state: ACTIVE, then HALTED with the trip's trigger and reason when the kill
   * switch trips (each strategy's `ctx.tradingState$` follows it, and turns HALTED when the run stops).
   */
  readonly tradingState$: Observable<TradingState>;
  /** The first reason the run itself found to stop: a strategy failed or completed, the kill switch tripped. */
  readonly stopRequested: Promise<StopReason>;
  /** Asks the run to stop (the first reason wins). */
  requestStop(reason: StopReason): void;
  /** The first strategy failure, if any. */
  failure(): BaseError | undefined;
  /** Signs in, starts the engine (journal restore, reconciliation, transports), the feeds' mids and the strategies. */
  start(): Promise<void>;
  /**
   * Stops the strategies, stops the engine cancelling every open order and waiting for the outcomes,
   * asks the venue what is still open, and lets go of the feeds and transports. Idempotent.
   */
  stop(): Promise<RuntimeStopped>;
}

function buildFeeds(context: ClientContext, params: TradingRuntimeParameters, marketData: TimedSource): Map<Address, MarketFeed> {
  const { venue, clock, logger, seed } = params;
  const timing = feedTiming(venue.blockMs, venue.specs.length);
  const feeds = new Map<Address, MarketFeed>();
  for (const spec of venue.specs) {
    feeds.set(
      spec.address,
      createMarketFeed(
        marketData.source,
        marketFeedPlanOf(spec, timing),
        clock,
        { logger, weightBudgetPerMinute: timing.budget, random: seededRandom(seed ^ 0xfeed), jitter: 0.2 },
      ),
    );
  }
  return feeds;
}

function buildTransport(context: ClientContext, params: TradingRuntimeParameters, session: RelaySession): RelayTransport {
  const { venue, clock, logger, seed } = params;
  const { network } = venue;
  const wsClient = createRelayWsClient(
    { clock, random: seededRandom(seed ^ 0x7e1a), logger: logger.child({ component: 'relay-ws' }) },
    { url: network.hosts.relayWsUrl!, session, ...(venue.createSocket === undefined ? {} : { createSocket: venue.createSocket }) },
  );
  const rest = createRestRelayTransport({ ...context, logger }, { network: network.name, relayUrl: network.hosts.relayUrl!, rpcUrl: network.hosts.rpcUrl!, session });
  return createFailoverTransport({ ws: createWsRelayTransport(wsClient), rest, clock, restAfterMs: 2_000, logger: logger.child({ component: 'relay-transport' }) });
}

/**
 * @example
 * const runtime = createTradingRuntime({ venue, clock, config, strategies, wallet, seed: 1, ids, logger, journalDir, idleWarnMs: 30_000 });
 * await runtime.start();
 * const reason = await runtime.stopRequested;
 * const { stats, leftOpen } = await runtime.stop();
 */
export function createTradingRuntime(params: TradingRuntimeParameters): TradingRuntime {
  const { venue, clock, config, logger, seed, wallet } = params;
  const { network, specs } = venue;
  const context: ClientContext = { transport: venue.transport, clock, random: seededRandom(seed ^ 0x5eed) };
  const recording =
    params.recordDir === undefined
      ? undefined
      : createMarketRecording({ dir: params.recordDir, network: network.name, exchangeUrl: network.hosts.exchangeUrl!, specs, timing: feedTiming(venue.blockMs, specs.length), own: true, transport: context.transport, clock });
  const marketDataContext = recording === undefined ? context : { ...context, transport: tapMarketData(context.transport, recording.recorderOf, clock) };
  const marketData = timeSource(createMarketDataClient(marketDataContext, { baseUrl: network.hosts.exchangeUrl! }), clock);
  const feeds = buildFeeds(context, params, marketData);
  const session = createRelaySession({ ...context, logger }, { network: network.name, relayUrl: network.hosts.relayUrl!, signer: wallet.account, logger: logger.child({ component: 'relay-session' }) });
  const transport = buildTransport(context, params, session);

  const mids = new Map<Address, bigint>();
  const tracker = new RunTracker(specs);
  const engine = createExecutionEngine(
    { clock, random: seededRandom(seed ^ 0xe9e), ids: params.ids, logger: logger.child({ component: 'engine' }) },
    {
      network,
      signer: wallet.account,
      accountId: venue.accountId,
      authNonce: venue.authNonce,
      markets: specs,
      transport,
      userData: createUserDataReader(context, { userUrl: network.hosts.userUrl!, owner: venue.owner }),
      receipts: createReceiptReader(context, { rpcUrl: network.hosts.rpcUrl! }),
      journalDir: params.journalDir,
      ...(params.journalFs === undefined ? {} : { journalFs: params.journalFs }),
      engine: config.engine,
      risk: config.risk,
      mid: (market) => mids.get(market),
    },
  );

  let requestStop: (reason: StopReason) => void = () => undefined;
  const stopRequested = new Promise<StopReason>((resolve) => (requestStop = resolve));
  let stopReason: StopReason | undefined;
  const askToStop = (reason: StopReason) => {
    stopReason ??= reason;
    requestStop(reason);
  };
  const tradingState = new BehaviorSubject<TradingState>({ state: 'ACTIVE' });
  let failure: BaseError | undefined;

  const bySymbol = new Map(specs.map((spec) => [spec.symbol, spec]));
  const idleTimeouts = new Map(config.strategies.map((entry) => [entry.name, entry.idleTimeout]));
  const hosts: StrategyHost[] = [];
  const allCompleted = () => hosts.every((host) => host.completed());
  for (const [index, strategy] of params.strategies.entries()) {
    const markets = new Map<string, StrategyMarket>();
    for (const symbol of strategy.markets) {
      const spec = bySymbol.get(symbol)!;
      const feed = feeds.get(spec.address)!;
      const fills$: Observable<OwnFill> = engine.fills$.pipe(filter((fill) => fill.market === spec.address));
      markets.set(symbol, {
        spec,
        feed: { book$: feed.book$, bbo$: feed.bbo$, mid$: feed.mid$, trades$: feed.trades$, ticker$: feed.ticker$, klines$: feed.klines$, health$: feed.health$ },
        state$: engine.state$(spec.address),
        fills$,
      });
    }
    const idleTimeout = idleTimeouts.get(strategy.name) ?? 'off';
    hosts.push(
      createStrategyHost({
        strategy,
        markets,
        clock,
        random: seededRandom((seed + 7919 * (index + 1)) | 0),
        logger,
        submit: (intent) => engine.submit(intent),
        reports$: engine.reports$,
        tradingState$: tradingState,
        idleWarnMs: params.idleWarnMs,
        ...(idleTimeout === 'off' ? {} : { idleTimeoutMs: idleTimeout }),
        onFailure: (error) => {
          failure ??= error;
          askToStop({ kind: 'failed', strategy: strategy.name, code: error.code });
        },
        onComplete: () => {
          if (allCompleted()) askToStop({ kind: 'completed' });
        },
      }),
    );
  }

  const streams = new Subscription();
  let started = false;
  let stopping: Promise<RuntimeStopped> | undefined;

  /** Open orders the venue still lists for the account, per market (undefined when it cannot tell). */
  const openOrdersAfterStop = async (): Promise<Map<string, number> | undefined> => {
    const client = createActiveOrdersClient(context, { baseUrl: network.hosts.userUrl! });
    const left = new Map<string, number>();
    try {
      for (const spec of specs) {
        const { orders } = await client.activeOrders({ user: venue.owner, marketAddress: spec.address, limit: ACTIVE_ORDERS_LIMIT });
        left.set(spec.symbol, orders.length);
      }
      return left;
    } catch (error) {
      logger.warn({ err: error }, 'could not ask the venue for open orders after the stop');
      return undefined;
    }
  };

  return {
    engine,
    recording,
    tracker,
    hosts,
    marketData,
    tradingState$: tradingState.asObservable(),
    stopRequested,
    requestStop: (reason) => askToStop(reason),
    failure: () => failure,

    async start() {
      started = true;
      await recording?.open();
      await session.start();
      streams.add(tracker.attach(engine));
      await engine.start();
      // Mids for the engine's price band and the PnL; they also keep every market's depth polled.
      for (const [address, feed] of feeds) {
        streams.add(
          feed.mid$.subscribe((mid: Decimal) => {
            mids.set(address, BigInt(mid.toDecimalPlaces(0).toFixed()));
            tracker.onMid(address, mid);
          }),
        );
      }
      // The kill switch places nothing more once tripped: the strategies are told (HALTED, with the
      // trip's trigger and reason) and the run stops. Subscribed after the engine's own handler, so
      // the engine has queued its cancels by the time the strategies hear it.
      streams.add(
        engine.killSwitch.tripped$.subscribe((trip) => {
          tradingState.next({ state: 'HALTED', reason: trip.reason, trigger: trip.trigger });
          askToStop({ kind: 'killed', trigger: trip.trigger, message: `kill switch tripped (${trip.trigger}): ${trip.reason}` });
        }),
      );
      for (const spec of specs) {
        const recorder = recording?.recorderOf(spec.symbol);
        if (recorder === undefined) continue;
        // A recording holds every source, whether or not a strategy reads it: a backtest needs the trades.
        const feed = feeds.get(spec.address)!;
        streams.add(feed.trades$.subscribe());
        streams.add(feed.ticker$.subscribe());
        const fills$ = engine.fills$.pipe(filter((fill) => fill.market === spec.address));
        streams.add(followOwnOrders({ state$: engine.state$(spec.address), fills$ }, rawOwnOrderSink(recorder), clock));
      }
      for (const host of hosts) {
        host.start();
        if (failure !== undefined) break;
      }
    },

    stop() {
      stopping ??= (async () => {
        const reason = stopReason === undefined ? undefined : describeStop(stopReason);
        for (const host of hosts) host.stop(reason);
        const stats = await engine.stop({ cancelAll: true, timeoutMs: params.stopTimeoutMs ?? STOP_TIMEOUT_MS });
        const leftOpen = started ? await openOrdersAfterStop() : undefined;
        streams.unsubscribe();
        recording?.close('stopped');
        await transport.stop();
        session.stop();
        return { stats, leftOpen };
      })();
      return stopping;
    },
  };
}
