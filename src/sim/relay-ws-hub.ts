/**
 * The relay WebSocket's rules, without a socket (docs/protocol.md "Relay WebSocket", ours unless the
 * spec says so). The network face (relay-ws.ts, the `ws` package) and the in-process connection
 * (src/runtime) both hand their sockets to this hub, so the two cannot disagree on a rule:
 *
 * - Upgrade (`checkUpgrade`): the path must be `/relay/ws`; a request target with any query at all is
 *   refused with HTTP 400 before the header is looked at, so a token in the URL is never accepted; a
 *   missing, bad or expired JWT gets HTTP 401. The JWT authenticates the upgrade; a connection is
 *   not closed when it later expires.
 * - One connection per wallet: a new one closes the old with 4001 `REPLACED`.
 * - Frames of a connection are handled one at a time, in arrival order (responses come in request
 *   order). Each frame: `parseRelayWsMessage`. A frame without a usable `id` gets `{type: "error", code,
 *   message}`; every frame with a usable `id` gets exactly one `{type: "response", id, …}`. An `id`
 *   already used on the connection is answered REJECTED `INVALID_REQUEST` ("id already used") and
 *   not submitted. Intent nonces (batch and packed-replacement headers, cancel-trigger) must increase
 *   within the connection: a nonce not above the last accepted one is REJECTED
 *   `NONCE_NOT_INCREASING` without reaching the venue; only an accepted request moves it.
 * - Each BROADCAST transaction is tracked until its outcome arrives on `venue.outcomes$`, then
 *   `{type: "outcome", id, txHash, status, blockNumber, reason}` is sent once. With 64 outcomes
 *   pending and one more transaction to track, that request's response is sent and the socket is
 *   closed with 4008 `PENDING_OUTCOME_LIMIT` (the transaction is broadcast, not tracked). Outcomes of
 *   a closed connection are never sent anywhere: the client reconciles by receipt.
 * - Faults (asked of the service's fault model, fault-model.ts, never decided here): `dropAll` cuts
 *   every socket without a close frame (the client sees 1006, as on a network failure), `closeAll`
 *   closes them with a close frame (4008 `PENDING_OUTCOME_LIMIT` for that fault); an outcome may be
 *   delayed (still pending meanwhile) or withheld (never sent, no longer pending); once it is due, a
 *   duplicated outcome's identical frame goes out again DUPLICATE_OUTCOME_GAP_MS (1 ms) after the
 *   first, and a reordered one is held (still pending) until the connection's next outcome that is
 *   not itself held goes out, then sent right behind it (several in the order held), or alone
 *   REORDER_MAX_HOLD_MS (1 s) after it was held when none came; the answer to a
 *   submission may leave `relayDelayMs` late (a slow relay: later frames and a close wait behind it,
 *   as on one stream, and no frame is handled while a close waits); a request that
 *   passed the checks above may be answered REJECTED without reaching the venue (the nonce does not
 *   move; a refusal by the HTTP edge, which `POST /relay` answers with a bare 429 or 5xx, is REJECTED
 *   RATE_LIMITED with `retryAfterMs` or INTERNAL_ERROR here: a frame has no status line), and a
 *   broadcast one UNKNOWN `BROADCAST_RESULT_UNKNOWN` with `candidateTxHash`, not tracked.
 *
 * Why one file of this size: the upgrade, the per-connection frame order, the pending-outcome cap
 * and the outcome faults all act on one connection's ordered stream of frames; split, each part
 * would have to re-state that order.
 */
import type { Subscription } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import {
  RELAY_PENDING_OUTCOME_LIMIT,
  RelayErrorCode,
  RelayMethod,
  WS_CLOSE_PENDING_OUTCOME_LIMIT,
  WS_CLOSE_REPLACED,
  type RelayErrorCodeName,
} from '../protocol/constants.ts';
import type { Address, Hex } from '../protocol/encoding.ts';
import { parseRelayWsMessage, type RelayWsRequest } from '../protocol/relay-request.ts';
import type { SimVenue, TxOutcome } from '../venue/sim-venue.ts';
import { RELAY_WS_PATH } from '../config/network-config.ts';
import type { RelayAuth } from './relay-auth-routes.ts';
import { rejected, rejectedByFault, submitAnswer, type ImmediateAnswer } from './relay-rest-route.ts';
import { DUPLICATE_OUTCOME_GAP_MS, REORDER_MAX_HOLD_MS, type OutcomeFault, type RelayFaultReader } from './fault-model.ts';

/** Close reasons sent with the relay's own close codes (ours). */
export const WS_CLOSE_REASON = {
  replaced: 'REPLACED',
  pendingOutcomeLimit: 'PENDING_OUTCOME_LIMIT',
  serverStopping: 'SERVER_STOPPING',
} as const;

/** Ids remembered per connection for duplicate detection; the oldest are forgotten beyond it (ours: bounds memory). */
export const MAX_REMEMBERED_IDS = 65_536;

/** Frames waiting for their turn on one connection before the socket stops being read (ours). */
const MAX_QUEUED_FRAMES = 256;

export interface RelayWsHubContext {
  readonly venue: SimVenue;
  readonly auth: Pick<RelayAuth, 'authenticate'>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Which outcomes are withheld, delayed, duplicated or reordered, which requests are answered REJECTED or UNKNOWN. */
  readonly faults: RelayFaultReader;
}

export interface RelayWsHubParameters {
  /** Default RELAY_PENDING_OUTCOME_LIMIT (64). */
  readonly pendingOutcomeLimit?: number;
}

/** One accepted socket as the hub drives it. */
export interface RelayPeer {
  /** Sends one text frame. */
  send(text: string): void;
  /** Closes with a close frame. */
  close(code: number, reason: string): void;
  /** Drops the socket without a close frame (the client sees 1006). */
  terminate(): void;
  /** Stops reading frames (too many wait), and reads them again; both idempotent. */
  pause?(): void;
  resume?(): void;
}

/** What the socket tells the hub. */
export interface RelayHubConnection {
  /** A text frame arrived; resolves once it was handled (its answer sent, if it has one). */
  frame(text: string): Promise<void>;
  /** The socket closed (whoever closed it). */
  closed(code: number): void;
}

/** Whether an upgrade may proceed, and for which wallet; a refusal's HTTP status and relay error body. */
export type RelayUpgradeCheck =
  | { readonly ok: true; readonly wallet: Address }
  | { readonly ok: false; readonly status: number; readonly body: { readonly code: RelayErrorCodeName; readonly message: string; readonly retryable: boolean } };

export interface RelayWsHub {
  /** Checks an upgrade request: its target (path and query) and its Authorization header. */
  checkUpgrade(target: string, authorization: string | undefined): RelayUpgradeCheck;
  /** Takes over an upgraded socket of `wallet` (replacing the wallet's previous connection). */
  accept(peer: RelayPeer, wallet: Address): RelayHubConnection;
  /** Open connections. */
  connectionCount(): number;
  /** Outcomes tracked and not yet sent, over every connection. */
  pendingOutcomeCount(): number;
  /** Per wallet: connections accepted, and the most outcomes ever pending on one of its connections. */
  walletStats(wallet: Address): { readonly accepted: number; readonly maxPendingOutcomes: number };
  /** Drops every connection without a close frame (a fault: the clients see 1006). */
  dropAll(): void;
  /** Closes every connection with `code` and `reason` (a fault, e.g. 4008 PENDING_OUTCOME_LIMIT). */
  closeAll(code: number, reason: string): void;
  /** Closes every connection with 1001 and refuses upgrades from then on. Idempotent. */
  stop(): void;
}

/** An outcome held back by a reorder fault until the connection's next outcome goes out. */
interface HeldOutcome {
  readonly outcome: TxOutcome;
  /** Sent twice when it goes (it was also picked for duplication). */
  readonly duplicate: boolean;
  /** Sends it alone once REORDER_MAX_HOLD_MS passed. */
  readonly timer: Subscription;
}

interface Connection {
  readonly peer: RelayPeer;
  readonly wallet: Address;
  readonly ids: Set<string>;
  /** txHash -> request id, until the outcome is sent or withheld. */
  readonly pending: Map<Hex, string>;
  /** Outcomes held back by a reorder fault, in the order held (still in `pending`). */
  readonly held: HeldOutcome[];
  readonly timers: Set<Subscription>;
  lastNonce: bigint | undefined;
  open: boolean;
  /** Frames are handled one at a time, in arrival order: the tail of that chain and its length. */
  queue: Promise<void>;
  queued: number;
  /** When the last frame held back (a slow relay) leaves: nothing leaves before it, a close neither. */
  sendAfter: number;
  /** Its close waits behind held-back frames: no more frames are handled meanwhile. */
  closing: boolean;
}

function refusal(status: number, code: RelayErrorCodeName, message: string): RelayUpgradeCheck {
  return { ok: false, status, body: { code, message, retryable: RelayErrorCode[code].retryable } };
}

/** The wallet-intent nonce of a request, if its method has one (the signer grant has its own nonce space). */
function intentNonce(request: RelayWsRequest): bigint | undefined {
  switch (request.method) {
    case RelayMethod.executeBatch:
    case RelayMethod.executeReplaceBySlotPacked:
      return request.payload.header.nonce;
    case RelayMethod.cancelTrigger:
      return request.payload.nonce;
    default:
      return undefined;
  }
}

/**
 * The relay WebSocket's rules over `venue`.
 *
 * @example
 * const hub = createRelayWsHub({ venue, auth, clock, logger, faults: createFaultModel({ clock, random }) });
 * const check = hub.checkUpgrade('/relay/ws', `Bearer ${jwt}`);
 * if (check.ok) { const connection = hub.accept(peer, check.wallet); connection.frame(text); }
 */
export function createRelayWsHub(context: RelayWsHubContext, parameters: RelayWsHubParameters = {}): RelayWsHub {
  const { venue, auth, clock, logger, faults } = context;
  const limit = parameters.pendingOutcomeLimit ?? RELAY_PENDING_OUTCOME_LIMIT;
  const byWallet = new Map<Address, Connection>();
  const connections = new Set<Connection>();
  const tracked = new Map<Hex, Connection>();
  let stopped = false;

  /** Runs `action` at `at` on the clock unless the connection is released first. */
  const later = (connection: Connection, at: number, action: () => void) => {
    const timer: Subscription = clock.scheduler.schedule(() => {
      connection.timers.delete(timer);
      action();
    }, at - clock.now());
    connection.timers.add(timer);
  };
  /** Sends `text` at `at` on the clock, never before a frame sent earlier; returns when it leaves. */
  const sendTextAt = (connection: Connection, text: string, at: number): number => {
    const leaves = Math.max(at, connection.sendAfter);
    const deliver = () => {
      if (connection.open) connection.peer.send(text);
    };
    if (leaves <= clock.now()) {
      deliver();
      return clock.now();
    }
    connection.sendAfter = leaves;
    later(connection, leaves, deliver);
    return leaves;
  };
  /** Sends `message` `delayMs` from now (a slow relay's answer), and never before a frame sent earlier. */
  const send = (connection: Connection, message: unknown, delayMs = 0) => {
    sendTextAt(connection, JSON.stringify(message), clock.now() + delayMs);
  };
  const respond = (connection: Connection, id: string, answer: ImmediateAnswer, delayMs = 0) => {
    send(connection, { type: 'response', id, ...answer.fields }, delayMs);
  };

  /** Stops all work for a connection; its pending outcomes are forgotten. Idempotent. */
  const release = (connection: Connection) => {
    if (!connection.open && !connections.has(connection)) return;
    connection.open = false;
    connections.delete(connection);
    if (byWallet.get(connection.wallet) === connection) byWallet.delete(connection.wallet);
    for (const txHash of connection.pending.keys()) tracked.delete(txHash);
    connection.pending.clear();
    connection.held.length = 0;
    for (const timer of connection.timers) timer.unsubscribe();
    connection.timers.clear();
  };

  const closeConnection = (connection: Connection, code: number, reason: string) => {
    if (connection.closing) return;
    const close = () => {
      release(connection);
      connection.peer.close(code, reason);
    };
    if (connection.sendAfter <= clock.now()) {
      close();
      return;
    }
    // The close frame follows the frames still held back, as on one stream.
    connection.closing = true;
    later(connection, connection.sendAfter, close);
  };

  /** Sends the outcome frame (twice when `duplicate`: the identical text again DUPLICATE_OUTCOME_GAP_MS after the first); it stops being pending. */
  const deliver = (connection: Connection, outcome: TxOutcome, duplicate: boolean) => {
    const id = connection.pending.get(outcome.txHash);
    if (id === undefined || !connection.open) return;
    connection.pending.delete(outcome.txHash);
    const text = JSON.stringify({
      type: 'outcome',
      id,
      txHash: outcome.txHash,
      status: outcome.status,
      blockNumber: outcome.blockNumber === null ? null : outcome.blockNumber.toString(),
      reason: outcome.reason,
    });
    const leaves = sendTextAt(connection, text, clock.now());
    if (duplicate) {
      logger.debug({ wallet: connection.wallet, txHash: outcome.txHash }, 'relay ws outcome duplicated (fault)');
      sendTextAt(connection, text, leaves + DUPLICATE_OUTCOME_GAP_MS);
    }
  };

  /** Sends the outcomes held back by a reorder fault, in the order held (behind the frame just sent). */
  const releaseHeld = (connection: Connection) => {
    for (const entry of connection.held.splice(0)) {
      entry.timer.unsubscribe();
      connection.timers.delete(entry.timer);
      deliver(connection, entry.outcome, entry.duplicate);
    }
  };

  /** An outcome is due (after any delay): held back when reordered, else sent, with the held ones right behind it. */
  const due = (connection: Connection, outcome: TxOutcome, fault: Extract<OutcomeFault, { withhold: false }>) => {
    if (!connection.open || !connection.pending.has(outcome.txHash)) return;
    const duplicate = fault.duplicate === true;
    if (fault.reorder === true) {
      logger.debug({ wallet: connection.wallet, txHash: outcome.txHash }, 'relay ws outcome held back for reordering (fault)');
      let entry: HeldOutcome | undefined;
      const timer: Subscription = clock.scheduler.schedule(() => {
        connection.timers.delete(timer);
        const index = entry === undefined ? -1 : connection.held.indexOf(entry);
        if (index < 0) return;
        connection.held.splice(index, 1);
        deliver(connection, outcome, duplicate);
      }, REORDER_MAX_HOLD_MS);
      connection.timers.add(timer);
      entry = { outcome, duplicate, timer };
      connection.held.push(entry);
      return;
    }
    deliver(connection, outcome, duplicate);
    releaseHeld(connection);
  };

  const onOutcome = (outcome: TxOutcome) => {
    const connection = tracked.get(outcome.txHash);
    if (connection === undefined) return;
    tracked.delete(outcome.txHash);
    const fault = faults.outcome();
    if (fault.withhold) {
      connection.pending.delete(outcome.txHash);
      logger.debug({ wallet: connection.wallet, txHash: outcome.txHash }, 'relay ws outcome withheld (fault)');
      return;
    }
    if (fault.delayMs <= 0) {
      due(connection, outcome, fault);
      return;
    }
    later(connection, clock.now() + fault.delayMs, () => due(connection, outcome, fault));
  };

  const handleFrame = async (connection: Connection, text: string): Promise<void> => {
    if (!connection.open || connection.closing) return;
    const parsed = parseRelayWsMessage(text, connection.wallet);
    const id = parsed.ok ? parsed.value.id : parsed.error.id;
    if (id === undefined) {
      const error = parsed.ok ? undefined : parsed.error;
      send(connection, { type: 'error', code: error?.code ?? 'INVALID_REQUEST', message: error?.message ?? 'unreadable frame' });
      return;
    }
    if (connection.ids.has(id)) {
      respond(connection, id, rejected('INVALID_REQUEST', 'id already used on this connection'));
      return;
    }
    connection.ids.add(id);
    if (connection.ids.size > MAX_REMEMBERED_IDS) connection.ids.delete(connection.ids.values().next().value!);
    if (!parsed.ok) {
      respond(connection, id, rejected(parsed.error.code, parsed.error.message));
      return;
    }
    const { id: _id, authorization7702, ...call } = parsed.value;
    const nonce = intentNonce(parsed.value);
    if (nonce !== undefined && connection.lastNonce !== undefined && nonce <= connection.lastNonce) {
      respond(connection, id, rejected('NONCE_NOT_INCREASING', `nonce ${nonce} is not above ${connection.lastNonce}, the last on this connection`));
      return;
    }
    // A slow relay: the request is handled now, its answer leaves late.
    const delayMs = faults.relayDelayMs();
    const rejection = faults.relayRejection();
    if (rejection !== undefined) {
      respond(connection, id, rejectedByFault(rejection), delayMs);
      return;
    }
    const result = await venue.submit(connection.wallet, call, authorization7702);
    if (!connection.open || connection.closing) return;
    if (nonce !== undefined && result.status !== 'REJECTED') connection.lastNonce = nonce;
    logger.debug({ id, method: call.method, wallet: connection.wallet, status: result.status }, 'relay ws request');
    if (result.status !== 'BROADCAST') {
      respond(connection, id, submitAnswer(result), delayMs);
      return;
    }
    if (faults.relayUnknown()) {
      respond(connection, id, submitAnswer(result, true), delayMs);
      return;
    }
    if (connection.pending.size >= limit) {
      respond(connection, id, submitAnswer(result), delayMs);
      logger.info({ wallet: connection.wallet, pending: connection.pending.size }, 'relay ws pending outcome limit: closing');
      closeConnection(connection, WS_CLOSE_PENDING_OUTCOME_LIMIT, WS_CLOSE_REASON.pendingOutcomeLimit);
      return;
    }
    connection.pending.set(result.txHash, id);
    const stats = statsOf(connection.wallet);
    if (connection.pending.size > stats.maxPendingOutcomes) stats.maxPendingOutcomes = connection.pending.size;
    tracked.set(result.txHash, connection);
    respond(connection, id, submitAnswer(result), delayMs);
  };

  const walletStats = new Map<Address, { accepted: number; maxPendingOutcomes: number }>();
  function statsOf(wallet: Address): { accepted: number; maxPendingOutcomes: number } {
    let stats = walletStats.get(wallet);
    if (stats === undefined) walletStats.set(wallet, (stats = { accepted: 0, maxPendingOutcomes: 0 }));
    return stats;
  }

  const outcomesSubscription = venue.outcomes$.subscribe({
    next: onOutcome,
    error: (error: unknown) => logger.error({ err: error }, 'venue outcomes stream failed'),
  });
  const dropAll = () => {
    if (connections.size > 0) logger.info({ connections: connections.size }, 'relay ws: dropping every socket (fault)');
    for (const connection of [...connections]) {
      release(connection);
      connection.peer.terminate();
    }
  };

  return {
    checkUpgrade(target, authorization) {
      const mark = target.indexOf('?');
      const path = mark < 0 ? target : target.slice(0, mark);
      if (stopped) return refusal(503, 'INTERNAL_ERROR', 'the relay is stopping');
      if (path !== RELAY_WS_PATH) return refusal(404, 'INVALID_REQUEST', `no WebSocket at ${path.slice(0, 80)}; the relay WebSocket is ${RELAY_WS_PATH}`);
      if (mark >= 0) return refusal(400, 'INVALID_REQUEST', 'the relay WebSocket takes no query parameters: send the JWT in the Authorization header, never in the URL');
      const who = auth.authenticate(authorization);
      if (!who.ok) return refusal(401, 'AUTHENTICATION_FAILED', who.message);
      return { ok: true, wallet: who.wallet };
    },

    accept(peer, wallet) {
      const previous = byWallet.get(wallet);
      if (previous !== undefined) {
        logger.info({ wallet }, 'relay ws replaced by a new connection');
        closeConnection(previous, WS_CLOSE_REPLACED, WS_CLOSE_REASON.replaced);
      }
      const connection: Connection = { peer, wallet, ids: new Set(), pending: new Map(), held: [], timers: new Set(), lastNonce: undefined, open: !stopped, queue: Promise.resolve(), queued: 0, sendAfter: 0, closing: false };
      if (stopped) {
        peer.close(1001, WS_CLOSE_REASON.serverStopping);
      } else {
        byWallet.set(wallet, connection);
        connections.add(connection);
        statsOf(wallet).accepted += 1;
        logger.info({ wallet }, 'relay ws connected');
      }
      return {
        frame(text) {
          connection.queued += 1;
          // Backpressure: stop reading the socket while too many frames wait.
          if (connection.queued >= MAX_QUEUED_FRAMES) peer.pause?.();
          connection.queue = connection.queue
            .then(() => handleFrame(connection, text))
            .catch((error: unknown) => {
              // A bug, never bad input: answer nothing more on this socket and keep the server up.
              logger.error({ err: error, wallet }, 'relay ws frame handling failed');
              closeConnection(connection, 1011, 'INTERNAL_ERROR');
            })
            .finally(() => {
              connection.queued -= 1;
              if (connection.queued < MAX_QUEUED_FRAMES) peer.resume?.();
            });
          return connection.queue;
        },
        closed(code) {
          release(connection);
          logger.info({ wallet, code }, 'relay ws closed');
        },
      };
    },

    connectionCount: () => connections.size,
    // Per connection, as the 64-outcome limit counts: a delayed outcome is still pending until sent.
    walletStats: (wallet) => {
      const stats = walletStats.get(wallet.toLowerCase() as Address);
      return { accepted: stats?.accepted ?? 0, maxPendingOutcomes: stats?.maxPendingOutcomes ?? 0 };
    },
    pendingOutcomeCount: () => {
      let count = 0;
      for (const connection of connections) count += connection.pending.size;
      return count;
    },
    dropAll,
    closeAll(code, reason) {
      if (connections.size > 0) logger.info({ connections: connections.size, code, reason }, 'relay ws: closing every socket (fault)');
      for (const connection of [...connections]) closeConnection(connection, code, reason);
    },

    stop() {
      if (stopped) return;
      stopped = true;
      outcomesSubscription.unsubscribe();
      for (const connection of [...connections]) closeConnection(connection, 1001, WS_CLOSE_REASON.serverStopping);
    },
  };
}
