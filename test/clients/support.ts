/** Test helpers of the client tests: a scripted stub transport and running promises on a virtual clock. */
import type { HttpRequest, HttpResponse, HttpTransport } from '../../src/clients/http-transport.ts';
import type { ClientContext } from '../../src/clients/send-request.ts';
import type { RandomSource } from '../../src/core/random.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { RelayMethod } from '../../src/protocol/constants.ts';
import { parseRelayRestRequest, type RelayRestRequest } from '../../src/protocol/relay-request.ts';

/** Lets every pending promise callback and immediate run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Runs `promise` to completion on `clock`: whenever nothing else can happen, jumps the clock to
 * the next scheduled action. Fails when nothing is scheduled and the promise is still pending.
 */
export async function runOnClock<T>(clock: VirtualClock, promise: Promise<T>, maxSteps = 100_000): Promise<T> {
  let done = false;
  let value: T | undefined;
  let failure: { error: unknown } | undefined;
  promise.then(
    (result) => {
      done = true;
      value = result;
    },
    (error: unknown) => {
      done = true;
      failure = { error };
    },
  );
  for (let step = 0; step < maxSteps; step += 1) {
    await settle();
    if (done) break;
    const next = clock.nextDueTime();
    if (next === undefined) throw new Error(`promise pending with nothing scheduled at ${clock.now()}`);
    clock.advanceTo(Math.max(next, clock.now()));
  }
  if (!done) throw new Error('runOnClock: too many steps');
  if (failure) throw failure.error;
  return value as T;
}

/** A random source that always draws `value` (jitter tests). */
export function constantRandom(value: number): RandomSource {
  return {
    next: () => value,
    fill: (bytes) => bytes.fill(Math.floor(value * 256)),
  };
}

export interface RecordedRequest extends HttpRequest {
  /** Clock time when the transport was called. */
  readonly at: number;
}

export type Reply = HttpResponse | Error | ((request: HttpRequest) => HttpResponse | Promise<HttpResponse>);

export interface StubTransport {
  readonly transport: HttpTransport;
  readonly requests: RecordedRequest[];
}

/** A JSON answer. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, text: JSON.stringify(body) };
}

/**
 * A transport answering from `replies` in order (the last one repeats); an Error reply rejects as a
 * network failure; a function computes the answer.
 */
export function stubTransport(clock: { now(): number }, replies: readonly Reply[] | ((request: HttpRequest) => Reply)): StubTransport {
  const requests: RecordedRequest[] = [];
  const transport: HttpTransport = async (request) => {
    requests.push({ ...request, at: clock.now() });
    const reply = typeof replies === 'function' ? replies(request) : replies[Math.min(requests.length - 1, replies.length - 1)];
    if (reply === undefined) throw new Error('no reply scripted');
    if (reply instanceof Error) throw reply;
    return typeof reply === 'function' ? reply(request) : reply;
  };
  return { transport, requests };
}

export function context(clock: VirtualClock, transport: HttpTransport, random: RandomSource = constantRandom(0.5)): ClientContext {
  return { transport, clock, random };
}

/**
 * A parsed `wallet.execute_batch` relay request of `wallet` (one post-only buy, a dummy signature):
 * what the relay REST client sends, for tests of its answers.
 */
export function batchRequest(wallet: string, requestId: string): RelayRestRequest {
  const parsed = parseRelayRestRequest(
    JSON.stringify({
      requestId,
      method: RelayMethod.executeBatch,
      wallet,
      payload: {
        header: {
          accountId: '7',
          market: '0x1111111111111111111111111111111111111111',
          authNonce: '0',
          nonce: '1723161600000',
          deadline: '1723161660',
          clientOrderId: `0x${'00'.repeat(31)}01`,
          builder: `0x${'00'.repeat(20)}`,
          builderFeePps: '0',
        },
        orders: [{ side: 'BUY', quantity: '1500', price: '34125', tif: 'GTC', executionInstruction: 'POST_ONLY', minSizeAfterBlock: '0' }],
        cancelSlotIdxs: [],
        expectedOrderIds: [],
        signature: `0x${'ab'.repeat(65)}`,
      },
      authorization7702: null,
    }),
  );
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}
