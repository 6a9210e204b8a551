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
import { describeUrl, type HttpTransport } from '../clients/http-transport.ts';
import type { SimDispatch } from '../sim/route-dispatch.ts';
import type { LatencySampler } from './latency-sampler.ts';
import type { PendingWork } from './pending-work.ts';

/** The delays of the three kinds of host. */
export interface ConnectionLatency {
  readonly relay: LatencySampler;
  readonly marketData: LatencySampler;
  readonly userData: LatencySampler;
}

/** The client IP the in-process venue sees (per-IP weight limits apply to it as to any client). */
export const IN_PROCESS_CLIENT_IP = '127.0.0.1';

const MARKET_DATA_PATHS = new Set(['/api/v3/depth', '/api/v3/trades', '/api/v3/klines', '/api/v3/ticker/24hr', '/api/v3/exchangeInfo']);

/** The delay of a path's host. */
export function latencyOf(latency: ConnectionLatency, path: string): LatencySampler {
  if (MARKET_DATA_PATHS.has(path)) return latency.marketData;
  if (path === '/relay' || path.startsWith('/auth/')) return latency.relay;
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

type ParsedUrl = Pick<URL, 'origin' | 'pathname' | 'search'>;

/** Parsed request URLs: a poller asks for the same URL again and again. */
const parsedUrls = new Map<string, ParsedUrl>();

function parsedUrl(text: string): ParsedUrl {
  let parsed = parsedUrls.get(text);
  if (parsed === undefined) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      url = new URL('invalid:');
    }
    parsed = { origin: url.origin, pathname: url.pathname, search: url.search };
    if (parsedUrls.size >= 1000) parsedUrls.clear();
    parsedUrls.set(text, parsed);
  }
  return parsed;
}

function lowercaseNames(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) out[name.toLowerCase()] = headers[name]!;
  return out;
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
      const url = parsedUrl(request.url);
      if (url.origin !== origin) {
        reject(new ClientError('HTTP_UNAVAILABLE', `${request.method} ${describeUrl(request.url)}: cannot reach the host (not the in-process venue ${origin})`, {
          details: { url: describeUrl(request.url), requestMayHaveBeenSent: false },
        }));
        return;
      }
      const delay = latencyOf(latency, url.pathname);
      let step: Subscription | undefined;
      let settled = false;
      const onAbort = () => {
        if (settled) return;
        settled = true;
        step?.unsubscribe();
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const headers = lowercaseNames(request.headers);
      const body = request.body ?? '';
      step = clock.scheduler.schedule(() => {
        step = undefined;
        void pending.track(dispatch({
          method: request.method,
          target: `${url.pathname}${url.search}`,
          headers,
          readBody: (limit) => Promise.resolve(Buffer.byteLength(body) > limit ? { ok: false } : { ok: true, text: body }),
          ip: IN_PROCESS_CLIENT_IP,
        })).then(
          (answer) => {
            if (settled) return;
            const answerHeaders = lowercaseNames(answer.headers);
            step = clock.scheduler.schedule(() => {
              if (settled) return;
              settled = true;
              signal?.removeEventListener('abort', onAbort);
              resolve({ status: answer.status, headers: answerHeaders, text: answer.text });
            }, answer.delayMs + delay());
          },
          (error: unknown) => {
            settled = true;
            reject(new ClientError('HTTP_UNAVAILABLE', `${request.method} ${describeUrl(request.url)}: the in-process venue failed`, { details: { url: describeUrl(request.url), requestMayHaveBeenSent: true }, cause: error }));
          },
        );
      }, delay());
    });
}
