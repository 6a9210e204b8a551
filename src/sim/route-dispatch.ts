/**
 * Everything the simulated venue does with one HTTP request except moving bytes: route matching,
 * the body limit, the handler, JSON serialisation and the server's own answers (404, 405, 413,
 * 500). The network face (http-server.ts) and the in-process connection (src/runtime) both answer
 * through it, so the two cannot disagree on a rule.
 */
import type { Logger } from '../core/logger.ts';
import { MarketErrorCode } from '../protocol/constants.ts';
import type { SimFailure, SimRequest, SimResponse, SimRoute } from './http-types.ts';
import { createRouteMatcher } from './route-matcher.ts';

/** A request as it arrived: the request target in origin form (`/path?query`) and the raw body. */
export interface RawSimRequest {
  readonly method: string;
  /** `/api/v3/depth?symbol=MON_USDC`. */
  readonly target: string;
  readonly headers: SimRequest['headers'];
  /** Reads the body, or says it is over `limit` bytes without keeping it. */
  readonly readBody: (limit: number) => Promise<{ readonly ok: true; readonly text: string } | { readonly ok: false }>;
  /** The client's IP address, for per-IP limits. */
  readonly ip: string;
}

/** The answer, serialised. */
export interface SimAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
  /** True when the connection should close after the answer (an unread oversized body). */
  readonly closeConnection: boolean;
  /** How long to hold the answer back on the clock before sending it (`SimResponse.delayMs`, a fault). */
  readonly delayMs: number;
}

export type SimDispatch = (request: RawSimRequest) => Promise<SimAnswer>;

export const JSON_CONTENT_TYPE = 'application/json';

/** The Binance-style body of the server's own answers (unknown path, wrong method, 413, 500). */
export function defaultFailureBody(failure: SimFailure, message: string): unknown {
  return { code: failure === 'internal-error' ? MarketErrorCode.UNKNOWN : -1, msg: message };
}

const FAILURE_STATUS: Readonly<Record<SimFailure, number>> = { 'payload-too-large': 413, 'internal-error': 500 };

/**
 * The path and query of a request target in origin form (`/path?query`). Any other form (`*`, an
 * absolute URL) gets the empty path, which no route matches.
 */
function splitTarget(target: string): { path: string; query: URLSearchParams } {
  if (!target.startsWith('/')) return { path: '', query: new URLSearchParams() };
  const mark = target.indexOf('?');
  const path = mark < 0 ? target : target.slice(0, mark);
  return { path, query: new URLSearchParams(mark < 0 ? '' : target.slice(mark + 1)) };
}

/** JSON texts of answer bodies, known before the dispatcher serialises them (see `withJsonText`). */
const knownTexts = new WeakMap<object, string>();

/**
 * `body`, marked as having `text` as its JSON (a handler that builds its answer from cached,
 * serialised parts). The body must not change afterwards.
 */
export function withJsonText<T extends object>(body: T, text: string): T {
  knownTexts.set(body, text);
  return body;
}

/**
 * JSON texts of two-string arrays (depth levels, which the venue keeps from one book to the next),
 * each used only while the array still holds the same two strings.
 */
const pairTexts = new WeakMap<object, { readonly first: string; readonly second: string; readonly text: string }>();

/** JSON.stringify's text of `list` when it holds only two-string arrays, else undefined. */
function pairListJson(list: readonly unknown[]): string | undefined {
  let text = '[';
  for (let index = 0; index < list.length; index += 1) {
    const pair = list[index];
    if (!Array.isArray(pair) || pair.length !== 2 || (pair as { toJSON?: unknown }).toJSON !== undefined) return undefined;
    const first: unknown = pair[0];
    const second: unknown = pair[1];
    if (typeof first !== 'string' || typeof second !== 'string') return undefined;
    let known = pairTexts.get(pair);
    if (known === undefined || known.first !== first || known.second !== second) {
      known = { first, second, text: JSON.stringify(pair) };
      pairTexts.set(pair, known);
    }
    text += index === 0 ? known.text : `,${known.text}`;
  }
  return `${text}]`;
}

/**
 * JSON.stringify's text of a plain object whose values are strings, numbers, booleans, null or
 * lists of two-string arrays (a depth answer), built from remembered level texts; undefined for any
 * other body, which JSON.stringify then serialises as a whole.
 */
function levelsBodyJson(body: object): string | undefined {
  if (Object.getPrototypeOf(body) !== Object.prototype || (body as { toJSON?: unknown }).toJSON !== undefined) return undefined;
  let text = '{';
  for (const key of Object.keys(body)) {
    const value: unknown = (body as Record<string, unknown>)[key];
    let json: string | undefined;
    switch (typeof value) {
      case 'string':
        json = JSON.stringify(value);
        break;
      case 'number':
        json = Number.isFinite(value) ? String(value) : 'null';
        break;
      case 'boolean':
        json = value ? 'true' : 'false';
        break;
      case 'undefined':
      case 'function':
      case 'symbol':
        // Left out, as JSON.stringify leaves them out.
        continue;
      case 'object':
        if (value === null) json = 'null';
        else if (Array.isArray(value) && (value as { toJSON?: unknown }).toJSON === undefined) json = pairListJson(value);
        break;
      default:
        break;
    }
    if (json === undefined) return undefined;
    text += `${text === '{' ? '' : ','}${JSON.stringify(key)}:${json}`;
  }
  return `${text}}`;
}

/** The JSON text of an answer body (JSON.stringify's, `null` for a body it leaves out). */
export function serialise(body: unknown): string {
  if (typeof body !== 'object' || body === null) return JSON.stringify(body) ?? 'null';
  return knownTexts.get(body) ?? levelsBodyJson(body) ?? JSON.stringify(body) ?? 'null';
}

function answer(response: SimResponse, extra: Readonly<Record<string, string>> = {}, text?: string, closeConnection = false): SimAnswer {
  return {
    status: response.status,
    headers: { ...response.headers, ...extra, 'content-type': JSON_CONTENT_TYPE },
    text: text ?? serialise(response.body),
    closeConnection,
    delayMs: response.delayMs ?? 0,
  };
}

export interface CreateSimDispatchParameters {
  readonly routes: readonly SimRoute[];
  /** Larger bodies are refused with HTTP 413 (a route may set its own limit). */
  readonly maxBodyBytes: number;
  readonly logger: Logger;
}

/**
 * A dispatcher for `routes`. Unknown paths answer 404 `{code: -1, msg}`, a known path with another
 * method 405 with `Allow`, a body over the limit 413, a handler that throws (or answers something
 * that is not JSON) 500, logged.
 *
 * @example
 * const dispatch = createSimDispatch({ routes, maxBodyBytes: 1 << 20, logger });
 * const { status, text } = await dispatch({ method: 'GET', target: '/api/v3/exchangeInfo', headers: {}, readBody: async () => ({ ok: true, text: '' }), ip: '127.0.0.1' });
 */
export function createSimDispatch(params: CreateSimDispatchParameters): SimDispatch {
  const { logger } = params;
  const matcher = createRouteMatcher(params.routes);
  return async (request) => {
    const { method } = request;
    const { path, query } = splitTarget(request.target);
    const match = matcher.match(method, path);
    if (match.kind === 'not-found') return answer({ status: 404, body: { code: -1, msg: 'Not found.' } });
    if (match.kind === 'method-not-allowed') return answer({ status: 405, body: { code: -1, msg: 'Method not allowed.' } }, { allow: match.allow.join(', ') });
    const { route } = match;
    const failureBody = route.failureBody ?? defaultFailureBody;
    const limit = route.maxBodyBytes ?? params.maxBodyBytes;
    const body = await request.readBody(limit);
    if (!body.ok) {
      // The rest of an oversized upload is not read: close the connection after the answer.
      return answer({ status: FAILURE_STATUS['payload-too-large'], body: failureBody('payload-too-large', `Request body exceeds ${limit} bytes.`) }, {}, undefined, true);
    }
    const simRequest: SimRequest = { method, path, params: match.params, query, headers: request.headers, body: body.text, ip: request.ip };
    try {
      const response = await route.handler(simRequest);
      // Serialise inside the try: a body that is not JSON (a bigint) is a handler bug, answered as one.
      return answer(response, {}, serialise(response.body));
    } catch (error) {
      logger.error({ err: error, method, path, route: route.pattern }, 'sim route handler failed');
      return answer({ status: FAILURE_STATUS['internal-error'], body: failureBody('internal-error', 'Internal server error.') });
    }
  };
}
