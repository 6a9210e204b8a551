/**
 * The execution engine (contract: execution-engine.ts; rules: docs/execution.md). It composes the
 * journal, the nonce source, the intent queue, the in-flight cap, the risk checks, the kill switch,
 * the portfolio and a RelayTransport:
 *
 *   submit(intent) -> risk check -> queue -> (a place under the cap, placements allowed)
 *     -> expected order ids from the portfolio's slots (wait while an id is unknown) -> nonce
 *     -> journal `planned`, fsynced while the EIP-712 signature is computed -> `signed` -> transport.submit
 *     -> `sent`, `response` -> terminal outcome (or reconciliation) -> `outcome`, `resolved` -> fate
 *
 * One pump signs and hands requests to the transport one at a time, so requests reach the
 * transport in nonce order; answers and outcomes come back asynchronously. A signed request's
 * state changes only through the pure machine of engine/request-machine.ts: this file turns what
 * happens into its events and carries out its effects. Every timer runs on the clock's scheduler;
 * ids come from the id source; nothing reads wall time.
 *
 * Why one file of this size: issue 17 splits the engine by concept, step by step (done: user-data
 * polling and stale views, engine/user-data-poller.ts; reconciliation, engine/reconciliation.ts;
 * the request machine); scheduling, sending, restore and stop are still here.
 */
import { BehaviorSubject, Subject, Subscription, type Observable } from 'rxjs';
import { BaseError, isBaseError } from '../core/base-error.ts';
import type { Logger } from '../core/logger.ts';
import type { Address, Hex } from '../protocol/encoding.ts';
import { encodeRelayRestRequest, parseRelayRestRequest, type RelayRestRequest } from '../protocol/relay-request.ts';
import { isRiskReducing, type Intent } from '../strategy/intents.ts';
import type { OwnFill } from '../strategy/strategy-context.ts';
import type {
  CarriedOverStats,
  EngineStats,
  EngineTuning,
  ExecutionEngine,
  ExecutionEngineContext,
  ExecutionEngineParameters,
  IntentFate,
  IntentReport,
} from './execution-engine.ts';
import { InFlightTracker } from './in-flight-tracker.ts';
import { IntentQueue, type DroppedIntent } from './intent-queue.ts';
import { planIntent, planMarket, type RequestPlan } from './intent-plan.ts';
import { createPlanSigner, intentOfPlan, isTriggerCreation, planOfRequest, requestStampOf, type PlanSigner } from './intent-signer.ts';
import { journalHistory, readJournalRecords } from './journal-history.ts';
import { summarizeIntent, type JournalRecordInput } from './journal-record.ts';
import { liveJournalFs, openJournal, type Journal, type UnresolvedRequest } from './journal.ts';
import { createKillSwitch, killSwitchParameters, type KillSwitch, type KillSwitchTrip } from './kill-switch.ts';
import { createNonceSource, DEFAULT_MAX_FUTURE_SKEW_MS, type NonceSource } from './nonce-source.ts';
import { createPortfolio, DEFAULT_SETTLE_MS, type Portfolio } from './portfolio.ts';
import type { LateResponse, SubmitAnswer, TransportConnectionEvent, TransportOutcome } from './relay-transport.ts';
import { createRiskCheck, type RiskCheck } from './risk/risk-check.ts';
import { riskLimits } from './risk/risk-limits.ts';
import { AccountTruth, DEFAULT_ACCOUNT_READ_MS } from './account-truth.ts';
import { Reconciliation } from './engine/reconciliation.ts';
import { gates, restoredRequest, signedRequest, transition, type Gating, type RequestEffect, type RequestEvent, type RequestFacts, type RequestState } from './engine/request-machine.ts';
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

/** How long a stop waits for its last read of the order events (see `#stop`). */
const FINAL_READ_MS = 2_000;

interface Aggregate {
  readonly intent: Intent;
  readonly resolve: (fate: IntentFate) => void;
  remaining: number;
  readonly fates: IntentFate[];
}

/** One intent given to the engine, from submit to its fate. */
interface Ticket {
  readonly seq: number;
  readonly intent: Intent;
  readonly riskReducing: boolean;
  readonly resolve: (fate: IntentFate) => void;
  readonly parent: Aggregate | undefined;
  /** Signed requests made for it so far. */
  attempts: number;
  /** The request id of its first signed attempt (later ones name it in the journal: `retryOf`). */
  firstRequestId: string | undefined;
  /** When it started waiting for order ids, and the portfolio version it waited on. */
  parkedSince: number | undefined;
  parkedVersion: number;
  /**
   * Parked, not taken again before this clock time unless the portfolio changes: held back by a stale
   * view of its market's slots, or a CancelAll past its id wait that knows no slot yet.
   */
  heldUntil: number | undefined;
  settled: boolean;
}

/**
 * One signed request, from its `signed` record to its `resolved` record: what never changes about
 * it, and its state, which only `transition` (engine/request-machine.ts) changes.
 */
interface EngineRequest extends RequestFacts {
  readonly ticket: Ticket | undefined;
  readonly signedAt: number;
  /** The signed request (undefined when a restored body cannot be read). */
  readonly request: RelayRestRequest | undefined;
  readonly plan: RequestPlan | undefined;
  state: RequestState;
}

type Lifecycle = 'idle' | 'starting' | 'running' | 'stopping' | 'stopped';

interface PendingConfirmation {
  readonly requestId: string;
  readonly market: Address;
  readonly nonce: bigint;
  readonly txHash: Hex | undefined;
}

function refused(error: BaseError): IntentFate {
  return { status: 'REFUSED', code: error.code, message: error.message };
}

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
  readonly #queue: IntentQueue<Ticket>;
  readonly #tracker: InFlightTracker;
  readonly #signer: PlanSigner;
  readonly #reports = new Subject<IntentReport>();
  readonly #stats: BehaviorSubject<EngineStats>;
  readonly #subscriptions = new Subscription();

  #journal: Journal | undefined;
  #nonces: NonceSource | undefined;
  #lifecycle: Lifecycle = 'idle';
  #startPromise: Promise<void> | undefined;
  #stopPromise: Promise<EngineStats> | undefined;
  /** Set when the journal failed: nothing more is signed. */
  #broken: BaseError | undefined;

  readonly #requests = new Map<string, EngineRequest>();
  /** Tickets ready to go again (retries), before the queue. */
  readonly #front: Ticket[] = [];
  /** No nonce can be handed out before this clock time (NONCE_SKEW_EXCEEDED). */
  #nonceReadyAt = Number.NEGATIVE_INFINITY;
  /** Tickets waiting for order ids. */
  readonly #parked: Ticket[] = [];
  /** Tickets waiting for a retry delay. */
  readonly #delayed = new Map<Ticket, Subscription>();
  /** NOT_SENT requests to send again, in nonce order. */
  readonly #resends: { readonly request: EngineRequest; readonly at: number }[] = [];
  #ticketSeq = 0;
  #version = 0;
  #pumping = false;
  #pumpAgain = false;
  #wakeTimer: Subscription | undefined;
  #wakeAt = Number.POSITIVE_INFINITY;

  /** The highest nonce handed to the transport. */
  #lastHandedNonce = 0n;
  #connectionId: number | undefined;
  #seenOpen = false;

  readonly #reconciliation: Reconciliation<EngineRequest>;
  readonly #poller: UserDataPoller;
  /** The account's ledger across runs and its balances on the chain. */
  readonly #accountTruth: AccountTruth;

  /** CONFIRMED outcomes not yet given to the portfolio (see #flushConfirmations), in nonce order. */
  readonly #confirmations: PendingConfirmation[] = [];
  /** Set while the journal is being restored: confirmations wait until every request is known. */
  #holdConfirmations = false;
  /** Settled requests whose outcome message may still come: they keep their place under the cap. */
  readonly #lingering = new Map<string, Subscription>();
  readonly #sweepTickets = new Set<Ticket>();
  #stopSweep = false;
  readonly #waiters = new Set<() => void>();

  readonly #count = {
    signed: 0,
    confirmed: 0,
    reverted: 0,
    staleSlotReverts: 0,
    dropped: 0,
    rejected: 0,
    refused: 0,
    superseded: 0,
    nothingToDo: 0,
    reconnects: 0,
    reconciled: 0,
  };
  /** Of the counts above, the requests an earlier run signed (restored from the journal, no ticket) that this one settled. */
  #carried: CarriedOverStats = Object.freeze({ confirmed: 0, reverted: 0, dropped: 0, reconciled: 0 });

  constructor(context: ExecutionEngineContext, params: ExecutionEngineParameters) {
    this.#context = context;
    this.#params = params;
    this.#log = context.logger.child({ component: 'execution-engine' });
    this.#deadlineSec = params.deadlineSec ?? DEFAULT_DEADLINE_SEC;
    const tuning = { ...DEFAULT_ENGINE_TUNING, ...params.tuning };
    this.#tuning = { ...tuning, stopTimeoutMs: params.tuning?.stopTimeoutMs ?? this.#deadlineSec * 1000 + tuning.reconcileGraceMs + 5_000 };
    const { clock } = context;
    this.#portfolio = createPortfolio({ clock }, { markets: params.markets, ...(params.tuning?.settleMs === undefined ? {} : { settleMs: params.tuning.settleMs }) });
    this.#ownKillSwitch = params.killSwitch === undefined;
    this.killSwitch =
      params.killSwitch ?? createKillSwitch({ clock, logger: this.#log }, killSwitchParameters(params.risk.killSwitch, params.markets[0]?.quoteToken.decimals ?? 6));
    this.#risk = createRiskCheck(
      { clock, portfolio: this.#portfolio, mid: params.mid, killSwitch: this.killSwitch },
      { markets: params.markets.map((spec) => ({ spec, limits: riskLimits(params.risk, spec) })) },
    );
    this.#queue = new IntentQueue<Ticket>({ policy: params.engine.queuePolicy });
    this.#tracker = new InFlightTracker({ maxPendingOutcomes: params.engine.maxPendingOutcomes });
    this.#signer = createPlanSigner({
      signer: params.signer,
      chainId: params.network.chainId,
      domainVersion: params.network.tradingWalletDomainVersion,
      accountId: params.accountId,
      authNonce: params.authNonce,
    });
    this.#reconciliation = new Reconciliation<EngineRequest>({
      clock,
      logger: this.#log,
      tuning: this.#tuning,
      receipts: params.receipts,
      requests: () => this.#requests.values(),
      settle: (req, verdict) => this.#dispatch(req, { type: 'verdict', verdict }),
      quiet: (req) => this.#dispatch(req, { type: 'quiet' }),
      passed: () => this.#kick(),
    });
    this.#poller = new UserDataPoller({
      clock,
      logger: this.#log,
      tuning: this.#tuning,
      userData: params.userData,
      portfolio: this.#portfolio,
      evidence: this.#reconciliation.evidence,
      live: () => this.#lifecycle === 'running' || this.#lifecycle === 'stopping',
      busy: () => this.#busy(),
      afterRead: async (startedAt) => {
        await this.#reconciliation.pass(startedAt);
        this.#observePnl();
      },
      settled: () => {
        this.#kick();
        this.#wake();
      },
    });
    this.#accountTruth = new AccountTruth(
      { clock, logger: this.#log },
      {
        accountId: params.accountId,
        markets: params.markets,
        portfolio: this.#portfolio,
        ...(params.chain === undefined ? {} : { chain: params.chain }),
        append: (record) => this.#journal?.append({ kind: 'ledger', ...record }),
        horizon: () => this.#poller.eventsSeenBefore(),
        periodMs: this.#tuning.accountReadMs,
      },
    );
    this.#stats = new BehaviorSubject(this.#snapshot());
    this.reports$ = this.#reports.asObservable();
    this.fills$ = this.#portfolio.fills$;
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
      const ticket = this.#ticket(intent, resolve, undefined);
      const refusal = this.#refusalAtSubmit(intent);
      if (refusal !== undefined) {
        this.#settle(ticket, refused(refusal));
        return;
      }
      if (intent.type === 'CancelAll' && intent.market === undefined) {
        // One CancelAll per market, one fate for all.
        ticket.settled = true;
        const markets = this.#portfolio.markets();
        const aggregate: Aggregate = { intent, resolve, remaining: markets.length, fates: [] };
        if (markets.length === 0) {
          this.#count.nothingToDo += 1;
          this.#report(intent, resolve, { status: 'NOTHING_TO_DO', reason: 'the engine trades no market' });
          return;
        }
        for (const market of markets) this.#enqueue(this.#ticket({ type: 'CancelAll', market, purpose: intent.purpose }, () => undefined, aggregate));
        this.#kick();
        return;
      }
      this.#enqueue(ticket);
      this.#kick();
    });
  }

  start(): Promise<void> {
    this.#startPromise ??= this.#start();
    return this.#startPromise;
  }

  stop(options: { readonly cancelAll?: boolean; readonly timeoutMs?: number } = {}): Promise<EngineStats> {
    this.#stopPromise ??= this.#stop(options);
    return this.#stopPromise;
  }

  // ---- tickets -------------------------------------------------------------------------------

  #ticket(intent: Intent, resolve: (fate: IntentFate) => void, parent: Aggregate | undefined): Ticket {
    this.#ticketSeq += 1;
    return { seq: this.#ticketSeq, intent, riskReducing: isRiskReducing(intent), resolve, parent, attempts: 0, firstRequestId: undefined, parkedSince: undefined, parkedVersion: 0, heldUntil: undefined, settled: false };
  }

  #refusalAtSubmit(intent: Intent): BaseError | undefined {
    if (this.#lifecycle === 'stopping' || this.#lifecycle === 'stopped') {
      return new BaseError('ENGINE_STOPPED', 'the execution engine is stopping: it takes no new intents');
    }
    if (this.#broken !== undefined) return new BaseError('JOURNAL_UNAVAILABLE', `the journal failed, so nothing more is signed: ${this.#broken.message}`);
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

  #enqueue(ticket: Ticket): void {
    const { intent } = ticket;
    // A newer placement of a market and purpose supersedes one still waiting for order ids too.
    if (this.#queue.policy === 'coalesce' && !ticket.riskReducing && 'market' in intent) {
      for (let i = this.#parked.length - 1; i >= 0; i--) {
        const parked = this.#parked[i]!;
        if (!parked.riskReducing && 'market' in parked.intent && parked.intent.market?.toLowerCase() === intent.market?.toLowerCase() && parked.intent.purpose === intent.purpose) {
          this.#parked.splice(i, 1);
          this.#settle(parked, { status: 'SUPERSEDED' });
        }
      }
    }
    const result = this.#queue.push(intent, ticket);
    if (result.status === 'refused') {
      this.#settle(ticket, refused(new BaseError('INTENT_QUEUE_FULL', `${this.#queue.maxQueued} intents are queued (queuePolicy reject): the placement is refused`)));
      return;
    }
    for (const dropped of result.superseded) this.#settle(dropped.meta, { status: 'SUPERSEDED' });
    this.#publish();
  }

  #settle(ticket: Ticket, fate: IntentFate): void {
    if (ticket.settled) return;
    ticket.settled = true;
    switch (fate.status) {
      case 'REFUSED':
        this.#count.refused += 1;
        break;
      case 'SUPERSEDED':
        this.#count.superseded += 1;
        break;
      case 'NOTHING_TO_DO':
        this.#count.nothingToDo += 1;
        break;
      default:
        break;
    }
    const parent = ticket.parent;
    if (parent === undefined) {
      this.#report(ticket.intent, ticket.resolve, fate);
    } else {
      parent.fates.push(fate);
      parent.remaining -= 1;
      if (parent.remaining === 0) this.#report(parent.intent, parent.resolve, aggregateFate(parent.fates));
    }
    // The next sweep goes as soon as the last settled: one reverted on a stale view (a requote landed
    // first) or one that left orders learnt since must not wait for a poll while orders rest.
    if (this.#sweepTickets.delete(ticket)) this.#sweep();
    this.#publish();
    this.#wake();
  }

  #report(intent: Intent, resolve: (fate: IntentFate) => void, fate: IntentFate): void {
    resolve(fate);
    this.#reports.next({ intent, fate });
  }

  // ---- start --------------------------------------------------------------------------------

  async #start(): Promise<void> {
    if (this.#lifecycle !== 'idle') return;
    this.#lifecycle = 'starting';
    const { clock } = this.#context;
    const params = this.#params;
    const fs = params.journalFs ?? liveJournalFs;
    const journal = openJournal({ clock, fs }, { dir: params.journalDir, network: params.network.name, wallet: this.#signer.wallet });
    this.#journal = journal;
    const history = journalHistory(readJournalRecords(journal.path, (path) => fs.readFileSync(path)));
    const nonces = createNonceSource({ clock }, { floor: journal.restored.nonceFloor, maxFutureSkewMs: params.maxFutureSkewMs ?? DEFAULT_MAX_FUTURE_SKEW_MS });
    for (const nonce of history.nonces) nonces.raiseFloor(nonce);
    this.#nonces = nonces;
    this.#lastHandedNonce = nonces.last();

    // The confirmed placements since the last compaction: the slots of the orders still open. They
    // reach the portfolio in nonce order with the unresolved ones (see #flushConfirmations).
    this.#holdConfirmations = true;
    for (const confirmed of history.confirmed) {
      this.#reconciliation.evidence.claim(confirmed.txHash, confirmed.signedAt);
      if (!this.#tracks(confirmed.plan)) continue;
      try {
        this.#portfolio.markPending(confirmed.requestId, intentOfPlan(confirmed.plan, confirmed.purpose), expectedOf(confirmed.plan));
        this.#portfolio.applyOutcome(confirmed.requestId, 'BROADCAST', { txHash: confirmed.txHash });
        const market = planMarket(confirmed.plan);
        if (market === undefined) this.#portfolio.applyOutcome(confirmed.requestId, 'CONFIRMED', { txHash: confirmed.txHash });
        else this.#confirmations.push({ requestId: confirmed.requestId, market: market.toLowerCase() as Address, nonce: confirmed.nonce, txHash: confirmed.txHash });
      } catch (error) {
        this.#log.warn({ err: error, requestId: confirmed.requestId }, 'a confirmed request of the journal cannot be replayed');
      }
    }
    let oldest = history.oldestSignedAt;
    const restored = journal.restored.unresolved.map((unresolved) => {
      oldest = oldest === undefined ? unresolved.signedAt : Math.min(oldest, unresolved.signedAt);
      return this.#restore(unresolved);
    });
    // Settled from the journal alone once every restored request is known.
    for (const [index, settle] of restored.entries()) settle?.(journal.restored.unresolved[index]!);
    this.#holdConfirmations = false;
    this.#confirmations.sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0));
    this.#flushConfirmations();
    const now = clock.now();
    // From the ledger's horizon too: fills made while the bot was down are counted, once.
    const ledgerFrom = this.#accountTruth.restore(journal.restored.ledger);
    this.#poller.startFrom(Math.min(oldest ?? now, ledgerFrom ?? now) - this.#tuning.eventsOverlapMs);
    this.#log.info(
      {
        journal: journal.path,
        nonceFloor: nonces.last().toString(),
        records: journal.restored.records,
        replayed: history.confirmed.length,
        unresolved: this.#requests.size,
        truncatedBytes: journal.restored.truncatedBytes,
      },
      'journal opened',
    );

    const transport = params.transport;
    this.#subscriptions.add(transport.outcomes$.subscribe((outcome) => this.#onOutcome(outcome)));
    this.#subscriptions.add(transport.lateResponses$.subscribe((response) => this.#onLateResponse(response)));
    this.#subscriptions.add(transport.connection$.subscribe((event) => this.#onConnection(event)));
    this.#subscriptions.add(this.killSwitch.tripped$.subscribe((trip) => this.#onTrip(trip)));
    for (const market of this.#portfolio.markets()) {
      this.#subscriptions.add(
        this.#portfolio.state$(market).subscribe(() => {
          this.#version += 1;
          if (this.#parked.length > 0) this.#kick();
          if (this.killSwitch.isTripped() || this.#stopSweep) this.#sweep();
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

  #tracks(plan: RequestPlan): boolean {
    if (plan.kind === 'cancel-trigger') return true;
    return this.#portfolio.markets().includes(plan.market.toLowerCase() as Address);
  }

  /**
   * A request the journal left unresolved: tracked again, and reconciled; returns how to settle it
   * when the journal alone says enough (an outcome, or a rejection), to call once all are restored.
   */
  #restore(unresolved: UnresolvedRequest): ((unresolved: UnresolvedRequest) => void) | undefined {
    // The signed body, or the `planned` record's (signed with zeros): either tells the plan and deadline.
    const text = unresolved.body ?? unresolved.unsigned;
    const parsed = text === undefined ? undefined : parseRelayRestRequest(text);
    const request = parsed?.ok === true ? parsed.value : undefined;
    const plan = request === undefined ? undefined : planOfRequest(request);
    const stamp = request === undefined ? undefined : requestStampOf(request);
    const deadlineMs = stamp === undefined ? unresolved.signedAt + this.#deadlineSec * 1000 : Number(stamp.deadlineSec) * 1000;
    const req: EngineRequest = {
      requestId: unresolved.requestId,
      ticket: undefined,
      nonce: unresolved.nonce,
      deadlineMs,
      signedAt: unresolved.signedAt,
      request: unresolved.body === undefined ? undefined : request,
      plan,
      hasBody: unresolved.body !== undefined && request !== undefined,
      ordered: plan !== undefined && planMarket(plan) !== undefined,
      state: restoredRequest({ txHash: unresolved.txHash, via: unresolved.sends.at(-1), now: this.#context.clock.now() }),
    };
    this.#requests.set(req.requestId, req);
    if (plan !== undefined && this.#tracks(plan)) {
      try {
        this.#portfolio.markPending(req.requestId, intentOfPlan(plan, unresolved.intent?.purpose ?? 'restored'), expectedOf(plan));
        if (unresolved.txHash !== undefined) this.#portfolio.applyOutcome(req.requestId, 'BROADCAST', { txHash: unresolved.txHash });
      } catch (error) {
        this.#log.warn({ err: error, requestId: req.requestId }, 'a restored request cannot be tracked by the portfolio');
      }
    }
    if (unresolved.txHash !== undefined) this.#reconciliation.evidence.claim(unresolved.txHash, req.signedAt);
    this.#reconciliation.add(req);
    const outcome = unresolved.outcome;
    if (outcome !== undefined) return () => this.#dispatch(req, { type: 'journal-outcome', status: outcome.status, txHash: outcome.txHash, reason: outcome.reason ?? null });
    const response = unresolved.response;
    if (response?.status === 'REJECTED') return () => this.#dispatch(req, { type: 'journal-rejection', code: response.code });
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
    if ((this.#lifecycle !== 'running' && this.#lifecycle !== 'stopping') || this.#broken !== undefined) return false;
    if (this.#gated('start')) return false;
    const now = this.#context.clock.now();
    const resend = this.#resends[0];
    if (resend !== undefined) {
      // Nothing new leaves before a request waiting to be sent again: nonces go out in order.
      if (resend.at > now) {
        this.#wakeAtTime(resend.at);
        return false;
      }
      if (this.#tracker.available() <= 0) return false;
      this.#resends.shift();
      const req = resend.request;
      const refusal = req.ticket === undefined ? undefined : this.#placementRefusal(req.ticket);
      this.#dispatch(req, refusal === undefined ? { type: 'send' } : { type: 'resend-refused', error: refusal });
      return true;
    }
    if (this.#tracker.available() <= 0) return false;
    if (now < this.#nonceReadyAt) {
      this.#wakeAtTime(this.#nonceReadyAt);
      return false;
    }
    const ticket = this.#nextTicket(now);
    if (ticket === undefined) return false;
    await this.#process(ticket);
    return true;
  }

  #placementsAllowed(): boolean {
    return this.#lifecycle === 'running' && !this.killSwitch.isTripped() && !this.#gated('reconnect');
  }

  /** True while a request holds back what `kind` says (engine/request-machine.ts `gates`). */
  #gated(kind: Gating): boolean {
    for (const req of this.#requests.values()) if (gates(req.state, kind)) return true;
    return false;
  }

  #nextTicket(now: number): Ticket | undefined {
    const placements = this.#placementsAllowed();
    const pick = (list: Ticket[], eligible: (ticket: Ticket) => boolean): Ticket | undefined => {
      let index = list.findIndex((ticket) => ticket.riskReducing && eligible(ticket));
      if (index < 0 && placements) index = list.findIndex(eligible);
      return index < 0 ? undefined : list.splice(index, 1)[0];
    };
    const retry = pick(this.#front, () => true);
    if (retry !== undefined) return retry;
    // Waiting for order ids: again once the portfolio changed, or (CancelAll) when the wait is over.
    // Held for a fresh view: again once the portfolio changed, or when the hold is over (a CancelAll
    // past its id wait is held too: taking it again at once would spin without time moving).
    const parked = pick(this.#parked, (ticket) => {
      if (ticket.parkedVersion !== this.#version) return true;
      if (ticket.heldUntil !== undefined) return now >= ticket.heldUntil;
      return ticket.intent.type === 'CancelAll' && now - (ticket.parkedSince ?? now) >= this.#tuning.idWaitMs;
    });
    if (parked !== undefined) return parked;
    return this.#queue.take({ placementsAllowed: placements })?.meta;
  }

  async #process(ticket: Ticket): Promise<void> {
    if (ticket.settled) return;
    const { intent } = ticket;
    const { clock } = this.#context;
    const stopRefusal = this.#placementRefusal(ticket);
    if (stopRefusal !== undefined) {
      this.#settle(ticket, refused(stopRefusal));
      return;
    }
    const verdict = this.#risk.check(intent);
    if (!verdict.ok) {
      this.#settle(ticket, refused(verdict.error));
      return;
    }
    const now = clock.now();
    const waitedOut = intent.type === 'CancelAll' && ticket.parkedSince !== undefined && now - ticket.parkedSince >= this.#tuning.idWaitMs;
    // A sweep (kill switch, stop) cancels the slots whose ids it knows at once; the next sweep takes
    // the rest once their ids arrive (order events come seconds after a block).
    const partial = waitedOut || this.#sweepTickets.has(ticket);
    let planned = planIntent(intent, (market) => this.#portfolio.slotOrderIds(market), { partial });
    // A CancelAll while requests of its market are in flight waits for their outcomes (up to the id
    // wait): a replacement landing first would change a slot it expects, and revert it whole.
    if (planned.status === 'ready' && intent.type === 'CancelAll' && !waitedOut && intent.market !== undefined && this.#portfolio.state(intent.market).pendingRequests > 0) {
      planned = { status: 'wait', slots: [] };
    }
    switch (planned.status) {
      case 'unsupported':
        this.#settle(ticket, refused(new BaseError('INTENT_NOT_SUPPORTED_LIVE', `${intent.type} is not supported live`)));
        return;
      case 'empty':
        this.#settle(ticket, { status: 'NOTHING_TO_DO', reason: 'no order rests in a known slot of the market' });
        return;
      case 'wait':
        ticket.parkedSince ??= now;
        ticket.parkedVersion = this.#version;
        // An earlier stale-view hold no longer applies (its end, now past, would make it due at once).
        // A CancelAll past its id wait that knows no slot yet waits for a change or the next poll,
        // not for nothing (it would be taken again at once, forever, without the clock moving).
        ticket.heldUntil = partial ? now + this.#tuning.pollMs : undefined;
        this.#parked.push(ticket);
        if (intent.type === 'CancelAll') {
          this.#wakeAtTime(ticket.heldUntil ?? ticket.parkedSince + this.#tuning.idWaitMs);
          // A cancel of everything is urgent (the kill switch, a stop): learn the ids now, not at the next poll.
          this.#poller.request(0);
        }
        this.#log.debug({ slots: planned.slots, purpose: intent.purpose }, 'intent waits for the order ids of its slots');
        return;
      case 'ready':
        break;
    }
    // A cancel (risk-reducing: the kill switch's, a stop's, a strategy's) never waits for a fresher
    // view: a revert on a stale slot costs it a block, a hold seconds of an order left resting.
    const heldUntil = ticket.riskReducing ? undefined : this.#poller.staleHold(planned.plan, now);
    ticket.heldUntil = heldUntil;
    if (heldUntil !== undefined) {
      ticket.parkedVersion = this.#version;
      this.#parked.push(ticket);
      this.#wakeAtTime(heldUntil);
      this.#log.debug({ purpose: intent.purpose }, 'intent waits for a fresh view of its slots');
      return;
    }
    const nonces = this.#nonces!;
    let nonce: bigint;
    try {
      nonce = nonces.next();
    } catch (error) {
      if (!isBaseError(error, 'NONCE_SKEW_EXCEEDED')) throw error;
      // Nothing is signed until the clock catches up with the nonce floor (a clock set back since the journal was written).
      this.#nonceReadyAt = nonces.readyAt();
      this.#log.warn({ err: error, readyAt: this.#nonceReadyAt }, 'nonce too far ahead of the clock: waiting');
      this.#front.unshift(ticket);
      this.#wakeAtTime(this.#nonceReadyAt);
      return;
    }
    const requestId = this.#context.ids.next();
    const deadlineSec = Math.floor(now / 1000) + this.#deadlineSec;
    const prepared = this.#signer.prepare(planned.plan, { requestId, nonce, deadlineSec: BigInt(deadlineSec) });
    const retryOf = ticket.firstRequestId;
    const stamp = { requestId, nonce: nonce.toString(), method: prepared.unsigned.method, intent: summarizeIntent(intent), ...(retryOf === undefined ? {} : { retryOf }) };
    const notSent = () => this.#settle(ticket, refused(new BaseError('JOURNAL_UNAVAILABLE', 'the journal failed: the request was not sent')));
    if (!this.#write({ kind: 'planned', ...stamp, unsigned: encodeRelayRestRequest(prepared.unsigned) })) return notSent();
    ticket.firstRequestId ??= requestId;
    // The disk flushes the plan while the signature is computed: the request leaves once both are done.
    const durable = this.#journal!.sync().then(
      () => true,
      (error: unknown) => (this.#journalFailed(error), false),
    );
    let request: RelayRestRequest;
    try {
      request = await prepared.sign();
    } catch (error) {
      this.#log.error({ err: error, purpose: intent.purpose }, 'signing failed');
      this.#abandon(requestId, 'the signer failed');
      this.#settle(ticket, refused(isBaseError(error) ? error : new BaseError('PROTOCOL_SIGNATURE_INVALID', 'the signer failed', { cause: error })));
      return;
    }
    if (!this.#write({ kind: 'signed', ...stamp, body: encodeRelayRestRequest(request) }) || !(await durable)) return notSent();
    // The world may have moved while the signer and the disk worked.
    const lateRefusal = this.#placementRefusal(ticket);
    if (lateRefusal !== undefined) {
      this.#abandon(requestId, lateRefusal.message);
      this.#settle(ticket, refused(lateRefusal));
      return;
    }
    if (this.#broken !== undefined || this.#tracker.available() <= 0) {
      this.#abandon(requestId, 'no place under the in-flight cap when it was ready: signed again later');
      this.#front.unshift(ticket);
      return;
    }
    const req: EngineRequest = {
      requestId,
      ticket,
      nonce,
      deadlineMs: deadlineSec * 1000,
      signedAt: clock.now(),
      request,
      plan: planned.plan,
      hasBody: true,
      ordered: planMarket(planned.plan) !== undefined,
      state: signedRequest(),
    };
    this.#requests.set(requestId, req);
    this.#count.signed += 1;
    ticket.attempts += 1;
    ticket.parkedSince = undefined;
    this.#risk.record(intent);
    this.#dispatch(req, { type: 'send' });
    // After the hand-over (nothing can come back before this turn ends): state is off the wire path.
    this.#portfolio.markPending(requestId, planned.intent, expectedOf(planned.plan));
    this.killSwitch.recordSubmission();
  }

  /** A request journaled but not sent after all: resolved as never sent (its nonce is not used again). */
  #abandon(requestId: string, reason: string): void {
    this.#append({ kind: 'resolved', requestId, how: 'never-sent', status: 'NOT_SENT', reason: reason.slice(0, 1024) });
  }

  /** Why a placement may no longer be signed (kill switch, stopping); undefined for cancels. */
  #placementRefusal(ticket: Ticket): BaseError | undefined {
    if (ticket.riskReducing) return undefined;
    const trip = this.killSwitch.tripped;
    if (trip !== undefined) return new BaseError('RISK_KILL_SWITCH', `kill switch tripped (${trip.trigger}): ${trip.reason}`, { details: { trigger: trip.trigger } });
    if (this.#lifecycle !== 'running') return new BaseError('ENGINE_STOPPED', 'the execution engine is stopping: placements are no longer signed');
    return undefined;
  }

  // ---- requests: events in, effects out ----------------------------------------------------

  /** Moves a request by one event (engine/request-machine.ts) and carries out the effects, in order. */
  #dispatch(req: EngineRequest, event: RequestEvent): void {
    const { state, effects } = transition(req.state, event, req, {
      now: this.#context.clock.now(),
      running: this.#lifecycle === 'running' || this.#lifecycle === 'stopping',
      lastHandedNonce: this.#lastHandedNonce,
      connectionId: this.#connectionId,
      holdsPlace: this.#tracker.has(req.requestId),
      resendDelayMs: this.#tuning.resendDelayMs,
    });
    req.state = state;
    for (const effect of effects) this.#effect(req, effect);
    this.#publish();
  }

  #effect(req: EngineRequest, effect: RequestEffect): void {
    const { requestId } = req;
    switch (effect.type) {
      case 'journal':
        this.#append(effect.record);
        break;
      case 'submit':
        this.#submit(req);
        break;
      case 'release-place':
        this.#tracker.release(requestId);
        break;
      case 'linger':
        this.#linger(requestId);
        break;
      case 'learn-hash':
        this.#reconciliation.evidence.claim(effect.txHash, this.#context.clock.now());
        if (effect.portfolio) this.#portfolio.applyOutcome(requestId, 'BROADCAST', { txHash: effect.txHash });
        break;
      case 'portfolio':
        this.#portfolio.applyOutcome(requestId, effect.status, effect.txHash === undefined ? {} : { txHash: effect.txHash });
        break;
      case 'queue-confirmation':
        this.#confirmations.push({ requestId, market: planMarket(req.plan!)!.toLowerCase() as Address, nonce: req.nonce, txHash: effect.txHash });
        this.#confirmations.sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0));
        break;
      case 'confirmed':
        this.#reconciliation.confirmed(req.nonce, effect.txHash);
        if (req.plan !== undefined && req.plan.kind !== 'cancel-trigger') this.#poller.request(this.#tuning.pollMs);
        break;
      case 'reconcile':
        this.#reconciliation.add(req);
        break;
      case 'read-now':
        this.#poller.request(0);
        break;
      case 'stale-view':
        this.#poller.onStaleView(requestId, req.plan);
        break;
      case 'failure':
        this.killSwitch.recordFailure();
        break;
      case 'resend-at':
        this.#resends.push({ request: req, at: effect.at });
        this.#resends.sort((a, b) => (a.request.nonce < b.request.nonce ? -1 : 1));
        this.#wakeAtTime(effect.at);
        break;
      case 'count': {
        const { counter } = effect;
        this.#count[counter] += 1;
        // A request restored from the journal (no ticket) was signed by an earlier run: counted apart too.
        if (req.ticket === undefined && counter !== 'staleSlotReverts' && counter !== 'rejected') this.#carried = Object.freeze({ ...this.#carried, [counter]: this.#carried[counter] + 1 });
        break;
      }
      case 'resolved': {
        const { type: _type, ...resolution } = effect;
        this.#reconciliation.delete(req);
        this.#requests.delete(requestId);
        this.#append({ kind: 'resolved', requestId, ...resolution });
        this.#flushConfirmations();
        this.#wake();
        break;
      }
      case 'fate':
        this.#onFate(req, effect.fate, effect.retryAfterMs);
        break;
      case 'log':
        this.#log[effect.level]({ requestId, ...effect.fields }, effect.message);
        break;
      case 'kick':
        this.#kick();
        break;
      case 'impossible':
        this.#log.error({ requestId, phase: effect.phase, event: effect.event }, 'a request event impossible in its phase (a bug): ignored');
        break;
    }
  }

  /** Hands the signed body to the transport; its answer comes back as an event. */
  #submit(req: EngineRequest): void {
    this.#tracker.tryAcquire(req.requestId);
    if (req.nonce > this.#lastHandedNonce) this.#lastHandedNonce = req.nonce;
    let answer: Promise<SubmitAnswer>;
    try {
      answer = this.#params.transport.submit(req.request!);
    } catch (error) {
      answer = Promise.reject(error);
    }
    answer.then(
      (value) => this.#dispatch(req, { type: 'answer', answer: value }),
      (error: unknown) => this.#dispatch(req, { type: 'send-threw', error }),
    );
  }

  /** An attempt's fate: the intent's, unless it may be signed again (new nonce) and still may go. */
  #onFate(req: EngineRequest, fate: IntentFate, retryAfterMs: number | undefined): void {
    const ticket = req.ticket;
    if (ticket === undefined || ticket.settled) return;
    const code = 'code' in fate ? fate.code : undefined;
    if (retryAfterMs !== undefined && ticket.attempts < this.#tuning.maxAttempts && this.#placementRefusal(ticket) === undefined) {
      this.#log.info({ requestId: req.requestId, code, retryInMs: retryAfterMs, attempt: ticket.attempts }, 'not executed: signing the intent again with a new nonce');
      this.#retryLater(ticket, retryAfterMs);
      return;
    }
    if (fate.status === 'REJECTED' && code !== 'ENGINE_STOPPED') this.#log.warn({ requestId: req.requestId, code, message: fate.message }, 'request rejected');
    this.#settle(ticket, fate);
  }

  #retryLater(ticket: Ticket, delayMs: number): void {
    if (delayMs <= 0) {
      this.#front.push(ticket);
      this.#kick();
      return;
    }
    const timer = this.#context.clock.scheduler.schedule(() => {
      this.#delayed.delete(ticket);
      if (ticket.settled) return;
      this.#front.push(ticket);
      this.#kick();
    }, delayMs);
    this.#delayed.set(ticket, timer);
  }

  #onOutcome(outcome: TransportOutcome): void {
    const req = this.#requests.get(outcome.requestId);
    if (req === undefined) {
      this.#stopLingering(outcome.requestId);
      this.#log.debug({ requestId: outcome.requestId, status: outcome.status }, 'an outcome of no unresolved request');
      return;
    }
    this.#dispatch(req, { type: 'outcome', outcome });
  }

  /** A response after its TIMEOUT answer: as if it had come in time. */
  #onLateResponse(response: LateResponse): void {
    const req = this.#requests.get(response.requestId);
    if (req !== undefined) this.#dispatch(req, { type: 'late-response', response });
  }

  /**
   * Hands CONFIRMED outcomes to the portfolio in nonce order per market: it infers slots by
   * replaying placements in confirmation order, which must be their transactions' order, while a
   * reconciled request can learn its fate after a later one. An outcome waits while a request of
   * the same market with a lower nonce is unresolved.
   */
  #flushConfirmations(): void {
    if (this.#confirmations.length === 0 || this.#holdConfirmations) return;
    const lowest = new Map<Address, bigint>();
    for (const req of this.#requests.values()) {
      const market = req.plan === undefined ? undefined : planMarket(req.plan);
      if (market === undefined) continue;
      const key = market.toLowerCase() as Address;
      const known = lowest.get(key);
      if (known === undefined || req.nonce < known) lowest.set(key, req.nonce);
    }
    const waiting: PendingConfirmation[] = [];
    for (const confirmation of this.#confirmations) {
      const blocker = lowest.get(confirmation.market);
      if (blocker !== undefined && blocker < confirmation.nonce) {
        waiting.push(confirmation);
        continue;
      }
      this.#portfolio.applyOutcome(confirmation.requestId, 'CONFIRMED', confirmation.txHash === undefined ? {} : { txHash: confirmation.txHash });
    }
    this.#confirmations.length = 0;
    this.#confirmations.push(...waiting);
  }

  /**
   * Keeps the place under the cap of a request settled without its outcome message (by receipt or
   * order events) while its connection may still deliver that outcome: the relay counts it as
   * pending until it does. Released by the outcome, a new connection, or `outcomeGiveUpMs`.
   */
  #linger(requestId: string): void {
    const timer = this.#context.clock.scheduler.schedule(() => {
      this.#lingering.delete(requestId);
      this.#tracker.release(requestId);
      this.#publish();
      this.#kick();
    }, this.#tuning.outcomeGiveUpMs);
    this.#lingering.set(requestId, timer);
  }

  #stopLingering(requestId: string): void {
    const timer = this.#lingering.get(requestId);
    if (timer === undefined) return;
    timer.unsubscribe();
    this.#lingering.delete(requestId);
    this.#tracker.release(requestId);
    this.#kick();
  }

  // ---- connections ---------------------------------------------------------------------------

  #onConnection(event: TransportConnectionEvent): void {
    switch (event.type) {
      case 'closed': {
        const { state } = event;
        if (state.kind === 'pending-outcome-limit') {
          this.#log.warn({ awaiting: state.awaitingOutcome.length }, 'relay closed the socket at its pending-outcome limit (4008): some submissions may be out; reconciling them');
        }
        for (const id of state.awaitingOutcome) {
          this.#stopLingering(id);
          const req = this.#requests.get(id);
          if (req !== undefined) this.#dispatch(req, { type: 'connection-closed' });
        }
        break;
      }
      case 'open': {
        if (this.#seenOpen) this.#count.reconnects += 1;
        this.#seenOpen = true;
        this.#connectionId = event.connectionId;
        for (const timer of this.#lingering.values()) timer.unsubscribe();
        this.#lingering.clear();
        const ids = new Set([...this.#tracker.reset(), ...(event.previous?.awaitingOutcome ?? [])]);
        for (const id of ids) {
          const req = this.#requests.get(id);
          if (req !== undefined) this.#dispatch(req, { type: 'connection-opened' });
        }
        this.#log.info({ connectionId: event.connectionId, reconciling: this.#reconciliation.size }, 'relay connection open');
        // After a drop the venue may have lost orders (a restart): its active orders are read at once.
        if (event.previous !== undefined) {
          this.#poller.readActiveOrdersNext();
          this.#poller.request(0);
        }
        this.#kick();
        break;
      }
      case 'route':
        this.#log.info({ via: event.via }, 'relay route');
        break;
    }
    this.#publish();
  }

  // ---- user data and reconciliation ----------------------------------------------------------

  /** Work in hand (requests, waiting intents, resting orders): the poller then polls every `pollMs`. */
  #busy(): boolean {
    if (this.#requests.size > 0 || this.#parked.length > 0 || this.#queue.size > 0) return true;
    return this.#portfolio.markets().some((market) => this.#portfolio.state(market).orders.length > 0);
  }

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

  // ---- kill switch and sweeps --------------------------------------------------------------------

  #onTrip(trip: KillSwitchTrip): void {
    this.#log.warn({ trigger: trip.trigger, reason: trip.reason }, 'kill switch: cancelling every order, placing nothing more');
    const error = new BaseError('RISK_KILL_SWITCH', `kill switch tripped (${trip.trigger}): ${trip.reason}`, { details: { trigger: trip.trigger } });
    this.#dropPlacements(error, this.#queue.clearPlacements());
    this.#sweep();
  }

  /** Refuses every placement waiting to be signed. */
  #dropPlacements(error: BaseError, cleared: readonly DroppedIntent<Ticket>[]): void {
    for (const dropped of cleared) this.#settle(dropped.meta, refused(error));
    for (const list of [this.#front, this.#parked]) {
      for (let i = list.length - 1; i >= 0; i--) {
        const ticket = list[i]!;
        if (ticket.riskReducing) continue;
        list.splice(i, 1);
        this.#settle(ticket, refused(error));
      }
    }
    for (const [ticket, timer] of this.#delayed) {
      if (ticket.riskReducing) continue;
      timer.unsubscribe();
      this.#delayed.delete(ticket);
      this.#settle(ticket, refused(error));
    }
  }

  /** While the kill switch is tripped (or stop cancels): a CancelAll for each market with orders in known slots. */
  #sweep(): void {
    if (!(this.killSwitch.isTripped() || this.#stopSweep)) return;
    if (this.#lifecycle !== 'running' && this.#lifecycle !== 'stopping') return;
    if (this.#sweepTickets.size > 0 || this.#broken !== undefined) return;
    const markets = this.#portfolio.markets().filter((market) => this.#portfolio.state(market).slots.some((slot) => slot !== null));
    if (markets.length === 0) return;
    const purpose = this.killSwitch.isTripped() ? 'kill-switch' : 'stop';
    for (const market of markets) {
      const intent: Intent = { type: 'CancelAll', market, purpose };
      const ticket = this.#ticket(intent, () => undefined, undefined);
      this.#sweepTickets.add(ticket);
      this.#enqueue(ticket);
    }
    this.#kick();
  }

  // ---- stop ----------------------------------------------------------------------------------

  async #stop(options: { readonly cancelAll?: boolean; readonly timeoutMs?: number }): Promise<EngineStats> {
    const { clock } = this.#context;
    if (this.#lifecycle === 'idle') {
      this.#lifecycle = 'stopped';
      this.#complete();
      return this.#snapshot();
    }
    await this.#startPromise?.catch(() => undefined);
    const cancelAll = options.cancelAll ?? true;
    // Without a journal (start failed) nothing can be signed: there is nothing to wait for.
    const deadline = this.#journal === undefined ? clock.now() : clock.now() + (options.timeoutMs ?? this.#tuning.stopTimeoutMs);
    this.#lifecycle = 'stopping';
    this.#log.info({ cancelAll, unresolved: this.#requests.size }, 'execution engine stopping');
    this.#dropPlacements(new BaseError('ENGINE_STOPPED', 'the execution engine stopped before signing it'), this.#queue.clearPlacements());
    if (cancelAll) {
      this.#stopSweep = true;
      this.#sweep();
    }
    this.#poller.request(0);
    this.#kick();
    await this.#waitUntil(() => this.#drained(cancelAll), deadline);
    // The blocks of the last requests (the stop's cancels) may hold fills no read has seen yet: an
    // order partly filled in the block of its cancel, ahead of it. One read of the order events that
    // began after everything settled, so the position the engine stops with is the account's.
    // Bounded: a venue that does not answer is not waited for (the run says its orders may be open).
    if (this.#journal !== undefined) {
      const settledAt = clock.now();
      this.#poller.request(0);
      await this.#waitUntil(() => this.#poller.lastOkAt >= settledAt, Math.min(deadline, settledAt + FINAL_READ_MS));
    }

    this.#lifecycle = 'stopped';
    const leftover = new BaseError('ENGINE_STOPPED', 'the execution engine stopped before signing it');
    for (const timer of this.#delayed.values()) timer.unsubscribe();
    const waiting = [...this.#front, ...this.#parked, ...this.#delayed.keys(), ...this.#queue.snapshot().map((entry) => entry.meta)];
    this.#front.length = 0;
    this.#parked.length = 0;
    this.#delayed.clear();
    this.#queue.clearPlacements();
    while (this.#queue.take() !== undefined);
    for (const ticket of waiting) this.#settle(ticket, refused(leftover));
    // Those waiting to be sent again never left this process; the others stay unresolved in the journal.
    this.#resends.length = 0;
    for (const req of [...this.#requests.values()]) this.#dispatch(req, { type: 'engine-stopped' });
    const unresolved = this.#requests.size;
    this.#poller.stop();
    this.#wakeTimer?.unsubscribe();
    for (const timer of this.#lingering.values()) timer.unsubscribe();
    this.#lingering.clear();
    // Nothing is awaited any more (what is unresolved stays in the journal).
    this.#tracker.reset();
    await this.#poller.inFlight?.catch(() => undefined);
    try {
      await this.#params.transport.stop();
    } catch (error) {
      this.#log.warn({ err: error }, 'relay transport stop failed');
    }
    this.#subscriptions.unsubscribe();
    if (this.#ownKillSwitch) this.killSwitch.stop();
    await this.#accountTruth.reading;
    this.#accountTruth.stop();
    const journal = this.#journal;
    this.#journal = undefined;
    if (journal !== undefined) {
      const open = this.#portfolio.markets().some((market) => this.#portfolio.state(market).orders.length > 0);
      try {
        if (this.#broken === undefined && !open) journal.compact();
        else if (open) this.#log.info('orders are open: the journal keeps its history (their slots) for the next start');
        journal.close();
      } catch (error) {
        this.#log.error({ err: error }, 'journal compaction or close failed');
      }
    }
    const stats = this.#snapshot();
    this.#log.info({ ...stats, unresolved }, 'execution engine stopped');
    this.#complete();
    return stats;
  }

  #drained(cancelAll: boolean): boolean {
    if (this.#requests.size > 0 || this.#queue.size > 0 || this.#front.length > 0 || this.#parked.length > 0 || this.#delayed.size > 0) return false;
    if (!cancelAll) return true;
    if (this.#sweepTickets.size > 0) return false;
    return this.#portfolio.markets().every((market) => this.#portfolio.state(market).slots.every((slot) => slot === null));
  }

  /** Resolves once `predicate` holds (checked on every change and every 100 ms of the clock) or at `deadline`. */
  #waitUntil(predicate: () => boolean, deadline: number): Promise<void> {
    const { clock } = this.#context;
    return new Promise<void>((resolve) => {
      let timer: Subscription | undefined;
      let done = false;
      const check = () => {
        if (done) return;
        if (predicate() || clock.now() >= deadline) {
          done = true;
          this.#waiters.delete(check);
          timer?.unsubscribe();
          resolve();
        }
      };
      const tick = () => {
        check();
        if (!done) timer = clock.scheduler.schedule(tick, Math.max(1, Math.min(100, deadline - clock.now())));
      };
      this.#waiters.add(check);
      tick();
    });
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
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
        if (this.killSwitch.isTripped() || this.#stopSweep) this.#sweep();
        this.#kick();
      },
      Math.max(0, at - this.#context.clock.now()),
    );
  }

  #complete(): void {
    this.#publish();
    this.#reports.complete();
    this.#stats.complete();
    this.#queue.close();
  }

  // ---- journal and stats ---------------------------------------------------------------------

  /** Writes a record (durable at the next sync); false when the journal is closed or failed (then nothing more is signed). */
  #write(input: JournalRecordInput): boolean {
    const journal = this.#journal;
    if (journal === undefined) return false;
    try {
      journal.write(input);
      return true;
    } catch (error) {
      if (isBaseError(error, 'JOURNAL_RECORD_INVALID')) {
        this.#log.error({ err: error, kind: input.kind }, 'journal record refused (a bug)');
        return input.kind !== 'signed' && input.kind !== 'planned';
      }
      this.#journalFailed(error);
      return false;
    }
  }

  /**
   * Writes a record that waits for no disk: the records after a request left (answers, outcomes,
   * resolutions) become durable with the next request's `planned` record, or when the journal
   * closes. A crash of the machine (not of the process) may lose the last of them; the restart then
   * reconciles those requests again, which is safe: a restored request is never sent again.
   */
  #append(input: JournalRecordInput): boolean {
    return this.#write(input);
  }

  /** The journal failed: nothing more is signed, and every placement waiting to be is refused. */
  #journalFailed(error: unknown): void {
    if (this.#broken !== undefined) return;
    this.#broken = isBaseError(error) ? error : new BaseError('JOURNAL_UNAVAILABLE', 'the journal failed', { cause: error });
    this.#log.error({ err: error }, 'the journal failed: nothing more is signed');
    const refusal = new BaseError('JOURNAL_UNAVAILABLE', `the journal failed, so nothing more is signed: ${this.#broken.message}`);
    queueMicrotask(() => {
      this.#dropPlacements(refusal, this.#queue.clearPlacements());
      for (const entry of this.#queue.snapshot()) this.#settle(entry.meta, refused(refusal));
      while (this.#queue.take() !== undefined);
      for (const ticket of [...this.#front, ...this.#parked]) this.#settle(ticket, refused(refusal));
      this.#front.length = 0;
      this.#parked.length = 0;
    });
  }

  #snapshot(): EngineStats {
    // Object.assign, not a spread: a spread of `#count` followed by more fields costs microseconds, and this runs on every change.
    return Object.assign({}, this.#count, {
      maxPendingOutcomes: this.#tracker.maxSeen(),
      pendingOutcomes: this.#tracker.pending(),
      unresolved: this.#requests.size,
      queued: this.#queue.size + this.#front.length + this.#parked.length + this.#delayed.size,
      carriedOver: this.#carried,
    });
  }

  #publish(): void {
    this.#stats.next(this.#snapshot());
  }
}

function expectedOf(plan: RequestPlan): { readonly expectedOrderIds?: readonly bigint[] } {
  return plan.kind === 'cancel-trigger' ? {} : { expectedOrderIds: plan.expectedOrderIds };
}

/** One fate for a CancelAll of every market: the first that is not success, else the last CONFIRMED. */
function aggregateFate(fates: readonly IntentFate[]): IntentFate {
  const failure = fates.find((fate) => fate.status !== 'CONFIRMED' && fate.status !== 'NOTHING_TO_DO');
  if (failure !== undefined) return failure;
  const confirmed = fates.filter((fate) => fate.status === 'CONFIRMED');
  return confirmed.at(-1) ?? { status: 'NOTHING_TO_DO', reason: 'no order rests in a known slot of any market' };
}
