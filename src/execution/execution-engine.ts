/**
 * The execution engine's contract: intents in, signed relay requests out, every request accounted
 * for. `createExecutionEngine` (create-execution-engine.ts) implements it over the journal, nonce
 * source, intent queue, in-flight cap, risk checks, kill switch, portfolio and a RelayTransport.
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
import type { OwnFill, OwnMarketState } from '../strategy/strategy-context.ts';
import type { MarketSpec } from '../venue/market-spec.ts';
import type { ActiveOrder, OrderEvent } from '../protocol/user-data.ts';
import type { RelayTransport } from './relay-transport.ts';

/** Where an intent ended up. Every intent given to `submit` gets exactly one final status. */
export type IntentFate =
  | { readonly status: 'CONFIRMED'; readonly requestId: string; readonly txHash: string }
  | { readonly status: 'REVERTED' | 'DROPPED'; readonly requestId: string; readonly txHash: string; readonly reason: string | null }
  | { readonly status: 'REJECTED'; readonly requestId: string; readonly code: string; readonly message: string }
  /** Refused before signing (risk rule, not supported live, kill switch): nothing was signed. */
  | { readonly status: 'REFUSED'; readonly code: string; readonly message: string }
  /** Dropped from the queue before signing (a newer intent of the same market and purpose). */
  | { readonly status: 'SUPERSEDED' };

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
}

export interface EngineStats {
  readonly signed: number;
  readonly confirmed: number;
  readonly reverted: number;
  readonly rejected: number;
  readonly refused: number;
  readonly superseded: number;
  /** The most outcomes ever awaited at once on one connection (never above maxPendingOutcomes). */
  readonly maxPendingOutcomes: number;
  readonly reconnects: number;
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
  /** Trips the kill switch: cancels every order and refuses placements from then on. */
  kill(reason: string): void;
  /**
   * Stops: refuses new intents, cancels every open order when `cancelAll` (default true), waits for
   * every signed request to reach a terminal state (or `timeoutMs`), compacts and closes the journal.
   */
  stop(options?: { readonly cancelAll?: boolean; readonly timeoutMs?: number }): Promise<EngineStats>;
}
