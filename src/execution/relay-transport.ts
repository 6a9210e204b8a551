/**
 * The execution side of the venue seam: how a signed relay request reaches the relay and how its
 * answer and terminal outcome come back. Two live implementations and a failover between them:
 *
 * - **WebSocket** (`createWsRelayTransport`, over `relay-ws-client`): the answer comes on the
 *   socket, the outcome too. Many requests in flight; nonces must increase within a connection.
 * - **REST** (`createRestRelayTransport`, over `relay-rest-client`): `POST /relay`; outcomes are read
 *   from receipts (viem's `getTransactionReceipt` on the network's `rpcUrl`), polled on the clock
 *   until found or a deadline (then UNRESOLVED: reconcile). A 401 signs in again and sends once more
 *   (the relay checks the JWT before it reads the body, so nothing was sent).
 * - **Failover** (`createFailoverTransport`): WebSocket while its socket is open; REST while it is
 *   down. Rule: a submission goes over the WebSocket when it is open. When the socket is down, it
 *   waits for it on the clock until the socket has been down `restAfterMs` (default 0: REST at
 *   once), then goes over REST. When the socket is back, new submissions wait until the REST
 *   requests still in flight have their answers, then use the WebSocket again, so requests reach
 *   the relay in the order they were submitted across the switch (nonces stay increasing). A
 *   WebSocket answer NOT_SENT (the socket closed as it was sent) is routed again by the same rule.
 *
 * Every answer is a value, never an exception: BROADCAST, REJECTED, UNKNOWN (the relay's), TIMEOUT
 * and DISCONNECTED (may have been broadcast: reconcile), NOT_SENT (nothing left this process; send
 * again when it suits). Exceptions are bugs or misuse (RELAY_TRANSPORT_MISUSE).
 *
 * Why one file of this size: the failover's ordering rule is written against both transports'
 * answers and route events, which are this file's types; apart, each would restate them.
 */
import { BaseError } from '../core/base-error.ts';
import { EMPTY, map, merge, NEVER, Subject, type Observable, type Subscription } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { Hex } from '../protocol/encoding.ts';
import type { JwtStore } from '../protocol/jwt-store.ts';
import type { RelayRestRequest, RelayWsRequest } from '../protocol/relay-request.ts';
import type { BroadcastResponse, FailedResponse } from '../protocol/relay-response.ts';
import { isClientError } from '../clients/client-error.ts';
import { RelayAuthError } from '../clients/relay-auth-client.ts';
import { createRelayRestClient, type RelayRestClient } from '../clients/relay-rest-client.ts';
import type { RelayTokenSource, RelayWsClient, RelayWsClosedState, WsAnswer, WsFrameError } from '../clients/relay-ws-client.ts';
import type { ClientContext } from '../clients/send-request.ts';
import { createReceiptWatcher, type ReceiptWatcher, type ReceiptWatcherParameters, type TransportOutcome } from './relay-receipts.ts';

export type { TransportOutcome, TransportOutcomeStatus } from './relay-receipts.ts';

/** Which transport carried a request. */
export type TransportRoute = 'ws' | 'rest';

/** @inline */
interface Carried {
  readonly via: TransportRoute;
  /** The WebSocket connection it was sent on. */
  readonly connectionId?: number;
}

/** What `submit` resolves with, exactly once per request. */
export type SubmitAnswer =
  | (BroadcastResponse & Carried)
  | (Omit<FailedResponse, 'requestId'> & { readonly requestId: string } & Carried)
  /** No response within the timeout (WebSocket): it may come on `lateResponses$`; reconcile. */
  | ({ readonly requestId: string; readonly status: 'TIMEOUT'; readonly timeoutMs: number } & Carried)
  /** The socket closed before the response: may have been broadcast; reconcile. */
  | ({ readonly requestId: string; readonly status: 'DISCONNECTED'; readonly code: number; readonly reason: string } & Carried)
  /** Nothing was sent (no connection, no JWT, host unreachable): safe to send again. */
  | ({ readonly requestId: string; readonly status: 'NOT_SENT'; readonly code: string; readonly reason: string } & Carried);

/** A late immediate response (after its TIMEOUT answer). */
export type LateResponse = Extract<SubmitAnswer, { status: 'BROADCAST' | 'REJECTED' | 'UNKNOWN' }>;

/** Connection events: a new WebSocket connection (reset the in-flight count, reconcile), a closed one, a route switch. */
export type TransportConnectionEvent =
  | { readonly type: 'open'; readonly via: 'ws'; readonly connectionId: number; readonly previous: RelayWsClosedState | undefined }
  | { readonly type: 'closed'; readonly via: 'ws'; readonly state: RelayWsClosedState }
  | { readonly type: 'route'; readonly via: TransportRoute };

/**
 * The relay seam of the engine: live WebSocket, live REST, or the failover of both (a simulated
 * in-process transport for backtests implements the same interface).
 */
export interface RelayTransport {
  /** Sends one signed request; resolves exactly once with a value. */
  submit(request: RelayRestRequest): Promise<SubmitAnswer>;
  /** Terminal outcomes (and UNRESOLVED receipts) of submitted requests. */
  readonly outcomes$: Observable<TransportOutcome>;
  /** Responses that came after a TIMEOUT answer. */
  readonly lateResponses$: Observable<LateResponse>;
  readonly connection$: Observable<TransportConnectionEvent>;
  /** True when `submit` would send now (a WebSocket is open; REST: started). */
  available(): boolean;
  /** Starts (connects). Idempotent. */
  start(): Promise<void>;
  /** Stops; what is in flight gets its answer (WebSocket: DISCONNECTED). Idempotent. */
  stop(): Promise<void>;
}

function checkWallet(request: RelayRestRequest, session: Pick<RelayTokenSource, 'wallet'>): void {
  if (request.wallet.toLowerCase() !== session.wallet) {
    throw new BaseError('RELAY_TRANSPORT_MISUSE', `a request of wallet ${request.wallet} on the transport of ${session.wallet}`, {
      details: { requestWallet: request.wallet, transportWallet: session.wallet },
    });
  }
}

// ---- WebSocket ------------------------------------------------------------------------------

/** The WebSocket client and its frame errors, for the engine's logs. */
export interface WsRelayTransport extends RelayTransport {
  readonly client: RelayWsClient;
  readonly errors$: Observable<WsFrameError>;
}

function fromWsAnswer(answer: WsAnswer, connectionId: number | undefined): SubmitAnswer {
  const carried: Carried = connectionId === undefined ? { via: 'ws' } : { via: 'ws', connectionId };
  switch (answer.status) {
    case 'TIMEOUT':
      return { requestId: answer.id, status: 'TIMEOUT', timeoutMs: answer.timeoutMs, ...carried };
    case 'DISCONNECTED':
      return { requestId: answer.id, status: 'DISCONNECTED', code: answer.code, reason: answer.reason, ...carried };
    case 'NOT_SENT':
      return { requestId: answer.id, status: 'NOT_SENT', code: 'NOT_CONNECTED', reason: answer.reason, ...carried };
    default: {
      const { id, ...fields } = answer;
      return { requestId: id, ...fields, ...carried } as SubmitAnswer;
    }
  }
}

/**
 * The WebSocket transport over one client (one connection per wallet). The request id is the
 * WebSocket message id.
 *
 * @example
 * const ws = createWsRelayTransport(createRelayWsClient({ clock, random }, { url: hosts.relayWsUrl!, session }));
 * await ws.start();
 */
export function createWsRelayTransport(client: RelayWsClient): WsRelayTransport {
  const connection$ = new Subject<TransportConnectionEvent>();
  let wired = false;
  const wire = () => {
    if (wired) return;
    wired = true;
    client.connections$.subscribe((event) => connection$.next({ type: 'open', via: 'ws', connectionId: event.connectionId, previous: event.previous }));
    client.state$.subscribe({
      next: (state) => {
        if (state.status === 'closed') connection$.next({ type: 'closed', via: 'ws', state });
      },
      complete: () => connection$.complete(),
    });
  };
  return {
    client,
    errors$: client.errors$,
    outcomes$: client.outcomes$.pipe(
      map(
        (outcome): TransportOutcome => ({
          requestId: outcome.id,
          txHash: outcome.txHash,
          status: outcome.status,
          blockNumber: outcome.blockNumber,
          reason: outcome.reason,
          via: 'ws',
          connectionId: outcome.connectionId,
        }),
      ),
    ),
    lateResponses$: client.lateResponses$.pipe(map((response) => fromWsAnswer(response, undefined) as LateResponse)),
    connection$: connection$.asObservable(),
    available: () => client.isOpen(),
    async submit(request) {
      if (request.wallet.toLowerCase() !== client.wallet) checkWallet(request, client);
      const state = client.state();
      const connectionId = state.status === 'open' ? state.connectionId : undefined;
      const message = { id: request.requestId, method: request.method, payload: request.payload, authorization7702: request.authorization7702 } as RelayWsRequest;
      return fromWsAnswer(await client.send(message), connectionId);
    },
    async start() {
      wire();
      client.start();
    },
    stop: () => client.stop(),
  };
}

// ---- REST -----------------------------------------------------------------------------------

export interface RestRelayTransportParameters {
  readonly network: string;
  /** `{relay_url}`. */
  readonly relayUrl: string;
  /** The wallet's session (createRelaySession): its JWT store feeds the REST client. */
  readonly session: RelayTokenSource & { readonly store: JwtStore };
  /** The outcome source: a watcher of its own over `rpcUrl` when not given. */
  readonly receipts?: ReceiptWatcher;
  /** The network's JSON-RPC endpoint (needed when `receipts` is not given). */
  readonly rpcUrl?: string;
  readonly receiptPollMs?: ReceiptWatcherParameters['pollMs'];
  readonly receiptDeadlineMs?: ReceiptWatcherParameters['deadlineMs'];
  /** One `POST /relay`'s timeout (then UNKNOWN). Default 10 000 ms. */
  readonly timeoutMs?: number;
  readonly rest?: RelayRestClient;
}

export interface RestRelayTransport extends RelayTransport {
  readonly receipts: ReceiptWatcher;
}

function failedValue(request: RelayRestRequest, status: 'UNKNOWN', code: string, message: string): SubmitAnswer {
  return {
    requestId: request.requestId,
    status,
    code,
    message,
    retryable: false,
    retryAfterMs: null,
    candidateTxHash: null,
    sponsorAddress: null,
    sponsorNonce: null,
    via: 'rest',
  };
}

/**
 * The REST transport: `POST /relay` with the session's JWT, outcomes from receipts. UNKNOWN answers
 * that name a `candidateTxHash` are watched too (their outcome, if any, settles the question).
 *
 * @example
 * const rest = createRestRelayTransport(context, { network: network.name, relayUrl: hosts.relayUrl!, rpcUrl: hosts.rpcUrl!, session });
 * rest.outcomes$.subscribe(onOutcome);
 * const answer = await rest.submit(request);
 */
export function createRestRelayTransport(context: ClientContext & { readonly logger?: Logger }, params: RestRelayTransportParameters): RestRelayTransport {
  const { session, network } = params;
  const logger = context.logger;
  if (params.receipts === undefined && params.rpcUrl === undefined) {
    throw new BaseError('RELAY_TRANSPORT_MISUSE', 'the REST relay transport needs rpcUrl (or a receipt watcher) to read outcomes');
  }
  const receipts =
    params.receipts ??
    createReceiptWatcher(context, {
      rpcUrl: params.rpcUrl ?? '',
      ...(params.receiptPollMs === undefined ? {} : { pollMs: params.receiptPollMs }),
      ...(params.receiptDeadlineMs === undefined ? {} : { deadlineMs: params.receiptDeadlineMs }),
    });
  // The session decides when a JWT is too old; the client only reads what it stored.
  const rest = params.rest ?? createRelayRestClient(context, { baseUrl: params.relayUrl, network, store: session.store, expiryMarginMs: 0, ...(params.timeoutMs === undefined ? {} : { timeoutMs: params.timeoutMs }) });
  let running = false;
  let stopped = false;

  const notSent = (request: RelayRestRequest, code: string, reason: string): SubmitAnswer => ({
    requestId: request.requestId,
    status: 'NOT_SENT',
    code,
    reason,
    via: 'rest',
  });

  const attempt = async (request: RelayRestRequest, retried: boolean): Promise<SubmitAnswer> => {
    try {
      await session.token();
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? String((error as { code: unknown }).code) : 'RELAY_AUTH_FAILED';
      return notSent(request, code, `no relay JWT: ${error instanceof Error ? error.message : String(error)}`);
    }
    let answer;
    try {
      answer = await rest.send(request);
    } catch (error) {
      if ((error instanceof RelayAuthError || isClientError(error, 'RELAY_NOT_AUTHENTICATED')) && !retried) {
        session.invalidate();
        return attempt(request, true);
      }
      if (error instanceof RelayAuthError || isClientError(error, 'RELAY_NOT_AUTHENTICATED')) {
        // The relay refused the JWT before reading the body: nothing was sent.
        return notSent(request, error.code, error.message);
      }
      if (isClientError(error, 'HTTP_UNAVAILABLE') && error.details['requestMayHaveBeenSent'] === false) {
        return notSent(request, error.code, error.message);
      }
      // Anything else came after the request may have reached the relay.
      const code = isClientError(error) ? error.code : 'ERROR';
      logger?.warn({ err: error, requestId: request.requestId }, 'relay REST: no usable answer; reconcile');
      return failedValue(request, 'UNKNOWN', 'BROADCAST_RESULT_UNKNOWN', `no usable answer (${code}): the request may have been broadcast; reconcile before retrying`);
    }
    if (answer.status === 'REJECTED' && answer.code === 'AUTHENTICATION_FAILED' && !retried) {
      session.invalidate();
      return attempt(request, true);
    }
    if (answer.status === 'BROADCAST') {
      receipts.watch({ requestId: request.requestId, txHash: answer.txHash.toLowerCase() as Hex });
      return { ...answer, requestId: request.requestId, via: 'rest' };
    }
    if (answer.status === 'UNKNOWN' && answer.candidateTxHash !== null) {
      receipts.watch({ requestId: request.requestId, txHash: answer.candidateTxHash.toLowerCase() as Hex });
    }
    return { ...answer, requestId: request.requestId, via: 'rest' };
  };

  return {
    receipts,
    outcomes$: receipts.outcomes$,
    lateResponses$: NEVER,
    connection$: EMPTY,
    available: () => running && !stopped,
    async submit(request) {
      checkWallet(request, session);
      if (stopped) return notSent(request, 'RELAY_SESSION_STOPPED', 'the transport is stopped');
      return attempt(request, false);
    },
    async start() {
      if (!stopped) running = true;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      running = false;
      receipts.stop();
    },
  };
}

// ---- failover -------------------------------------------------------------------------------

export interface FailoverTransportParameters {
  readonly ws: RelayTransport;
  readonly rest: RelayTransport;
  readonly clock: Clock;
  /** Use REST once the socket has been down this long; 0 (default): at once. */
  readonly restAfterMs?: number;
  readonly logger?: Logger;
}

export interface FailoverTransport extends RelayTransport {
  /** The route a submission would take now, or `waiting` (for the socket within restAfterMs, or for REST answers to drain). */
  route(): TransportRoute | 'waiting';
}

/**
 * WebSocket when its socket is open, REST when it is down (see the module comment for the rule).
 *
 * @example
 * const transport = createFailoverTransport({ ws, rest, clock, restAfterMs: 2_000 });
 * await transport.start();
 */
export function createFailoverTransport(params: FailoverTransportParameters): FailoverTransport {
  const { ws, rest, clock, logger } = params;
  const restAfterMs = params.restAfterMs ?? 0;
  const connection$ = new Subject<TransportConnectionEvent>();
  const wake$ = new Subject<void>();
  let lastRoute: TransportRoute | undefined;
  let downSince = clock.now();
  let restInFlight = 0;
  let stopped = false;

  const routeNow = (): TransportRoute | 'wait' => {
    if (ws.available()) return restInFlight === 0 ? 'ws' : 'wait';
    return clock.now() - downSince >= restAfterMs ? 'rest' : 'wait';
  };

  const noteRoute = (via: TransportRoute) => {
    if (lastRoute === via) return;
    lastRoute = via;
    logger?.info({ via }, 'relay route');
    connection$.next({ type: 'route', via });
  };

  /** Resolves with a route, waiting (on the clock, or for the socket or the REST drain) while the rule says wait. */
  const chooseRoute = (): Promise<TransportRoute> =>
    new Promise((resolve) => {
      let timer: Subscription | undefined;
      let done = false;
      const decide = () => {
        if (done) return;
        const route = stopped ? 'rest' : routeNow();
        if (route !== 'wait') {
          done = true;
          subscription?.unsubscribe();
          timer?.unsubscribe();
          resolve(route);
          return;
        }
        timer?.unsubscribe();
        timer = ws.available() ? undefined : clock.scheduler.schedule(decide, Math.max(0, downSince + restAfterMs - clock.now()));
      };
      const subscription: Subscription | undefined = wake$.subscribe(decide);
      decide();
    });

  let up = false;
  const wsEvents = ws.connection$.subscribe((event) => {
    // Down since the open connection closed; failed reconnects do not restart the count.
    if (event.type === 'open') up = true;
    if (event.type === 'closed' && up) {
      up = false;
      downSince = clock.now();
    }
    connection$.next(event);
    wake$.next();
  });

  const viaRest = async (request: RelayRestRequest): Promise<SubmitAnswer> => {
    noteRoute('rest');
    restInFlight += 1;
    try {
      return await rest.submit(request);
    } finally {
      restInFlight -= 1;
      if (restInFlight === 0) wake$.next();
    }
  };

  return {
    outcomes$: merge(ws.outcomes$, rest.outcomes$),
    lateResponses$: merge(ws.lateResponses$, rest.lateResponses$),
    connection$: connection$.asObservable(),
    available: () => ws.available() || rest.available(),
    route: () => {
      const route = routeNow();
      return route === 'wait' ? 'waiting' : route;
    },
    async submit(request) {
      for (;;) {
        const route = await chooseRoute();
        if (route === 'rest') return viaRest(request);
        noteRoute('ws');
        const answer = await ws.submit(request);
        // Closed as it was sent: nothing left; route it again.
        if (answer.status === 'NOT_SENT' && !stopped) continue;
        return answer;
      }
    },
    async start() {
      await Promise.all([rest.start(), ws.start()]);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      wake$.next();
      await Promise.all([ws.stop(), rest.stop()]);
      wsEvents.unsubscribe();
      wake$.complete();
      connection$.complete();
    },
  };
}
