/**
 * The socket under the relay WebSocket client (relay-ws-client.ts): what the client uses of a
 * WebSocket, and the factory that makes one. The `ws` package's WebSocket is the default; the
 * in-process connection (src/runtime) makes another, so the same client runs against a venue in
 * the same process. These are our own types, not the `ws` package's: the published declarations
 * then need no `@types/ws`, which is not a dependency.
 */
import { WebSocket } from 'ws';

/** A frame's data as a socket hands it over (the `ws` package's `RawData`, or text). */
export type SocketFrameData = Buffer | ArrayBuffer | Buffer[] | string;

/** What the client asks of a new socket (a subset of the `ws` package's `ClientOptions`). */
export interface RelaySocketOptions {
  readonly headers: Readonly<Record<string, string>>;
  readonly perMessageDeflate: false;
  readonly followRedirects: false;
}

/** `readyState` of a socket still opening, and of an open one (the WebSocket standard's values). */
export const SOCKET_CONNECTING = WebSocket.CONNECTING;
export const SOCKET_OPEN = WebSocket.OPEN;

/** What the client uses of a WebSocket. */
export interface RelayClientSocket {
  /** `WebSocket.CONNECTING` (`SOCKET_CONNECTING`), `OPEN` (`SOCKET_OPEN`), `CLOSING` or `CLOSED`. */
  readonly readyState: number;
  on(event: 'open', listener: () => void): unknown;
  on(event: 'message', listener: (data: SocketFrameData) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'close', listener: (code: number, reason: Buffer) => void): unknown;
  /** The upgrade was answered with an HTTP status other than 101. */
  on(event: 'unexpected-response', listener: (request: unknown, response: { readonly statusCode?: number | undefined; resume(): unknown }) => void): unknown;
  once(event: 'close', listener: () => void): unknown;
  send(data: string, callback: (error?: Error) => void): void;
  close(code: number, reason: string): void;
  /** Drops the connection without a close frame. */
  terminate(): void;
}

/** Makes the socket; the default is the `ws` package. Tests pass one that records what it was given. */
export type WebSocketFactory = (url: string, options: RelaySocketOptions) => RelayClientSocket;

/** A socket of the `ws` package. */
export const wsSocketFactory: WebSocketFactory = (url, options) => new WebSocket(url, { ...options, headers: { ...options.headers } });
