import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchTransport } from '../../src/clients/http-transport.ts';

let server: Server;
let base = '';
const seenAuthorization: (string | undefined)[] = [];

function handler(request: IncomingMessage, response: ServerResponse) {
  const path = request.url ?? '';
  if (path === '/hang') return; // never answers
  if (path === '/redirect') {
    response.writeHead(302, { location: `${base}/landing` });
    response.end();
    return;
  }
  if (path === '/landing') seenAuthorization.push(request.headers.authorization);
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk.toString()));
  request.on('end', () => {
    const status = path === '/missing' ? 404 : path === '/broken' ? 503 : 200;
    response.writeHead(status, { 'Content-Type': 'application/json', 'X-MBX-USED-WEIGHT-1M': '7' });
    response.end(JSON.stringify({ method: request.method, path, body }));
  });
}

beforeAll(async () => {
  server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('createFetchTransport (live, over a local socket)', () => {
  it('answers every status with the text and lowercase headers', async () => {
    const transport = createFetchTransport();
    const ok = await transport({ method: 'POST', url: `${base}/echo`, headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.text)).toEqual({ method: 'POST', path: '/echo', body: '{"a":1}' });
    expect(ok.headers['x-mbx-used-weight-1m']).toBe('7');
    expect((await transport({ method: 'GET', url: `${base}/missing`, headers: {} })).status).toBe(404);
    expect((await transport({ method: 'GET', url: `${base}/broken`, headers: {} })).status).toBe(503);
  });

  it('a refused connection is HTTP_UNAVAILABLE, marked as never sent', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(createFetchTransport()({ method: 'GET', url: `http://127.0.0.1:${port}/api/v3/depth`, headers: {} })).rejects.toMatchObject({
      code: 'HTTP_UNAVAILABLE',
      details: { socketError: 'ECONNREFUSED', requestMayHaveBeenSent: false },
    });
  });

  it('its own socket timeout is HTTP_TIMEOUT; the caller abort rejects with the caller reason', async () => {
    await expect(createFetchTransport({ socketTimeoutMs: 100 })({ method: 'GET', url: `${base}/hang`, headers: {} })).rejects.toMatchObject({ code: 'HTTP_TIMEOUT' });
    const controller = new AbortController();
    const pending = createFetchTransport()({ method: 'GET', url: `${base}/hang`, headers: {}, signal: controller.signal });
    const reason = new Error('caller stopped');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('never follows a redirect with a credential', async () => {
    const transport = createFetchTransport();
    await expect(transport({ method: 'GET', url: `${base}/redirect`, headers: { authorization: 'Bearer secret-token' } })).rejects.toMatchObject({ code: 'HTTP_UNAVAILABLE' });
    expect(seenAuthorization).toEqual([]);
    expect((await transport({ method: 'GET', url: `${base}/redirect`, headers: {} })).status).toBe(200);
  });
});
