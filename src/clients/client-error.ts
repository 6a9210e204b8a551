/**
 * The errors the HTTP clients throw: one BaseError subclass carrying what a caller needs to react
 * (the HTTP status when there was an answer, how long the server asked to wait). The codes are
 * listed, with their meaning, in `src/core/error-codes.ts` and `docs/errors.md`.
 */
import { BaseError, type BaseErrorOptions } from '../core/base-error.ts';
import type { ErrorCode } from '../core/error-codes.ts';

/**
 * The codes of the clients:
 * - `HTTP_TIMEOUT`: no answer within the call's timeout.
 * - `HTTP_ABORTED`: the caller aborted the call (its AbortSignal).
 * - `HTTP_UNAVAILABLE`: the host cannot be reached, or answered 5xx until the retries ran out.
 * - `HTTP_UNEXPECTED_STATUS`: the host answered a status the endpoint does not define (e.g. 404 for a path
 *   a Binance-compatible server lacks, or a refusal with a body of no known shape).
 * - `HTTP_RATE_LIMITED`: a host other than market data answered 429 until the retries ran out.
 * - `MARKET_DATA_BAD_REQUEST`: the market-data host refused the request's parameters (-1100, -1102, -1120, -1121, -1130, …).
 * - `MARKET_DATA_RATE_LIMITED`: the market-data host refused the request for weight (-1003, HTTP 429/418).
 * - `WEIGHT_BUDGET_EXCEEDED`: one request weighs more than the whole per-minute weight budget.
 * - `USER_DATA_BAD_REQUEST`: the user-data host refused the query (`{error}` body, HTTP 4xx).
 * - `QUOTE_REFUSED`: the quote host refused a generate-token or quote request (HTTP 4xx other than 429).
 * - `RELAY_AUTH_FAILED`: the relay refused a challenge or token exchange (HTTP 401 AUTHENTICATION_FAILED or 4xx).
 * - `RELAY_NOT_AUTHENTICATED`: no unexpired relay JWT is stored for the request's (network, wallet).
 */
export type ClientErrorCode = Extract<
  ErrorCode,
  | 'HTTP_TIMEOUT'
  | 'HTTP_ABORTED'
  | 'HTTP_UNAVAILABLE'
  | 'HTTP_UNEXPECTED_STATUS'
  | 'HTTP_RATE_LIMITED'
  | 'MARKET_DATA_BAD_REQUEST'
  | 'MARKET_DATA_RATE_LIMITED'
  | 'WEIGHT_BUDGET_EXCEEDED'
  | 'USER_DATA_BAD_REQUEST'
  | 'QUOTE_REFUSED'
  | 'RELAY_AUTH_FAILED'
  | 'RELAY_NOT_AUTHENTICATED'
>;

export interface ClientErrorOptions extends BaseErrorOptions {
  /** HTTP status of the answer, when there was one. */
  readonly status?: number;
  /** How long the server asked to wait before the next request (`Retry-After`), in ms. */
  readonly retryAfterMs?: number;
}

/**
 * A failed client call. `status` is the HTTP status when the host answered; `retryAfterMs` what
 * the host asked to wait. Details name the host and path, never a query secret or a token.
 *
 * @example
 * if (isBaseError(error, 'HTTP_UNAVAILABLE')) log.warn({ err: error }, 'exchange unreachable');
 */
export class ClientError extends BaseError {
  override readonly name: string = 'ClientError';
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(code: ClientErrorCode, message: string, options: ClientErrorOptions = {}) {
    // The codes are listed in core's table (see the type's comment); the cast keeps this layer's list explicit.
    super(code, message, options);
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * True when `value` is a ClientError, optionally with the given code.
 *
 * @example if (isClientError(error, 'HTTP_TIMEOUT')) …
 */
export function isClientError(value: unknown, code?: ClientErrorCode): value is ClientError {
  return value instanceof ClientError && (code === undefined || (value.code as string) === code);
}
