/**
 * The port between the venue model and its network face (src/sim): everything the HTTP, WebSocket
 * and JSON-RPC handlers need, and nothing about HTTP. The model answers in the wire types of
 * src/protocol, already formatted (human decimal strings for market data, canonical integer strings
 * for user data), so a handler only validates its query, calls one method and serialises the result.
 *
 * Time comes from the venue's Clock: blocks are produced on its scheduler, so the same venue runs
 * on wall time behind `clobbot sim` and on virtual time in tests and backtests.
 */
import type { Observable } from 'rxjs';
import type { KlineInterval, OrderbookState, OutcomeStatus, RelayErrorCodeName } from '../protocol/constants.ts';
import type { Address, Hex } from '../protocol/encoding.ts';
import type { Authorization7702 } from '../protocol/intent-types.ts';
import type { Depth, ExchangeInfo, Kline, Ticker24hr, Trade } from '../protocol/market-data.ts';
import type { RelayCall } from '../protocol/relay-request.ts';
import type { ActiveOrder, OrderEvent, OrderEventsQuery } from '../protocol/user-data.ts';
import type { QuoteRequest, QuoteResponse } from '../protocol/quote.ts';
import type { Token } from '../protocol/tokens.ts';
import type { MarketSpec, TokenSpec } from './market-spec.ts';

/** What `GET /sim/info` shows: chain, contracts, markets and tokens (every parameter). */
export interface SimInfo {
  readonly chainId: number;
  readonly blockMs: number;
  readonly contracts: { readonly accountCore: Address; readonly tradingWalletDelegate: Address };
  readonly markets: readonly MarketSpec[];
  readonly tokens: readonly TokenSpec[];
}

/** The relay's immediate answer to one submission, before HTTP or WebSocket framing. */
export type SubmitResult =
  | {
      readonly status: 'BROADCAST';
      readonly txHash: Hex;
      readonly sponsorAddress: Address;
      readonly sponsorNonce: bigint;
      readonly transactionType: 'DYNAMIC_FEE' | 'SET_CODE';
    }
  | {
      readonly status: 'REJECTED' | 'UNKNOWN';
      readonly code: RelayErrorCodeName;
      readonly message: string;
      readonly retryable: boolean;
      readonly retryAfterMs: number | null;
      readonly candidateTxHash: Hex | null;
      readonly sponsorAddress: Address | null;
      readonly sponsorNonce: bigint | null;
    };

/** The terminal outcome of a broadcast transaction, once its block executed it (or it was dropped). */
export interface TxOutcome {
  readonly txHash: Hex;
  readonly status: OutcomeStatus;
  /** The block that included it; null when dropped. */
  readonly blockNumber: bigint | null;
  /** Why it reverted or was dropped (a relay error code and message); null when confirmed. */
  readonly reason: string | null;
}

/** A transaction receipt as `eth_getTransactionReceipt` reports it (fields of the JSON-RPC spec). */
export interface TxReceipt {
  readonly transactionHash: Hex;
  readonly blockNumber: bigint;
  readonly blockHash: Hex;
  readonly transactionIndex: number;
  readonly from: Address;
  readonly to: Address;
  /** true: executed; false: reverted. */
  readonly success: boolean;
  readonly type: 'DYNAMIC_FEE' | 'SET_CODE';
}

export interface KlinesParameters {
  readonly interval: KlineInterval;
  readonly startTime?: number;
  readonly endTime?: number;
  readonly limit: number;
}

/** The simulated venue as its network face sees it. Every method is synchronous and never throws for bad input of a client. */
export interface SimVenue {
  /** Starts producing blocks on the clock's scheduler (and the background flow). Idempotent. */
  start(): void;
  /** Stops producing blocks; pending transactions stay pending. Idempotent. */
  stop(): void;

  info(): SimInfo;
  /** A market by `BASE_QUOTE` symbol, or undefined. */
  marketBySymbol(symbol: string): MarketSpec | undefined;
  /** A market by its (lowercase) address, or undefined. */
  marketByAddress(address: Address): MarketSpec | undefined;

  // ---- market data (Binance-compatible, human decimal strings) ----
  /** The book as of the newest block in `state` (committed lags proposed by the configured blocks). */
  depth(market: MarketSpec, limit: number, state: OrderbookState): Depth;
  /** The newest `limit` trades, oldest first (Binance order). */
  trades(market: MarketSpec, limit: number): Trade[];
  /** Candles from the venue's own trades; intervals without trades flat at the previous close, volume 0. */
  klines(market: MarketSpec, parameters: KlinesParameters): Kline[];
  ticker24hr(market: MarketSpec): Ticker24hr;
  exchangeInfo(): ExchangeInfo;

  // ---- user data ----
  /** The account id of an owner or of any of its granted signers; undefined when unknown. */
  resolveAccount(user: Address): bigint | undefined;
  /** Order events of an account, newest first, after the query's filters, limit and offset. */
  orderEvents(accountId: bigint, query: OrderEventsQuery): { readonly events: OrderEvent[]; readonly total: number };
  /** Active orders of an account on one market, at most `limit`. */
  activeOrders(accountId: bigint, market: MarketSpec, limit: number): ActiveOrder[];

  // ---- tokens and quotes ----
  /** Token metadata of one of the venue's tokens, or undefined. */
  token(address: Address): Token | undefined;
  /** The best path over the venue's books (direct, or through one shared token) for a quote request. */
  quote(request: QuoteRequest): QuoteResponse;

  // ---- relay ----
  /**
   * Validates a parsed relay call for `wallet` (signature, signer grant and permission, authNonce,
   * nonce increasing and within the future skew, deadline, market) and, when valid, queues its
   * transaction for the next block and answers BROADCAST. Checks that depend on the book
   * (expected order ids, balances, order rules) run when the block executes: a failure there is a
   * REVERTED outcome, not a rejection.
   */
  submit(wallet: Address, call: RelayCall, authorization7702: Authorization7702 | null): SubmitResult;
  /** Every terminal outcome, once, in block order. */
  readonly outcomes$: Observable<TxOutcome>;
  receipt(txHash: Hex): TxReceipt | undefined;
  /** The newest produced block number (0 before the first block). */
  blockNumber(): bigint;

  // ---- dev (only on the sim network) ----
  /** Creates the owner's account if needed and credits it; returns its id. */
  fund(owner: Address, token: Address, amount: bigint): bigint;
}
