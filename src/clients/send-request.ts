/**
 * One client call over the transport: a timeout on the clock for every attempt, the caller's
 * AbortSignal, and retries of idempotent reads (no answer, 5xx, 429) with backoff and jitter.
 * Answers of any status are returned: each client turns its host's refusals into typed errors.
 */
import type { Subscription } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import { isBaseError } from '../core/base-error.ts';
import type { RandomSource } from '../core/random.ts';
import { ClientError, isClientError } from './client-error.ts';
import { clockDelay } from './clock-delay.ts';
import { describeUrl, type HttpRequest, type HttpResponse, type HttpTransport } from './http-transport.ts';
import { backoffDelayMs, parseRetryAfterMs, type RetryPolicy } from './retry-policy.ts';

/** What every client is built on: the transport seam, the clock, and seeded randomness for jitter. */
export interface ClientContext {
  readonly transport: HttpTransport;
  readonly clock: Clock;
  readonly random: RandomSource;
}

/** Default time one attempt may take before it is abandoned (on the clock). */
export const DEFAULT_TIMEOUT_MS = 10_000;

export interface SendRequestParameters {
  readonly request: Omit<HttpRequest, 'signal'>;
  /** True for reads (and pure computations): only these are ever retried. */
  readonly idempotent: boolean;
  /** Per attempt, on the clock. */
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
  readonly signal?: AbortSignal;
  /**
   * Waits before each attempt until it may be sent (a weight budget, a rate limiter); may return a
   * function called once the attempt has ended, with or without an answer.
   */
  readonly beforeAttempt?: (signal: AbortSignal | undefined) => Promise<(() => void) | void>;
  /** Headers made for each attempt after `beforeAttempt` (e.g. a token that may have been renewed while waiting). */
  readonly attemptHeaders?: () => Readonly<Record<string, string>>;
  /** Sees every answer before anything else (e.g. to sync a budget with the server's count). */
  readonly onResponse?: (response: HttpResponse) => void;
}

const TIMED_OUT = Symbol('timed out');

function aborted(where: string, signal: AbortSignal, mayHaveBeenSent: boolean): ClientError {
  return new ClientError('HTTP_ABORTED', `${where}: aborted by the caller`, {
    details: { requestMayHaveBeenSent: mayHaveBeenSent },
    cause: signal.reason,
  });
}

/** Runs `step`, turning the caller's abort into HTTP_ABORTED. */
async function abortable<T>(step: () => Promise<T>, where: string, signal: AbortSignal | undefined): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (signal?.aborted) throw aborted(where, signal, false);
    throw error;
  }
}

/**
 * One attempt under way: whether it has ended, its timeout, and the listener of the caller's signal
 * (an object with `handleEvent`, so an attempt allocates one object rather than a closure per part).
 */
class Attempt {
  settled = false;
  timeout: Subscription | undefined = undefined;

  constructor(
    readonly params: SendRequestParameters,
    readonly where: string,
    readonly controller: AbortController,
    readonly resolve: (response: HttpResponse) => void,
    readonly reject: (reason: unknown) => void,
  ) {}

  /** Ends the attempt; false when it had already ended (its outcome is then ignored). */
  end(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.timeout!.unsubscribe();
    this.params.signal?.removeEventListener('abort', this);
    return true;
  }

  /** The caller aborted. */
  handleEvent(): void {
    const signal = this.params.signal!;
    this.controller.abort(signal.reason);
    if (this.end()) this.reject(aborted(this.where, signal, true));
  }

  timedOut(): void {
    this.controller.abort(TIMED_OUT);
    if (!this.end()) return;
    const { params } = this;
    this.reject(
      new ClientError('HTTP_TIMEOUT', `${this.where}: no answer within ${params.timeoutMs} ms`, {
        details: { url: describeUrl(params.request.url), timeoutMs: params.timeoutMs, requestMayHaveBeenSent: true },
      }),
    );
  }

  answered(response: HttpResponse): void {
    if (this.end()) this.resolve(response);
  }

  failed(error: unknown): void {
    if (!this.end()) return;
    if (isBaseError(error)) this.reject(error);
    else {
      this.reject(
        new ClientError('HTTP_UNAVAILABLE', `${this.where}: cannot reach the host`, {
          details: { url: describeUrl(this.params.request.url), requestMayHaveBeenSent: true },
          cause: error,
        }),
      );
    }
  }
}

/** The timeout's work on the scheduler (the attempt is its state: no closure per attempt). */
function timeOut(this: unknown, attempt?: Attempt): void {
  attempt!.timedOut();
}

/** One attempt: the transport raced against the clock's timeout and the caller's signal. */
function attemptOnce(context: ClientContext, params: SendRequestParameters, where: string): Promise<HttpResponse> {
  const { clock, transport } = context;
  const controller = new AbortController();
  const { signal } = params;
  return new Promise<HttpResponse>((resolve, reject) => {
    const attempt = new Attempt(params, where, controller, resolve, reject);
    attempt.timeout = clock.scheduler.schedule(timeOut, params.timeoutMs, attempt);
    if (signal?.aborted) {
      attempt.handleEvent();
      return;
    }
    signal?.addEventListener('abort', attempt, { once: true });
    let sent: Promise<HttpResponse>;
    try {
      const headers = params.attemptHeaders === undefined ? params.request.headers : { ...params.request.headers, ...params.attemptHeaders() };
      sent = transport({ ...params.request, headers, signal: controller.signal });
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent.then(
      (response) => attempt.answered(response),
      (error: unknown) => attempt.failed(error),
    );
  });
}

function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

function isRetryableError(error: unknown): boolean {
  return isClientError(error, 'HTTP_UNAVAILABLE') || isClientError(error, 'HTTP_TIMEOUT');
}

/**
 * Sends `request`, retrying an idempotent one after no answer, a 5xx or a 429 (waiting at least its
 * `Retry-After`, up to `retry.maxRetryAfterMs`). Returns the last answer, whatever its status.
 * Throws ClientError HTTP_TIMEOUT, HTTP_UNAVAILABLE (no answer, after the retries) or HTTP_ABORTED.
 *
 * @example
 * const answer = await sendRequest(context, { request: { method: 'GET', url, headers: {} }, idempotent: true, timeoutMs: 10_000, retry: DEFAULT_RETRY_POLICY });
 */
export async function sendRequest(context: ClientContext, params: SendRequestParameters): Promise<HttpResponse> {
  const { clock, random } = context;
  const { retry, signal } = params;
  const where = `${params.request.method} ${describeUrl(params.request.url)}`;
  const attempts = params.idempotent ? Math.max(1, retry.maxAttempts) : 1;
  for (let attempt = 1; ; attempt += 1) {
    if (signal?.aborted) throw aborted(where, signal, attempt > 1);
    const release = await abortable(async () => params.beforeAttempt?.(signal), where, signal);
    let response: HttpResponse;
    try {
      response = await attemptOnce(context, params, where);
    } catch (error) {
      if (attempt >= attempts || !isRetryableError(error)) throw error;
      await abortable(() => clockDelay(clock, { ms: backoffDelayMs(retry, { retry: attempt, random }), signal }), where, signal);
      continue;
    } finally {
      if (typeof release === 'function') release();
    }
    params.onResponse?.(response);
    if (attempt >= attempts || !isRetryableStatus(response.status)) return response;
    let waitMs = backoffDelayMs(retry, { retry: attempt, random });
    if (response.status === 429) {
      const retryAfterMs = parseRetryAfterMs(response.headers['retry-after'], clock.now());
      if (retryAfterMs !== undefined && retryAfterMs > retry.maxRetryAfterMs) return response;
      waitMs = Math.max(waitMs, retryAfterMs ?? 0);
    }
    await abortable(() => clockDelay(clock, { ms: waitMs, signal }), where, signal);
  }
}
