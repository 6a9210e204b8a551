import { describe, expect, it } from 'vitest';
import { createQuoteClient } from '../../src/clients/quote-client.ts';
import type { HttpRequest, HttpResponse } from '../../src/clients/http-transport.ts';
import { clockDelay } from '../../src/clients/clock-delay.ts';
import { seededRandom } from '../../src/core/random.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { context, json, runOnClock, settle, stubTransport } from './support.ts';

const START = Date.UTC(2024, 7, 8, 12, 0, 0);
const USER = '0x1111111111111111111111111111111111111111';
const TOKEN_IN = '0x2222222222222222222222222222222222222222';
const TOKEN_OUT = '0x3333333333333333333333333333333333333333';
const REQUEST = { userAddress: USER, tokenIn: TOKEN_IN, tokenOut: TOKEN_OUT, amount: '1000000', slippageTolerance: 50, autoSlippage: false };
const QUOTE = { type: 'swap_calculation', status: 'success', output: '990000', path: {}, buildResponse: {}, gasPrices: {}, message: 'ok' };

/**
 * A quote host on the clock: tokens live `lifetimeSec`; each token may quote once per second with
 * burst 1, counted when the request arrives (a random share of the latency after sending).
 */
function quoteServer(clock: VirtualClock, options: { lifetimeSec: number; latencyMs?: number; seed?: number }) {
  const random = seededRandom(options.seed ?? 1);
  const latency = options.latencyMs ?? 0;
  let issued = 0;
  const lastArrival = new Map<string, number>();
  const arrivals = new Map<string, number[]>();
  let tooMany = 0;
  const revoked = new Set<string>();
  const handle = async (request: HttpRequest): Promise<HttpResponse> => {
    const up = Math.round(random.next() * latency);
    await clockDelay(clock, { ms: up });
    const now = clock.now();
    let answer: HttpResponse;
    if (request.url.endsWith('/api/generate-token')) {
      issued += 1;
      const body = JSON.parse(request.body ?? '{}') as { user_address: string };
      expect(body).toEqual({ user_address: USER });
      answer = json(200, { token: `eyJhbGciOiJIUzI1NiJ9.eyJ0${issued}.sig${issued}`, expires_at: Math.floor(now / 1000) + options.lifetimeSec, rate_limit: { rps: 1, burst: 1 } });
    } else {
      const token = /^Bearer (.+)$/.exec(request.headers['authorization'] ?? '')?.[1] ?? '';
      const expires = Number(/sig(\d+)$/.exec(token)?.[1] ?? '0');
      if (token === '' || revoked.has(token) || expires === 0) answer = json(401, { error: 'invalid token' });
      else {
        const previous = lastArrival.get(token);
        if (previous !== undefined && now - previous < 1000) {
          tooMany += 1;
          answer = json(429, { error: 'rate limit exceeded' }, { 'retry-after': '1' });
        } else {
          lastArrival.set(token, now);
          arrivals.set(token, [...(arrivals.get(token) ?? []), now]);
          answer = json(200, QUOTE);
        }
      }
    }
    await clockDelay(clock, { ms: latency - up });
    return answer;
  };
  return {
    handle,
    issued: () => issued,
    tooMany: () => tooMany,
    arrivals,
    revoke: (token: string) => revoked.add(token),
  };
}

function setup(options: { lifetimeSec: number; latencyMs?: number; renewBeforeMs?: number }) {
  const clock = new VirtualClock(START);
  const server = quoteServer(clock, options);
  const stub = stubTransport(clock, () => server.handle);
  const client = createQuoteClient(context(clock, stub.transport), {
    baseUrl: 'http://quote.test',
    ...(options.renewBeforeMs === undefined ? {} : { renewBeforeMs: options.renewBeforeMs }),
  });
  return { clock, server, stub, client };
}

describe('quote client', () => {
  it('issues one JWT and reuses it for every quote until expires_at minus the margin', async () => {
    const { clock, server, client, stub } = setup({ lifetimeSec: 600, renewBeforeMs: 30_000 });
    for (let i = 0; i < 5; i += 1) expect(await runOnClock(clock, client.quote(REQUEST))).toMatchObject({ status: 'success', output: '990000' });
    expect(server.issued()).toBe(1);
    clock.advanceTo(START + 570_000 - 1);
    await runOnClock(clock, client.quote(REQUEST));
    expect(server.issued()).toBe(1);
    clock.advanceTo(START + 570_000);
    await runOnClock(clock, client.quote(REQUEST));
    expect(server.issued()).toBe(2);
    // The token goes in the Authorization header only.
    for (const request of stub.requests) expect(request.url).not.toMatch(/eyJ|sig/);
    expect(stub.requests.filter((request) => request.url.endsWith('/api/quote')).every((request) => request.headers['authorization']?.startsWith('Bearer eyJ'))).toBe(true);
  });

  it('never causes a 429: many concurrent quotes arrive at least 1 s apart per token, whatever the latency', async () => {
    for (const latencyMs of [0, 40, 700, 2_500]) {
      const { clock, server, client } = setup({ lifetimeSec: 3_600, latencyMs });
      const quotes = Array.from({ length: 12 }, () => client.quote(REQUEST));
      const answers = await runOnClock(clock, Promise.all(quotes));
      expect(answers.every((answer) => answer.status === 'success')).toBe(true);
      expect(server.tooMany()).toBe(0);
      expect(server.issued()).toBe(1);
      const times = [...server.arrivals.values()].flat();
      expect(times).toHaveLength(12);
      for (let i = 1; i < times.length; i += 1) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(1_000);
    }
  });

  it('keeps the pace across a token renewal (the new token gets no extra burst)', async () => {
    const { clock, server, client } = setup({ lifetimeSec: 4, renewBeforeMs: 1_000 });
    const answers = await runOnClock(clock, Promise.all(Array.from({ length: 10 }, () => client.quote(REQUEST))));
    expect(answers).toHaveLength(10);
    expect(server.issued()).toBeGreaterThan(1);
    const times = [...server.arrivals.values()].flat().sort((a, b) => a - b);
    for (let i = 1; i < times.length; i += 1) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(1_000);
    expect(server.tooMany()).toBe(0);
  });

  it('issues a new JWT once after a 401 (revoked token) and retries the quote', async () => {
    const { clock, server, client, stub } = setup({ lifetimeSec: 3_600 });
    await runOnClock(clock, client.quote(REQUEST));
    const first = stub.requests.find((request) => request.url.endsWith('/api/quote'))!.headers['authorization']!.slice('Bearer '.length);
    server.revoke(first);
    clock.advanceBy(5_000);
    expect(await runOnClock(clock, client.quote(REQUEST))).toMatchObject({ status: 'success' });
    expect(server.issued()).toBe(2);
  });

  it('one generate-token for concurrent first quotes', async () => {
    const { clock, server, client } = setup({ lifetimeSec: 3_600, latencyMs: 100 });
    await runOnClock(clock, Promise.all([client.quote(REQUEST), client.quote(REQUEST), client.quote(REQUEST)]));
    expect(server.issued()).toBe(1);
  });

  it('a refusal is QUOTE_REFUSED with the server message and no token in it', async () => {
    const clock = new VirtualClock(START);
    const token = 'eyJhbGciOiJIUzI1NiJ9.eyJ1c2VyIjoiMHgxMSJ9.c2lnbmF0dXJl';
    const stub = stubTransport(clock, [
      json(200, { token, expires_at: START / 1000 + 3_600, rate_limit: { rps: 1, burst: 1 } }),
      json(400, { error: `slippageTolerance: Too big (token ${token})` }),
    ]);
    const client = createQuoteClient(context(clock, stub.transport), { baseUrl: 'http://quote.test' });
    const error = await runOnClock(clock, client.quote(REQUEST)).catch((caught: unknown) => caught as Error);
    expect(error).toMatchObject({ code: 'QUOTE_REFUSED', status: 400 });
    expect(String((error as Error).message)).not.toContain(token);
    expect(JSON.stringify(error)).not.toContain(token);
  });

  it('a quote waiting for its turn is aborted by its signal, without sending', async () => {
    const { clock, client, stub } = setup({ lifetimeSec: 3_600 });
    await runOnClock(clock, client.quote(REQUEST));
    const controller = new AbortController();
    const waiting = client.quote(REQUEST, { signal: controller.signal });
    // Its turn is a clock time that never comes here; a quote that did not wait would be sent by now.
    await settle();
    expect(clock.nextDueTime()).toBeGreaterThan(clock.now());
    const sent = stub.requests.length;
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'HTTP_ABORTED' });
    expect(stub.requests).toHaveLength(sent);
    // The limiter is free again for the next quote.
    expect(await runOnClock(clock, client.quote(REQUEST))).toMatchObject({ status: 'success' });
  });

  it('refuses a malformed request before sending anything', async () => {
    const clock = new VirtualClock(START);
    const stub = stubTransport(clock, [json(200, {})]);
    const client = createQuoteClient(context(clock, stub.transport), { baseUrl: 'http://quote.test' });
    await expect(client.quote({ ...REQUEST, slippageTolerance: 0 })).rejects.toMatchObject({ code: 'PROTOCOL_SCHEMA_MISMATCH' });
    expect(stub.requests).toHaveLength(0);
  });
});
