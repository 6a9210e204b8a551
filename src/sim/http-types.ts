/**
 * The shape every HTTP route of the simulated venue is written in: a plain function from a read
 * request to an answer, so routes are tested without sockets and the server owns all framing
 * (body limits, JSON, rate-limit headers, faults).
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface SimRequest {
  readonly method: string;
  /** The path without the query, e.g. `/api/v3/depth`. */
  readonly path: string;
  /** Path parameters captured by the route pattern, e.g. `{ userAddress }`. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** The raw body text (empty for GET); the server has already refused bodies over the limit. */
  readonly body: string;
  /** The client's IP address, for per-IP limits. */
  readonly ip: string;
}

export interface SimResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** Serialised as JSON (bigints must already be strings). */
  readonly body: unknown;
  /**
   * How long the answer is held back on the clock before it is sent (a slow-response fault). The
   * face that sends it waits, not the handler, so the in-process connection's work never waits on the clock.
   */
  readonly delayMs?: number;
}

export type SimRouteHandler = (request: SimRequest) => SimResponse | Promise<SimResponse>;

/**
 * The answers the server itself gives on a route's behalf: `payload-too-large` (HTTP 413, the body
 * is over the limit) and `internal-error` (HTTP 500, the handler threw or answered something that is
 * not JSON).
 */
export type SimFailure = 'payload-too-large' | 'internal-error';

export interface SimRoute {
  readonly method: 'GET' | 'POST';
  /** A path pattern with `:name` segments, e.g. `/api/v3/:userAddress/user/order-events`. */
  readonly pattern: string;
  readonly handler: SimRouteHandler;
  /**
   * The body of a failure the server answers for this route, in the host's error style (market
   * data `{code, msg}`, user data `{error}`, relay `{code, message, retryable}`). Default: the
   * Binance style `{code, msg}`.
   */
  readonly failureBody?: (failure: SimFailure, message: string) => unknown;
  /** A body limit for this route below or above the server's `maxBodyBytes`. */
  readonly maxBodyBytes?: number;
}
