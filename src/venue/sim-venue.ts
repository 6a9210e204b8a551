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
import type { Authorization7702, OrderIntent } from '../protocol/intent-types.ts';
import type { PackedOp } from '../protocol/packed-ops.ts';
import type { Depth, ExchangeInfo, Kline, Ticker24hr, Trade } from '../protocol/market-data.ts';
import type { RelayCall } from '../protocol/relay-request.ts';
import type { ActiveOrder, OrderEvent, OrderEventsQuery } from '../protocol/user-data.ts';
import type { QuoteRequest, QuoteResponse } from '../protocol/quote.ts';
import type { Token } from '../protocol/tokens.ts';
import type { MarketSpec, TokenSpec } from '../protocol/market-spec.ts';
import type { RestingOrder } from './resting-order.ts';

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

  // ---- chain reads (eth_call, src/protocol/chain-reads.ts) ----
  /** The account's free balance of `token` (raw units, not what its open orders lock); 0 when unknown. */
  freeBalance(accountId: bigint, token: Address): bigint;
  /** The order id in one of the account's maker slots on `market`, or null when the slot is empty. */
  slotOrderId(accountId: bigint, market: Address, slot: number): bigint | null;

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
   *
   * Asynchronous because signature recovery is (viem's secp256k1 recovery); submissions are
   * serialised, each checked against the state its predecessors left, in call order. The promise
   * never rejects for bad input.
   */
  submit(wallet: Address, call: RelayCall, authorization7702: Authorization7702 | null): Promise<SubmitResult>;
  /** Every terminal outcome, once, in block order. */
  readonly outcomes$: Observable<TxOutcome>;
  receipt(txHash: Hex): TxReceipt | undefined;
  /** The newest produced block number (0 before the first block). */
  blockNumber(): bigint;

  // ---- dev (only on the sim network) ----
  /**
   * Creates the owner's account if needed and credits it; returns its id. The caller checks that
   * `token` is a venue token and `amount` a uint256 (UNITS_OUT_OF_RANGE otherwise).
   */
  fund(owner: Address, token: Address, amount: bigint): bigint;
}

/** One relay submission as the venue saw it (`submissions$`). */
export interface RelaySubmission {
  /** Clock time of the answer, ms. */
  readonly atMs: number;
  /** Lowercase trading wallet. */
  readonly wallet: Address;
  readonly method: RelayCall['method'];
  /** The intent's nonce and clientOrderId (undefined for the signer grant, which has neither). */
  readonly nonce: bigint | undefined;
  readonly clientOrderId: Hex | undefined;
  readonly result: SubmitResult;
}

/** A transaction of a system account (background flow, backtests): no relay, no signature. */
export type SystemTxBody =
  | {
      readonly kind: 'batch';
      readonly orders: readonly OrderIntent[];
      readonly cancelSlotIdxs: readonly number[];
      /** One per cancel slot: the order id in that slot (uint64 max: must be empty). */
      readonly expectedOrderIds: readonly bigint[];
    }
  | {
      readonly kind: 'replace';
      readonly ops: readonly PackedOp[];
      /** One per op. */
      readonly expectedOrderIds: readonly bigint[];
    };

/** A block as in-process components see it. */
export interface BlockInfo {
  readonly number: bigint;
  readonly hash: Hex;
  /** ms since the epoch. */
  readonly timestamp: number;
  readonly transactions: readonly Hex[];
}

/**
 * The SimVenue plus what in-process components need (the background flow, backtests, tests): system
 * transactions that skip the relay but are included in blocks in order like every other
 * transaction, and reads of the executed state (the newest block).
 */
export interface SimVenueModel extends SimVenue {
  /** Queues a system transaction of `accountId` on `market` for the next block; returns its hash. */
  enqueueSystemTx(accountId: bigint, market: Address, tx: SystemTxBody): Hex;
  /**
   * Queues a system transaction whose body `decide` gives when the next block executes it, from the
   * state the transactions before it in the block left (a backtest's fills of the bot's orders).
   */
  enqueueDecidedSystemTx(accountId: bigint, market: Address, decide: () => SystemTxBody): Hex;
  /** Every relay submission with the venue's answer, in the order answered: the relay's own record. */
  readonly submissions$: Observable<RelaySubmission>;
  /** Outcomes of system transactions (relay ones go to `outcomes$`), once, in block order. */
  readonly systemOutcomes$: Observable<TxOutcome>;
  /** Every produced block, after it executed. */
  readonly blocks$: Observable<BlockInfo>;
  /** Produces the next block now (also while stopped): for backtests and tests that step blocks. */
  produceBlock(): BlockInfo;
  /** Best bid and ask of the current book, price units (null: that side is empty). */
  bestBidAsk(market: Address): { readonly bid: bigint | null; readonly ask: bigint | null };
  /** The account's resting orders on `market`, by slot. */
  openOrders(accountId: bigint, market: Address): readonly RestingOrder[];
  /**
   * The open size that matches before resting order `orderId` (better prices, then earlier orders at
   * its price): what a taker must take first to reach it. Undefined when it does not rest.
   */
  sizeAhead(market: Address, orderId: bigint): bigint | undefined;
  /** Available (unlocked) raw balance of `token`. */
  available(accountId: bigint, token: Address): bigint;
  /** Available and locked raw balance of `token`. */
  balance(accountId: bigint, token: Address): { readonly available: bigint; readonly locked: bigint };
  /** The account owned by `owner`, or undefined. */
  accountOf(owner: Address): bigint | undefined;
  /** Transactions waiting for the next block. */
  pendingTransactions(): number;
}
