/**
 * The HTTP seam of every client: one request in, one answer out. Clients never call `fetch`; they
 * take a transport, so tests pass a stub (a function) and the live bot passes `createFetchTransport()`.
 *
 * The transport only moves bytes: it answers every HTTP status (4xx and 5xx are answers, not
 * errors) and rejects only when there is no answer. Timeouts, retries, budgets and parsing are the
 * clients' work, on the clock.
 */
import { ClientError } from './client-error.ts';

export type HttpMethod = 'GET' | 'POST';

export interface HttpRequest {
  readonly method: HttpMethod;
  /** Absolute URL. Never carries a credential: tokens go in `headers` only. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Aborts the request; the transport rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

export interface HttpResponse {
  readonly status: number;
  /** Header names in lowercase. */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
}

/**
 * Sends one request. Resolves with any answer (whatever its status); rejects only when there is
 * none: with the signal's reason when `request.signal` aborted, otherwise with a ClientError
 * (`HTTP_UNAVAILABLE`, or `HTTP_TIMEOUT` for a transport's own socket timeout).
 */
export type HttpTransport = (request: HttpRequest) => Promise<HttpResponse>;

/** Errors of the socket layer that mean the request never left this machine. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ERR_INVALID_URL']);

/** The `code` of an undici failure (`TypeError: fetch failed` with `cause.code`). */
function socketErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** describeUrl's answers by the URL's part before any query or fragment, which is all they depend on. */
const described = new Map<string, string>();

/** `https://host:port/path` of a URL, without the query (which may be long) and never credentials. */
export function describeUrl(url: string): string {
  // Every request is described a few times, and its query changes while its path does not.
  const query = url.indexOf('?');
  const fragment = url.indexOf('#');
  const end = query < 0 ? fragment : fragment < 0 ? query : Math.min(query, fragment);
  // A cut just after a space or control character would let the parser trim it as trailing.
  if (end > 0 && url.charCodeAt(end - 1) <= 0x20) return describeUrlUncached(url);
  const key = end < 0 ? url : url.slice(0, end);
  let description = described.get(key);
  if (description === undefined) {
    description = describeUrlUncached(key);
    if (described.size >= 1000) described.clear();
    described.set(key, description);
  }
  return description;
}

/** describeUrl, parsing `url` every time (what describeUrl remembers; its tests' reference). */
export function describeUrlUncached(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

export interface CreateFetchTransportParameters {
  /** The fetch to use; default the global (undici in Node 20). */
  readonly fetch?: typeof fetch;
  /**
   * A wall-clock limit on one socket exchange, a backstop under the clients' own timeouts (which
   * run on the clock). Default 60 000 ms.
   */
  readonly socketTimeoutMs?: number;
}

/**
 * The live transport over `fetch`. A request with an `Authorization` header refuses redirects, so
 * a credential never follows a redirect to another host.
 *
 * @example
 * const transport = createFetchTransport();
 * const answer = await transport({ method: 'GET', url: 'http://127.0.0.1:31337/api/v3/exchangeInfo', headers: {} });
 */
export function createFetchTransport(params: CreateFetchTransportParameters = {}): HttpTransport {
  const fetchImpl = params.fetch ?? globalThis.fetch;
  const socketTimeoutMs = params.socketTimeoutMs ?? 60_000;
  return async (request) => {
    request.signal?.throwIfAborted();
    const socketTimeout = AbortSignal.timeout(socketTimeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, socketTimeout]) : socketTimeout;
    const hasCredential = Object.keys(request.headers).some((name) => name.toLowerCase() === 'authorization');
    const where = `${request.method} ${describeUrl(request.url)}`;
    try {
      const response = await fetchImpl(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        signal,
        redirect: hasCredential ? 'error' : 'follow',
      });
      const text = await response.text();
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name.toLowerCase()] = value;
      });
      return { status: response.status, headers, text };
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      if (socketTimeout.aborted) {
        throw new ClientError('HTTP_TIMEOUT', `${where}: no answer within ${socketTimeoutMs} ms`, {
          details: { url: describeUrl(request.url), timeoutMs: socketTimeoutMs, requestMayHaveBeenSent: true },
          cause: error,
        });
      }
      const code = socketErrorCode(error);
      const notSent = code !== undefined && NOT_SENT_CODES.has(code);
      throw new ClientError('HTTP_UNAVAILABLE', `${where}: cannot reach the host${code === undefined ? '' : ` (${code})`}`, {
        details: { url: describeUrl(request.url), ...(code === undefined ? {} : { socketError: code }), requestMayHaveBeenSent: !notSent },
        cause: error,
      });
    }
  };
}
