/**
 * Shared pieces of the relay session and transport tests: a transport and a socket factory that
 * record what they were asked to send, a TCP proxy that can cut, refuse or hold WebSocket
 * connections, onboarding on a venue whose blocks the test produces, and waiting on events (never
 * on a sleep).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { concat, filter, firstValueFrom, map, of, throwError, throwIfEmpty, timeout, type Observable } from 'rxjs';
import { WebSocket, type ClientOptions } from 'ws';
import type { PrivateKeyAccount } from 'viem/accounts';
import { createFetchTransport, type HttpRequest, type HttpTransport } from '../../src/clients/http-transport.ts';
import type { RelayWsClient } from '../../src/clients/relay-ws-client.ts';
import type { WebSocketFactory } from '../../src/clients/relay-socket.ts';
import type { ClientContext } from '../../src/clients/send-request.ts';
import type { Clock } from '../../src/core/clock.ts';
import { seededRandom } from '../../src/core/random.ts';
import {
  authorizeSignerRequest,
  bearer,
  lower,
  postJson,
  postText,
  signIn,
  type TestVenue,
} from '../sim/relay-harness.ts';

/** One event-loop turn: every promise callback already queued has run (and those they queued). */
export const oneTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The fetch transport, remembering every request (URL and headers). `answered(n)` resolves once n
 * requests have their answer (or failure) and one event-loop turn has passed, so the caller that
 * awaited the answer has handled it.
 */
export function recordingTransport(): { transport: HttpTransport; requests: HttpRequest[]; answered(count: number): Promise<void> } {
  const requests: HttpRequest[] = [];
  const inner = createFetchTransport();
  let settled = 0;
  const waiters = new Set<{ readonly count: number; readonly resolve: () => void }>();
  const wake = () => {
    for (const waiter of waiters) {
      if (settled < waiter.count) continue;
      waiters.delete(waiter);
      void oneTurn().then(waiter.resolve);
    }
  };
  return {
    requests,
    transport: (request) => {
      requests.push(request);
      const answer = inner(request);
      const count = () => {
        settled += 1;
        wake();
      };
      answer.then(count, count);
      return answer;
    },
    answered: (count) =>
      new Promise<void>((resolve) => {
        waiters.add({ count, resolve });
        wake();
      }),
  };
}

export interface SocketRecord {
  readonly url: string;
  readonly headers: Record<string, string>;
}

/** The `ws` factory, remembering every URL and header set it was given. */
export function recordingSocketFactory(): { createSocket: WebSocketFactory; sockets: SocketRecord[]; last(): WebSocket | undefined } {
  const sockets: SocketRecord[] = [];
  let last: WebSocket | undefined;
  return {
    sockets,
    last: () => last,
    createSocket: (url: string, options: ClientOptions) => {
      sockets.push({ url, headers: { ...(options.headers as Record<string, string>) } });
      last = new WebSocket(url, options);
      return last;
    },
  };
}

export function clientContext(clock: Clock, transport: HttpTransport = createFetchTransport(), seed = 3): ClientContext {
  return { transport, clock, random: seededRandom(seed) };
}

/**
 * Resolves once `predicate` holds: checked now and on every value of `changes$` (the stream whose
 * values change what it reads), so nothing polls. `timeoutMs` of wall time only turns a hang into a
 * readable failure.
 *
 * @example await when(client.outcomes$, () => outcomes.length === 40, '40 outcomes');
 */
export function when(changes$: Observable<unknown>, predicate: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  return firstValueFrom(
    concat(of(undefined), changes$).pipe(
      filter(() => predicate()),
      map(() => undefined),
      throwIfEmpty(() => new Error(`the stream ended before ${what}`)),
      timeout({ first: timeoutMs, with: () => throwError(() => new Error(`timed out waiting for ${what}`)) }),
    ),
  );
}

/** The backoff a relay WebSocket client chose when it last closed (it must be closed, a reconnect due). */
export function reconnectInMs(client: Pick<RelayWsClient, 'state'>): number {
  const state = client.state();
  if (state.status !== 'closed' || state.reconnectInMs === null) throw new Error(`no reconnect is due: ${JSON.stringify(state)}`);
  return state.reconnectInMs;
}

/**
 * A TCP proxy in front of the venue: `cut()` destroys every connection (the client sees 1006),
 * `refuse` drops new connections at once, `hold` stops forwarding what the server sends
 * (`whenHeld` waits for what it held).
 */
export class TcpProxy {
  refuse = false;
  hold = false;
  readonly #sockets = new Set<Socket>();
  readonly #held: (() => void)[] = [];
  #heldText = '';
  readonly #heldWaiters = new Set<() => void>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(targetUrl: string): Promise<TcpProxy> {
    const target = new URL(targetUrl);
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => {
      if (proxy === undefined || proxy.refuse) {
        client.destroy();
        return;
      }
      const upstream = connect(Number(target.port), target.hostname);
      const self = proxy;
      self.#sockets.add(client);
      self.#sockets.add(upstream);
      client.on('data', (chunk) => upstream.write(chunk));
      upstream.on('data', (chunk: Buffer) => {
        if (!self.hold) {
          client.write(chunk);
          return;
        }
        self.#held.push(() => client.write(chunk));
        self.#heldText += chunk.toString('latin1');
        for (const check of self.#heldWaiters) check();
      });
      const close = () => {
        client.destroy();
        upstream.destroy();
        self.#sockets.delete(client);
        self.#sockets.delete(upstream);
      };
      client.on('error', close);
      upstream.on('error', close);
      client.on('close', close);
      upstream.on('close', close);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no proxy address');
    proxy = new TcpProxy(server, `http://127.0.0.1:${address.port}`);
    return proxy;
  }

  /**
   * Resolves once what the server sent while held (as text: the relay's frames are unmasked JSON)
   * satisfies `predicate`.
   */
  whenHeld(predicate: (text: string) => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!predicate(this.#heldText)) return;
        this.#heldWaiters.delete(check);
        resolve();
      };
      this.#heldWaiters.add(check);
      check();
    });
  }

  /** Destroys every open connection without a close frame. */
  cut(): void {
    this.#held.length = 0;
    this.#heldText = '';
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }

  /** Forwards what was held. */
  release(): void {
    this.hold = false;
    this.#heldText = '';
    for (const write of this.#held.splice(0)) write();
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Funds `owner`, grants `wallet` TRADE with its delegation, and produces blocks itself until the
 * authorization executed (for venues with long blocks). Returns the account id.
 */
export async function onboardByBlocks(venue: TestVenue, owner: PrivateKeyAccount, wallet: PrivateKeyAccount): Promise<bigint> {
  const funded = await postJson(`${venue.url}/sim/fund`, { owner: lower(owner), token: 'USDC', amount: '1000000000000' });
  if (funded.status !== 200) throw new Error(`fund failed: ${JSON.stringify(funded.body)}`);
  const token = await signIn(venue.url, wallet);
  const answer = await postText(`${venue.url}/relay`, await authorizeSignerRequest(venue, owner, wallet), bearer(token));
  if (answer.body.status !== 'BROADCAST') throw new Error(`authorize failed: ${JSON.stringify(answer.body)}`);
  venue.server.venue.produceBlock();
  const receipt = venue.server.venue.receipt(answer.body.txHash);
  if (receipt?.success !== true) throw new Error('authorize did not execute');
  return BigInt(funded.body.accountId);
}
