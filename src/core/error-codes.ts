/**
 * Every stable error code that clobbot throws, with a one-line meaning.
 * `docs/errors.md` lists the same codes; `test/core/errors.test.ts` keeps the two in step.
 * Codes never change meaning once released: add new ones instead.
 */
export const errorCodes = {
  // units and amounts
  UNITS_INVALID_DECIMAL: 'A human amount is not a plain decimal number.',
  UNITS_PRECISION_INVALID: 'A precision or tick size is not a positive integer (precisions: a power of ten).',
  UNITS_OUT_OF_RANGE: 'An amount does not fit its on-chain type (uint32 price, uint96 size, …) or is not positive.',
  UNITS_NOT_REPRESENTABLE: 'An amount has more decimals than the precision allows and no rounding was asked for.',
  // wire contract
  PROTOCOL_NON_CANONICAL: 'A wire value is not in canonical form (integer string, hex width or case).',
  PROTOCOL_INVALID_JSON: 'A message is not valid JSON.',
  PROTOCOL_DUPLICATE_FIELD: 'A JSON object holds the same field twice.',
  PROTOCOL_SCHEMA_MISMATCH: 'A message does not match its schema.',
  PROTOCOL_PACKED_OP_INVALID: 'A packed slot operation breaks a rule of the packed-op format.',
  PROTOCOL_SIGNATURE_INVALID: 'A signature is malformed, high-s, or does not recover to the expected signer.',
  // networks and secrets
  NETWORK_UNKNOWN: 'A network name is not one of mainnet, testnet, sim.',
  NETWORK_HOST_INVALID: 'A host override is not an http(s) or ws(s) URL.',
  JWT_NETWORK_MISMATCH: 'A stored JWT was asked for under a network other than the one it was issued for.',
  // configuration
  CONFIG_FILE_UNREADABLE: 'A configuration file cannot be read.',
  CONFIG_YAML_SYNTAX: 'A configuration file is not valid YAML.',
  CONFIG_INVALID: 'A configuration file does not match its schema.',
  CONFIG_ENV_MISSING: 'A ${VAR} reference names an environment variable that is not set.',
  // command line
  CLI_USAGE: 'A command was called with unknown or missing arguments.',
  // parameter sweeps
  SWEEP_PARAM_INVALID: 'A swept parameter names no field of the run file or of its strategy, or one of its values does not pass the run file\'s or the strategy\'s schema.',
  SWEEP_FEED_CHANGED: 'A feed\'s content differs from the SHA-256 that its sweep job names.',
  SWEEP_QUEUE_UNREACHABLE: 'The Redis server of a sweep queue (--queue) cannot be reached, or refused the connection (a wrong password, TLS).',
  SWEEP_CODE_MISMATCH: 'A sweep worker took a job of a sweep made with another clobbot version or commit: it put the job back and stopped.',
  // clients
  HTTP_TIMEOUT: 'No answer within the timeout of the call.',
  HTTP_ABORTED: 'The caller aborted the call (its AbortSignal).',
  HTTP_UNAVAILABLE: 'The host cannot be reached, or answered 5xx until the retries ran out.',
  HTTP_UNEXPECTED_STATUS: 'The host answered a status the endpoint does not define.',
  HTTP_RATE_LIMITED: 'A host other than market data answered 429 until the retries ran out.',
  MARKET_DATA_BAD_REQUEST: 'The market-data host refused the parameters (-1100, -1102, -1120, -1121, -1130).',
  MARKET_DATA_RATE_LIMITED: 'The market-data host refused the request for weight (-1003, HTTP 429/418).',
  WEIGHT_BUDGET_EXCEEDED: 'One request weighs more than the whole per-minute weight budget.',
  USER_DATA_BAD_REQUEST: 'The user-data host refused the query ({error} body, HTTP 4xx).',
  QUOTE_REFUSED: 'The quote host refused a generate-token or quote request (HTTP 4xx other than 429).',
  RELAY_AUTH_FAILED: 'The relay refused a challenge or token exchange.',
  RELAY_NOT_AUTHENTICATED: 'No unexpired relay JWT is stored for the (network, wallet) of the request.',
  // market streams
  MARKET_PLAN_INVALID: 'A market feed or bar plan has an invalid setting (interval, period, precision).',
  MARKET_PLAN_OVER_BUDGET: 'A market feed plan would use more request weight per minute than the budget allows.',
  // venue model
  VENUE_INVARIANT_BROKEN: 'The venue model found its own state inconsistent (a bug, never bad input).',
  // execution
  JOURNAL_CORRUPT: 'A complete journal line fails its checksum or schema, does not name the checksum of the line before it (a line was deleted), or its seq does not increase.',
  JOURNAL_RECORD_INVALID: 'A record to append breaks its schema or a journal rule; nothing is written.',
  JOURNAL_LOCKED: 'The wallet’s journal is held by another running bot (its process and host are named): one wallet, one running bot.',
  JOURNAL_UNAVAILABLE: 'The journal cannot be opened or written (bad name, I/O error, closed, or an earlier failure); reopen it.',
  NONCE_SKEW_EXCEEDED: 'The next nonce would be further ahead of the clock than the venue allows.',
  IN_FLIGHT_CAP_INVALID: 'maxPendingOutcomes is not an integer from 1 to 63 (the relay closes a connection at 64).',
  INTENT_NOT_SUPPORTED_LIVE: 'An intent the venue defines but does not support live (trigger creation).',
  INTENT_QUEUE_FULL: 'The intent queue already holds its maximum (engine.queuePolicy reject): a placement was refused.',
  ENGINE_STOPPED: 'The execution engine is stopping or stopped: it signs no new intent.',
  INTENT_DROPPED_BY_RELAY: 'A fate, not a throw: the relay reported the intent’s transaction DROPPED (never executed); its reason is the relay’s.',
  INTENT_DROPPED_VENUE_RESET: 'A fate, not a throw: the venue’s chain no longer holds the transaction it last confirmed for the wallet (it restarted with its state wiped), and the request was sent to it before: never executed.',
  INTENT_DROPPED_NONCE_FENCED: 'A fate, not a throw: a request of the wallet with a higher nonce was confirmed and nothing shows this one executed; nonces only increase, so it never will (details: confirmedNonce).',
  INTENT_DROPPED_DEADLINE: 'A fate, not a throw: no trace of the request reconcileGraceMs after its signed deadline, past which the venue refuses it (details: deadlineMs, graceMs).',
  // risk and portfolio
  RISK_KILL_SWITCH: 'The kill switch is tripped: only risk-reducing intents (cancels) pass.',
  RISK_MARKET_UNKNOWN: 'An intent names a market that has no risk limits (not configured for the run).',
  RISK_NO_MID: 'No mid price is known for the market, so the price band cannot be checked: placements are refused.',
  RISK_PRICE_BAND: 'An order is priced outside the band around the mid (buy above mid x (1 + band), sell below mid x (1 - band)).',
  RISK_MAX_ORDER_SIZE: 'An order is larger than risk.maxOrderSize.',
  RISK_MAX_POSITION: 'If every open and new order filled, the position would exceed risk.maxPosition on one side.',
  RISK_MAX_NOTIONAL: 'The quote value of the open orders of the market plus the new ones would exceed risk.maxNotional.',
  RISK_MAX_OPEN_ORDERS: 'The open orders of the market plus the new resting ones would exceed risk.maxOpenOrders.',
  RISK_ORDER_RATE: 'More orders than risk.maxOrdersPerSecond in the sliding window.',
  PORTFOLIO_UNKNOWN_MARKET: 'The portfolio was asked about a market it does not track.',
  PORTFOLIO_REQUEST_CONFLICT: 'A request id was marked pending twice, or with an intent for an untracked market.',
  PORTFOLIO_LEDGER_LATE: 'A ledger carried over from the journal was given to a market that has fills already.',
  // strategies
  STRATEGY_DEFINITION_INVALID: 'defineStrategy was given something other than a name, a zod params schema and a create function.',
  STRATEGY_MODULE_NOT_FOUND: 'A strategy module named in a run file does not exist (no such file, or no such package).',
  STRATEGY_MODULE_INVALID: 'A strategy module failed to load, or exports no strategy made with defineStrategy (default export or `strategy`).',
  STRATEGY_FAILED: 'A strategy’s create threw, or its intent stream errored.',
  STRATEGY_IDLE: 'A strategy emitted no intent within its idleTimeout (or during the whole run) and did not complete.',
  STRATEGY_REPORT_INVALID: 'A strategy’s reportFigures callback threw, or returned something other than a flat record of named figures (strings, safe integers, booleans, null); the run’s summary says so instead of its figures.',
  STRATEGY_INTENT_INVALID: 'A strategy emitted an intent that breaks a slot or market rule (slot >= 62 or twice, price off the tick, size out of range, empty).',
  QUOTES_INVALID: 'Desired quotes break a rule: more levels than maker slots, a price off the tick or out of range, a size outside minSize..maxSize.',
  STRATEGY_CHECK_INVALID: 'A checkStrategy script is malformed (unknown market, bad params, a crossed book, a fill of an empty slot), or the venue did not take its setup or a step in time.',
  STRATEGY_PROPERTY_FAILED: 'assertStrategy found a scenario in which the strategy breaks an invariant (the report names it, its shrunk scenario and the seed and path that replay it).',
  // wallet keys, relay session and account setup
  CONFIG_WALLET_KEY_MISSING: 'The wallet key’s environment variable is not set (or empty), or its key file does not exist or cannot be read.',
  CONFIG_WALLET_KEY_INSECURE: 'The key file can be read or written by its group or by others (chmod 600 it), or is not a regular file.',
  CONFIG_WALLET_KEY_INVALID: 'The wallet key is not 0x followed by 64 hex digits, or not a valid secp256k1 private key.',
  RELAY_SESSION_STOPPED: 'The relay session was stopped: it signs in no more and hands out no JWT.',
  RELAY_TRANSPORT_MISUSE: 'A relay transport was called against its contract (a request for another wallet, or an id already in flight).',
  ACCOUNT_SETUP_FAILED: 'The signer authorization was refused, reverted, or got no outcome before the deadline.',
  // local venue server
  SIM_LISTEN_FAILED: 'The local venue cannot listen on the asked host and port (e.g. the port is in use).',
  SIM_JWT_KEY_INVALID: 'A JWT key of the local venue is too short or not a key it made.',
  SIM_FAULT_INVALID: 'A fault action or fault script given to the local venue does not match its schema (docs/protocol.md "Faults").',
  // clobbot run
  RUN_ACCOUNT_NOT_READY: 'The run’s trading wallet is not delegated, holds no TRADE grant on the account, or the account is at another authNonce epoch than the run signs under, and the run cannot set it up itself.',
  RUN_ORDERS_LEFT_OPEN: 'After a run stopped and cancelled its orders, the venue still lists open orders of the account.',
  RUN_INTENTS_DROPPED: 'Every strategy of a run completed, but intents they left queued could not be sent within the drain bound and were dropped.',
  RUN_OPEN_ORDERS_UNKNOWN: 'After a run stopped, the venue could not be asked whether orders of the account are still open (the orders that may be are named).',
  METRICS_LISTEN_FAILED: 'The metrics endpoint cannot listen on its port (e.g. the port is in use).',
  // feeds: recording, normalized format, importers
  FEED_NOT_FOUND: 'A feed file named on the command line does not exist or cannot be opened.',
  FEED_UNREADABLE: 'A feed or input file is truncated or corrupted: its position says where reading stopped.',
  FEED_FOREIGN: 'A file is not what the command reads (not a clobbot feed, another schema, another source’s format).',
  FEED_VERSION_UNSUPPORTED: 'A feed was written by a newer version of the feed format than this clobbot reads.',
  FEED_RECORD_INVALID: 'A record of an input file (a CSV row, a capture line, a raw feed record) breaks its format: the file and line say which.',
  FEED_SEQUENCE_GAP: 'A depth capture skips update ids (the next diff does not follow the last): the file, line and ids say where; --allow-gaps resynchronises instead.',
  FEED_CHECKSUM_MISMATCH: 'A downloaded file’s SHA-256 differs from the .CHECKSUM file beside it.',
  FEED_OUTPUT_EXISTS: 'The output file or directory of a feed command already exists (pass --force to replace it).',
  BACKTEST_NO_BARS: 'A candle backtest’s strategy reads no bars (its market’s klines$): a candle feed cannot drive it; backtest it on an event feed.',
  // clock
  CLOCK_BACKWARDS: 'A virtual clock was asked to move back in time.',
  VIRTUAL_CLOCK_STALLED: 'A run on virtual time is waiting for something, but nothing is scheduled on its clock: it can never finish.',
} as const;

export type ErrorCode = keyof typeof errorCodes;
