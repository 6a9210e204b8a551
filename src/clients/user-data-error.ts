/**
 * Refusals of the user-data host (order events, active orders): `{error: string}` bodies (spec).
 * A 4xx is the caller's query (USER_DATA_BAD_REQUEST, with the server's message, e.g. the allowed
 * event types); a 5xx, after the retries, is HTTP_UNAVAILABLE with the server's message (e.g. an
 * internal database error).
 */
import { userDataErrorBodySchema } from '../protocol/error-bodies.ts';
import { ClientError, type ClientErrorOptions } from './client-error.ts';
import type { HttpResponse } from './http-transport.ts';
import { tryParseJson, unexpectedAnswer } from './response-body.ts';
import { scrubSecretText } from '../core/secrets.ts';

/**
 * @example
 * catch (error) { if (error instanceof UserDataError) console.error(error.serverMessage) } // 'eventType must be one of order-created, order-canceled, trade'
 */
export class UserDataError extends ClientError {
  override readonly name: string = 'UserDataError';
  /** The `error` text of the body (scrubbed), when it had one. */
  readonly serverMessage: string | undefined;

  constructor(message: string, options: ClientErrorOptions & { readonly serverMessage: string | undefined }) {
    super('USER_DATA_BAD_REQUEST', message, options);
    this.serverMessage = options.serverMessage;
  }
}

/** The typed error of a non-200 user-data answer. */
export function userDataRefusal(response: HttpResponse, where: string, nowMs: number): ClientError {
  if (response.status >= 400 && response.status < 500 && response.status !== 429) {
    const body = userDataErrorBodySchema.safeParse(tryParseJson(response.text));
    if (body.success) {
      const serverMessage = scrubSecretText(body.data.error).slice(0, 300);
      return new UserDataError(serverMessage, { status: response.status, serverMessage, details: { url: where, status: response.status } });
    }
  }
  return unexpectedAnswer(response, where, nowMs);
}
