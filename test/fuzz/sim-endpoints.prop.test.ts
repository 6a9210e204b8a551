/**
 * Fuzzing the local venue's network face over real loopback: raw HTTP requests with hostile paths,
 * queries, methods, headers and bodies (market data, user data, tokens and quotes, relay auth,
 * REST relay, /sim, JSON-RPC), and hostile relay WebSocket frames. The venue answers every request
 * with a JSON error body of the documented shape (never a stack trace or a source path), bounds
 * bodies (413) and frames (close 1009), and keeps serving.
 */
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { fuzzSettings } from '../../src/testing/fuzz-settings.ts';
import { bearer, getJson, onboard, startTestVenue, TestSocket, type TestVenue } from '../sim/relay-harness.ts';
import { binaryGarbage, HOSTILE_VALUES } from './support/hostile.ts';

const MAX_BODY = 16 * 1024;
let venue: TestVenue;
let port: number;
let token: string;
const USER = '0x00000000000000000000000000000000000000aa';

beforeAll(async () => {
  venue = await startTestVenue({ blockMs: 50, maxBodyBytes: MAX_BODY });
  port = Number(new URL(venue.url).port);
  token = (await onboard(venue)).token;
});
afterAll(() => venue.stop());

interface RawAnswer {
  readonly status: number;
  readonly headers: string;
  readonly body: string;
}

/** Sends `request` as bytes on a new connection and reads the answer until the server closes it. */
function raw(request: string | Buffer, timeoutMs = 5_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms to ${JSON.stringify(String(request).slice(0, 200))}`));
    }, timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const head = split < 0 ? text : text.slice(0, split);
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0), headers: head, body: split < 0 ? '' : text.slice(split + 4) });
    });
    socket.write(request);
    // Half-close only after the server has had the chance to answer early (413 before the body).
    socket.end();
  });
}

function request(method: string, target: string, headers: Readonly<Record<string, string>>, body = ''): string {
  const lines = [`${method} ${target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== '' && headers['transfer-encoding'] === undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** A leaked stack trace or source path: what no answer may carry. */
const LEAK = /\bat [\w.<>]+ \(|\.ts:\d+|\.m?js:\d+|node_modules|\/work\/|\/home\/|\/tmp\/|file:\/\/|\bTypeError\b|\bRangeError\b|\bSyntaxError\b|ReferenceError/;

/** The documented error bodies: Binance `{code, msg}`, relay `{code, message, retryable}` (+ REST fields), user data `{error}`, JSON-RPC. */
function expectDocumentedBody(answer: RawAnswer): void {
  expect(answer.body).not.toMatch(LEAK);
  expect(answer.headers).not.toMatch(LEAK);
  if (answer.status === 204) return;
  expect(answer.headers.toLowerCase()).toContain('content-type: application/json');
  const body = JSON.parse(answer.body) as unknown;
  if (answer.status < 400) return;
  expect(typeof body).toBe('object');
  const fields = body as Record<string, unknown>;
  const binance = typeof fields['code'] === 'number' && typeof fields['msg'] === 'string';
  const relay = typeof fields['code'] === 'string' && typeof fields['message'] === 'string';
  const userData = typeof fields['error'] === 'string';
  const relayRest = fields['status'] === 'REJECTED' && typeof fields['code'] === 'string';
  const jsonRpc = fields['jsonrpc'] === '2.0' && typeof (fields['error'] as { message?: unknown } | undefined)?.message === 'string';
  expect(binance || relay || userData || relayRest || jsonRpc, answer.body.slice(0, 300)).toBe(true);
}

const PATHS = [
  '/api/v3/depth', '/api/v3/trades', '/api/v3/ticker/24hr', '/api/v3/klines', '/api/v3/exchangeInfo', `/api/v3/${USER}/user/order-events`,
  `/api/v2/${USER}/user/orders/active/${USER}`, `/api/v1/tokens/${USER}`, '/api/generate-token', '/api/quote', '/auth/challenge', '/auth/token',
  '/relay', '/rpc', '/sim/info', '/sim/fund', '/sim/faults', '/sim/faults/actions', '/sim/faults/script', '/', '*', '/relay/ws',
];
const PATH_EDITS = [
  '', '/', '//', '/..', '/../../etc/passwd', '%', '%zz', '%00', '%2e%2e%2f', '%C0%AE', '?', '??', '#x', ';x', '/%ff%fe', '/\u00e9', '/%E2%80%AE',
  `/${'a'.repeat(8_000)}`, '/:userAddress', '/__proto__', '/constructor', '/prototype', '/toString', '/hasOwnProperty',
];
const QUERIES = [
  '', 'symbol=MON_USDC', 'symbol=MON_USDC&limit=5', 'symbol=MON_USDC&limit=-1', 'symbol=MON_USDC&limit=1e3', 'symbol=MON_USDC&limit=99999999999999999999999',
  'symbol=MON_USDC&limit=1.5', 'symbol=MON_USDC&symbol=WETH_USDC', 'symbol[]=x', 'symbol=%00', 'symbol=%zz', '__proto__[x]=1', 'constructor=1',
  'symbol=MON_USDC&interval=1m&startTime=-1', 'symbol=MON_USDC&interval=NaN', 'symbol=MON_USDC&startTime=Infinity', `symbol=${'x'.repeat(6_000)}`,
  'limit=5&offset=-1&eventType=trade&fromTimestamp=2&toTimestamp=1', `marketAddress=0x${'G'.repeat(40)}`, 'access_token=abc', '&&&&', '=', 'a==b',
];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'FOO', 'get', 'CONNECT'];
const HEADER_VALUES = ['', 'Bearer', 'Bearer x', 'bearer a.b.c', `Bearer ${'x'.repeat(9_000)}`, 'Basic YTpi', 'Bearer eyJhbGciOiJub25lIn0.eyJ3YWxsZXQiOiIweCJ9.', '\u00ff\u00fe'];

const hostileRequest = fc.record({
  method: fc.constantFrom(...METHODS),
  path: fc.constantFrom(...PATHS),
  edit: fc.constantFrom(...PATH_EDITS),
  query: fc.constantFrom(...QUERIES),
  authorization: fc.option(fc.constantFrom(...HEADER_VALUES), { nil: undefined }),
  contentType: fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', ''),
  body: fc.oneof(fc.constant(''), fc.constantFrom(...HOSTILE_VALUES.filter((value) => value.length < MAX_BODY)), fc.json({ maxDepth: 3 }), binaryGarbage),
});

describe('local venue HTTP fuzz', () => {
  it('hostile requests: a documented JSON error body or an answer, never a stack or a path; it keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(hostileRequest, async (input) => {
        const target = `${input.path}${input.edit}${input.query === '' ? '' : `?${input.query}`}`;
        const headers: Record<string, string> = { 'content-type': input.contentType };
        if (input.authorization !== undefined) headers['authorization'] = input.authorization;
        const answer = await raw(request(input.method, target, headers, input.method === 'HEAD' ? '' : input.body));
        expect(answer.status).toBeGreaterThanOrEqual(200);
        // A handler that threw is a bug (500); 503 is the UNKNOWN fault, off here.
        expect(answer.status).toBeLessThan(500);
        if (input.method !== 'HEAD') expectDocumentedBody(answer);
      }),
      fuzzSettings({ numRuns: 250 }),
    );
    expect((await getJson(`${venue.url}/api/v3/exchangeInfo`)).status).toBe(200);
  });

  it('malformed HTTP (not a request line, bad header bytes, oversized headers) gets a JSON 4xx, and the venue keeps serving', async () => {
    const broken = [
      'GARBAGE\r\n\r\n',
      'GET /api/v3/exchangeInfo HTTP/9.9\r\n\r\n',
      'GET /api/v3/exchangeInfo HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
      'GET /api/v3/exchangeInfo HTTP/1.1\r\nHost: x\r\nX: \u0000\r\n\r\n',
      `GET /api/v3/exchangeInfo HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      'POST /relay HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello',
      'POST /relay HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
      'POST /relay HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]), // a TLS ClientHello
      'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n',
    ];
    for (const bytes of broken) {
      const answer = await raw(bytes);
      expect(answer.status, String(bytes).slice(0, 60)).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expectDocumentedBody(answer);
      expect(JSON.parse(answer.body)).toMatchObject({ code: -1, msg: expect.any(String) });
    }
    expect((await getJson(`${venue.url}/api/v3/exchangeInfo`)).status).toBe(200);
  });

  it('a broken WebSocket handshake on /relay/ws (with a good JWT) gets the relay error body, not the ws library’s text', async () => {
    const upgrade = (extra: string, method = 'GET') =>
      `${method} /relay/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nAuthorization: Bearer ${token}\r\n${extra}\r\n`;
    const broken = [
      upgrade('Sec-WebSocket-Version: 13\r\n'),
      upgrade('Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: not base64!\r\n'),
      upgrade('Sec-WebSocket-Version: 12\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n'),
      upgrade('Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n', 'POST'),
      upgrade('Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: a;b\r\n'),
    ];
    for (const text of broken) {
      const answer = await raw(text);
      expect(answer.status, text).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expectDocumentedBody(answer);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'INVALID_REQUEST', message: expect.any(String), retryable: false });
    }
    expect((await getJson(`${venue.url}/api/v3/exchangeInfo`)).status).toBe(200);
  });

  it('bounds request bodies: over maxBodyBytes is 413 with the route’s documented body, declared or chunked', async () => {
    const big = `{"x":"${'a'.repeat(MAX_BODY)}"}`;
    const declared = await raw(request('POST', '/relay', { 'content-type': 'application/json', ...bearer(token) }, big));
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({ requestId: null, status: 'REJECTED', code: 'PAYLOAD_TOO_LARGE', retryable: false });
    const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
    const chunked = await raw(request('POST', '/sim/fund', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, `${chunk(big.slice(0, 9_000))}${chunk(big.slice(9_000))}0\r\n\r\n`));
    expect(chunked.status).toBe(413);
    expectDocumentedBody(chunked);
    expect(JSON.parse(chunked.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: `Request body exceeds ${MAX_BODY} bytes.`, retryable: false });
    const market = await raw(request('POST', '/api/v3/depth?symbol=MON_USDC', { 'content-type': 'application/json' }, big));
    expect(market.status).toBe(405);
    expect(JSON.parse(market.body)).toEqual({ code: -1, msg: 'Method not allowed.' });
    const marketGet = await raw(request('GET', '/api/v3/depth?symbol=MON_USDC', { 'content-type': 'application/json' }, big));
    expect(marketGet.status).toBe(413);
    expect(JSON.parse(marketGet.body)).toMatchObject({ code: expect.any(Number), msg: `Request body exceeds ${MAX_BODY} bytes.` });
    const rpc = await raw(request('POST', '/rpc', { 'content-type': 'application/json' }, `[${Array.from({ length: 2_000 }, () => '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}').join(',')}]`));
    expect(rpc.status).toBe(413);
    expectDocumentedBody(rpc);
    expect(JSON.parse(rpc.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { message: expect.stringContaining(`${MAX_BODY} bytes`) } });
    // Nesting is bounded too (strict JSON, 64 levels): deeper is INVALID_JSON, not a deep recursion.
    const deep = `${'{"a":'.repeat(70)}1${'}'.repeat(70)}`;
    const relayDeep = await raw(request('POST', '/relay', { 'content-type': 'application/json', ...bearer(token) }, deep));
    expect(relayDeep.status).toBe(400);
    expect(JSON.parse(relayDeep.body)).toMatchObject({ status: 'REJECTED', code: 'INVALID_JSON' });
    const simDeep = await raw(request('POST', '/sim/fund', { 'content-type': 'application/json' }, deep));
    expect(simDeep.status).toBe(400);
    expect(JSON.parse(simDeep.body)).toMatchObject({ code: 'INVALID_JSON', retryable: false });
    expect((await getJson(`${venue.url}/api/v3/exchangeInfo`)).status).toBe(200);
  });

  it('JSON-RPC: hostile calls are answered 200 with JSON-RPC errors, never a stack', async () => {
    const call = fc.oneof(
      fc.constantFrom(...HOSTILE_VALUES.filter((value) => value.length < MAX_BODY)),
      fc.record({ jsonrpc: fc.constantFrom('2.0', '1.0', 2, null), id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.constant(null), fc.constant({})), method: fc.constantFrom('eth_chainId', 'eth_blockNumber', 'eth_getTransactionReceipt', 'eth_call', 'eth_sendRawTransaction', '__proto__', 'constructor', 'toString', ''), params: fc.jsonValue({ maxDepth: 3 }) }).map((value) => JSON.stringify(value)),
      fc.array(fc.constantFrom('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}', '{"jsonrpc":"2.0","method":"eth_chainId"}', '1', '[]', '{"jsonrpc":"2.0","id":2,"method":"eth_getTransactionReceipt","params":["0xzz"]}'), { maxLength: 5 }).map((items) => `[${items.join(',')}]`),
    );
    await fc.assert(
      fc.asyncProperty(call, async (body) => {
        const answer = await raw(request('POST', '/rpc', { 'content-type': 'application/json' }, body));
        expect([200, 204]).toContain(answer.status);
        expectDocumentedBody(answer);
        if (answer.status === 200) {
          const parsed = JSON.parse(answer.body) as unknown;
          for (const item of Array.isArray(parsed) ? parsed : [parsed]) expect(item).toMatchObject({ jsonrpc: '2.0' });
        }
      }),
      fuzzSettings({ numRuns: 120 }),
    );
  });
});

describe('local venue relay WebSocket fuzz', () => {
  it('hostile frames are each answered, the socket stays open; an oversized frame closes it with 1009; a new connection works', async () => {
    const socket = await TestSocket.connect(venue.url, token);
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.constantFrom(...HOSTILE_VALUES.filter((value) => value.length < MAX_BODY)), binaryGarbage, fc.json({ maxDepth: 4 })), async (frame) => {
        round += 1;
        const start = socket.messages.length;
        socket.ws.send(round % 3 === 0 ? Buffer.from(frame, 'utf8') : frame);
        socket.send(JSON.stringify({ id: `sentinel-${round}` }));
        await socket.until((s) => s.messages.slice(start).some((message) => message.id === `sentinel-${round}`));
        const answers = socket.messages.slice(start).filter((message) => message.type !== 'outcome');
        expect(answers).toHaveLength(2);
        for (const answer of answers) expect(JSON.stringify(answer)).not.toMatch(LEAK);
        expect(socket.closed).toBeUndefined();
      }),
      fuzzSettings({ numRuns: 100 }),
    );
    socket.ws.send('x'.repeat(MAX_BODY + 1));
    await socket.until((s) => s.closed !== undefined);
    expect(socket.closed?.code).toBe(1009);
    const again = await TestSocket.connect(venue.url, token);
    again.send(JSON.stringify({ id: 'after' }));
    await again.until((s) => s.messages.some((message) => message.id === 'after'));
    again.ws.close();
    expect(again.ws.readyState).not.toBe(WebSocket.OPEN);
  });
});
