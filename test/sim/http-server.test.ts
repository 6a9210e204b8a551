import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { liveClock, type Clock } from '../../src/core/clock.ts';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { createLogger } from '../../src/core/logger.ts';
import type { SimRoute } from '../../src/sim/http-types.ts';
import { createHttpServer, type HttpServer } from '../../src/sim/http-server.ts';
import { createSimDispatch } from '../../src/sim/route-dispatch.ts';

/** A logger whose lines are kept, to check what reaches the log. */
function capturingLogger() {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void lines.push(line) } });
  return { logger, lines };
}

const routes: SimRoute[] = [
  { method: 'GET', pattern: '/api/v3/depth', handler: () => ({ status: 200, body: { literal: true } }) },
  {
    method: 'GET',
    pattern: '/api/v3/:user/echo',
    handler: (request) => ({ status: 200, headers: { 'X-Test': 'yes' }, body: { params: request.params, query: Object.fromEntries(request.query), ip: request.ip } }),
  },
  { method: 'POST', pattern: '/echo', handler: (request) => ({ status: 201, body: { length: request.body.length, body: request.body } }) },
  {
    method: 'POST',
    pattern: '/small',
    maxBodyBytes: 8,
    failureBody: (failure, message) => ({ error: `${failure}: ${message}` }),
    handler: (request) => ({ status: 200, body: { body: request.body } }),
  },
  {
    method: 'GET',
    pattern: '/throw',
    handler: () => {
      throw new Error('boom with Bearer eyJhbGciOiJIUzI1NiJ9.eyJ1c2VyIjoiMHgifQ.c2lnbmF0dXJl');
    },
  },
  { method: 'GET', pattern: '/reject', handler: () => Promise.reject(new Error('async boom')) },
  { method: 'GET', pattern: '/bigint', handler: () => ({ status: 200, body: { value: 1n } }) },
  {
    method: 'GET',
    pattern: '/slow',
    handler: () => {
      held.entered();
      return { status: 200, body: 'slow', delayMs: 1500 };
    },
  },
  {
    method: 'GET',
    pattern: '/held',
    handler: () => {
      held.entered();
      return held.answer;
    },
  },
];

/** `/held` tells when a request reached its handler, and answers only when the test releases it. */
let held = holdGate();
function holdGate() {
  let entered!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (entered = resolve));
  const answer = new Promise<{ status: number; body: unknown }>((resolve) => (release = () => resolve({ status: 200, body: 'late' })));
  return { entered, reached, answer, release };
}

let server: HttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(maxBodyBytes = 1024, clock: Clock = liveClock) {
  const { logger, lines } = capturingLogger();
  server = createHttpServer({ dispatch: createSimDispatch({ routes, maxBodyBytes, logger }), logger, clock });
  const { url, port } = await server.listen(0);
  return { url, port, lines };
}

/** A raw request with node:http (no keep-alive), for bodies fetch would not send as asked. */
function rawRequest(url: string, options: { method: string; path: string; headers?: Record<string, string>; body?: Buffer }) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const target = new URL(options.path, url);
    const request = httpRequest(target, { method: options.method, headers: options.headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    // The server may answer and close before the whole upload is written: that is the point.
    request.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    if (options.body !== undefined) request.end(options.body);
    else request.end();
  });
}

describe('createHttpServer', () => {
  it('listens on a free loopback port and answers JSON with path params, query and client IP', async () => {
    const { url, port } = await start();
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(port).toBeGreaterThan(0);
    const response = await fetch(`${url}/api/v3/0xAbC/echo?limit=5&type=FULL`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-test')).toBe('yes');
    expect(await response.json()).toEqual({ params: { user: '0xAbC' }, query: { limit: '5', type: 'FULL' }, ip: '127.0.0.1' });
  });

  it('prefers a literal segment over a parameter and decodes percent-encoded params', async () => {
    const { url } = await start();
    expect(await (await fetch(`${url}/api/v3/depth`)).json()).toEqual({ literal: true });
    const decoded = (await (await fetch(`${url}/api/v3/a%20b/echo`)).json()) as { params: unknown };
    expect(decoded.params).toEqual({ user: 'a b' });
  });

  it('answers 404 for an unknown path and 405 with Allow for a known path with another method', async () => {
    const { url } = await start();
    const missing = await fetch(`${url}/api/v3/nothing-here`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/json');
    expect(await missing.json()).toEqual({ code: -1, msg: 'Not found.' });
    expect((await fetch(`${url}/api/v3/depth/`)).status).toBe(404);
    expect((await fetch(`${url}/api/v3/%E0%A4%A/echo`)).status).toBe(404);

    const wrongMethod = await fetch(`${url}/api/v3/depth`, { method: 'POST', body: '{}' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
    expect(await wrongMethod.json()).toEqual({ code: -1, msg: 'Method not allowed.' });
    expect((await fetch(`${url}/echo`, { method: 'DELETE' })).status).toBe(405);
  });

  it('reads a body within the limit and refuses a larger one with 413 without reading it', async () => {
    const { url } = await start(1024);
    const ok = await fetch(`${url}/echo`, { method: 'POST', body: 'x'.repeat(1024) });
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as { length: number }).length).toBe(1024);

    // Declared too large: refused from the header alone.
    const declared = await rawRequest(url, { method: 'POST', path: '/echo', body: Buffer.alloc(4 * 1024 * 1024, 120) });
    expect(declared.status).toBe(413);
    expect(declared.headers['content-type']).toBe('application/json');
    expect(JSON.parse(declared.body)).toEqual({ code: -1, msg: 'Request body exceeds 1024 bytes.' });

    // Chunked (no length): refused as soon as the count passes the limit.
    const chunked = await rawRequest(url, {
      method: 'POST',
      path: '/echo',
      headers: { 'Transfer-Encoding': 'chunked' },
      body: Buffer.alloc(256 * 1024, 120),
    });
    expect(chunked.status).toBe(413);

    // fetch sees the 413 too.
    const viaFetch = await fetch(`${url}/echo`, { method: 'POST', body: 'y'.repeat(2048) });
    expect(viaFetch.status).toBe(413);

    // A route's own limit and error style.
    const small = await fetch(`${url}/small`, { method: 'POST', body: '123456789' });
    expect(small.status).toBe(413);
    expect(await small.json()).toEqual({ error: 'payload-too-large: Request body exceeds 8 bytes.' });

    // The server still serves.
    expect((await fetch(`${url}/api/v3/depth`)).status).toBe(200);
  });

  it('answers 500 when a handler throws, rejects or answers a non-JSON body, logs it, and keeps serving', async () => {
    const { url, lines } = await start();
    for (const path of ['/throw', '/reject', '/bigint']) {
      const response = await fetch(`${url}${path}`);
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ code: -1000, msg: 'Internal server error.' });
    }
    expect((await fetch(`${url}/api/v3/depth`)).status).toBe(200);
    const errors = lines.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((line) => line.level === 50);
    expect(errors.map((line) => line.msg)).toEqual(['sim route handler failed', 'sim route handler failed', 'sim route handler failed']);
    expect(lines.join('\n')).not.toContain('eyJhbGciOiJIUzI1NiJ9');
  });

  it('serves many concurrent requests on keep-alive connections', async () => {
    const { url } = await start();
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => fetch(`${url}/api/v3/u${i}/echo`).then((r) => r.json() as Promise<{ params: { user: string } }>)));
    expect(answers.map((answer) => answer.params.user)).toEqual(Array.from({ length: 50 }, (_, i) => `u${i}`));
  });

  it('refuses upgrades without an upgrade handler and hands them over with one', async () => {
    const { url } = await start();
    const refused = await rawRequest(url, { method: 'GET', path: '/relay/ws', headers: { Connection: 'Upgrade', Upgrade: 'websocket' } }).catch(
      (error: Error) => error,
    );
    expect(refused).not.toBeInstanceOf(Error);
    expect((refused as { status: number }).status).toBe(426);

    await server!.close();
    const { logger } = capturingLogger();
    const seen: string[] = [];
    server = createHttpServer({
      dispatch: createSimDispatch({ routes, maxBodyBytes: 1024, logger }),
      logger,
      clock: liveClock,
      upgrade: (request, socket) => {
        seen.push(request.url ?? '');
        socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      },
    });
    const second = await server.listen(0);
    const handed = await rawRequest(second.url, { method: 'GET', path: '/relay/ws', headers: { Connection: 'Upgrade', Upgrade: 'websocket' } });
    expect(handed.status).toBe(401);
    expect(seen).toEqual(['/relay/ws']);
  });

  it('closes idempotently, also with an idle keep-alive connection and a request in flight', async () => {
    const { url } = await start();
    expect((await fetch(`${url}/api/v3/depth`)).status).toBe(200); // leaves an idle keep-alive socket
    held = holdGate();
    const inFlight = fetch(`${url}/held`).catch((error: unknown) => error);
    await held.reached;
    const current = server!;
    await Promise.all([current.close(), current.close()]);
    await current.close();
    // Cut while its handler still had no answer.
    expect(await inFlight).toBeInstanceOf(Error);
    held.release();
    await expect(fetch(`${url}/api/v3/depth`)).rejects.toThrow();
  });

  it('holds an answer with delayMs back on the clock (a slow-response fault) before writing it', async () => {
    held = holdGate();
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const { url } = await start(1024, clock);
    const response = fetch(`${url}/slow`);
    await held.reached;
    // The handler has answered; the server waits for the clock, not for wall time.
    await new Promise((resolve) => setImmediate(resolve));
    expect(clock.nextDueTime()).toBe(clock.now() + 1500);
    clock.advanceBy(1500);
    expect(await (await response).json()).toBe('slow');
  });

  it('closes a server that never listened', async () => {
    const { logger } = capturingLogger();
    await createHttpServer({ dispatch: createSimDispatch({ routes, maxBodyBytes: 1024, logger }), logger, clock: liveClock }).close();
  });

  it('rejects listen on a port in use', async () => {
    const { port } = await start();
    const { logger } = capturingLogger();
    const other = createHttpServer({ dispatch: createSimDispatch({ routes, maxBodyBytes: 1024, logger }), logger, clock: liveClock });
    await expect(other.listen(port)).rejects.toMatchObject({
      code: 'SIM_LISTEN_FAILED',
      message: expect.stringContaining('the port is in use'),
      details: expect.objectContaining({ errno: 'EADDRINUSE' }),
    });
    await other.close();
  });
});

