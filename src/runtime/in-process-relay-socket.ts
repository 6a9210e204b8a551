/**
 * The relay WebSocket of the in-process connection: a client socket (what the relay WebSocket client
 * uses of `ws`) joined to the sim service's relay hub, the one place the relay WebSocket's rules live
 * (src/sim/relay-ws-hub.ts). No bytes move; frames do, each one drawn delay after it was sent,
 * scheduled on the clock, in order per direction (as on one TCP stream).
 *
 * - Upgrade: after one delay the hub checks the target and the Authorization header; a refusal
 *   reaches the client as `unexpected-response` with its HTTP status, an acceptance as `open` one
 *   delay later.
 * - A close (either side) travels behind the frames already sent, then both sides learn it.
 * - A drop (the hub's `terminate`, a fault; or the client's) loses every frame still in flight and
 *   the client sees 1006, as on a network failure.
 */
import { EventEmitter } from 'node:events';
import type { Subscription } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { Address } from '../protocol/encoding.ts';
import type { RelayClientSocket, WebSocketFactory } from '../clients/relay-socket.ts';
import type { RelayHubConnection, RelayWsHub } from '../sim/relay-ws-hub.ts';
import type { LatencySampler } from './latency-sampler.ts';
import type { PendingWork } from './pending-work.ts';

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;
/** The close code a side sees when the connection was dropped without a close frame. */
const ABNORMAL_CLOSURE = 1006;

/** One direction of the link: deliveries in send order, each no earlier than its drawn delay. */
class Lane {
  #last = 0;
  readonly #pending = new Set<Subscription>();

  constructor(
    private readonly clock: Clock,
    private readonly delay: LatencySampler,
  ) {}

  /** Runs `deliver` one drawn delay from now, and never before what was sent earlier. */
  send(deliver: () => void): void {
    const at = Math.max(this.clock.now() + this.delay(), this.#last);
    this.#last = at;
    const scheduled: Subscription = this.clock.scheduler.schedule(() => {
      this.#pending.delete(scheduled);
      deliver();
    }, at - this.clock.now());
    this.#pending.add(scheduled);
  }

  /** Loses everything in flight. */
  drop(): void {
    for (const scheduled of this.#pending) scheduled.unsubscribe();
    this.#pending.clear();
  }
}

/** The client end; emits what `ws` emits, in the same order, on the clock. */
class InProcessClientSocket extends EventEmitter implements RelayClientSocket {
  readyState = CONNECTING;
  readonly #up: Lane;
  readonly #down: Lane;
  #server: RelayHubConnection | undefined;

  constructor(
    private readonly hub: RelayWsHub,
    private readonly pending: PendingWork,
    clock: Clock,
    delay: LatencySampler,
    target: string | undefined,
    authorization: string | undefined,
  ) {
    super();
    this.#up = new Lane(clock, delay);
    this.#down = new Lane(clock, delay);
    // Another host: nothing answers, as when a connection is refused.
    if (target === undefined) this.#down.send(() => this.#closed(ABNORMAL_CLOSURE, ''));
    else this.#up.send(() => this.#upgrade(target, authorization));
  }

  #upgrade(target: string, authorization: string | undefined): void {
    if (this.readyState !== CONNECTING) return;
    const check = this.hub.checkUpgrade(target, authorization);
    if (!check.ok) {
      this.#down.send(() => {
        if (this.readyState !== CONNECTING) return;
        this.emit('unexpected-response', null, { statusCode: check.status, resume: () => undefined });
      });
      return;
    }
    this.#accept(check.wallet);
  }

  #accept(wallet: Address): void {
    let ended = false;
    this.#server = this.hub.accept(
      {
        send: (text) => {
          if (!ended) this.#down.send(() => this.readyState === OPEN && this.emit('message', text));
        },
        close: (code, reason) => {
          if (ended) return;
          ended = true;
          this.#down.send(() => this.#closed(code, reason));
        },
        terminate: () => {
          if (ended) return;
          ended = true;
          this.#drop();
        },
      },
      wallet,
    );
    this.#down.send(() => {
      if (this.readyState !== CONNECTING) return;
      this.readyState = OPEN;
      this.emit('open');
    });
  }

  /** The close handshake is done (or the link is gone): both ends know. */
  #closed(code: number, reason: string): void {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSED;
    this.#server?.closed(code);
    this.#server = undefined;
    this.emit('close', code, Buffer.from(reason, 'utf8'));
  }

  #drop(): void {
    this.#up.drop();
    this.#down.drop();
    this.readyState = CLOSING;
    this.#down.send(() => this.#closed(ABNORMAL_CLOSURE, ''));
  }

  send(data: string, callback: (error?: Error) => void): void {
    if (this.readyState !== OPEN) {
      callback(new Error('the in-process relay socket is not open'));
      return;
    }
    this.#up.send(() => {
      const server = this.#server;
      if (server !== undefined) void this.pending.track(server.frame(data));
    });
    callback();
  }

  close(code: number, reason: string): void {
    if (this.readyState === CONNECTING) {
      this.terminate();
      return;
    }
    if (this.readyState !== OPEN) return;
    this.readyState = CLOSING;
    // The close frame goes behind the frames already sent; the hub then releases the connection.
    this.#up.send(() => {
      this.#server?.closed(code);
      this.#server = undefined;
      this.#down.send(() => this.#closed(code, reason));
    });
  }

  terminate(): void {
    if (this.readyState === CLOSED) return;
    const server = this.#server;
    this.#server = undefined;
    this.#up.drop();
    this.#down.drop();
    this.readyState = CLOSING;
    if (server !== undefined) this.#up.send(() => server.closed(ABNORMAL_CLOSURE));
    this.#down.send(() => this.#closed(ABNORMAL_CLOSURE, ''));
  }
}

export interface InProcessSocketParameters {
  readonly hub: RelayWsHub;
  readonly clock: Clock;
  /** The origin of the in-process venue (`ws://venue.in-process`); other URLs never connect. */
  readonly origin: string;
  /** One-way delay of every frame. */
  readonly delay: LatencySampler;
  /** Where the handling of each frame is counted until it is done. */
  readonly pending: PendingWork;
}

/**
 * A WebSocketFactory for the relay WebSocket client that connects to `hub` in this process.
 *
 * @example
 * const client = createRelayWsClient({ clock, random }, { url: 'ws://venue.in-process/relay/ws', session, createSocket: inProcessSocketFactory({ hub, clock, origin, delay }) });
 */
export function inProcessSocketFactory(params: InProcessSocketParameters): WebSocketFactory {
  const { hub, clock, delay, origin, pending } = params;
  return (url, options) => {
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    const headers = (options.headers ?? {}) as Record<string, string | undefined>;
    return new InProcessClientSocket(hub, pending, clock, delay, parsed?.origin === origin ? `${parsed.pathname}${parsed.search}` : undefined, headers.authorization);
  };
}
