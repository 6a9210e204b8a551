/**
 * `POST /rpc` against a running server: viem's public client reads the chain id, block number and
 * receipts; raw requests get the JSON-RPC 2.0 error codes, batches and notifications.
 */
import { createPublicClient, http, TransactionReceiptNotFoundError } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { OWNER, WALLET, authorizeSignerRequest, bearer, postJson, postText, signIn, startTestVenue, waitForReceipt, type TestVenue } from './relay-harness.ts';

const clock = new VirtualClock(Date.UTC(2025, 0, 1, 12, 0, 0));
let venue: TestVenue;
beforeAll(async () => {
  venue = await startTestVenue({ clock, blockMs: 20 });
});
afterAll(() => venue.stop());

const rpc = (body: unknown) => postJson(`${venue.url}/rpc`, body);

describe('JSON-RPC', () => {
  it('serves viem: chain id, block number and receipts (null when unknown)', async () => {
    const client = createPublicClient({ transport: http(`${venue.url}/rpc`) });
    expect(await client.getChainId()).toBe(31337);
    const first = await client.getBlockNumber({ cacheTime: 0 });
    clock.advanceBy(3 * venue.config.blockMs);
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(first + 3n);
    await expect(client.getTransactionReceipt({ hash: `0x${'ab'.repeat(32)}` })).rejects.toBeInstanceOf(TransactionReceiptNotFoundError);

    await postJson(`${venue.url}/sim/fund`, { owner: OWNER.address.toLowerCase(), token: 'MON', amount: '1' });
    const token = await signIn(venue.url, WALLET);
    const answer = await postText(`${venue.url}/relay`, await authorizeSignerRequest(venue, OWNER, WALLET), bearer(token));
    clock.advanceBy(venue.config.blockMs);
    const receipt = await waitForReceipt(venue.url, answer.body.txHash);
    expect(receipt).toMatchObject({
      transactionHash: answer.body.txHash,
      status: 'success',
      type: 'eip7702',
      from: venue.config.relay.sponsorAddress,
      logs: [],
      contractAddress: null,
    });
    expect(receipt.blockHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(receipt.gasUsed).toBeGreaterThan(0n);
    expect(receipt.cumulativeGasUsed).toBeGreaterThanOrEqual(receipt.gasUsed);

    const raw = await rpc({ jsonrpc: '2.0', id: 'r', method: 'eth_getTransactionReceipt', params: [answer.body.txHash.toUpperCase().replace('0X', '0x')] });
    expect(raw.body.result).toMatchObject({ status: '0x1', type: '0x4', transactionHash: answer.body.txHash });
    expect(raw.body.result.logsBloom).toBe(`0x${'0'.repeat(512)}`);
    expect(raw.body.result.blockNumber).toMatch(/^0x[1-9a-f][0-9a-f]*$/);
  });

  it('answers errors with the standard codes, HTTP 200', async () => {
    const parse = await postText(`${venue.url}/rpc`, '{"jsonrpc":');
    expect(parse).toMatchObject({ status: 200, body: { jsonrpc: '2.0', id: null, error: { code: -32700 } } });
    expect((await rpc({ id: 1, method: 'eth_chainId' })).body).toMatchObject({ id: 1, error: { code: -32600 } });
    expect((await rpc({ jsonrpc: '2.0', id: 1, method: 7 })).body).toMatchObject({ id: 1, error: { code: -32600 } });
    expect((await rpc({ jsonrpc: '2.0', id: {}, method: 'eth_chainId' })).body).toMatchObject({ id: null, error: { code: -32600 } });
    expect((await rpc('hello')).body).toMatchObject({ id: null, error: { code: -32600 } });
    expect((await rpc([])).body).toMatchObject({ id: null, error: { code: -32600 } });
    expect((await rpc({ jsonrpc: '2.0', id: 2, method: 'eth_sendRawTransaction', params: ['0x'] })).body).toMatchObject({
      id: 2,
      error: { code: -32601 },
    });
    for (const params of [[], ['0x12'], [`0x${'ab'.repeat(32)}`, 1], 'x', { hash: `0x${'ab'.repeat(32)}` }]) {
      expect((await rpc({ jsonrpc: '2.0', id: 3, method: 'eth_getTransactionReceipt', params })).body, JSON.stringify(params)).toMatchObject({
        id: 3,
        error: { code: params === 'x' ? -32600 : -32602 },
      });
    }
    expect((await rpc({ jsonrpc: '2.0', id: 4, method: 'eth_chainId', params: [1] })).body).toMatchObject({ error: { code: -32602 } });
  });

  it('answers batches in order and never answers notifications', async () => {
    const batch = await rpc([
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
      { jsonrpc: '2.0', method: 'eth_chainId' },
      { jsonrpc: '2.0', id: 'b', method: 'eth_blockNumber', params: [] },
      42,
      { jsonrpc: '2.0', method: 'no_such_method' },
      { jsonrpc: '2.0', id: null, method: 'no_such_method' },
    ]);
    expect(batch.status).toBe(200);
    expect(batch.body).toHaveLength(4);
    expect(batch.body[0]).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' });
    expect(batch.body[1]).toMatchObject({ id: 'b', result: expect.stringMatching(/^0x[0-9a-f]+$/) });
    expect(batch.body[2]).toMatchObject({ id: null, error: { code: -32600 } });
    expect(batch.body[3]).toMatchObject({ id: null, error: { code: -32601 } });

    const notifications = await fetch(`${venue.url}/rpc`, { method: 'POST', body: JSON.stringify([{ jsonrpc: '2.0', method: 'eth_chainId' }]) });
    expect(notifications.status).toBe(204);
    expect(await notifications.text()).toBe('');
  });

  it('refuses an oversized body as a JSON-RPC error', async () => {
    const big = await postText(`${venue.url}/rpc`, JSON.stringify({ pad: 'x'.repeat(venue.config.http.maxBodyBytes + 1) }));
    expect(big).toMatchObject({ status: 413, body: { jsonrpc: '2.0', id: null, error: { code: -32600 } } });
    expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'eth_chainId' })).body.result).toBe('0x7a69');
  });
});
