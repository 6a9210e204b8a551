/**
 * Shared pieces of the relay session and transport tests: a transport and a socket factory that
 * record what they were asked to send, a TCP proxy that can cut or refuse WebSocket connections,
 * onboarding on a venue whose blocks the test produces, and waiting on real time.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { WebSocket, type ClientOptions } from 'ws';
import type { PrivateKeyAccount } from 'viem/accounts';
import { createFetchTransport, type HttpRequest, type HttpTransport } from '../../src/clients/http-transport.ts';
import type { WebSocketFactory } from '../../src/clients/relay-ws-client.ts';
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

/** The fetch transport, remembering every request (URL and headers). */
export function recordingTransport(): { transport: HttpTransport; requests: HttpRequest[] } {
  const requests: HttpRequest[] = [];
  const inner = createFetchTransport();
  return {
    requests,
    transport: (request) => {
      requests.push(request);
      return inner(request);
    },
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

/** Waits on real time until `predicate` holds (polling every 5 ms). */
export async function waitFor(predicate: () => boolean, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A TCP proxy in front of the venue: `cut()` destroys every connection (the client sees 1006),
 * `refuse` drops new connections at once, `hold` stops forwarding what the server sends.
 */
export class TcpProxy {
  refuse = false;
  hold = false;
  readonly #sockets = new Set<Socket>();
  readonly #held: (() => void)[] = [];

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
      upstream.on('data', (chunk) => {
        if (self.hold) self.#held.push(() => client.write(chunk));
        else client.write(chunk);
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

  /** Destroys every open connection without a close frame. */
  cut(): void {
    this.#held.length = 0;
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }

  /** Forwards what was held. */
  release(): void {
    this.hold = false;
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
