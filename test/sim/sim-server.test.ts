/**
 * createSimServer as a component: it serves every host on one port, runs on a virtual clock, starts
 * the background flow, and stops idempotently, closing its sockets.
 */
import { createPublicClient, http } from 'viem';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/virtual-clock.ts';
import { WALLET, getJson, signIn, startTestVenue, TestSocket } from './relay-harness.ts';

describe('createSimServer', () => {
  it('serves market data, user data, tokens, relay auth, JSON-RPC and /sim on one port', async () => {
    const venue = await startTestVenue();
    try {
      const market = venue.config.markets[0]!;
      const token = venue.config.tokens[0]!;
      expect((await getJson(`${venue.url}/api/v3/exchangeInfo`)).status).toBe(200);
      expect((await getJson(`${venue.url}/api/v3/depth?symbol=${market.symbol}`)).status).toBe(200);
      expect((await getJson(`${venue.url}/api/v1/tokens/${token.address}`)).body.data).toMatchObject({ symbol: token.symbol });
      expect((await getJson(`${venue.url}/api/v2/${WALLET.address.toLowerCase()}/user/orders/active/${market.address}`)).status).toBe(200);
      expect((await getJson(`${venue.url}/sim/info`)).body.chainId).toBe(31337);
      expect(await signIn(venue.url, WALLET)).toMatch(/^eyJ/);
      expect(await createPublicClient({ transport: http(`${venue.url}/rpc`) }).getChainId()).toBe(31337);
    } finally {
      await venue.stop();
    }
  });

  it('stops idempotently: closes WebSockets with 1001 and refuses new connections', async () => {
    const venue = await startTestVenue();
    const socket = await TestSocket.connect(venue.url, await signIn(venue.url, WALLET));
    const first = venue.stop();
    const second = venue.stop();
    expect(second).toBe(first);
    await first;
    expect(await socket.waitClosed()).toEqual({ code: 1001, reason: 'SERVER_STOPPING' });
    await expect(fetch(`${venue.url}/sim/info`)).rejects.toThrow();
    await venue.stop();
  });

  it('produces blocks on a virtual clock only as it advances', async () => {
    const clock = new VirtualClock(Date.UTC(2025, 0, 1));
    const venue = await startTestVenue({ clock, blockMs: 100 });
    try {
      const client = createPublicClient({ transport: http(`${venue.url}/rpc`) });
      const before = await client.getBlockNumber({ cacheTime: 0 });
      clock.advanceBy(1000);
      expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(before + 10n);
    } finally {
      await venue.stop();
    }
  });

  it('runs the configured background flow: the books fill without any bot', async () => {
    const clock = new VirtualClock(Date.UTC(2025, 0, 1));
    const venue = await startTestVenue({ clock, blockMs: 100, backgroundFlow: true });
    try {
      clock.advanceBy(5000);
      const depth = (await getJson(`${venue.url}/api/v3/depth?symbol=MON_USDC&state=proposed`)).body;
      expect(depth.bids.length).toBeGreaterThan(0);
      expect(depth.asks.length).toBeGreaterThan(0);
    } finally {
      await venue.stop();
    }
  });
});
