/**
 * The relay WebSocket client (`{relay_ws_url}`, docs/protocol.md "Relay WebSocket"): one connection
 * per wallet, opened with `Authorization: Bearer <JWT>` (never in the URL), many requests in flight.
 *
 * - `send(request)` resolves exactly once per id: the relay's immediate response (BROADCAST,
 *   REJECTED, UNKNOWN), or `TIMEOUT` when none came within `responseTimeoutMs` (on the clock), or
 *   `DISCONNECTED` when the socket closed first, or `NOT_SENT` when no socket was open (nothing left
 *   this process: safe to send again). TIMEOUT and DISCONNECTED mean "may have been broadcast":
 *   the caller reconciles. A response that arrives after its TIMEOUT goes to `lateResponses$`,
 *   never to the caller a second time.
 * - Terminal outcomes go to `outcomes$` with their request id and transaction hash; unreadable-frame
 *   errors of the relay (`{type: "error"}`) and frames we cannot read go to `errors$`.
 * - `state$` tells the connection's state: connecting, open, or closed with its code and reason
 *   (4001 replaced by another connection of the wallet, 4008 PENDING_OUTCOME_LIMIT: "some
 *   submissions may be out", 1006 dropped). `connections$` tells each new connection, so the
 *   caller resets its in-flight count and reconciles what the old one left unresolved (listed in
 *   the closed state as `awaitingOutcome`).
 * - After an unexpected close it reconnects with exponential backoff and seeded jitter on the
 *   clock, each time a new session: the token source hands out a fresh JWT when the old one is near
 *   expiry, and after an HTTP 401 at upgrade the JWT is invalidated first. A connection replaced
 *   by another one of the same wallet (4001) is not taken back by default: two clients fighting
 *   over one wallet would break its nonce order.
 *
 * Every timer runs on `clock.scheduler`.
 *
 * Why one file of this size: the connection's states, the answer-per-id bookkeeping, the 64-outcome
 * cap and reconnection all act on one socket's lifecycle; split, each part would reach into the others.
 */
import { Subject, BehaviorSubject, type Observable, type Subscription } from 'rxjs';
import { backoffMs, type BackoffPolicy } from '../core/backoff.ts';
import { SOCKET_CONNECTING, SOCKET_OPEN, wsSocketFactory, type RelayClientSocket, type SocketFrameData, type WebSocketFactory } from './relay-socket.ts';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { RandomSource } from '../core/random.ts';
import { BaseError } from '../core/base-error.ts';
import { WS_CLOSE_PENDING_OUTCOME_LIMIT, WS_CLOSE_REPLACED, type OutcomeStatus } from '../protocol/constants.ts';
import type { Address, Hex } from '../protocol/encoding.ts';
import { NO_MATCH } from '../protocol/fast-reader.ts';
import type { BoundJwt } from '../protocol/jwt-store.ts';
import { encodeRelayWsMessage, type RelayWsRequest } from '../protocol/relay-request.ts';
import { wsServerMessageSchema, type WsResponseMessage } from '../protocol/relay-response.ts';
import { readWsServerMessage } from '../protocol/relay-response-readers.ts';

/** Where the client gets its JWT: a relay session (src/execution/relay-session.ts) or a stub. */
export interface RelayTokenSource {
  readonly network: string;
  readonly wallet: Address;
  /** A JWT valid for a while yet (signing in when needed). Throws when no sign-in is possible. */
  token(): Promise<BoundJwt>;
  /** Forgets the current JWT (the relay refused it): the next `token()` signs in again. */
  invalidate(): void;
}

type StripType<M> = M extends { readonly type: 'response' } ? Omit<M, 'type'> : never;

/** The relay's immediate response to one message: BROADCAST, REJECTED or UNKNOWN, with its `id`. */
export type WsResponse = StripType<WsResponseMessage>;

/** What `send` resolves with, exactly once per id. */
export type WsAnswer =
  | WsResponse
  /** No response within the timeout: it may still come (on `lateResponses$`); reconcile. */
  | { readonly id: string; readonly status: 'TIMEOUT'; readonly timeoutMs: number }
  /** The socket closed before the response: the request may have been broadcast; reconcile. */
  | { readonly id: string; readonly status: 'DISCONNECTED'; readonly code: number; readonly reason: string }
  /** No socket was open: nothing was sent; the same request may be sent again. */
  | { readonly id: string; readonly status: 'NOT_SENT'; readonly reason: string };

/** A terminal outcome delivered by the relay for a request of this client. */
export interface WsOutcome {
  readonly id: string;
  readonly txHash: Hex;
  readonly status: OutcomeStatus;
  readonly blockNumber: bigint | null;
  readonly reason: string | null;
  readonly connectionId: number;
  /** False when the relay named an id or hash this connection did not see broadcast (still delivered). */
  readonly matched: boolean;
}

/** A frame error: the relay's `{type: "error"}` or a server frame this client could not read. */
export interface WsFrameError {
  readonly source: 'relay' | 'client';
  readonly code: string;
  readonly message: string;
  readonly connectionId: number;
}

/** Why a connection ended (from its close code, or how it failed to open). */
export type WsCloseKind =
  | 'replaced' // 4001: another connection of the same wallet took over
  | 'pending-outcome-limit' // 4008: some submissions may be out
  | 'dropped' // 1006: no close frame (network failure)
  | 'server-stopping' // 1001
  | 'unauthorized' // HTTP 401 at upgrade: the JWT was refused
  | 'refused' // another HTTP status at upgrade
  | 'connect-failed' // no connection (refused, timeout)
  | 'closed' // any other close code
  | 'stopped'; // this client's stop()

export type RelayWsState =
  | { readonly status: 'idle' }
  | { readonly status: 'connecting'; readonly attempt: number }
  | { readonly status: 'open'; readonly connectionId: number }
  | {
      readonly status: 'closed';
      /** The connection that closed; null when none had opened. */
      readonly connectionId: number | null;
      /** The WebSocket close code (1006 when there was no close frame or no connection). */
      readonly code: number;
      readonly reason: string;
      readonly kind: WsCloseKind;
      /** The HTTP status of a refused upgrade. */
      readonly httpStatus?: number;
      /** Ids answered (or left) on that connection whose outcome never came: reconcile them. */
      readonly awaitingOutcome: readonly string[];
      /** When the next attempt starts, or null when the client will not reconnect. */
      readonly reconnectInMs: number | null;
    };

/**
 * The state of a connection that closed: why, and what it left unresolved.
 *
 * @useDeclaredType
 */
export type RelayWsClosedState = Extract<RelayWsState, { status: 'closed' }>;

/** A new connection: the previous one (if any) and what it left unresolved are in `previous`. */
export interface WsConnectionEvent {
  readonly connectionId: number;
  readonly previous: RelayWsClosedState | undefined;
}

/** Reconnect backoff: `min(maxDelayMs, initialDelayMs · 2^(n-1))` scaled by `0.5 + 0.5·r` after the n-th failure in a row. */
export interface ReconnectPolicy {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RECONNECT_POLICY: ReconnectPolicy = { initialDelayMs: 250, maxDelayMs: 30_000 };
/** Default wait for one immediate response. */
export const DEFAULT_WS_RESPONSE_TIMEOUT_MS = 10_000;
/** Default wait for the upgrade to complete. */
export const DEFAULT_WS_CONNECT_TIMEOUT_MS = 10_000;

export interface RelayWsClientContext {
  readonly clock: Clock;
  /** Seeded jitter of the reconnect backoff. */
  readonly random: RandomSource;
  readonly logger?: Logger;
}

export interface RelayWsClientParameters {
  /** `{relay_ws_url}`, e.g. `wss://relay.testnet.kuru.io/relay/ws`. Never carries a credential. */
  readonly url: string;
  readonly session: RelayTokenSource;
  readonly responseTimeoutMs?: number;
  readonly connectTimeoutMs?: number;
  readonly reconnect?: ReconnectPolicy;
  /** Reconnect after 4001 (replaced). Default false: the other connection keeps the wallet. */
  readonly reconnectWhenReplaced?: boolean;
  readonly createSocket?: WebSocketFactory;
}

export interface RelayWsClient {
  readonly wallet: Address;
  /** The current state, replayed to each subscriber. */
  readonly state$: Observable<RelayWsState>;
  /** Each new open connection. */
  readonly connections$: Observable<WsConnectionEvent>;
  readonly outcomes$: Observable<WsOutcome>;
  /** Responses that came after their TIMEOUT answer. */
  readonly lateResponses$: Observable<WsResponse>;
  readonly errors$: Observable<WsFrameError>;
  /** The current state. */
  state(): RelayWsState;
  /** True while a connection is open. */
  isOpen(): boolean;
  /** Outcomes awaited on the current connection (BROADCAST answered, no outcome yet). */
  pendingOutcomes(): number;
  /** Starts connecting (and reconnecting). Idempotent. */
  start(): void;
  /** Resolves true once a connection is open, false after `timeoutMs` on the clock (or when stopped). */
  whenOpen(timeoutMs: number): Promise<boolean>;
  /** Sends one message; resolves exactly once (see the module comment). */
  send(request: RelayWsRequest, options?: { readonly timeoutMs?: number }): Promise<WsAnswer>;
  /** Closes the connection (1000), stops reconnecting, answers what is in flight DISCONNECTED. Idempotent. */
  stop(): Promise<void>;
}

interface InFlight {
  readonly resolve: (answer: WsAnswer) => void;
  readonly timer: Subscription;
}

/** One open (or opening) socket and what belongs to it. */
interface Connection {
  readonly ws: RelayClientSocket;
  id: number | null;
  opened: boolean;
  httpStatus: number | undefined;
  readonly inFlight: Map<string, InFlight>;
  /** Ids answered TIMEOUT whose response may still come on this connection. */
  readonly timedOut: Set<string>;
  /** id -> txHash of BROADCAST answers awaiting their outcome (and ids whose answer never came). */
  readonly awaiting: Map<string, Hex | null>;
  connectTimer: Subscription | undefined;
}

/** Remembered TIMEOUT ids per connection, oldest forgotten beyond this (bounds memory). */
const MAX_TIMED_OUT_IDS = 65_536;
/** How long stop() waits for the close handshake before cutting the socket. */
const CLOSE_GRACE_MS = 1_000;

function frameText(data: SocketFrameData): string {
  if (typeof data === 'string') return data;
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}

function closeKind(code: number, connection: Connection, stopping: boolean): WsCloseKind {
  if (stopping) return 'stopped';
  if (connection.httpStatus === 401) return 'unauthorized';
  if (connection.httpStatus !== undefined) return 'refused';
  if (!connection.opened) return 'connect-failed';
  if (code === WS_CLOSE_REPLACED) return 'replaced';
  if (code === WS_CLOSE_PENDING_OUTCOME_LIMIT) return 'pending-outcome-limit';
  if (code === 1006) return 'dropped';
  if (code === 1001) return 'server-stopping';
  return 'closed';
}

/**
 * @example
 * const client = createRelayWsClient({ clock, random }, { url: network.hosts.relayWsUrl, session });
 * client.connections$.subscribe(({ previous }) => reconcile(previous?.awaitingOutcome ?? []));
 * client.start();
 * const answer = await client.send({ id: requestId, method, payload, authorization7702: null });
 */
export function createRelayWsClient(context: RelayWsClientContext, params: RelayWsClientParameters): RelayWsClient {
  const { clock, random, logger } = context;
  const { session } = params;
  const url = params.url;
  if (/[?#]/.test(url)) {
    // A credential never goes into a URL, and the relay refuses any query at all.
    throw new BaseError('NETWORK_HOST_INVALID', 'the relay WebSocket URL must not carry a query or fragment', { details: { host: 'relayWsUrl' } });
  }
  const responseTimeoutMs = params.responseTimeoutMs ?? DEFAULT_WS_RESPONSE_TIMEOUT_MS;
  const connectTimeoutMs = params.connectTimeoutMs ?? DEFAULT_WS_CONNECT_TIMEOUT_MS;
  const policy = params.reconnect ?? DEFAULT_RECONNECT_POLICY;
  const createSocket: WebSocketFactory = params.createSocket ?? wsSocketFactory;

  const state$ = new BehaviorSubject<RelayWsState>({ status: 'idle' });
  const connections$ = new Subject<WsConnectionEvent>();
  const outcomes$ = new Subject<WsOutcome>();
  const lateResponses$ = new Subject<WsResponse>();
  const errors$ = new Subject<WsFrameError>();

  let running = false;
  let stopped = false;
  let current: Connection | undefined;
  let nextConnectionId = 1;
  let failures = 0;
  let attempt = 0;
  let reconnectTimer: Subscription | undefined;
  let lastClosed: RelayWsClosedState | undefined;
  const closeWaiters = new Set<() => void>();

  const backoff: BackoffPolicy = { initialMs: policy.initialDelayMs, factor: 2, maxMs: policy.maxDelayMs, jitter: { down: 0.5 } };

  const scheduleReconnect = (delayMs: number) => {
    reconnectTimer?.unsubscribe();
    reconnectTimer = clock.scheduler.schedule(() => {
      reconnectTimer = undefined;
      void connect();
    }, delayMs);
  };

  const onClose = (connection: Connection, code: number, reason: string) => {
    connection.connectTimer?.unsubscribe();
    if (current !== connection) return;
    current = undefined;
    const kind = closeKind(code, connection, stopped);
    for (const [id, entry] of connection.inFlight) {
      entry.timer.unsubscribe();
      // Sent, unanswered: it may have been broadcast. Its outcome can no longer come on this socket.
      connection.awaiting.set(id, null);
      entry.resolve({ id, status: 'DISCONNECTED', code, reason });
    }
    connection.inFlight.clear();
    for (const id of connection.timedOut) if (!connection.awaiting.has(id)) connection.awaiting.set(id, null);
    connection.timedOut.clear();
    const awaitingOutcome = [...connection.awaiting.keys()];
    connection.awaiting.clear();
    if (kind === 'unauthorized') session.invalidate();
    failures += 1;
    const reconnect = running && !stopped && (kind !== 'replaced' || params.reconnectWhenReplaced === true);
    const delay = reconnect ? backoffMs(failures, backoff, random) : null;
    const closed: RelayWsClosedState = {
      status: 'closed',
      connectionId: connection.id,
      code,
      reason,
      kind,
      ...(connection.httpStatus === undefined ? {} : { httpStatus: connection.httpStatus }),
      awaitingOutcome,
      reconnectInMs: delay,
    };
    if (connection.opened) lastClosed = closed;
    logger?.info({ connectionId: connection.id, code, reason, kind, awaitingOutcome: awaitingOutcome.length, reconnectInMs: delay }, 'relay ws closed');
    state$.next(closed);
    if (delay !== null) scheduleReconnect(delay);
    for (const wake of closeWaiters) wake();
  };

  const onResponse = (connection: Connection, response: WsResponse) => {
    const entry = connection.inFlight.get(response.id);
    const late = entry === undefined && connection.timedOut.delete(response.id);
    if (entry === undefined && !late) {
      errors$.next({ source: 'client', code: 'UNEXPECTED_RESPONSE', message: `a response for id ${response.id.slice(0, 64)} that is not in flight`, connectionId: connection.id ?? 0 });
      return;
    }
    if (response.status === 'BROADCAST') connection.awaiting.set(response.id, response.txHash.toLowerCase() as Hex);
    else connection.awaiting.delete(response.id);
    if (entry !== undefined) {
      connection.inFlight.delete(response.id);
      entry.timer.unsubscribe();
      entry.resolve(response);
      return;
    }
    lateResponses$.next(response);
  };

  const onFrame = (connection: Connection, text: string) => {
    const connectionId = connection.id ?? 0;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      errors$.next({ source: 'client', code: 'PROTOCOL_INVALID_JSON', message: 'a relay frame is not JSON', connectionId });
      return;
    }
    // Two frames per signed intent: the fast reader, and zod only for what it is unsure of.
    const read = readWsServerMessage(json);
    const parsed = read !== NO_MATCH ? { success: true as const, data: read } : wsServerMessageSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      errors$.next({
        source: 'client',
        code: 'PROTOCOL_SCHEMA_MISMATCH',
        message: `a relay frame does not match the protocol${issue ? ` at ${issue.path.join('.') || '$'}: ${issue.message}` : ''}`,
        connectionId,
      });
      return;
    }
    const message = parsed.data;
    switch (message.type) {
      case 'response': {
        const { type: _type, ...response } = message;
        onResponse(connection, response as WsResponse);
        return;
      }
      case 'outcome': {
        const expected = connection.awaiting.get(message.id);
        const matched = connection.awaiting.has(message.id) && (expected === null || expected === message.txHash.toLowerCase());
        connection.awaiting.delete(message.id);
        outcomes$.next({
          id: message.id,
          txHash: message.txHash.toLowerCase() as Hex,
          status: message.status,
          blockNumber: message.blockNumber === null ? null : BigInt(message.blockNumber),
          reason: message.reason,
          connectionId,
          matched,
        });
        return;
      }
      case 'error':
        errors$.next({ source: 'relay', code: message.code, message: message.message, connectionId });
        return;
    }
  };

  const connect = async (): Promise<void> => {
    if (!running || stopped || current !== undefined) return;
    attempt += 1;
    state$.next({ status: 'connecting', attempt });
    let authorization: string;
    try {
      // Revealed here, inside the try: a JWT of another network (JWT_NETWORK_MISMATCH) is a failed
      // connection attempt, reported, never an unhandled rejection, and never sent.
      authorization = `Bearer ${(await session.token()).reveal(session.network)}`;
    } catch (error) {
      if (!running || stopped) return;
      failures += 1;
      const delay = backoffMs(failures, backoff, random);
      const message = error instanceof Error ? error.message : String(error);
      logger?.warn({ err: error, reconnectInMs: delay }, 'relay ws: no JWT, will retry');
      state$.next({ status: 'closed', connectionId: null, code: 1006, reason: `sign-in failed: ${message}`.slice(0, 300), kind: 'connect-failed', awaitingOutcome: [], reconnectInMs: delay });
      scheduleReconnect(delay);
      return;
    }
    if (!running || stopped || current !== undefined) return;
    const ws = createSocket(url, {
      headers: { authorization },
      perMessageDeflate: false,
      followRedirects: false,
    });
    const connection: Connection = {
      ws,
      id: null,
      opened: false,
      httpStatus: undefined,
      inFlight: new Map(),
      timedOut: new Set(),
      awaiting: new Map(),
      connectTimer: undefined,
    };
    current = connection;
    connection.connectTimer = clock.scheduler.schedule(() => {
      if (!connection.opened) ws.terminate();
    }, connectTimeoutMs);
    ws.on('unexpected-response', (_request, response) => {
      connection.httpStatus = response.statusCode;
      response.resume();
      ws.terminate();
    });
    ws.on('open', () => {
      connection.connectTimer?.unsubscribe();
      if (current !== connection || stopped) {
        ws.close(1000, 'client stopping');
        return;
      }
      connection.opened = true;
      connection.id = nextConnectionId++;
      failures = 0;
      attempt = 0;
      const previous = lastClosed;
      logger?.info({ connectionId: connection.id, wallet: session.wallet }, 'relay ws open');
      state$.next({ status: 'open', connectionId: connection.id });
      connections$.next({ connectionId: connection.id, previous });
      for (const wake of closeWaiters) wake();
    });
    ws.on('message', (data) => {
      if (current === connection) onFrame(connection, frameText(data));
    });
    ws.on('error', (error) => logger?.debug({ err: error }, 'relay ws socket error'));
    ws.on('close', (code, reason) => onClose(connection, code, reason.toString('utf8')));
  };

  const answerNotSent = (id: string, reason: string): Promise<WsAnswer> => Promise.resolve({ id, status: 'NOT_SENT', reason });

  return {
    wallet: session.wallet,
    state$: state$.asObservable(),
    connections$: connections$.asObservable(),
    outcomes$: outcomes$.asObservable(),
    lateResponses$: lateResponses$.asObservable(),
    errors$: errors$.asObservable(),
    state: () => state$.getValue(),
    isOpen: () => current?.opened === true && current.ws.readyState === SOCKET_OPEN,
    pendingOutcomes: () => (current?.opened ? [...current.awaiting.values()].filter((hash) => hash !== null).length : 0),

    start() {
      if (running || stopped) return;
      running = true;
      void connect();
    },

    whenOpen(timeoutMs) {
      return new Promise<boolean>((resolve) => {
        const check = () => {
          if (current?.opened === true) finish(true);
          else if (stopped) finish(false);
        };
        const finish = (value: boolean) => {
          closeWaiters.delete(check);
          timer.unsubscribe();
          resolve(value);
        };
        const timer = clock.scheduler.schedule(() => finish(false), timeoutMs);
        closeWaiters.add(check);
        check();
      });
    },

    send(request, options = {}) {
      const { id } = request;
      const connection = current;
      if (connection !== undefined && (connection.inFlight.has(id) || connection.timedOut.has(id))) {
        throw new BaseError('RELAY_TRANSPORT_MISUSE', `request id ${id.slice(0, 64)} is already in flight on this connection`, {
          details: { id: id.slice(0, 64) },
        });
      }
      if (stopped) return answerNotSent(id, 'the client is stopped');
      if (connection === undefined || !connection.opened || connection.ws.readyState !== SOCKET_OPEN) {
        return answerNotSent(id, 'no open relay connection');
      }
      const text = encodeRelayWsMessage(request);
      const timeoutMs = options.timeoutMs ?? responseTimeoutMs;
      return new Promise<WsAnswer>((resolve) => {
        const timer = clock.scheduler.schedule(() => {
          if (connection.inFlight.get(id) !== entry) return;
          connection.inFlight.delete(id);
          connection.timedOut.add(id);
          if (connection.timedOut.size > MAX_TIMED_OUT_IDS) connection.timedOut.delete(connection.timedOut.values().next().value!);
          resolve({ id, status: 'TIMEOUT', timeoutMs });
        }, timeoutMs);
        const entry: InFlight = { resolve, timer };
        connection.inFlight.set(id, entry);
        // A write error means the socket is going: its close answers this request DISCONNECTED.
        connection.ws.send(text, (error) => {
          if (error) logger?.debug({ err: error, id }, 'relay ws write failed');
        });
      });
    },

    stop() {
      if (stopped) return Promise.resolve();
      stopped = true;
      running = false;
      reconnectTimer?.unsubscribe();
      reconnectTimer = undefined;
      const connection = current;
      const done = () => {
        state$.complete();
        connections$.complete();
        outcomes$.complete();
        lateResponses$.complete();
        errors$.complete();
      };
      for (const wake of closeWaiters) wake();
      if (connection === undefined) {
        state$.next({ status: 'closed', connectionId: null, code: 1000, reason: 'client stopping', kind: 'stopped', awaitingOutcome: [], reconnectInMs: null });
        done();
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const grace = clock.scheduler.schedule(() => {
          connection.ws.terminate();
          // terminate() emits close asynchronously; make sure the answers are out even if it never does.
          onClose(connection, 1006, 'client stopping');
          finish();
        }, CLOSE_GRACE_MS);
        const finish = () => {
          grace.unsubscribe();
          done();
          resolve();
        };
        connection.ws.once('close', () => finish());
        if (connection.ws.readyState === SOCKET_CONNECTING) connection.ws.terminate();
        else connection.ws.close(1000, 'client stopping');
      });
    },
  };
}
