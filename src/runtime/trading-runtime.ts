/**
 * The composition root of every kind of run: from a venue connection and a clock it builds the
 * market feeds, the relay session, the relay transports (WebSocket with REST failover), the user-data
 * and receipt readers, the execution engine and one strategy host per strategy, and it knows how to
 * start and stop them in order. Live, against the local venue on loopback, and on virtual time
 * against the in-process venue, only the two seams differ: the clock, and the connection's HTTP
 * transport and relay socket factory (NautilusTrader's kernel picks TestClock or LiveClock and the
 * clients the same way). `clobbot run` only sequences a run and maps its end to an exit code.
 *
 * Why one file of this size: it is the one place that knows the order in which the parts start and
 * stop (the engine before the strategies, the kill switch's handler after the engine's); split, that
 * order would be spread over files.
 */
import { BehaviorSubject, filter, firstValueFrom, interval, map, merge, race, Subscription, timer, type Observable } from 'rxjs';
import { isBaseError, type BaseError } from '../core/base-error.ts';
import type { Clock } from '../core/clock.ts';
import type { Decimal } from '../core/decimal.ts';
import type { IdSource } from '../core/ids.ts';
import type { Logger } from '../core/logger.ts';
import { seededRandom } from '../core/random.ts';
import type { RunConfig } from '../config/run-config.ts';
import type { Address } from '../protocol/encoding.ts';
import { createActiveOrdersClient } from '../clients/active-orders-client.ts';
import { createMarketDataClient } from '../clients/market-data-client.ts';
import { createRelayWsClient, type ReconnectPolicy } from '../clients/relay-ws-client.ts';
import type { ClientContext } from '../clients/send-request.ts';
import { createMarketFeed, type MarketFeed } from '../market/create-market-feed.ts';
import { buildBars } from '../market/operators/build-bars.ts';
import type { Intent } from '../strategy/intents.ts';
import type { LoadedStrategy } from '../strategy/load-strategy.ts';
import type { OwnFill, StrategyMarket, TradingState } from '../strategy/strategy-context.ts';
import { createExecutionEngine } from '../execution/create-execution-engine.ts';
import { createChainReader } from '../clients/chain-reader.ts';
import type { EngineStats, ExecutionEngine, IntentFate } from '../execution/execution-engine.ts';
import type { JournalFs } from '../execution/journal.ts';
import { createRelaySession, type RelaySession } from '../execution/relay-session.ts';
import { createFailoverTransport, createRestRelayTransport, createWsRelayTransport, type RelayTransport } from '../execution/relay-transport.ts';
import type { WalletSigner } from '../execution/signer-source.ts';
import { RunTracker } from './run-tracker.ts';
import { describeStop, type StopReason } from './stop-reason.ts';
import { createStrategyHost, type StrategyHost } from './strategy-host.ts';
import { timeSource, type SourceEndpoint, type TimedSource } from './timed-source.ts';
import type { VenueConnection } from './venue-connection.ts';
import { createReceiptReader, createUserDataReader, type UserDataEndpoint } from './venue-readers.ts';
import { feedTiming, marketFeedPlanOf } from './market-feed-timing.ts';
import { tapMarketData } from '../feeds/market-data-tap.ts';
import { followOwnOrders, rawOwnOrderSink } from '../feeds/own-order-recorder.ts';
import { createMarketRecording, type MarketRecording } from './market-recording.ts';

export type { StopReason } from './stop-reason.ts';

/** How long the stop waits for the outcomes of the final cancels (on a healthy venue they take a block or two). */
const STOP_TIMEOUT_MS = 10_000;
/**
 * How long a run whose strategies all completed waits for the intents they left queued or in flight
 * before it stops (a TWAP's last slices): what is still unsent then is dropped, and the run says so.
 */
const DRAIN_TIMEOUT_MS = 30_000;
/**
 * The relay WebSocket's reconnect backoff: 250 ms doubling, at most 2 s (jittered down to half). A
 * trading bot cut off from its venue must be back within a few seconds of it (a venue restart),
 * not after the client's default 30 s cap; one connection attempt every 1 to 2 s is nothing to a relay.
 */
const RELAY_RECONNECT: ReconnectPolicy = { initialDelayMs: 250, maxDelayMs: 2_000 };
/** Failed market-data polls retry doubling up to 2 s (the feed's default is 30 s): the book is back within seconds of its venue. */
const MARKET_DATA_BACKOFF = { factor: 2, maxMs: 2_000 } as const;
/** Orders the active-orders query asks for at most: every maker slot and then some. */
const ACTIVE_ORDERS_LIMIT = 100;
/** Strategies' bars (`klines$`) are one-minute candles, each closed once the trades poll after its end had a second more to arrive. */
const BAR_INTERVAL_MS = 60_000;
const BAR_GRACE_MS = 1_000;

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
  /** How long the stop waits for the final cancels and every signed request. Default 10 s: a stop ends close to when it was asked. */
  readonly stopTimeoutMs?: number;
  /** When every strategy completed, how long the stop first waits for their queued and in-flight intents. Default 30 s. */
  readonly drainTimeoutMs?: number;
  readonly idleWarnMs: number;
  /** `--record <dir>`: records every market's data as received, and the bot's own orders, into raw recordings in `dir`. */
  readonly recordDir?: string;
  /** Each REST poll's duration on the clock, ms: market data, the account's order events and active orders. */
  readonly onPollTimed?: (endpoint: PollEndpoint, ms: number) => void;
  /** Each strategy intent's time on the clock from its submission to the engine to its fate, ms. */
  readonly onIntentSettled?: (fate: IntentFate, ms: number) => void;
}

/** What a REST poll reads, as `onPollTimed` names it. */
export type PollEndpoint = SourceEndpoint | UserDataEndpoint;

/** Whether the venue could be asked for the account's open orders after the stop. */
export type OpenOrdersCheck =
  | { readonly status: 'checked' }
  /** The run never started trading: nothing to ask. */
  | { readonly status: 'not-run' }
  /** The venue did not answer: `reason` says why; the orders of `mayBeOpen` may still rest on the book. */
  | { readonly status: 'failed'; readonly reason: string; readonly mayBeOpen: readonly MayBeOpen[] };

/** Orders of one market the engine last knew as open (ids when known). */
export interface MayBeOpen {
  readonly symbol: string;
  readonly orderIds: readonly bigint[];
  /** Orders the engine knows of but not by id yet (a placement whose events were not read). */
  readonly withoutId: number;
}

/** What the stop found. */
export interface RuntimeStopped {
  readonly stats: EngineStats;
  /** Open orders the venue still lists per market symbol (undefined when it could not tell: see `openCheck`). */
  readonly leftOpen: ReadonlyMap<string, number> | undefined;
  readonly openCheck: OpenOrdersCheck;
  /**
   * Intents the stop refused or gave up on (ENGINE_STOPPED): queued, or signed and not settled in
   * time. After every strategy completed, they are what the drain could not send within its bound.
   */
  readonly dropped: number;
  /** Set when every strategy completed: how long the stop waited for their intents, and whether all went out. */
  readonly drain: { readonly waitedMs: number; readonly complete: boolean } | undefined;
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
        { logger, weightBudgetPerMinute: timing.budget, random: seededRandom(seed ^ 0xfeed), jitter: 0.2, backoff: MARKET_DATA_BACKOFF },
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
    { url: network.hosts.relayWsUrl!, session, reconnect: RELAY_RECONNECT, ...(venue.createSocket === undefined ? {} : { createSocket: venue.createSocket }) },
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
  const marketData = timeSource(createMarketDataClient(marketDataContext, { baseUrl: network.hosts.exchangeUrl! }), clock, params.onPollTimed);
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
      userData: createUserDataReader(context, { userUrl: network.hosts.userUrl!, owner: venue.owner, ...(params.onPollTimed === undefined ? {} : { onPollTimed: params.onPollTimed }) }),
      receipts: createReceiptReader(context, { rpcUrl: network.hosts.rpcUrl! }),
      ...(venue.accountCore === undefined ? {} : { chain: createChainReader(context, { rpcUrl: network.hosts.rpcUrl!, accountCore: venue.accountCore }) }),
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

  const { onIntentSettled } = params;
  // The engine tells an intent's fate, not when it signed it: the time runs from the submission.
  const submit = (intent: Intent): Promise<IntentFate> => {
    if (onIntentSettled === undefined) return engine.submit(intent);
    const submittedAt = clock.now();
    return engine.submit(intent).then((fate) => {
      onIntentSettled(fate, clock.now() - submittedAt);
      return fate;
    });
  };

  const bySymbol = new Map(specs.map((spec) => [spec.symbol, spec]));
  // A strategy's bars: closed candles the bar builder makes from the polled trades, as a candle backtest gives them (docs/strategies.md).
  const bars = { intervalMs: BAR_INTERVAL_MS, scheduler: clock.scheduler, graceMs: feedTiming(venue.blockMs, specs.length).tradesMs + BAR_GRACE_MS };
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
        feed: { book$: feed.book$, bbo$: feed.bbo$, mid$: feed.mid$, trades$: feed.trades$, ticker$: feed.ticker$, klines$: feed.trades$.pipe(buildBars(bars)), health$: feed.health$ },
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
        submit,
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

  /** Open orders the venue still lists for the account, per market, or why it could not tell. */
  const openOrdersAfterStop = async (): Promise<{ leftOpen: Map<string, number> | undefined; openCheck: OpenOrdersCheck }> => {
    const client = createActiveOrdersClient(context, { baseUrl: network.hosts.userUrl! });
    const left = new Map<string, number>();
    try {
      for (const spec of specs) {
        const { orders } = await client.activeOrders({ user: venue.owner, marketAddress: spec.address, limit: ACTIVE_ORDERS_LIMIT });
        left.set(spec.symbol, orders.length);
      }
      return { leftOpen: left, openCheck: { status: 'checked' } };
    } catch (error) {
      const reason = isBaseError(error) ? `${error.code}: ${error.message}` : String(error);
      const mayBeOpen = tracker.openOrders();
      logger.warn({ err: error, mayBeOpen: mayBeOpen.map((market) => ({ ...market, orderIds: market.orderIds.map(String) })) }, 'could not ask the venue for open orders after the stop');
      return { leftOpen: undefined, openCheck: { status: 'failed', reason, mayBeOpen } };
    }
  };

  /** Waits until the engine has nothing queued or unsettled, or `timeoutMs` of clock time passed. */
  const drainEngine = async (timeoutMs: number): Promise<{ waitedMs: number; complete: boolean }> => {
    const since = clock.now();
    const idle = (stats: EngineStats) => stats.queued === 0 && stats.unresolved === 0;
    const complete = await firstValueFrom(
      race(
        merge(engine.stats$, interval(100, clock.scheduler).pipe(map(() => engine.stats()))).pipe(
          filter(idle),
          map(() => true),
        ),
        timer(timeoutMs, clock.scheduler).pipe(map(() => false)),
      ),
    );
    const waitedMs = clock.now() - since;
    logger.info({ waitedMs, complete, ...(complete ? {} : { queued: engine.stats().queued, unresolved: engine.stats().unresolved }) }, 'drained the intents of the completed strategies');
    return { waitedMs, complete };
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
      tracker.startRun(clock.now());
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
        // Completing is not giving up: what the strategies left queued goes out first, within a bound.
        const drain = started && stopReason?.kind === 'completed' ? await drainEngine(params.drainTimeoutMs ?? DRAIN_TIMEOUT_MS) : undefined;
        let dropped = 0;
        const counting = engine.reports$.subscribe(({ fate }) => {
          if ((fate.status === 'REFUSED' || fate.status === 'REJECTED') && fate.code === 'ENGINE_STOPPED') dropped += 1;
        });
        const stats = await engine.stop({ cancelAll: true, timeoutMs: params.stopTimeoutMs ?? STOP_TIMEOUT_MS });
        counting.unsubscribe();
        const { leftOpen, openCheck } = started ? await openOrdersAfterStop() : { leftOpen: undefined, openCheck: { status: 'not-run' } as const };
        streams.unsubscribe();
        recording?.close('stopped');
        await transport.stop();
        session.stop();
        if (drain !== undefined && dropped > 0) logger.warn({ dropped, drainedMs: drain.waitedMs }, 'the strategies completed, but intents they left were dropped unsent');
        return { stats, leftOpen, openCheck, dropped, drain };
      })();
      return stopping;
    },
  };
}
