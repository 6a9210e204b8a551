/**
 * The execution engine (contract: execution-engine.ts; rules: docs/execution.md). It composes the
 * journal, the nonce source, the intent queue, the in-flight cap, the risk checks, the kill switch,
 * the portfolio and a RelayTransport:
 *
 *   submit(intent) -> risk check -> queue -> (a place under the cap, placements allowed)
 *     -> expected order ids from the portfolio's slots (wait while an id is unknown) -> nonce
 *     -> journal `planned`, fsynced while the EIP-712 signature is computed -> transport.submit -> `signed`
 *     -> `sent`, `response` -> terminal outcome (or reconciliation) -> `outcome`, `resolved` -> fate
 *
 * One pump signs and hands requests to the transport one at a time, so requests reach the
 * transport in nonce order; answers and outcomes come back asynchronously. Every timer runs on the
 * clock's scheduler; ids come from the id source; nothing reads wall time.
 *
 * This file wires the parts and keeps what belongs to the whole engine: the public API, the
 * lifecycle, the pump (one piece of work at a time: a resend, else the next ticket), the kill
 * switch's trip and the stats. The parts (engine/), each a concept with its context of what it needs:
 *   ticket-scheduler.ts    tickets from submit to fate: queue, retries, parked and delayed ones, the next to go
 *   cancel-sweep.ts        the kill switch's and the stop's CancelAll of every market with orders
 *   request-sender.ts      the send path: risk, plan, waits, nonce, `planned` + fsync while signing, `signed`
 *   request-book.ts        signed requests: events in, the effects of request-machine.ts (pure) out; connections
 *   confirmation-order.ts  CONFIRMED outcomes to the portfolio in nonce order per market
 *   reconciliation.ts      requests whose fate is unknown; user-data-poller.ts: polling and stale views
 *   journal-restore.ts     the start from the journal; engine-journal.ts: its writes and its failure
 *   engine-stop.ts         stop and drain; engine-counts.ts: the counters of the stats
 * A part reaches another only through its context, and the imports go one way: the tickets, the
 * sweep and the journal first, then the book, then the sender, the restore and the stop.
 *
 * Why over 400 lines: about 200 of them are the wiring, each part's context written out member by
 * member, so that what a part may touch is read in one place; the rest is what no part owns.
 */
import { BehaviorSubject, Subject, Subscription, type Observable } from 'rxjs';
import { BaseError } from '../core/base-error.ts';
import type { Logger } from '../core/logger.ts';
import type { Address } from '../protocol/encoding.ts';
import type { Intent } from '../strategy/intents.ts';
import type { OwnFill } from '../strategy/strategy-context.ts';
import type {
  EngineStats,
  EngineTuning,
  ExecutionEngine,
  ExecutionEngineContext,
  ExecutionEngineParameters,
  IntentFate,
  IntentReport,
} from './execution-engine.ts';
import { InFlightTracker } from './in-flight-tracker.ts';
import { createPlanSigner, isTriggerCreation, type PlanSigner } from './intent-signer.ts';
import { createKillSwitch, killSwitchParameters, type KillSwitch, type KillSwitchTrip } from './kill-switch.ts';
import { createPortfolio, DEFAULT_SETTLE_MS, type Portfolio } from './portfolio.ts';
import { createRiskCheck, type RiskCheck } from './risk/risk-check.ts';
import { riskLimits } from './risk/risk-limits.ts';
import { AccountTruth, DEFAULT_ACCOUNT_READ_MS } from './account-truth.ts';
import { CancelSweep } from './engine/cancel-sweep.ts';
import { newEngineCounts } from './engine/engine-counts.ts';
import { EngineJournal } from './engine/engine-journal.ts';
import { stopEngine, Waiters, type Lifecycle, type StopOptions } from './engine/engine-stop.ts';
import { restoreFromJournal } from './engine/journal-restore.ts';
import { Reconciliation } from './engine/reconciliation.ts';
import { RequestBook, type EngineRequest } from './engine/request-book.ts';
import { RequestSender } from './engine/request-sender.ts';
import { refused, TicketScheduler, type Ticket } from './engine/ticket-scheduler.ts';
import { UserDataPoller } from './engine/user-data-poller.ts';

/** Default seconds a signed intent stays valid. */
export const DEFAULT_DEADLINE_SEC = 60;

/** Default timings (EngineTuning); `stopTimeoutMs` is derived from the deadline when not given. */
export const DEFAULT_ENGINE_TUNING: Omit<EngineTuning, 'stopTimeoutMs'> = Object.freeze({
  pollMs: 1_000,
  idlePollMs: 5_000,
  activeOrdersEveryMs: 15_000,
  eventsOverlapMs: 5_000,
  eventsLookbackMs: 60_000,
  reconcileGraceMs: 10_000,
  eventLagMs: 3_000,
  reconcileQuietMs: 3_000,
  staleViewHoldMs: 3_000,
  maxAttempts: 5,
  idWaitMs: 5_000,
  resendDelayMs: 250,
  outcomeWaitMs: 5_000,
  outcomeGiveUpMs: 60_000,
  settleMs: DEFAULT_SETTLE_MS,
  accountReadMs: DEFAULT_ACCOUNT_READ_MS,
});

/**
 * The execution engine. See the module comment and docs/execution.md.
 *
 * @example
 * const engine = createExecutionEngine({ clock, random, ids, logger }, {
 *   network, signer: account, accountId, authNonce: 0n, markets, transport, userData, receipts,
 *   journalDir: 'state', engine: config.engine, risk: config.risk, mid: (market) => mids.get(market),
 * });
 * await engine.start();
 * const fate = await engine.submit(intent); // { status: 'CONFIRMED', requestId, txHash }
 * await engine.stop();
 */
export function createExecutionEngine(context: ExecutionEngineContext, params: ExecutionEngineParameters): ExecutionEngine {
  return new Engine(context, params);
}

class Engine implements ExecutionEngine {
  readonly killSwitch: KillSwitch;
  readonly reports$: Observable<IntentReport>;
  readonly fills$: Observable<OwnFill>;
  readonly stats$: Observable<EngineStats>;

  readonly #context: ExecutionEngineContext;
  readonly #params: ExecutionEngineParameters;
  readonly #log: Logger;
  readonly #tuning: EngineTuning;
  readonly #deadlineSec: number;
  readonly #portfolio: Portfolio;
  readonly #ownKillSwitch: boolean;
  readonly #risk: RiskCheck;
  readonly #tracker: InFlightTracker;
  readonly #signer: PlanSigner;
  readonly #reports = new Subject<IntentReport>();
  readonly #stats: BehaviorSubject<EngineStats>;
  readonly #subscriptions = new Subscription();
  readonly #counts = newEngineCounts();
  readonly #waiters: Waiters;
  readonly #journal: EngineJournal;
  readonly #tickets: TicketScheduler;
  readonly #sweep: CancelSweep;
  readonly #reconciliation: Reconciliation<EngineRequest>;
  readonly #poller: UserDataPoller;
  /** The account's ledger across runs and its balances on the chain. */
  readonly #accountTruth: AccountTruth;
  readonly #book: RequestBook;
  readonly #sender: RequestSender;

  #lifecycle: Lifecycle = 'idle';
  #startPromise: Promise<void> | undefined;
  #stopPromise: Promise<EngineStats> | undefined;
  #pumping = false;
  #pumpAgain = false;
  #wakeTimer: Subscription | undefined;
  #wakeAt = Number.POSITIVE_INFINITY;

  constructor(context: ExecutionEngineContext, params: ExecutionEngineParameters) {
    this.#context = context;
    this.#params = params;
    const log = context.logger.child({ component: 'execution-engine' });
    this.#log = log;
    this.#deadlineSec = params.deadlineSec ?? DEFAULT_DEADLINE_SEC;
    const tuning = { ...DEFAULT_ENGINE_TUNING, ...params.tuning };
    this.#tuning = { ...tuning, stopTimeoutMs: params.tuning?.stopTimeoutMs ?? this.#deadlineSec * 1000 + tuning.reconcileGraceMs + 5_000 };
    const { clock } = context;
    const portfolio = createPortfolio({ clock }, { markets: params.markets, ...(params.tuning?.settleMs === undefined ? {} : { settleMs: params.tuning.settleMs }) });
    this.#portfolio = portfolio;
    this.#ownKillSwitch = params.killSwitch === undefined;
    const killSwitch = params.killSwitch ?? createKillSwitch({ clock, logger: log }, killSwitchParameters(params.risk.killSwitch, params.markets[0]?.quoteToken.decimals ?? 6));
    this.killSwitch = killSwitch;
    this.#risk = createRiskCheck(
      { clock, portfolio, mid: params.mid, killSwitch },
      { markets: params.markets.map((spec) => ({ spec, limits: riskLimits(params.risk, spec) })) },
    );
    this.#tracker = new InFlightTracker({ maxPendingOutcomes: params.engine.maxPendingOutcomes });
    this.#signer = createPlanSigner({
      signer: params.signer,
      chainId: params.network.chainId,
      domainVersion: params.network.tradingWalletDomainVersion,
      accountId: params.accountId,
      authNonce: params.authNonce,
    });

    const kick = () => this.#kick();
    const publish = () => this.#publish();
    const wakeAtTime = (at: number) => this.#wakeAtTime(at);
    const placementRefusal = (ticket: Ticket) => this.#placementRefusal(ticket);
    this.#waiters = new Waiters(clock);
    this.#journal = new EngineJournal({ logger: log, failed: (refusal) => this.#tickets.refuseUndelayed(refusal) });
    this.#tickets = new TicketScheduler({
      clock,
      tuning: this.#tuning,
      queuePolicy: params.engine.queuePolicy,
      counts: this.#counts,
      report: (report) => this.#reports.next(report),
      settled: (ticket) => this.#sweep.settled(ticket),
      publish,
      wake: () => this.#waiters.wake(),
      kick,
    });
    this.#sweep = new CancelSweep({ killSwitch, portfolio, tickets: this.#tickets, mayCancel: () => this.#live() && this.#journal.broken === undefined, kick });
    this.#reconciliation = new Reconciliation<EngineRequest>({
      clock,
      logger: log,
      tuning: this.#tuning,
      receipts: params.receipts,
      requests: () => this.#book.values(),
      settle: (req, verdict) => this.#book.dispatch(req, { type: 'verdict', verdict }),
      quiet: (req) => this.#book.dispatch(req, { type: 'quiet' }),
      passed: kick,
    });
    this.#poller = new UserDataPoller({
      clock,
      logger: log,
      tuning: this.#tuning,
      userData: params.userData,
      portfolio,
      evidence: this.#reconciliation.evidence,
      live: () => this.#live(),
      busy: () => this.#busy(),
      afterRead: async (startedAt) => {
        await this.#reconciliation.pass(startedAt);
        this.#observePnl();
      },
      settled: () => {
        this.#kick();
        this.#waiters.wake();
      },
    });
    this.#accountTruth = new AccountTruth(
      { clock, logger: log },
      {
        accountId: params.accountId,
        markets: params.markets,
        portfolio,
        ...(params.chain === undefined ? {} : { chain: params.chain }),
        append: (record) => this.#journal.ledger(record),
        horizon: () => this.#poller.eventsSeenBefore(),
        periodMs: this.#tuning.accountReadMs,
      },
    );
    this.#book = new RequestBook({
      clock,
      logger: log,
      tuning: this.#tuning,
      counts: this.#counts,
      tracker: this.#tracker,
      transport: params.transport,
      portfolio,
      reconciliation: this.#reconciliation,
      poller: this.#poller,
      killSwitch,
      tickets: this.#tickets,
      journal: this.#journal,
      live: () => this.#live(),
      placementRefusal,
      wakeAtTime,
      kick,
      wake: () => this.#waiters.wake(),
      publish,
    });
    this.#sender = new RequestSender({
      clock,
      ids: context.ids,
      logger: log,
      tuning: this.#tuning,
      deadlineSec: this.#deadlineSec,
      risk: this.#risk,
      portfolio,
      poller: this.#poller,
      signer: this.#signer,
      killSwitch,
      tracker: this.#tracker,
      counts: this.#counts,
      tickets: this.#tickets,
      sweep: this.#sweep,
      book: this.#book,
      journal: this.#journal,
      placementRefusal,
      wakeAtTime,
    });
    this.#stats = new BehaviorSubject(this.#snapshot());
    this.reports$ = this.#reports.asObservable();
    this.fills$ = portfolio.fills$;
    this.stats$ = this.#stats.asObservable();
  }

  // ---- public -----------------------------------------------------------------------------------

  state$(market: Address) {
    return this.#portfolio.state$(market);
  }

  balanceDisagreements() {
    return this.#accountTruth.disagreements;
  }

  stats(): EngineStats {
    return this.#snapshot();
  }

  kill(reason: string): void {
    this.killSwitch.trip(reason, 'command');
  }

  submit(intent: Intent): Promise<IntentFate> {
    return new Promise<IntentFate>((resolve) => {
      const ticket = this.#tickets.ticket(intent, resolve, undefined);
      const refusal = this.#refusalAtSubmit(intent);
      if (refusal !== undefined) {
        this.#tickets.settle(ticket, refused(refusal));
        return;
      }
      if (intent.type === 'CancelAll' && intent.market === undefined) {
        if (this.#tickets.cancelEveryMarket(ticket, this.#portfolio.markets())) this.#kick();
        return;
      }
      this.#tickets.enqueue(ticket);
      this.#kick();
    });
  }

  start(): Promise<void> {
    this.#startPromise ??= this.#start();
    return this.#startPromise;
  }

  stop(options: StopOptions = {}): Promise<EngineStats> {
    this.#stopPromise ??= stopEngine(
      {
        clock: this.#context.clock,
        logger: this.#log,
        tuning: this.#tuning,
        lifecycle: () => this.#lifecycle,
        enter: (lifecycle) => {
          this.#lifecycle = lifecycle;
        },
        started: () => this.#startPromise,
        waiters: this.#waiters,
        journal: this.#journal,
        tickets: this.#tickets,
        sweep: this.#sweep,
        book: this.#book,
        poller: this.#poller,
        tracker: this.#tracker,
        portfolio: this.#portfolio,
        transport: this.#params.transport,
        accountTruth: this.#accountTruth,
        subscriptions: this.#subscriptions,
        kick: () => this.#kick(),
        stopPump: () => this.#wakeTimer?.unsubscribe(),
        stopKillSwitch: () => {
          if (this.#ownKillSwitch) this.killSwitch.stop();
        },
        snapshot: () => this.#snapshot(),
        complete: () => this.#complete(),
      },
      options,
    );
    return this.#stopPromise;
  }

  // ---- lifecycle ------------------------------------------------------------------------------

  /** Running or stopping: requests go, polls run. */
  #live(): boolean {
    return this.#lifecycle === 'running' || this.#lifecycle === 'stopping';
  }

  async #start(): Promise<void> {
    if (this.#lifecycle !== 'idle') return;
    this.#lifecycle = 'starting';
    const { clock } = this.#context;
    const params = this.#params;
    const nonces = restoreFromJournal(
      {
        clock,
        logger: this.#log,
        tuning: this.#tuning,
        deadlineSec: this.#deadlineSec,
        journal: this.#journal,
        book: this.#book,
        portfolio: this.#portfolio,
        reconciliation: this.#reconciliation,
        accountTruth: this.#accountTruth,
        poller: this.#poller,
      },
      { journalDir: params.journalDir, network: params.network.name, wallet: this.#signer.wallet, journalFs: params.journalFs, maxFutureSkewMs: params.maxFutureSkewMs },
    );
    this.#sender.useNonces(nonces);

    const transport = params.transport;
    this.#subscriptions.add(transport.outcomes$.subscribe((outcome) => this.#book.onOutcome(outcome)));
    this.#subscriptions.add(transport.lateResponses$.subscribe((response) => this.#book.onLateResponse(response)));
    this.#subscriptions.add(transport.connection$.subscribe((event) => this.#book.onConnection(event)));
    this.#subscriptions.add(this.killSwitch.tripped$.subscribe((trip) => this.#onTrip(trip)));
    for (const market of this.#portfolio.markets()) {
      this.#subscriptions.add(
        this.#portfolio.state$(market).subscribe(() => {
          this.#tickets.portfolioChanged();
          this.#sweep.run();
        }),
      );
    }
    await transport.start();
    if (this.#ownKillSwitch) this.killSwitch.start();
    // Stopped while starting: stop() finishes the work.
    if (this.#lifecycle !== 'starting') return;
    this.#lifecycle = 'running';
    await this.#poller.poll();
    // On a new journal trading does not wait for the chain (risk reads the ledger; the balances come in
    // meanwhile); on a restart the first read is compared with the checkpoint first.
    await this.#accountTruth.start();
    this.#kick();
  }

  #refusalAtSubmit(intent: Intent): BaseError | undefined {
    if (this.#lifecycle === 'stopping' || this.#lifecycle === 'stopped') {
      return new BaseError('ENGINE_STOPPED', 'the execution engine is stopping: it takes no new intents');
    }
    const broken = this.#journal.broken;
    if (broken !== undefined) return new BaseError('JOURNAL_UNAVAILABLE', `the journal failed, so nothing more is signed: ${broken.message}`);
    if (isTriggerCreation(intent)) {
      return new BaseError('INTENT_NOT_SUPPORTED_LIVE', `${intent.type} is defined by the venue but not supported live`, { details: { type: intent.type } });
    }
    const market = 'market' in intent ? intent.market : undefined;
    if (market !== undefined && !this.#portfolio.markets().includes(market.toLowerCase() as Address)) {
      return new BaseError('RISK_MARKET_UNKNOWN', `market ${market} is not traded by this engine`, { details: { market } });
    }
    const verdict = this.#risk.check(intent);
    return verdict.ok ? undefined : verdict.error;
  }

  /** Why a placement may no longer be signed (kill switch, stopping); undefined for cancels. */
  #placementRefusal(ticket: Ticket): BaseError | undefined {
    if (ticket.riskReducing) return undefined;
    const trip = this.killSwitch.tripped;
    if (trip !== undefined) return new BaseError('RISK_KILL_SWITCH', `kill switch tripped (${trip.trigger}): ${trip.reason}`, { details: { trigger: trip.trigger } });
    if (this.#lifecycle !== 'running') return new BaseError('ENGINE_STOPPED', 'the execution engine is stopping: placements are no longer signed');
    return undefined;
  }

  // ---- the pump ------------------------------------------------------------------------------

  #kick(): void {
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    void this.#pump();
  }

  async #pump(): Promise<void> {
    this.#pumping = true;
    try {
      do {
        this.#pumpAgain = false;
        while (await this.#step());
      } while (this.#pumpAgain);
    } catch (error) {
      this.#log.error({ err: error }, 'execution engine pump failed');
    } finally {
      this.#pumping = false;
      this.#publish();
    }
  }

  /** Does one piece of work; false when there is none that may go now. */
  async #step(): Promise<boolean> {
    if (!this.#live() || this.#journal.broken !== undefined) return false;
    if (this.#book.gated('start')) return false;
    const now = this.#context.clock.now();
    const resendAt = this.#book.nextResendAt;
    if (resendAt !== undefined) {
      // Nothing new leaves before a request waiting to be sent again: nonces go out in order.
      if (resendAt > now) {
        this.#wakeAtTime(resendAt);
        return false;
      }
      if (this.#tracker.available() <= 0) return false;
      this.#book.resendFirst();
      return true;
    }
    if (this.#tracker.available() <= 0) return false;
    const nonceReadyAt = this.#sender.nonceReadyAt;
    if (now < nonceReadyAt) {
      this.#wakeAtTime(nonceReadyAt);
      return false;
    }
    const ticket = this.#tickets.next(now, this.#placementsAllowed());
    if (ticket === undefined) return false;
    await this.#sender.send(ticket);
    return true;
  }

  #placementsAllowed(): boolean {
    return this.#lifecycle === 'running' && !this.killSwitch.isTripped() && !this.#book.gated('reconnect');
  }

  /** Runs the pump again at `at` (clock time). */
  #wakeAtTime(at: number): void {
    if (at >= this.#wakeAt && this.#wakeTimer !== undefined) return;
    this.#wakeTimer?.unsubscribe();
    this.#wakeAt = at;
    this.#wakeTimer = this.#context.clock.scheduler.schedule(
      () => {
        this.#wakeTimer = undefined;
        this.#wakeAt = Number.POSITIVE_INFINITY;
        this.#sweep.run();
        this.#kick();
      },
      Math.max(0, at - this.#context.clock.now()),
    );
  }

  /** Work in hand (requests, waiting intents, resting orders): the poller then polls every `pollMs`. */
  #busy(): boolean {
    if (this.#book.size > 0 || this.#tickets.pending) return true;
    return this.#portfolio.markets().some((market) => this.#portfolio.state(market).orders.length > 0);
  }

  // ---- kill switch -----------------------------------------------------------------------------

  #observePnl(): void {
    if (!this.#ownKillSwitch || this.killSwitch.isTripped()) return;
    const first = this.#params.markets[0];
    if (first === undefined) return;
    let net = 0n;
    for (const spec of this.#params.markets) {
      if (spec.quoteToken.address !== first.quoteToken.address) continue;
      net += this.#portfolio.pnl(spec.address, this.#params.mid(spec.address)).net;
    }
    this.killSwitch.observePnl(net);
  }

  #onTrip(trip: KillSwitchTrip): void {
    this.#log.warn({ trigger: trip.trigger, reason: trip.reason }, 'kill switch: cancelling every order, placing nothing more');
    const error = new BaseError('RISK_KILL_SWITCH', `kill switch tripped (${trip.trigger}): ${trip.reason}`, { details: { trigger: trip.trigger } });
    this.#tickets.dropPlacements(error);
    this.#sweep.run();
  }

  // ---- stats ---------------------------------------------------------------------------------

  #snapshot(): EngineStats {
    // Object.assign, not a spread: a spread of the counts followed by more fields costs microseconds, and this runs on every change.
    return Object.assign({}, this.#counts, {
      maxPendingOutcomes: this.#tracker.maxSeen(),
      pendingOutcomes: this.#tracker.pending(),
      unresolved: this.#book.size,
      queued: this.#tickets.waiting,
      carriedOver: this.#book.carried,
    });
  }

  #publish(): void {
    this.#stats.next(this.#snapshot());
  }

  #complete(): void {
    this.#publish();
    this.#reports.complete();
    this.#stats.complete();
    this.#tickets.close();
  }
}
