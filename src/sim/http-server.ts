/**
 * The simulated venue's HTTP server over node:http: routing by method and `:param` patterns,
 * bodies read under a size limit, JSON answers, and a handler that throws answered with a 500
 * while the server keeps serving. Routes are plain functions (`SimRoute`), so everything here is
 * framing; WebSocket upgrades are handed to `upgrade` untouched.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { BaseError } from '../core/base-error.ts';
import { MarketErrorCode } from '../protocol/constants.ts';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { SimFailure, SimRequest, SimResponse, SimRoute } from './http-types.ts';
import { createRouteMatcher } from './route-matcher.ts';

export interface CreateHttpServerParameters {
  readonly routes: readonly SimRoute[];
  /** Takes over a request with `Upgrade` (the relay WebSocket); without it upgrades are refused. */
  readonly upgrade?: (request: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /** Larger bodies are refused with HTTP 413 (a route may set its own limit). */
  readonly maxBodyBytes: number;
  readonly logger: Logger;
  /** Times requests for the debug log. */
  readonly clock: Clock;
}

export interface ListeningAddress {
  /** `http://<host>:<port>`, no trailing slash. */
  readonly url: string;
  readonly port: number;
}

export interface HttpServer {
  /** Starts listening; port 0 picks a free port. Resolves once listening. */
  listen(port?: number, host?: string): Promise<ListeningAddress>;
  /**
   * Stops accepting, closes every connection (keep-alive, in-flight and upgraded sockets: close the
   * WebSocket server first for a clean close frame) and resolves when the server is closed. Idempotent.
   */
  close(): Promise<void>;
}

const JSON_CONTENT_TYPE = 'application/json';

/** The Binance-style body of the server's own answers (unknown path, wrong method, 413, 500). */
function defaultFailureBody(failure: SimFailure, message: string): unknown {
  return { code: failure === 'internal-error' ? MarketErrorCode.UNKNOWN : -1, msg: message };
}

const FAILURE_STATUS: Readonly<Record<SimFailure, number>> = { 'payload-too-large': 413, 'internal-error': 500 };

/** `::ffff:127.0.0.1` (an IPv4 client on a dual-stack socket) -> `127.0.0.1`. */
export function clientIp(socket: Pick<Socket, 'remoteAddress'>): string {
  const address = socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

type BodyResult = { readonly ok: true; readonly text: string } | { readonly ok: false };

/**
 * Reads the body up to `limit` bytes. Over it, stops keeping chunks (the rest is discarded as it
 * arrives) and reports failure at once, so the 413 goes out without waiting for the whole upload.
 */
function readBody(request: IncomingMessage, limit: number): Promise<BodyResult> {
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  if (declared > limit) {
    request.resume();
    return Promise.resolve({ ok: false });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const onData = (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        chunks.length = 0;
        resolve({ ok: false });
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => {
      if (done) return;
      done = true;
      resolve({ ok: true, text: Buffer.concat(chunks, size).toString('utf8') });
    });
    // An aborted upload: nobody reads the answer, but settle the promise.
    request.once('error', () => {
      if (done) return;
      done = true;
      resolve({ ok: false });
    });
  });
}

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

/**
 * An HTTP server for `routes`. Unknown paths answer 404 `{code: -1, msg}`, a known path with another
 * method 405 with `Allow`, a body over the limit 413, a handler that throws 500 (logged; the
 * server keeps serving). Every answer is JSON with `Content-Type: application/json`.
 *
 * @example
 * const server = createHttpServer({ routes, maxBodyBytes: 1 << 20, logger, clock: liveClock });
 * const { url } = await server.listen(0); // http://127.0.0.1:43121
 * await server.close();
 */
export function createHttpServer(params: CreateHttpServerParameters): HttpServer {
  const { logger, clock } = params;
  const matcher = createRouteMatcher(params.routes);
  const sockets = new Set<Socket>();

  function send(response: ServerResponse, answer: SimResponse, extraHeaders: Readonly<Record<string, string>> = {}, text?: string): void {
    const payload = Buffer.from(text ?? JSON.stringify(answer.body) ?? 'null', 'utf8');
    response.writeHead(answer.status, {
      ...answer.headers,
      ...extraHeaders,
      'Content-Type': JSON_CONTENT_TYPE,
      'Content-Length': String(payload.length),
    });
    response.end(payload);
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const started = clock.now();
    const method = request.method ?? 'GET';
    const { path, query } = splitTarget(request.url ?? '');
    const match = matcher.match(method, path);
    let status: number;
    if (match.kind === 'not-found') {
      status = 404;
      send(response, { status, body: { code: -1, msg: 'Not found.' } });
    } else if (match.kind === 'method-not-allowed') {
      status = 405;
      send(response, { status, body: { code: -1, msg: 'Method not allowed.' } }, { Allow: match.allow.join(', ') });
    } else {
      const { route } = match;
      const failureBody = route.failureBody ?? defaultFailureBody;
      const body = await readBody(request, route.maxBodyBytes ?? params.maxBodyBytes);
      if (!body.ok) {
        status = FAILURE_STATUS['payload-too-large'];
        const limit = route.maxBodyBytes ?? params.maxBodyBytes;
        // The rest of an oversized upload is not read: close the connection after the answer.
        send(response, { status, body: failureBody('payload-too-large', `Request body exceeds ${limit} bytes.`) }, { Connection: 'close' });
      } else {
        const simRequest: SimRequest = {
          method,
          path,
          params: match.params,
          query,
          headers: request.headers,
          body: body.text,
          ip: clientIp(request.socket),
        };
        let answer: SimResponse;
        let text: string | undefined;
        try {
          answer = await route.handler(simRequest);
          // Serialise inside the try: a body that is not JSON (a bigint) is a handler bug, answered as one.
          text = JSON.stringify(answer.body) ?? 'null';
        } catch (error) {
          logger.error({ err: error, method, path, route: route.pattern }, 'sim route handler failed');
          answer = { status: FAILURE_STATUS['internal-error'], body: failureBody('internal-error', 'Internal server error.') };
          text = undefined;
        }
        status = answer.status;
        if (!response.destroyed) send(response, answer, {}, text);
      }
    }
    logger.debug({ method, path, status, ms: clock.now() - started }, 'sim http');
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      // Only framing can fail here (e.g. writing to a socket that closed); keep serving.
      logger.warn({ err: error, method: request.method }, 'sim http request failed');
      if (!response.headersSent && !response.destroyed) {
        response.writeHead(500, { 'Content-Type': JSON_CONTENT_TYPE });
        response.end(JSON.stringify(defaultFailureBody('internal-error', 'Internal server error.')));
      } else {
        response.destroy();
      }
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (params.upgrade !== undefined) {
      params.upgrade(request, socket, head);
      return;
    }
    socket.end('HTTP/1.1 426 Upgrade Required\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });

  let closing: Promise<void> | undefined;
  return {
    listen(port = 0, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        const onError = (error: NodeJS.ErrnoException) =>
          reject(
            new BaseError('SIM_LISTEN_FAILED', `cannot listen on ${host}:${port}: ${error.code === 'EADDRINUSE' ? 'the port is in use' : error.message}`, {
              details: { host, port, errno: error.code ?? null },
              cause: error,
            }),
          );
        server.once('error', onError);
        server.listen(port, host, () => {
          server.off('error', onError);
          const address = server.address() as AddressInfo;
          const hostPart = address.family === 'IPv6' || host.includes(':') ? `[${host}]` : host;
          resolve({ url: `http://${hostPart}:${address.port}`, port: address.port });
        });
      });
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        if (!server.listening) {
          resolve();
          return;
        }
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}
