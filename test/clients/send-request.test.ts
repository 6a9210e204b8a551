import { describe, expect, it } from 'vitest';
import { backoffDelayMs, DEFAULT_RETRY_POLICY, parseRetryAfterMs } from '../../src/clients/retry-policy.ts';
import { sendRequest, type SendRequestParameters } from '../../src/clients/send-request.ts';
import type { HttpRequest } from '../../src/clients/http-transport.ts';
import { seededRandom } from '../../src/core/random.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { constantRandom, context, json, runOnClock, settle, stubTransport, type Reply } from './support.ts';

const START = 1_700_000_000_000;
const GET = { method: 'GET', url: 'http://venue.test/api/v3/trades?symbol=MON_USDC', headers: {} } as const;

function run(replies: readonly Reply[] | ((request: HttpRequest) => Reply), params: Partial<SendRequestParameters> = {}) {
  const clock = new VirtualClock(START);
  const stub = stubTransport(clock, replies);
  const promise = sendRequest(context(clock, stub.transport), {
    request: GET,
    idempotent: true,
    timeoutMs: 1_000,
    retry: DEFAULT_RETRY_POLICY,
    ...params,
  });
  return { clock, stub, promise, offsets: () => stub.requests.map((request) => request.at - START) };
}

describe('sendRequest: retries of idempotent reads', () => {
  it('retries a 5xx with exponential backoff and equal jitter, then returns the last answer', async () => {
    const { clock, promise, offsets } = run([json(503, { code: -1001, msg: 'busy' })]);
    const answer = await runOnClock(clock, promise);
    expect(answer.status).toBe(503);
    // r = 0.5 -> 0.75 of 250, 500, 1000 ms
    expect(offsets()).toEqual([0, 188, 188 + 375, 188 + 375 + 750]);
  });

  it('retries after no answer and returns the first good answer', async () => {
    const { clock, promise, offsets } = run([new Error('ECONNRESET'), new Error('ECONNRESET'), json(200, [])]);
    expect((await runOnClock(clock, promise)).status).toBe(200);
    expect(offsets()).toEqual([0, 188, 563]);
  });

  it('throws HTTP_UNAVAILABLE with the cause once the attempts run out', async () => {
    const { clock, promise, stub } = run([new Error('socket hang up')]);
    await expect(runOnClock(clock, promise)).rejects.toMatchObject({ code: 'HTTP_UNAVAILABLE', cause: expect.objectContaining({ message: 'socket hang up' }) });
    expect(stub.requests).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts);
  });

  it('never retries a 4xx', async () => {
    for (const status of [400, 401, 403, 404, 418]) {
      const { clock, promise, stub } = run([json(status, { code: -1121, msg: 'Invalid symbol.' })]);
      expect((await runOnClock(clock, promise)).status).toBe(status);
      expect(stub.requests).toHaveLength(1);
    }
  });

  it('never retries a request that is not idempotent, whatever happened', async () => {
    for (const reply of [json(503, {}), json(429, {}, { 'retry-after': '1' }), new Error('ECONNRESET')]) {
      const { clock, promise, stub } = run([reply], { idempotent: false });
      await runOnClock(clock, promise).catch(() => undefined);
      expect(stub.requests).toHaveLength(1);
    }
  });

  it('waits at least Retry-After after a 429', async () => {
    const { clock, promise, offsets } = run([json(429, { code: -1003, msg: 'Too much request weight used' }, { 'retry-after': '3' }), json(200, [])]);
    expect((await runOnClock(clock, promise)).status).toBe(200);
    expect(offsets()).toEqual([0, 3_000]);
  });

  it('returns a 429 at once when Retry-After is longer than the policy waits', async () => {
    const { clock, promise, stub } = run([json(429, {}, { 'retry-after': '45' })]);
    expect((await runOnClock(clock, promise)).status).toBe(429);
    expect(stub.requests).toHaveLength(1);
  });

  it('jitters each backoff within [1 - jitter, 1) of the exponential delay', () => {
    const random = seededRandom(7);
    for (let retry = 1; retry <= 8; retry += 1) {
      const exponential = Math.min(8_000, 250 * 2 ** (retry - 1));
      for (let i = 0; i < 50; i += 1) {
        const wait = backoffDelayMs(DEFAULT_RETRY_POLICY, { retry, random });
        expect(wait).toBeGreaterThanOrEqual(exponential / 2);
        expect(wait).toBeLessThanOrEqual(exponential);
      }
    }
  });
});

describe('sendRequest: timeouts and abort', () => {
  it('abandons an attempt after timeoutMs on the clock, aborts its signal, and retries a read', async () => {
    const signals: AbortSignal[] = [];
    const { clock, promise, offsets } = run((request) => () => {
      signals.push(request.signal!);
      return new Promise(() => undefined);
    }, { retry: { ...DEFAULT_RETRY_POLICY, maxAttempts: 2 } });
    await expect(runOnClock(clock, promise)).rejects.toMatchObject({ code: 'HTTP_TIMEOUT', details: expect.objectContaining({ timeoutMs: 1_000 }) });
    expect(offsets()).toEqual([0, 1_000 + 188]);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
    expect(clock.now()).toBe(START + 1_000 + 188 + 1_000);
  });

  it('throws HTTP_ABORTED when the caller aborts during an attempt, and aborts the transport', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const { promise } = run((request) => () => {
      seen = request.signal;
      return new Promise(() => undefined);
    }, { signal: controller.signal });
    await settle();
    controller.abort(new Error('shutting down'));
    await expect(promise).rejects.toMatchObject({ code: 'HTTP_ABORTED', details: { requestMayHaveBeenSent: true } });
    expect(seen?.aborted).toBe(true);
  });

  it('throws HTTP_ABORTED when the caller aborts during a backoff, without another attempt', async () => {
    const controller = new AbortController();
    const { promise, stub } = run([json(500, {})], { signal: controller.signal });
    await settle();
    expect(stub.requests).toHaveLength(1);
    controller.abort();
    await expect(promise).rejects.toMatchObject({ code: 'HTTP_ABORTED' });
    expect(stub.requests).toHaveLength(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const { promise, stub } = run([json(200, [])], { signal: controller.signal });
    await expect(promise).rejects.toMatchObject({ code: 'HTTP_ABORTED', details: { requestMayHaveBeenSent: false } });
    expect(stub.requests).toHaveLength(0);
  });
});

describe('parseRetryAfterMs', () => {
  it('reads delta seconds and HTTP dates', () => {
    expect(parseRetryAfterMs('7', 0)).toBe(7_000);
    expect(parseRetryAfterMs(' 0 ', 0)).toBe(0);
    expect(parseRetryAfterMs('Wed, 21 Oct 2015 07:28:10 GMT', Date.UTC(2015, 9, 21, 7, 28, 0))).toBe(10_000);
    expect(parseRetryAfterMs('Wed, 21 Oct 2015 07:28:10 GMT', Date.UTC(2016, 0, 1))).toBe(0);
    expect(parseRetryAfterMs(undefined, 0)).toBeUndefined();
    expect(parseRetryAfterMs('-1', 0)).toBeUndefined();
    expect(parseRetryAfterMs('soon', 0)).toBeUndefined();
  });

  it('uses a constant random source when told (deterministic jitter)', () => {
    expect(backoffDelayMs(DEFAULT_RETRY_POLICY, { retry: 1, random: constantRandom(0) })).toBe(125);
    expect(backoffDelayMs(DEFAULT_RETRY_POLICY, { retry: 10, random: constantRandom(0.999999) })).toBe(8_000);
  });
});
