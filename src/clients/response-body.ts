/**
 * Reading answers: JSON text through a protocol schema into a typed value, or a typed error that
 * names the endpoint and the first mismatch (never the whole body, which may be large or carry a
 * token), and short, scrubbed summaries of refusal bodies for error messages.
 */
import type { z } from 'zod';
import { BaseError } from '../core/base-error.ts';
import { scrubSecretText } from '../core/secrets.ts';
import { NO_MATCH, type FastReader } from '../protocol/fast-reader.ts';
import { ClientError } from './client-error.ts';
import { describeUrl, type HttpResponse } from './http-transport.ts';
import { parseRetryAfterMs } from './retry-policy.ts';

export interface ParseBodyParameters<S extends z.ZodType> {
  readonly schema: S;
  /** `GET http://host/path`, for messages. */
  readonly where: string;
  /** A fast twin of `schema` for a hot answer (protocol/fast-reader.ts); `schema` decides whenever it is unsure. */
  readonly fast?: FastReader<z.output<S>>;
}

/** The body as JSON, or undefined when it is not JSON. */
export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The answer's body parsed with `schema`. Throws PROTOCOL_INVALID_JSON when it is not JSON and
 * PROTOCOL_SCHEMA_MISMATCH (with the path of the first issue) when it does not match.
 *
 * @example const depth = parseBody(answer, { schema: depthSchema, where: 'GET http://127.0.0.1:31337/api/v3/depth' })
 */
export function parseBody<S extends z.ZodType>(response: HttpResponse, params: ParseBodyParameters<S>): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(response.text) as unknown;
  } catch (error) {
    throw new BaseError('PROTOCOL_INVALID_JSON', `${params.where}: the answer (HTTP ${response.status}) is not JSON`, {
      details: { status: response.status, length: response.text.length },
      cause: error,
    });
  }
  return parseValue(json, params);
}

/** `value` parsed with `schema`, or PROTOCOL_SCHEMA_MISMATCH naming the first issue's path. */
export function parseValue<S extends z.ZodType>(value: unknown, params: ParseBodyParameters<S>): z.output<S> {
  if (params.fast !== undefined) {
    const read = params.fast(value);
    if (read !== NO_MATCH) return read;
  }
  const result = params.schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue === undefined ? '' : issue.path.map(String).join('.');
  const message = issue === undefined ? 'does not match' : `${path === '' ? '' : `${path}: `}${issue.message}`;
  throw new BaseError('PROTOCOL_SCHEMA_MISMATCH', `${params.where}: unexpected answer: ${scrubSecretText(message).slice(0, 200)}`, {
    details: { path, issues: result.error.issues.length },
  });
}

/** `GET http://host/path` of a request. */
export function describeCall(method: string, url: string): string {
  return `${method} ${describeUrl(url)}`;
}

/**
 * A short, scrubbed text of a refusal body for an error message: its `msg`, `message` or `error`
 * string when it is JSON with one, else the first characters of the text.
 *
 * @example refusalText('{"error":"eventType must be one of order-created, order-canceled, trade"}')
 */
export function refusalText(text: string): string {
  const json = tryParseJson(text);
  if (typeof json === 'object' && json !== null) {
    for (const key of ['msg', 'message', 'error']) {
      const value = (json as Record<string, unknown>)[key];
      if (typeof value === 'string') return scrubSecretText(value).slice(0, 300);
    }
  }
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat === '' ? '(empty body)' : scrubSecretText(flat).slice(0, 120);
}

/**
 * The typed error of a non-200 answer of a host whose error bodies the spec does not show: 429 ->
 * HTTP_RATE_LIMITED, 5xx -> HTTP_UNAVAILABLE, anything else HTTP_UNEXPECTED_STATUS, each with the
 * status and a scrubbed summary of the body.
 */
export function unexpectedAnswer(response: HttpResponse, where: string, nowMs: number): ClientError {
  const text = refusalText(response.text);
  const details = { url: where, status: response.status };
  if (response.status === 429) {
    const retryAfterMs = parseRetryAfterMs(response.headers['retry-after'], nowMs);
    return new ClientError('HTTP_RATE_LIMITED', `${where}: HTTP 429: ${text}`, {
      status: 429,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      details: { ...details, retryAfterMs },
    });
  }
  if (response.status >= 500) return new ClientError('HTTP_UNAVAILABLE', `${where}: HTTP ${response.status}: ${text}`, { status: response.status, details });
  return new ClientError('HTTP_UNEXPECTED_STATUS', `${where}: HTTP ${response.status}: ${text}`, { status: response.status, details });
}
