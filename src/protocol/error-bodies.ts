/**
 * Error bodies of the REST hosts: market data answers Binance-style `{code, msg}`, user data
 * answers `{error}` (spec), and the relay's authentication endpoints answer
 * `{code: "AUTHENTICATION_FAILED", message, retryable}` (venue).
 */
import { z } from 'zod';
import { MARKET_DATA_WEIGHT_PER_MINUTE, MarketErrorCode, type RelayErrorCodeName } from './constants.ts';

/**
 * Market-data error body (spec; Binance). Loose: Binance may add fields, and a client must still
 * see the code.
 */
export const marketDataErrorBodySchema = z.looseObject({
  code: z.int(),
  msg: z.string(),
});
export type MarketDataErrorBody = z.output<typeof marketDataErrorBodySchema>;

/** User-data error body (spec): order events and active orders. */
export const userDataErrorBodySchema = z.looseObject({
  error: z.string(),
});
export type UserDataErrorBody = z.output<typeof userDataErrorBodySchema>;

const AUTHENTICATION_FAILED = 'AUTHENTICATION_FAILED' satisfies RelayErrorCodeName;

/** Relay auth failure body, sent with HTTP 401 (venue). */
export const relayAuthFailureBodySchema = z.looseObject({
  code: z.literal(AUTHENTICATION_FAILED),
  message: z.string(),
  retryable: z.boolean(),
});
export type RelayAuthFailureBody = z.output<typeof relayAuthFailureBodySchema>;

/** Binance's legal range of `symbol`, quoted in its -1100 message (Binance). */
export const SYMBOL_LEGAL_RANGE = '^[A-Z0-9-_.]{1,20}$';
/** Binance's legal range of integer parameters (`limit`, `startTime`, `endTime`) (Binance). */
export const INTEGER_LEGAL_RANGE = '^[0-9]{1,20}$';

/**
 * The market-data error bodies with Binance's exact message texts
 * (binance-spot-api-docs `errors.md`; -1130 and -1003 as observed in real responses).
 *
 * @example marketErrorBody.mandatoryParameter('symbol')
 * // { code: -1102, msg: "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed." }
 */
export const marketErrorBody = {
  /** -1003: over the request-weight budget (HTTP 429 with `Retry-After`). */
  tooManyRequests(limit: number = MARKET_DATA_WEIGHT_PER_MINUTE): MarketDataErrorBody {
    return {
      code: MarketErrorCode.TOO_MANY_REQUESTS,
      msg: `Too much request weight used; current limit is ${limit} request weight per 1 MINUTE. Please use WebSocket Streams for live updates to avoid polling the API.`,
    };
  },
  /** -1100: a parameter holds characters outside its legal range. */
  illegalCharacters(parameter: string, legalRange: string): MarketDataErrorBody {
    return {
      code: MarketErrorCode.ILLEGAL_CHARS,
      msg: `Illegal characters found in parameter '${parameter}'; legal range is '${legalRange}'.`,
    };
  },
  /** -1102: a mandatory parameter is missing, empty or malformed. */
  mandatoryParameter(parameter: string): MarketDataErrorBody {
    return {
      code: MarketErrorCode.MANDATORY_PARAM_EMPTY_OR_MALFORMED,
      msg: `Mandatory parameter '${parameter}' was not sent, was empty/null, or malformed.`,
    };
  },
  /** -1120: the kline interval is not one the venue serves. */
  badInterval(): MarketDataErrorBody {
    return { code: MarketErrorCode.BAD_INTERVAL, msg: 'Invalid interval.' };
  },
  /** -1121: the symbol is well formed but not listed (decided by the venue, not by a schema). */
  badSymbol(): MarketDataErrorBody {
    return { code: MarketErrorCode.BAD_SYMBOL, msg: 'Invalid symbol.' };
  },
  /** -1130: a parameter is well formed but its value is not allowed (e.g. limit out of range). */
  invalidParameter(parameter: string): MarketDataErrorBody {
    return { code: MarketErrorCode.INVALID_PARAMETER, msg: `Data sent for parameter '${parameter}' is not valid.` };
  },
} as const;
