/** Building `SimRequest`s and calling route handlers without a socket. */
import type { IncomingHttpHeaders } from 'node:http';
import type { SimRequest, SimResponse, SimRoute } from '../../src/sim/http-types.ts';
import { createRouteMatcher } from '../../src/sim/route-matcher.ts';

export interface RequestParts {
  readonly method?: 'GET' | 'POST';
  /** Path with an optional `?query`. */
  readonly url: string;
  readonly headers?: IncomingHttpHeaders;
  readonly body?: string;
  readonly ip?: string;
}

/**
 * Routes `parts` through `routes` as the server would (same matcher) and calls the handler.
 * Throws when no route matches: a test asking for an unknown path is a broken test.
 */
export async function call(routes: readonly SimRoute[], parts: RequestParts): Promise<SimResponse> {
  const method = parts.method ?? 'GET';
  const mark = parts.url.indexOf('?');
  const path = mark < 0 ? parts.url : parts.url.slice(0, mark);
  const match = createRouteMatcher(routes).match(method, path);
  if (match.kind !== 'found') throw new Error(`no route for ${method} ${path}`);
  const request: SimRequest = {
    method,
    path,
    params: match.params,
    query: new URLSearchParams(mark < 0 ? '' : parts.url.slice(mark + 1)),
    headers: parts.headers ?? {},
    body: parts.body ?? '',
    ip: parts.ip ?? '127.0.0.1',
  };
  return match.route.handler(request);
}
