/**
 * What is signed or issued for one network stays there, end to end over loopback: two real local
 * venues with different chain ids (`chainId` of the sim config), real EIP-712 and EIP-7702
 * signatures, and the bot's own relay session, JWT store and relay clients.
 *
 * - A request signed for venue A's chain is refused by venue B (INVALID_SIGNATURE, docs/protocol.md
 *   "Relay checks") over REST and over the WebSocket, and changes nothing on B: the same intent signed
 *   for B, with the same nonce, is accepted afterwards and is the only order B holds. So are an
 *   owner's TRADE grant signed for A (INVALID_SIGNATURE) and an EIP-7702 authorization naming A's
 *   chain (INVALID_REQUEST), neither using up its one-shot nonce on B.
 * - A JWT issued for one network is never sent to another: a relay client of network testnet sharing
 *   the JWT store with a signed-in sim session finds no JWT (RELAY_NOT_AUTHENTICATED) and sends
 *   nothing; a token handed out under the wrong network is refused by the store's BoundJwt
 *   (JWT_NETWORK_MISMATCH) before any byte leaves, and the WebSocket client reports it as a failed
 *   connection (it used to escape as an unhandled rejection and leave the client connecting forever).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveClock } from '../../src/core/clock.ts';
import { isBaseError } from '../../src/core/base-error.ts';
import { createLogger } from '../../src/core/logger.ts';
import { seededRandom } from '../../src/core/random.ts';
import { createRelayRestClient } from '../../src/clients/relay-rest-client.ts';
import { createRelayWsClient } from '../../src/clients/relay-ws-client.ts';
import { createRelaySession } from '../../src/execution/relay-session.ts';
import { RelayMethod } from '../../src/protocol/constants.ts';
import { JwtStore } from '../../src/protocol/jwt-store.ts';
import { createSimServer } from '../../src/sim/sim-server.ts';
import {
  OTHER_WALLET,
  OWNER,
  TestSocket,
  WALLET,
  authorizeSignerRequest,
  batchRestBody,
  batchWsFrame,
  bearer,
  getJson,
  lower,
  nextNonce,
  nextRequestId,
  onboard,
  postText,
  restingBuy,
  signIn,
  simYaml,
  type TestVenue,
} from '../sim/relay-harness.ts';
import { clientContext, recordingSocketFactory, recordingTransport, when } from '../execution/relay-support.ts';

const CHAIN_A = 31337;
const CHAIN_B = 10143;

/** A local venue of config/sim.yaml with its own chain id, on 127.0.0.1 and a free port. */
async function venueOnChain(chainId: number): Promise<TestVenue> {
  const base = await simYaml();
  const config = { ...base, chainId, blockMs: 20 };
  const server = createSimServer({ config, clock: liveClock, random: seededRandom(chainId), logger: createLogger({ level: 'silent' }), backgroundFlow: false });
  const { url } = await server.start({ port: 0 });
  return { server, url: url.replace(/\/+$/, ''), config, clock: liveClock, stop: () => server.stop() };
}

let a: TestVenue;
let b: TestVenue;
/** WALLET set up for OWNER's account on each venue (each signed for its own chain): account id and JWT. */
let onA: { accountId: bigint; token: string };
let onB: { accountId: bigint; token: string };
beforeAll(async () => {
  [a, b] = await Promise.all([venueOnChain(CHAIN_A), venueOnChain(CHAIN_B)]);
  [onA, onB] = await Promise.all([onboard(a), onboard(b)]);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

const activeOrders = async (venue: TestVenue, wallet: string) => {
  const market = venue.config.markets[0]!.address;
  return (await getJson(`${venue.url}/api/v2/${wallet}/user/orders/active/${market}`)).body.data.data as { orderid: string }[];
};

/** Waits for a transaction's receipt through the venue's JSON-RPC (what a bot reads). */
async function receipt(venue: TestVenue, txHash: string): Promise<{ status: string }> {
  for (let waited = 0; waited < 5_000; waited += 20) {
    const answer = await postText(`${venue.url}/rpc`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionReceipt', params: [txHash] }));
    if (answer.body.result !== null) return answer.body.result;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no receipt for ${txHash}`);
}

describe('a signature for one chain id is refused by a venue of another', () => {
  it('the venues really have two chain ids', async () => {
    expect((await getJson(`${a.url}/sim/info`)).body.chainId).toBe(CHAIN_A);
    expect((await getJson(`${b.url}/sim/info`)).body.chainId).toBe(CHAIN_B);
    // The same market, contracts and accounts on both: only the chain differs.
    expect(a.config.markets[0]!.address).toBe(b.config.markets[0]!.address);
  });

  it('a batch signed for A: INVALID_SIGNATURE on B over REST and WebSocket, nothing changed on B; signed for B it executes', async () => {
    const market = b.config.markets[0]!.address as `0x${string}`;
    const nonce = nextNonce();
    const requestId = nextRequestId();
    const params = { accountId: onB.accountId, market, orders: [restingBuy()], nonce };

    // Signed under A's domain, sent to B with B's JWT.
    const crossRest = await postText(`${b.url}/relay`, await batchRestBody(a, WALLET, params, requestId), bearer(onB.token));
    expect(crossRest.status).toBe(422);
    expect(crossRest.body).toMatchObject({ requestId, status: 'REJECTED', code: 'INVALID_SIGNATURE', retryable: false });
    const socket = await TestSocket.connect(b.url, onB.token);
    try {
      socket.send(await batchWsFrame(a, WALLET, 'cross-chain', params));
      expect(await socket.message('response', 'cross-chain')).toMatchObject({ status: 'REJECTED', code: 'INVALID_SIGNATURE' });
    } finally {
      socket.close();
    }
    expect(await activeOrders(b, lower(WALLET))).toEqual([]);

    // The very same intent signed for B, same nonce: accepted (the refusals consumed nothing) and executed.
    const own = await postText(`${b.url}/relay`, await batchRestBody(b, WALLET, params), bearer(onB.token));
    expect(own.body).toMatchObject({ status: 'BROADCAST' });
    expect((await receipt(b, own.body.txHash)).status).toBe('0x1');
    expect(await activeOrders(b, lower(WALLET))).toHaveLength(1);

    // And A takes what was signed for it (the request was good, for its own chain).
    const home = await postText(`${a.url}/relay`, await batchRestBody(a, WALLET, { ...params, accountId: onA.accountId }), bearer(onA.token));
    expect(home.body).toMatchObject({ status: 'BROADCAST' });
  });

  it("an owner's TRADE grant and EIP-7702 delegation signed for A are refused by B and use up nothing there", async () => {
    // OWNER has an account on B, with its one-shot authorization nonce 1 used; OTHER_WALLET is new to B.
    const token = await signIn(b.url, OTHER_WALLET);
    const cross = await postText(`${b.url}/relay`, await authorizeSignerRequest(a, OWNER, OTHER_WALLET, 2n), bearer(token));
    // The owner's grant is checked first, under the account-core domain of B's chain.
    expect(cross.body).toMatchObject({ status: 'REJECTED', code: 'INVALID_SIGNATURE' });
    expect(cross.status).toBe(422);
    // The grant signed for B, the wallet's EIP-7702 authorization for A's chain: refused for its chain id.
    const forB = JSON.parse(await authorizeSignerRequest(b, OWNER, OTHER_WALLET, 2n)) as Record<string, unknown>;
    const forA = JSON.parse(await authorizeSignerRequest(a, OWNER, OTHER_WALLET, 2n)) as Record<string, unknown>;
    const mixed = await postText(`${b.url}/relay`, JSON.stringify({ ...forB, requestId: nextRequestId(), authorization7702: forA['authorization7702'] }), bearer(token));
    expect(mixed.body).toMatchObject({ status: 'REJECTED', code: 'INVALID_REQUEST' });
    expect(mixed.body.message).toContain(String(CHAIN_A));
    // Signed for B with the same one-shot nonce (and EIP-7702 nonce 0): accepted, so nothing was used up.
    const own = await postText(`${b.url}/relay`, await authorizeSignerRequest(b, OWNER, OTHER_WALLET, 2n), bearer(token));
    expect(own.body).toMatchObject({ status: 'BROADCAST', transactionType: 'SET_CODE' });
    expect((await receipt(b, own.body.txHash)).status).toBe('0x1');
  });
});

describe('a JWT issued for one network is never sent to another', () => {
  it('a relay client of another network sharing the store finds no JWT and sends nothing', async () => {
    const store = new JwtStore();
    const session = createRelaySession(clientContext(liveClock), { network: 'sim', relayUrl: a.url, signer: WALLET, store });
    try {
      const jwt = await session.start();
      expect(jwt.network).toBe('sim');
      expect(store.get('sim', lower(WALLET), Date.now())).toBe(jwt);

      // The REST client of testnet (venue B playing testnet), the same store: refused before sending.
      const seen = recordingTransport();
      const rest = createRelayRestClient(clientContext(liveClock, seen.transport), { baseUrl: b.url, network: 'testnet', store });
      const request = { requestId: nextRequestId(), method: RelayMethod.executeBatch, wallet: lower(WALLET), payload: {}, authorization7702: null } as const;
      await expect(rest.send(request as never)).rejects.toSatisfy((error) => isBaseError(error, 'RELAY_NOT_AUTHENTICATED'));
      expect(seen.requests).toEqual([]);
      // The sim's token is revealed for sim only.
      expect(() => jwt.reveal('testnet')).toThrowError(expect.objectContaining({ code: 'JWT_NETWORK_MISMATCH' }));
      expect(jwt.reveal('sim')).toMatch(/^eyJ/);
    } finally {
      session.stop();
    }
  });

  it('a WebSocket client of testnet handed the sim JWT refuses it (JWT_NETWORK_MISMATCH) and opens nothing', async () => {
    const store = new JwtStore();
    const session = createRelaySession(clientContext(liveClock), { network: 'sim', relayUrl: a.url, signer: WALLET, store });
    const sockets = recordingSocketFactory();
    try {
      await session.start();
      // A token source that claims testnet but hands out what the store holds for sim.
      const wrong = { network: 'testnet', wallet: lower(WALLET), token: () => session.token(), invalidate: () => session.invalidate() };
      const client = createRelayWsClient({ clock: liveClock, random: seededRandom(1) }, { url: `${b.url.replace(/^http/, 'ws')}/relay/ws`, session: wrong, createSocket: sockets.createSocket });
      client.start();
      // It reports the refusal as a failed connection (and would retry), instead of sending the token.
      await when(client.state$, () => client.state().status === 'closed', 'the connection attempt failed');
      const state = client.state();
      await client.stop();
      expect(state).toMatchObject({ status: 'closed', connectionId: null, kind: 'connect-failed' });
      expect(state.status === 'closed' && state.reason).toBe('sign-in failed: a JWT issued for sim cannot be used on testnet');
      expect(sockets.sockets).toEqual([]);
    } finally {
      session.stop();
    }
  });
});
