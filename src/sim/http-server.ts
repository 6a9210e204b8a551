/**
 * The simulated venue's HTTP server over node:http: only framing. Bodies are read under the size
 * limit (an oversized upload is refused without reading the rest); everything else (routing, the
 * 404/405/413/500 answers, JSON) is the dispatcher's (route-dispatch.ts), shared with the in-process
 * connection. WebSocket upgrades are handed to `upgrade` untouched.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { BaseError } from '../core/base-error.ts';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { defaultFailureBody, JSON_CONTENT_TYPE, type SimDispatch } from './route-dispatch.ts';

export interface CreateHttpServerParameters {
  /** Answers every request (createSimDispatch over the routes). */
  readonly dispatch: SimDispatch;
  /** Takes over a request with `Upgrade` (the relay WebSocket); without it upgrades are refused. */
  readonly upgrade?: (request: IncomingMessage, socket: Duplex, head: Buffer) => void;
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
 * An HTTP server for a dispatcher; a request whose handling fails in framing is answered 500 and the
 * server keeps serving.
 *
 * @example
 * const server = createHttpServer({ dispatch: createSimDispatch({ routes, maxBodyBytes: 1 << 20, logger }), logger, clock: liveClock });
 * const { url } = await server.listen(0); // http://127.0.0.1:43121
 * await server.close();
 */
export function createHttpServer(params: CreateHttpServerParameters): HttpServer {
  const { logger, clock } = params;
  const { dispatch } = params;
  const sockets = new Set<Socket>();

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const started = clock.now();
    const method = request.method ?? 'GET';
    const answer = await dispatch({ method, target: request.url ?? '', headers: request.headers, readBody: (limit) => readBody(request, limit), ip: clientIp(request.socket) });
    if (answer.delayMs > 0) await new Promise<void>((resolve) => clock.scheduler.schedule(() => resolve(), answer.delayMs));
    if (!response.destroyed) {
      const payload = Buffer.from(answer.text, 'utf8');
      response.writeHead(answer.status, { ...answer.headers, ...(answer.closeConnection ? { connection: 'close' } : {}), 'content-length': String(payload.length) });
      response.end(payload);
    }
    logger.debug({ method, target: (request.url ?? '').split('?')[0], status: answer.status, ms: clock.now() - started }, 'sim http');
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      // Only framing can fail here (e.g. writing to a socket that closed); keep serving.
      logger.warn({ err: error, method: request.method }, 'sim http request failed');
      if (!response.headersSent && !response.destroyed) {
        response.writeHead(500, { 'content-type': JSON_CONTENT_TYPE });
        response.end(JSON.stringify(defaultFailureBody('internal-error', 'Internal server error.')));
      } else {
        response.destroy();
      }
    });
  });
  // Requests node:http cannot parse (a bad request line or header, headers over its limit) get the
  // server's own JSON body too, not node's bare status line (docs/protocol.md "Limits").
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? 431 : 400;
    // The shape of the dispatcher's own 404 and 405 answers.
    const body = JSON.stringify({ code: -1, msg: tooLarge ? 'Request header fields too large.' : 'Bad request.' });
    socket.end(
      `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nConnection: close\r\nContent-Type: ${JSON_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
  // node:http hands CONNECT to this event alone and drops the socket when nothing listens: answer it.
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    const body = JSON.stringify({ code: -1, msg: 'Method not allowed.' });
    socket.on('error', () => undefined);
    socket.end(`HTTP/1.1 405 Method Not Allowed\r\nConnection: close\r\nContent-Type: ${JSON_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
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
