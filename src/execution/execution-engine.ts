/**
 * The execution engine's contract: intents in, signed relay requests out, every request accounted
 * for. `createExecutionEngine` (create-execution-engine.ts) implements it over the journal, nonce
 * source, intent queue, in-flight cap, risk checks, kill switch, portfolio and a RelayTransport.
 * Its rules: docs/execution.md.
 */
import type { Observable } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { IdSource } from '../core/ids.ts';
import type { Logger } from '../core/logger.ts';
import type { RandomSource } from '../core/random.ts';
import type { EngineConfig, RiskConfig } from '../config/run-config.ts';
import type { ResolvedNetwork } from '../config/network-config.ts';
import type { Address } from '../protocol/encoding.ts';
import type { IntentSigner } from '../protocol/intent-signing.ts';
import type { Intent } from '../strategy/intents.ts';
import type { IntentFate, OwnFill, OwnMarketState } from '../strategy/strategy-context.ts';
import type { MarketSpec } from '../protocol/market-spec.ts';
import type { ActiveOrder, OrderEvent } from '../protocol/user-data.ts';
import type { ChainReader } from '../clients/chain-reader.ts';
import type { BalanceDisagreement } from './account-truth.ts';
import type { JournalFs } from './journal.ts';
import type { KillSwitch } from './kill-switch.ts';
import type { RelayTransport } from './relay-transport.ts';

/** Where an intent ended up (one definition, in the strategy layer that strategies read it from). */
export type { IntentFate } from '../strategy/strategy-context.ts';

export interface IntentReport {
  readonly intent: Intent;
  readonly fate: IntentFate;
}

/** The read side of the user-data host: what reconciliation and the portfolio need. */
export interface UserDataReader {
  /** Order events of the account since `fromMs` (inclusive), oldest first, each once. */
  orderEventsSince(fromMs: number, options?: { readonly signal?: AbortSignal }): Promise<readonly OrderEvent[]>;
  activeOrders(market: Address, options?: { readonly signal?: AbortSignal }): Promise<readonly ActiveOrder[]>;
}

/** Reads transaction receipts (JSON-RPC) for reconciliation: null while unknown. */
export interface ReceiptReader {
  receipt(txHash: string): Promise<{ readonly success: boolean; readonly blockNumber: bigint } | null>;
}

export interface ExecutionEngineContext {
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly ids: IdSource;
  readonly logger: Logger;
}

export interface ExecutionEngineParameters {
  readonly network: ResolvedNetwork;
  /** The trading wallet (its own EIP-712 verifying contract). */
  readonly signer: IntentSigner;
  readonly accountId: bigint;
  /** The account's signer-authorization epoch. */
  readonly authNonce: bigint;
  readonly markets: readonly MarketSpec[];
  readonly transport: RelayTransport;
  readonly userData: UserDataReader;
  readonly receipts: ReceiptReader;
  /** Directory of the journal file (one per network and wallet). */
  readonly journalDir: string;
  readonly engine: EngineConfig;
  readonly risk: RiskConfig;
  /** The mid of a market in price units, for the price band and PnL; undefined while unknown. */
  readonly mid: (market: Address) => bigint | undefined;
  /** Seconds a signed intent stays valid (its deadline). Default 60. */
  readonly deadlineSec?: number;
  /** The kill switch to obey; default one made from `risk.killSwitch` (file, drawdown, error rate). */
  readonly killSwitch?: KillSwitch;
  /** Timings of polls, reconciliation and stop; see EngineTuning. */
  readonly tuning?: Partial<EngineTuning>;
  /** The venue's limit on how far a nonce may lead the clock, ms. Default 60 000. */
  readonly maxFutureSkewMs?: number;
  /** The journal's file system (tests inject crashes). Default node:fs. */
  readonly journalFs?: JournalFs;
  /** The chain reads of the account's balances (account-truth.ts); without them only the ledger carries over. */
  readonly chain?: ChainReader;
}

/** Timings of the engine (defaults in `DEFAULT_ENGINE_TUNING`, create-execution-engine.ts). */
export interface EngineTuning {
  /** Order events (and reconciliation) every this many ms while orders are live or requests unresolved. Default 1000. */
  readonly pollMs: number;
  /** ... and every this many ms otherwise. Default 5000. */
  readonly idlePollMs: number;
  /** Active-orders snapshots of every market at most this often, ms. Default 15 000. */
  readonly activeOrdersEveryMs: number;
  /** Each order-events read starts this far before the newest event seen, ms. Default 5000. */
  readonly eventsOverlapMs: number;
  /**
   * The read that comes with the periodic active-orders read (`activeOrdersEveryMs`) starts at least
   * this far back, so that an event the index shows late, behind newer ones, is still applied, ms.
   * Default 60 000.
   */
  readonly eventsLookbackMs: number;
  /** A request is settled "not executed" this long after its deadline with no trace, ms. Default 10 000. */
  readonly reconcileGraceMs: number;
  /** How long order events may lag the chain (the API caches 2 s), ms. Default 3000. */
  readonly eventLagMs: number;
  /** A request under reconciliation stops holding placements back after a pass this long after it started found nothing, ms. Default 3000. */
  readonly reconcileQuietMs: number;
  /**
   * After an EXPECTED_ORDER_ID_MISMATCH revert, the market's slot-bound intents wait for its view to
   * be refreshed (active orders read at once) at most this long, ms. Default 3000.
   */
  readonly staleViewHoldMs: number;
  /** Signed attempts per intent (retryable rejections, re-signs after NOT_SENT). Default 5. */
  readonly maxAttempts: number;
  /** A CancelAll waits this long for unknown order ids, then cancels what it knows, ms. Default 5000. */
  readonly idWaitMs: number;
  /** Wait before sending a NOT_SENT request again (doubles up to 8x), ms. Default 250. */
  readonly resendDelayMs: number;
  /** A BROADCAST request with no outcome this long after its answer is looked up by receipt, ms. Default 5000. */
  readonly outcomeWaitMs: number;
  /** A request settled without its outcome message keeps its place under the cap at most this long, ms. Default 60 000. */
  readonly outcomeGiveUpMs: number;
  /** The portfolio's `settleMs`: how long a confirmed placement's inferred slots stay open to late facts. Default 30 000. */
  readonly settleMs: number;
  /** The account's balances are read from the chain, and its ledger checkpointed in the journal, every this many ms. Default 30 000. */
  readonly accountReadMs: number;
  /** Default `timeoutMs` of stop(); default deadlineSec s + reconcileGraceMs + 5 s. */
  readonly stopTimeoutMs: number;
}

export interface EngineStats {
  /** Requests signed (journaled). */
  readonly signed: number;
  /** Requests CONFIRMED (by outcome, receipt or reconciliation). */
  readonly confirmed: number;
  readonly reverted: number;
  /**
   * Of the reverted, those whose slot no longer held the order the intent expected
   * (EXPECTED_ORDER_ID_MISMATCH): a fill or cancel the engine had not seen yet. They refresh the
   * market's view and do not count toward the kill switch's error rate.
   */
  readonly staleSlotReverts: number;
  /** Requests DROPPED: the relay's DROPPED outcome, or reconciled as not executed. */
  readonly dropped: number;
  /** REJECTED answers (each attempt). */
  readonly rejected: number;
  /** Intents refused before signing. */
  readonly refused: number;
  readonly superseded: number;
  /** Intents with nothing to sign (NOTHING_TO_DO). */
  readonly nothingToDo: number;
  /** The most outcomes ever awaited at once on one connection (never above maxPendingOutcomes). */
  readonly maxPendingOutcomes: number;
  /** Outcomes awaited now. */
  readonly pendingOutcomes: number;
  /** Signed requests without a final status now. */
  readonly unresolved: number;
  /** Intents waiting to be signed now (queued, waiting for order ids, or for a retry). */
  readonly queued: number;
  /** New connections after the first. */
  readonly reconnects: number;
  /** Requests settled by reconciliation (receipt, order events, fence or deadline). */
  readonly reconciled: number;
  /**
   * Of `confirmed`, `reverted`, `dropped` and `reconciled`: the requests an earlier run signed (left
   * unresolved in the journal, restored on start) that this engine settled. A run's own counts are
   * the others. Absent: none (an engine that reports no such split).
   */
  readonly carriedOver?: CarriedOverStats;
}

/** Requests of an earlier run (restored from the journal) settled by this engine, by final status. */
export interface CarriedOverStats {
  readonly confirmed: number;
  readonly reverted: number;
  readonly dropped: number;
  readonly reconciled: number;
}

export interface ExecutionEngine {
  /** Opens the journal, restores the nonce floor, reconciles what was unresolved, starts the transport. */
  start(): Promise<void>;
  /** Queues an intent; its fate arrives on `reports$` (and in the returned promise). */
  submit(intent: Intent): Promise<IntentFate>;
  readonly reports$: Observable<IntentReport>;
  /** Own state per market (orders by slot, position, PnL), for strategies and the CLI. */
  state$(market: Address): Observable<OwnMarketState>;
  readonly fills$: Observable<OwnFill>;
  readonly stats$: Observable<EngineStats>;
  stats(): EngineStats;
  /** The kill switch the engine obeys (for signal handlers and status). */
  readonly killSwitch: KillSwitch;
  /** Trips the kill switch: cancels every order and refuses placements from then on. */
  kill(reason: string): void;
  /** Tokens whose balance on the chain, at start, was not what the journal's ledger and the fills since said. */
  balanceDisagreements(): readonly BalanceDisagreement[];
  /**
   * Stops: refuses new intents, cancels every open order when `cancelAll` (default true), waits for
   * every signed request to reach a terminal state (or `timeoutMs`), compacts and closes the journal.
   */
  stop(options?: { readonly cancelAll?: boolean; readonly timeoutMs?: number }): Promise<EngineStats>;
}
