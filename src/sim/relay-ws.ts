/**
 * The relay WebSocket of the simulated venue on the network (`/relay/ws`), on the `ws` package in
 * noServer mode. Only framing lives here: the upgrade is checked by the hub (relay-ws-hub.ts, which
 * holds every rule of the relay WebSocket and is shared with the in-process connection), a refusal
 * is written as an HTTP answer with a relay error body `{code, message, retryable}`, and an accepted
 * socket's frames and close are handed to the hub. A socket with too many frames waiting stops being
 * read (backpressure).
 */
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Subscription } from 'rxjs';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { Address } from '../protocol/encoding.ts';
import { WS_CLOSE_REASON, type RelayPeer, type RelayUpgradeCheck, type RelayWsHub } from './relay-ws-hub.ts';

/** How long `close()` waits for clients to answer the close frame before dropping them. */
const CLOSE_GRACE_MS = 1000;

export interface RelayWsContext {
  readonly hub: RelayWsHub;
  readonly clock: Clock;
  readonly logger: Logger;
}

export interface RelayWsParameters {
  /** Larger frames close the socket with 1009. */
  readonly maxPayloadBytes: number;
}

export interface RelayWs {
  /** The HTTP server's `upgrade` handler: `/relay/ws` only, anything else 404. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every connection with 1001 and stops. Idempotent. */
  close(): Promise<void>;
}

function refuse(socket: Duplex, refusal: Extract<RelayUpgradeCheck, { ok: false }>): void {
  const body = JSON.stringify(refusal.body);
  socket.on('error', () => undefined);
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ''}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

function frameText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}

function peerOf(ws: WebSocket): RelayPeer {
  return {
    send: (text) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(text);
    },
    close: (code, reason) => ws.close(code, reason),
    terminate: () => ws.terminate(),
    pause: () => ws.pause(),
    resume: () => {
      if (ws.isPaused) ws.resume();
    },
  };
}

/**
 * The relay WebSocket over a hub.
 *
 * @example
 * const relayWs = createRelayWs({ hub, clock, logger }, { maxPayloadBytes: 1 << 20 });
 * createHttpServer({ routes, upgrade: relayWs.upgrade, … });
 */
export function createRelayWs(context: RelayWsContext, parameters: RelayWsParameters): RelayWs {
  const { hub, clock, logger } = context;
  const wss = new WebSocketServer({ noServer: true, maxPayload: parameters.maxPayloadBytes, perMessageDeflate: false, clientTracking: false });
  // ws answers a broken handshake (method, key, version, protocols) in plain text: answer with the relay error body.
  wss.on('wsClientError', (error: Error, socket: Duplex, request: IncomingMessage) => {
    refuse(socket, { ok: false, status: request.method === 'GET' ? 400 : 405, body: { code: 'INVALID_REQUEST', message: `WebSocket handshake: ${error.message}`, retryable: false } });
  });
  const sockets = new Set<WebSocket>();
  let stopped = false;

  const accept = (ws: WebSocket, wallet: Address) => {
    sockets.add(ws);
    const connection = hub.accept(peerOf(ws), wallet);
    ws.on('message', (data) => void connection.frame(frameText(data)));
    ws.on('error', (error) => logger.debug({ err: error, wallet }, 'relay ws socket error'));
    ws.on('close', (code) => {
      sockets.delete(ws);
      connection.closed(code);
    });
  };

  return {
    upgrade(request, socket, head) {
      const check = hub.checkUpgrade(request.url ?? '', request.headers.authorization);
      if (!check.ok) {
        refuse(socket, check);
        return;
      }
      wss.handleUpgrade(request, socket, head, (ws) => {
        if (stopped) {
          ws.close(1001, WS_CLOSE_REASON.serverStopping);
          return;
        }
        accept(ws, check.wallet);
      });
    },
    close() {
      if (stopped) return Promise.resolve();
      stopped = true;
      hub.stop();
      const open = [...sockets].filter((ws) => ws.readyState !== WebSocket.CLOSED);
      return new Promise<void>((resolve) => {
        let remaining = open.length;
        let timer: Subscription | undefined;
        let finished = false;
        const finish = () => {
          if (finished) return;
          finished = true;
          timer?.unsubscribe();
          for (const ws of open) if (ws.readyState !== WebSocket.CLOSED) ws.terminate();
          wss.close(() => resolve());
        };
        if (remaining === 0) {
          finish();
          return;
        }
        for (const ws of open) {
          ws.once('close', () => {
            remaining -= 1;
            if (remaining === 0) finish();
          });
        }
        timer = clock.scheduler.schedule(finish, CLOSE_GRACE_MS);
      });
    },
  };
}
