/**
 * Fixed values of the wire contract. Each carries its source, as in docs/protocol.md:
 * spec (service-spec.md), venue (the real venue's public facts), Binance, or ours.
 */

/** Maker slots per account and market: 0..61 (venue). */
export const MAKER_SLOTS = 62;
/** Most items in any relay payload array (venue). */
export const MAX_ARRAY_ITEMS = 4096;
/** One packed replacement op (venue). */
export const PACKED_OP_BYTES = 32;
/** Most bytes of `packedOps` in one call (venue). */
export const MAX_PACKED_OPS_BYTES = 64 * 1024;
/** The relay closes a WebSocket when one more outcome would exceed this many pending (spec, testnet). */
export const RELAY_PENDING_OUTCOME_LIMIT = 64;
/** WebSocket close code when the pending-outcome limit is exceeded (ours). */
export const WS_CLOSE_PENDING_OUTCOME_LIMIT = 4008;
/** WebSocket close code when a newer connection for the same wallet replaces this one (ours). */
export const WS_CLOSE_REPLACED = 4001;
/** A relay challenge lives five minutes and is consumed once (spec). */
export const CHALLENGE_LIFETIME_MS = 5 * 60 * 1000;
/** Order-events responses are cached this long per parameter combination (spec). */
export const ORDER_EVENTS_CACHE_MS = 2000;
/** Default `limit` of order events (venue). */
export const ORDER_EVENTS_DEFAULT_LIMIT = 50;
/** Default `limit` of active orders (venue). */
export const ACTIVE_ORDERS_DEFAULT_LIMIT = 100;
/** Market-data request weight budget per minute per IP (venue). */
export const MARKET_DATA_WEIGHT_PER_MINUTE = 1200;
/** The issued quote JWT allows 1 request per second with burst 1 (spec). */
export const QUOTE_TOKEN_RATE_LIMIT = { rps: 1, burst: 1 } as const;

/** Account-core permission bits (venue). */
export const Permission = {
  TRADE: 1,
  INTERNAL_TRANSFER: 4,
  WITHDRAW: 8,
  ADMIN: 16,
} as const;
export const PERMISSION_MASK = Permission.TRADE | Permission.INTERNAL_TRANSFER | Permission.WITHDRAW | Permission.ADMIN;

/** Relay method names, exact strings (venue). */
export const RelayMethod = {
  authorizeAccountSigner: 'account_core.authorize_account_signer_by_sig',
  executeBatch: 'wallet.execute_batch',
  executeReplaceBySlotPacked: 'wallet.execute_replace_by_slot_packed',
  cancelTrigger: 'wallet.cancel_trigger',
  createBatchTrigger: 'wallet.create_batch_trigger',
  createReplaceTrigger: 'wallet.create_replace_trigger',
} as const;
export type RelayMethodName = (typeof RelayMethod)[keyof typeof RelayMethod];
/** Defined by the venue but not supported live: requests are refused with UNSUPPORTED_METHOD. */
export const UNSUPPORTED_RELAY_METHODS: readonly RelayMethodName[] = [
  RelayMethod.createBatchTrigger,
  RelayMethod.createReplaceTrigger,
];

/** Order enums and their ABI codes used in `ordersHash` (venue). */
export const OrderSideCode = { BUY: 0, SELL: 1 } as const;
export const TimeInForceCode = { GTC: 0, IOC: 1, FOK: 2 } as const;
export const ExecutionInstructionCode = { NONE: 0, POST_ONLY: 1 } as const;
/** @useDeclaredType */
export type OrderSide = keyof typeof OrderSideCode;
/** @useDeclaredType */
export type TimeInForce = keyof typeof TimeInForceCode;
/** @useDeclaredType */
export type ExecutionInstruction = keyof typeof ExecutionInstructionCode;

/** Order-event types (spec). */
export const ORDER_EVENT_TYPES = ['order-created', 'order-canceled', 'trade'] as const;
export type OrderEventType = (typeof ORDER_EVENT_TYPES)[number];

/** Depth orderbook states, parameter `state`, default `committed` (venue). */
export const ORDERBOOK_STATES = ['proposed', 'voted', 'finalized', 'committed'] as const;
export type OrderbookState = (typeof ORDERBOOK_STATES)[number];

/** Kline intervals (spec) and their length in ms. */
export const KLINE_INTERVAL_MS = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '30m': 1_800_000,
  '1h': 3_600_000,
  '4h': 14_400_000,
  '1d': 86_400_000,
  '1w': 604_800_000,
} as const;
export type KlineInterval = keyof typeof KLINE_INTERVAL_MS;
export const KLINE_INTERVALS = Object.keys(KLINE_INTERVAL_MS) as KlineInterval[];

/** Query limits of the market-data endpoints (spec). */
export const MarketDataLimits = {
  depth: { min: 1, max: 5000, default: 100 },
  klines: { min: 1, max: 1000, default: 500 },
  trades: { min: 1, max: 1000, default: 500 },
} as const;

/** Request weights of the market-data endpoints (spec). */
export const RequestWeight = {
  depth: (limit: number): number => (limit <= 100 ? 1 : limit <= 500 ? 5 : limit <= 1000 ? 10 : 20),
  klines: (limit: number): number => (limit <= 100 ? 1 : limit <= 500 ? 2 : 5),
  trades: (): number => 1,
  ticker: (): number => 1,
  exchangeInfo: (): number => 10,
} as const;

/** Binance-compatible market-data error codes (Binance). */
export const MarketErrorCode = {
  UNKNOWN: -1000,
  DISCONNECTED: -1001,
  TOO_MANY_REQUESTS: -1003,
  ILLEGAL_CHARS: -1100,
  MANDATORY_PARAM_EMPTY_OR_MALFORMED: -1102,
  BAD_INTERVAL: -1120,
  BAD_SYMBOL: -1121,
  INVALID_PARAMETER: -1130,
} as const;

/**
 * Stable relay error codes (ours; the venue's full list is not public), each with the HTTP status
 * of a REST answer, whether a retry of the same signed request can succeed, and its meaning.
 * UNKNOWN answers (may have been broadcast) use BROADCAST_RESULT_UNKNOWN; every other code is REJECTED.
 */
export const RelayErrorCode = {
  INVALID_JSON: { http: 400, retryable: false, meaning: 'The body is not valid JSON.' },
  UNKNOWN_FIELD: { http: 400, retryable: false, meaning: 'A request holds a field the method does not define.' },
  DUPLICATE_FIELD: { http: 400, retryable: false, meaning: 'A request holds the same field twice.' },
  NON_CANONICAL: { http: 400, retryable: false, meaning: 'An integer, address or byte string is not in canonical form.' },
  INVALID_REQUEST: { http: 400, retryable: false, meaning: 'A field has the wrong type or range, or a request rule is broken.' },
  PAYLOAD_TOO_LARGE: { http: 413, retryable: false, meaning: 'The body exceeds the size limit.' },
  UNSUPPORTED_METHOD: { http: 400, retryable: false, meaning: 'The method is defined but not supported live.' },
  AUTHENTICATION_FAILED: { http: 401, retryable: false, meaning: 'No, a bad or an expired JWT; or a bad, expired or used challenge.' },
  WALLET_MISMATCH: { http: 403, retryable: false, meaning: 'The request wallet differs from the JWT wallet claim (or a payload field bound to it).' },
  INVALID_SIGNATURE: { http: 422, retryable: false, meaning: 'The signature is malformed, high-s, or does not recover to the request wallet.' },
  SIGNER_NOT_AUTHORIZED: { http: 422, retryable: false, meaning: 'The signer holds no grant with the needed permission on the account.' },
  WALLET_NOT_DELEGATED: { http: 422, retryable: false, meaning: "The trading wallet has no EIP-7702 delegation to the network's trading-wallet delegate." },
  AUTH_NONCE_MISMATCH: { http: 422, retryable: false, meaning: 'The intent was signed under another authNonce epoch.' },
  NONCE_NOT_INCREASING: { http: 422, retryable: false, meaning: 'The intent nonce is not above the last one seen.' },
  NONCE_TOO_FAR_AHEAD: { http: 422, retryable: false, meaning: 'The intent nonce is further in the future than the allowed skew.' },
  NONCE_ALREADY_USED: { http: 422, retryable: false, meaning: 'The one-shot nonce of a signer authorization was already used.' },
  DEADLINE_EXPIRED: { http: 422, retryable: false, meaning: 'The intent deadline has passed.' },
  UNKNOWN_MARKET: { http: 422, retryable: false, meaning: 'The market address is not a market of this venue.' },
  UNKNOWN_TRIGGER: { http: 422, retryable: false, meaning: 'The trigger does not exist or is not active.' },
  EXPECTED_ORDER_ID_MISMATCH: { http: 422, retryable: false, meaning: 'A slot does not hold the order id the intent expected (checked at execution).' },
  INVALID_ORDER: { http: 422, retryable: false, meaning: 'An order breaks a market rule (tick, min or max size, post-only would cross, FOK unfilled).' },
  NO_FREE_SLOT: { http: 422, retryable: false, meaning: 'Every one of the 62 maker slots of the account on this market holds an order.' },
  INSUFFICIENT_BALANCE: { http: 422, retryable: false, meaning: 'The account cannot fund the orders of the batch.' },
  RATE_LIMITED: { http: 429, retryable: true, meaning: 'Too many requests; retry after retryAfterMs.' },
  INTERNAL_ERROR: { http: 500, retryable: true, meaning: 'The relay failed before broadcasting; the request was not sent.' },
  BROADCAST_RESULT_UNKNOWN: { http: 503, retryable: false, meaning: 'The transaction may or may not have been broadcast: reconcile before retrying.' },
} as const satisfies Record<string, { http: number; retryable: boolean; meaning: string }>;
export type RelayErrorCodeName = keyof typeof RelayErrorCode;

/** WebSocket terminal outcome statuses (ours). */
export const OUTCOME_STATUSES = ['CONFIRMED', 'REVERTED', 'DROPPED'] as const;
/** @useDeclaredType */
export type OutcomeStatus = (typeof OUTCOME_STATUSES)[number];
