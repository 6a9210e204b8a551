/**
 * The whole relay path against a real simulated venue on loopback, with real signatures: fund ->
 * challenge -> token -> authorize the trading wallet with EIP-7702 (SET_CODE) -> WebSocket -> batch
 * place -> BROADCAST -> CONFIRMED -> the receipt through viem's public client.
 */
import { createPublicClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wsOutcomeMessageSchema, wsResponseMessageSchema } from '../../src/protocol/relay-response.ts';
import {
  OWNER,
  WALLET,
  authorizeSignerRequest,
  batchWsFrame,
  bearer,
  lower,
  postJson,
  postText,
  restingBuy,
  signIn,
  startTestVenue,
  TestSocket,
  waitForReceipt,
  type TestVenue,
} from './relay-harness.ts';

let venue: TestVenue;
beforeAll(async () => {
  venue = await startTestVenue({ blockMs: 20 });
});
afterAll(() => venue.stop());

describe('relay end to end', () => {
  it('funds, signs in, delegates, places a batch over the WebSocket and reads its receipt', async () => {
    const client = createPublicClient({ transport: http(`${venue.url}/rpc`) });
    expect(await client.getChainId()).toBe(31337);

    const funded = await postJson(`${venue.url}/sim/fund`, { owner: lower(OWNER), token: 'USDC', amount: '1000000000' });
    expect(funded.status).toBe(200);
    const accountId = BigInt(funded.body.accountId);

    const token = await signIn(venue.url, WALLET);

    const authorize = await postText(`${venue.url}/relay`, await authorizeSignerRequest(venue, OWNER, WALLET), bearer(token));
    expect(authorize.status).toBe(200);
    expect(authorize.body).toMatchObject({ status: 'BROADCAST', transactionType: 'SET_CODE' });
    expect(authorize.body.requestId).toMatch(/^[0-9a-f-]{36}$/);

    const socket = await TestSocket.connect(venue.url, token);
    // The grant lands in the next block; a batch before it would be refused as not authorized.
    expect(await waitForReceipt(venue.url, authorize.body.txHash)).toMatchObject({ status: 'success', type: 'eip7702' });
    const market = venue.config.markets[0]!.address;
    socket.send(await batchWsFrame(venue, WALLET, 'place-1', { accountId, market, orders: [restingBuy(1000n)] }));

    const response = wsResponseMessageSchema.parse(await socket.message('response', 'place-1'));
    expect(response).toMatchObject({ type: 'response', id: 'place-1', status: 'BROADCAST', transactionType: 'DYNAMIC_FEE' });
    if (response.status !== 'BROADCAST') throw new Error('not broadcast');

    const outcome = wsOutcomeMessageSchema.parse(await socket.message('outcome', 'place-1'));
    expect(outcome).toMatchObject({ type: 'outcome', id: 'place-1', txHash: response.txHash, status: 'CONFIRMED', reason: null });
    expect(outcome.blockNumber).toMatch(/^[1-9][0-9]*$/);

    const receipt = await client.getTransactionReceipt({ hash: response.txHash });
    expect(receipt).toMatchObject({ status: 'success', transactionHash: response.txHash, blockNumber: BigInt(outcome.blockNumber!), type: 'eip1559' });
    expect(receipt.to).toBe(lower(WALLET));
    expect(await client.getBlockNumber()).toBeGreaterThanOrEqual(receipt.blockNumber);

    // The order rests on the book and in the user's active orders.
    const active = await fetch(`${venue.url}/api/v2/${lower(OWNER)}/user/orders/active/${market}`).then((r) => r.json() as Promise<any>);
    expect(active.data.data).toHaveLength(1);
    expect(active.data.data[0]).toMatchObject({ price: '300000', size: '1000', isbuy: true });

    // Exactly one response and one outcome for the id.
    expect(socket.messages.filter((message) => message.id === 'place-1').map((message) => message.type)).toEqual(['response', 'outcome']);
    socket.close();
  });
});
