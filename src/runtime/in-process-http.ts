/**
 * The HTTP seam of the clients (HttpTransport) over the sim service's dispatcher, in the same
 * process: no socket, the same routes and rules as `clobbot sim`'s network face, and time from the
 * clock. A request reaches the venue one drawn delay after it is sent, and its answer reaches the
 * client one drawn delay after the venue answered; both delays are scheduled on the clock, so on a
 * VirtualClock the exchange costs no wall time and a run is repeatable.
 *
 * An answer the venue holds back (a slow-response fault, `delayMs`) is held back on the clock too,
 * outside the venue's work, so the virtual driver never waits on a clock that cannot move.
 *
 * Which delay applies depends on the host the path belongs to (latency config: relay, marketData,
 * userData). A request to another origin gets no answer (HTTP_UNAVAILABLE), as an unknown host would.
 */
import type { Subscription } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import { ClientError } from '../clients/client-error.ts';
import { describeUrl, type HttpRequest, type HttpTransport } from '../clients/http-transport.ts';
import type { SimDispatch } from '../sim/route-dispatch.ts';
import type { LatencySampler } from './latency-sampler.ts';
import type { PendingWork } from './pending-work.ts';

/** The delays of the three kinds of host. */
export interface ConnectionLatency {
  readonly relay: LatencySampler;
  readonly marketData: LatencySampler;
  readonly userData: LatencySampler;
  /** JSON-RPC (receipts, chain reads): the user-data delays, drawn from a stream of their own. */
  readonly rpc: LatencySampler;
}

/** The client IP the in-process venue sees (per-IP weight limits apply to it as to any client). */
export const IN_PROCESS_CLIENT_IP = '127.0.0.1';

const MARKET_DATA_PATHS = new Set(['/api/v3/depth', '/api/v3/trades', '/api/v3/klines', '/api/v3/ticker/24hr', '/api/v3/exchangeInfo']);

/** The delay of a path's host. */
export function latencyOf(latency: ConnectionLatency, path: string): LatencySampler {
  if (MARKET_DATA_PATHS.has(path)) return latency.marketData;
  if (path === '/relay' || path.startsWith('/auth/')) return latency.relay;
  if (path === '/rpc') return latency.rpc;
  return latency.userData;
}

export interface InProcessHttpParameters {
  readonly dispatch: SimDispatch;
  readonly clock: Clock;
  /** The origin every host of the in-process venue shares, e.g. `http://venue.in-process`. */
  readonly origin: string;
  readonly latency: ConnectionLatency;
  /** Where each request's handling is counted until its answer is ready. */
  readonly pending: PendingWork;
}

/** What the transport needs of a request URL; `target` is the path and query (`/path?query`). */
export interface RequestTarget {
  readonly origin: string;
  readonly pathname: string;
  readonly target: string;
}

/** Parsed URLs (or their part before the query): a poller asks for the same path again and again. */
const parsedUrls = new Map<string, RequestTarget>();

/** `text` parsed as a whole (what requestTarget remembers; its tests' reference). */
export function requestTargetUncached(text: string): RequestTarget {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    url = new URL('invalid:');
  }
  return { origin: url.origin, pathname: url.pathname, target: `${url.pathname}${url.search}` };
}

function remembered(text: string): RequestTarget {
  let parsed = parsedUrls.get(text);
  if (parsed === undefined) {
    parsed = requestTargetUncached(text);
    if (parsedUrls.size >= 1000) parsedUrls.clear();
    parsedUrls.set(text, parsed);
  }
  return parsed;
}

/**
 * True when the URL parser keeps `text` from `from` on as it is in a query: printable ASCII other
 * than the characters it percent-encodes there (`"`, `#`, `<`, `>`, `'`), and no tab, newline or
 * space it would strip or trim.
 */
function plainQuery(text: string, from: number): boolean {
  for (let index = from; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code <= 0x20 || code >= 0x7f || code === 0x22 || code === 0x23 || code === 0x27 || code === 0x3c || code === 0x3e) return false;
  }
  return true;
}

/**
 * The origin, path and request target of a URL, as `new URL` gives them. A poll's query changes
 * (a cursor, a time) while its path does not: the part before a plain query is parsed once and the
 * query is kept as it is, which is what the parser does with it.
 */
export function requestTarget(text: string): RequestTarget {
  const mark = text.indexOf('?');
  // Before the mark: no fragment (it would hold the `?`), no space or control character the parser would trim as trailing.
  if (mark <= 0 || text.charCodeAt(mark - 1) <= 0x20 || text.lastIndexOf('#', mark) >= 0 || !plainQuery(text, mark + 1)) return remembered(text);
  const head = remembered(text.slice(0, mark));
  // An origin of `null`: not a URL, or not of a scheme whose query is kept this way.
  if (head.origin === 'null') return remembered(text);
  return { origin: head.origin, pathname: head.pathname, target: mark + 1 < text.length ? `${head.pathname}${text.slice(mark)}` : head.pathname };
}

function lowercaseNames(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) out[name.toLowerCase()] = headers[name]!;
  return out;
}

/** `headers` itself when every name is already lowercase (an answer's own fresh headers), else a lowercased copy. */
function lowercased(headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  for (const name in headers) if (name !== name.toLowerCase()) return lowercaseNames(headers);
  return headers;
}

const EMPTY_BODY = { ok: true, text: '' } as const;
const TOO_LARGE = { ok: false } as const;

/** The body reader of a request without a body (every GET). */
const readNoBody = (limit: number) => Promise.resolve(0 > limit ? TOO_LARGE : EMPTY_BODY);

/**
 * One request under way: its state, and the listener of its abort signal (an object with
 * `handleEvent`, so a request allocates one object rather than a closure per step).
 */
class Exchange {
  step: Subscription | undefined = undefined;
  settled = false;

  constructor(
    readonly request: HttpRequest,
    readonly reject: (reason: unknown) => void,
  ) {}

  /** The caller aborted: the request goes no further, wherever it is. */
  handleEvent(): void {
    if (this.settled) return;
    this.settled = true;
    this.step?.unsubscribe();
    this.reject(this.request.signal!.reason);
  }
}

/**
 * @example
 * const transport = createInProcessHttpTransport({ dispatch: service.dispatch, clock, origin: 'http://venue.in-process', latency });
 * const answer = await transport({ method: 'GET', url: 'http://venue.in-process/api/v3/exchangeInfo', headers: {} });
 */
export function createInProcessHttpTransport(params: InProcessHttpParameters): HttpTransport {
  const { dispatch, clock, origin, latency, pending } = params;
  return (request) =>
    new Promise((resolve, reject) => {
      const { signal } = request;
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const url = requestTarget(request.url);
      if (url.origin !== origin) {
        reject(new ClientError('HTTP_UNAVAILABLE', `${request.method} ${describeUrl(request.url)}: cannot reach the host (not the in-process venue ${origin})`, {
          details: { url: describeUrl(request.url), requestMayHaveBeenSent: false },
        }));
        return;
      }
      const delay = latencyOf(latency, url.pathname);
      const exchange = new Exchange(request, reject);
      signal?.addEventListener('abort', exchange, { once: true });
      const headers = lowercaseNames(request.headers);
      const body = request.body ?? '';
      const readBody = body === '' ? readNoBody : (limit: number) => Promise.resolve(Buffer.byteLength(body) > limit ? TOO_LARGE : { ok: true as const, text: body });
      exchange.step = clock.scheduler.schedule(() => {
        exchange.step = undefined;
        const answered = dispatch({ method: request.method, target: url.target, headers, readBody, ip: IN_PROCESS_CLIENT_IP });
        // Pending until the answer (or failure) is in hand: `track` without a promise of its own.
        const done = pending.begin();
        answered.then(
          (answer) => {
            done();
            if (exchange.settled) return;
            const answerHeaders = lowercased(answer.headers);
            exchange.step = clock.scheduler.schedule(() => {
              if (exchange.settled) return;
              exchange.settled = true;
              signal?.removeEventListener('abort', exchange);
              resolve({ status: answer.status, headers: answerHeaders, text: answer.text });
            }, answer.delayMs + delay());
          },
          (error: unknown) => {
            done();
            exchange.settled = true;
            reject(new ClientError('HTTP_UNAVAILABLE', `${request.method} ${describeUrl(request.url)}: the in-process venue failed`, { details: { url: describeUrl(request.url), requestMayHaveBeenSent: true }, cause: error }));
          },
        );
      }, delay());
    });
}
