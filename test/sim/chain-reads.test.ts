/**
 * The chain reads (protocol-facts.md "Chain reads") against a running local venue: viem's public
 * client reads the account core's free balance and a market's maker slots with `readContract`, as
 * any client of the real venue does; our ChainReader reads the same; bad calls get a node's answers.
 */
import { createPublicClient, encodeFunctionData, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import type { Address } from '../../src/protocol/encoding.ts';
import { accountCoreReadAbi, EMPTY_SLOT_ORDER_ID, orderBookReadAbi } from '../../src/protocol/chain-reads.ts';
import { createChainReader } from '../../src/clients/chain-reader.ts';
import { createFetchTransport } from '../../src/clients/http-transport.ts';
import { seededRandom } from '../../src/core/random.ts';
import { batchRestBody, bearer, onboard, postJson, postText, restingBuy, startTestVenue, waitForReceipt, WALLET, type TestVenue } from './relay-harness.ts';

const clock = new VirtualClock(Date.UTC(2025, 0, 1, 12, 0, 0));
let venue: TestVenue;
let accountId: bigint;
let market: Address;
let usdc: Address;
let accountCore: Address;
let orderTx: `0x${string}`;

beforeAll(async () => {
  venue = await startTestVenue({ clock, blockMs: 20 });
  let token: string;
  ({ accountId, token } = await onboard(venue));
  const info = venue.server.venue.info();
  const spec = info.markets.find((each) => each.symbol === 'MON_USDC')!;
  market = spec.address;
  usdc = spec.quoteToken.address;
  accountCore = info.contracts.accountCore;
  const answer = await postText(`${venue.url}/relay`, await batchRestBody(venue, WALLET, { accountId, market, orders: [restingBuy(1_000n)] }), bearer(token));
  expect(answer.body.status).toBe('BROADCAST');
  orderTx = answer.body.txHash;
  clock.advanceBy(venue.config.blockMs);
  expect((await waitForReceipt(venue.url, orderTx)).status).toBe('success');
});
afterAll(() => venue.stop());

const rpc = (body: unknown) => postJson(`${venue.url}/rpc`, body);

describe('chain reads over JSON-RPC', () => {
  it('viem readContract: the free balance is what the order does not lock, and the order is in slot 0', async () => {
    const client = createPublicClient({ transport: http(`${venue.url}/rpc`) });
    const model = venue.server.venue.balance(accountId, usdc);
    expect(model.locked).toBeGreaterThan(0n);
    const free = await client.readContract({ address: accountCore, abi: accountCoreReadAbi, functionName: 'getBalanceById', args: [Number(accountId), usdc] });
    expect(free).toBe(model.available);
    expect(free).toBe(1_000_000_000_000n - model.locked);

    const [order] = venue.server.venue.openOrders(accountId, market);
    const slot0 = await client.readContract({ address: market, abi: orderBookReadAbi, functionName: 'getOrderId', args: [Number(accountId), 0] });
    expect(slot0).toBe(order!.id);
    const slot1 = await client.readContract({ address: market, abi: orderBookReadAbi, functionName: 'getOrderId', args: [Number(accountId), 1] });
    expect(slot1).toBe(EMPTY_SLOT_ORDER_ID);
    // An unknown account holds nothing and has empty slots, as a mapping's default.
    expect(await client.readContract({ address: accountCore, abi: accountCoreReadAbi, functionName: 'getBalanceById', args: [999, usdc] })).toBe(0n);
  });

  it('ChainReader: balances and the whole slot view through the clients transport', async () => {
    const reader = createChainReader({ clock, random: seededRandom(1), transport: createFetchTransport() }, { rpcUrl: `${venue.url}/rpc`, accountCore });
    expect(await reader.freeBalance(accountId, usdc)).toBe(venue.server.venue.balance(accountId, usdc).available);
    const slots = await reader.slotOrderIds(accountId, market);
    expect(slots).toHaveLength(62);
    expect(slots[0]).toBe(venue.server.venue.openOrders(accountId, market)[0]!.id);
    expect(slots.slice(1).every((id) => id === null)).toBe(true);
  });

  it('answers bad calls as a node does: reverted selector, bad slot, other blocks, no code', async () => {
    const call = (to: string, data: string, block: unknown = 'latest') => rpc({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to, data }, block] });
    const balanceData = encodeFunctionData({ abi: accountCoreReadAbi, functionName: 'getBalanceById', args: [Number(accountId), usdc] });
    // The balance view asked of the order book (a selector it does not have), and garbage calldata.
    expect((await call(market, balanceData)).body).toMatchObject({ id: 1, error: { code: 3, message: 'execution reverted' } });
    expect((await call(accountCore, '0xdeadbeef')).body).toMatchObject({ error: { code: 3 } });
    expect((await call(accountCore, balanceData.slice(0, 40))).body).toMatchObject({ error: { code: 3 } });
    // Slot 62 is past the 62 maker slots; a uint40 above its range is refused by the ABI decoder.
    const slot62 = encodeFunctionData({ abi: orderBookReadAbi, functionName: 'getOrderId', args: [Number(accountId), 62] });
    expect((await call(market, slot62)).body).toMatchObject({ error: { code: 3 } });
    const wideAccount = `${balanceData.slice(0, 10)}${'00'.repeat(26)}${'ff'.repeat(6)}${balanceData.slice(74)}`;
    expect((await call(accountCore, wideAccount)).body).toMatchObject({ error: { code: 3 } });
    // A call to an address without code returns no data.
    expect((await call(`0x${'12'.repeat(20)}`, balanceData)).body).toMatchObject({ result: '0x' });

    const newest = venue.server.venue.blockNumber();
    const atNewest = await call(accountCore, balanceData, `0x${newest.toString(16)}`);
    expect(BigInt(atNewest.body.result)).toBe(venue.server.venue.balance(accountId, usdc).available);
    expect((await call(accountCore, balanceData, `0x${(newest - 1n).toString(16)}`)).body).toMatchObject({ error: { code: -32000 } });
    expect((await call(accountCore, balanceData, `0x${(newest + 5n).toString(16)}`)).body).toMatchObject({ error: { code: -32000, message: 'header not found' } });
    expect((await call(accountCore, balanceData, 'yesterday')).body).toMatchObject({ error: { code: -32602 } });
    expect((await rpc({ jsonrpc: '2.0', id: 2, method: 'eth_call', params: [{ to: 'nowhere', data: balanceData }] })).body).toMatchObject({ id: 2, error: { code: -32602 } });
    expect((await rpc({ jsonrpc: '2.0', id: 3, method: 'eth_call', params: [] })).body).toMatchObject({ id: 3, error: { code: -32602 } });
  });
});
