/**
 * The simulated venue end to end on a virtual clock with real signatures: onboarding (fund,
 * authorize with EIP-7702), a batch through the relay into a block, receipts and outcomes, order
 * events and active orders, depth at each consensus state, a cross that trades (trades, klines,
 * ticker), a stale expected order id that reverts, and system transactions.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_SPONSOR } from '../../src/config/sim-config.ts';
import { UINT64_MAX } from '../../src/core/units.ts';
import { depthSchema, exchangeInfoSchema, klinesSchema, ticker24hrSchema, tradesSchema } from '../../src/protocol/market-data.ts';
import { activeOrderSchema, orderEventSchema, orderEventsQuerySchema } from '../../src/protocol/user-data.ts';
import { tokenSchema } from '../../src/protocol/tokens.ts';
import { quoteResponseSchema } from '../../src/protocol/quote.ts';
import type { TxOutcome } from '../../src/venue/sim-venue.ts';
import {
  KEYS,
  MON,
  MON_USDC,
  START_MS,
  USDC,
  authorizeCall,
  batchCall,
  broadcast,
  createHarness,
  onboard,
  order,
  submit,
  testConfig,
} from './sim-venue-harness.ts';

const query = (input: Record<string, string> = {}) => orderEventsQuerySchema.parse(input);

describe('simulated venue: a full flow', () => {
  it('onboards a trader, places a batch, and shows it in receipts, events, active orders and depth by state', async () => {
    const h = createHarness();
    const { venue } = h;
    const alice = h.trader(KEYS.alice, KEYS.aliceWallet);
    alice.accountId = venue.fund(alice.ownerAddress, USDC, 1_000_000_000n); // 1000 USDC
    expect(alice.accountId).toBe(1n);
    expect(venue.resolveAccount(alice.ownerAddress)).toBe(1n);
    expect(venue.resolveAccount(alice.walletAddress)).toBeUndefined();

    // Authorize the wallet with an EIP-7702 delegation: SET_CODE, effective once its block executes.
    const auth = await authorizeCall(h, alice);
    const authResult = await submit(h, alice, auth.call, auth.authorization7702);
    expect(authResult).toMatchObject({ status: 'BROADCAST', transactionType: 'SET_CODE', sponsorNonce: 0n });
    expect(authResult.status === 'BROADCAST' && authResult.sponsorAddress).toBe(h.config.relay.sponsorAddress);
    expect(venue.resolveAccount(alice.walletAddress)).toBeUndefined();
    h.blocks(1);
    expect(venue.blockNumber()).toBe(1n);
    expect(venue.resolveAccount(alice.walletAddress)).toBe(1n);
    const authHash = authResult.status === 'BROADCAST' ? authResult.txHash : '0x';
    expect(venue.receipt(authHash)).toMatchObject({ blockNumber: 1n, transactionIndex: 0, success: true, type: 'SET_CODE', to: h.config.contracts.accountCore });

    // A resting bid of 2 MON at 1.50 USDC.
    const txHash = await broadcast(h, alice, await batchCall(h, alice, { orders: [order('BUY', 150n, 2000n)] }));
    expect(venue.receipt(txHash)).toBeUndefined();
    expect(venue.pendingTransactions()).toBe(1);
    h.blocks(1);
    expect(h.outcomes.at(-1)).toEqual<TxOutcome>({ txHash, status: 'CONFIRMED', blockNumber: 2n, reason: null });
    expect(h.outcomes).toHaveLength(2);
    expect(venue.receipt(txHash)).toMatchObject({ blockNumber: 2n, transactionIndex: 0, success: true, type: 'DYNAMIC_FEE', from: h.config.relay.sponsorAddress, to: alice.walletAddress });

    const events = venue.orderEvents(alice.accountId, query());
    expect(events.total).toBe(1);
    const created = orderEventSchema.parse(events.events[0]);
    expect(created).toMatchObject({
      eventType: 'order-created',
      transactionHash: txHash,
      blockTimestamp: new Date(START_MS + 800).toISOString(),
      eventData: {
        orderId: '1',
        marketAddress: MON_USDC,
        owner: alice.ownerAddress,
        isBuy: true,
        size: '2000',
        price: '150',
        sizePrecision: '1000',
        pricePrecision: '100',
        baseDeposited: (2n * 10n ** 18n).toString(),
        baseDepositedInUsd: (3n * 10n ** 18n).toString(),
        baseToken: { address: MON, symbol: 'MON', name: 'Monad', decimal: 18, logoUrl: null },
      },
    });

    const active = venue.activeOrders(alice.accountId, venue.marketByAddress(MON_USDC)!, 100);
    expect(active).toHaveLength(1);
    expect(activeOrderSchema.parse(active[0])).toEqual({
      orderid: 1,
      marketaddress: MON_USDC,
      owner: alice.ownerAddress,
      size: '2000',
      price: '150',
      isbuy: true,
      remainingsize: '2000',
      iscanceled: false,
      blocknumber: '2',
      txindex: '0',
      logindex: '0',
      transactionhash: txHash,
      triggertime: new Date(START_MS + 800).toISOString(),
      fliporderid: 0,
      flipprice: 0,
      lpid: '',
      sizeprecision: '1000',
      priceprecision: '100',
    });

    // Depth: proposed shows it at once, committed only after 3 more blocks.
    const market = venue.marketBySymbol('MON_USDC')!;
    const proposed = depthSchema.parse(venue.depth(market, 100, 'proposed'));
    expect(proposed).toEqual({ lastUpdateId: 2, E: START_MS + 800, T: Math.floor((START_MS + 800) / 1000), bids: [['1.5', '2']], asks: [] });
    expect(venue.depth(market, 100, 'committed').bids).toEqual([]);
    expect(venue.depth(market, 100, 'voted').lastUpdateId).toBe(1);
    h.blocks(1);
    expect(venue.depth(market, 100, 'voted').bids).toEqual([['1.5', '2']]);
    expect(venue.depth(market, 100, 'finalized').bids).toEqual([]);
    h.blocks(1);
    expect(venue.depth(market, 100, 'finalized').bids).toEqual([['1.5', '2']]);
    expect(venue.depth(market, 100, 'committed').bids).toEqual([]);
    h.blocks(1);
    const committed = venue.depth(market, 100, 'committed');
    expect(committed).toMatchObject({ lastUpdateId: 2, bids: [['1.5', '2']] });
    expect(venue.blockNumber()).toBe(5n);

    const info = exchangeInfoSchema.parse(venue.exchangeInfo());
    expect(info).toMatchObject({ timezone: 'UTC', serverTime: START_MS + 2000, E: START_MS + 800, T: Math.floor((START_MS + 800) / 1000) });
    expect(info.symbols[0]).toEqual({
      symbol: 'MON_USDC',
      status: 'TRADING',
      baseAsset: 'MON',
      quoteAsset: 'USDC',
      baseAssetPrecision: 3,
      quoteAssetPrecision: 2,
      // Binance's filters: tick 1 unit of 0.01, the largest uint32 price on the tick; sizes 1..1000000 units of 0.001.
      filters: [
        { filterType: 'PRICE_FILTER', minPrice: '0.01', maxPrice: '42949672.94', tickSize: '0.01' },
        { filterType: 'LOT_SIZE', minQty: '0.001', maxQty: '1000000', stepSize: '0.001' },
      ],
    });
  });

  it('trades when another account crosses: trade events on both sides, trades, klines and ticker', async () => {
    const h = createHarness();
    const { venue } = h;
    const alice = h.trader(KEYS.alice, KEYS.aliceWallet);
    const bob = h.trader(KEYS.bob, KEYS.bobWallet);
    await onboard(h, alice);
    await onboard(h, bob);
    await broadcast(h, alice, await batchCall(h, alice, { orders: [order('BUY', 150n, 2000n)] }));
    h.blocks(1);
    const crossHash = await broadcast(h, bob, await batchCall(h, bob, { orders: [order('SELL', 140n, 500n, { tif: 'IOC' })] }));
    h.blocks(1);
    const crossTime = START_MS + 4 * 400;
    expect(h.outcomes.at(-1)).toMatchObject({ txHash: crossHash, status: 'CONFIRMED' });

    const market = venue.marketBySymbol('MON_USDC')!;
    const trades = tradesSchema.parse(venue.trades(market, 500));
    expect(trades).toEqual([{ id: 1, price: '1.5', qty: '0.5', quoteQty: '0.75', time: crossTime, isBuyerMaker: true, isBestMatch: true }]);

    const aliceTrade = venue.orderEvents(alice.accountId, query({ eventType: 'trade' }));
    expect(aliceTrade.total).toBe(1);
    expect(aliceTrade.events[0]).toMatchObject({
      eventType: 'trade',
      transactionHash: crossHash,
      eventData: {
        orderId: '1',
        isBuy: true,
        marketId: 1,
        orderSize: '2000',
        filledSize: '500',
        fillPrice: (15n * 10n ** 17n).toString(),
        updatedSize: '1500',
        baseFilled: (5n * 10n ** 17n).toString(),
        baseFilledInUsd: (75n * 10n ** 16n).toString(),
      },
    });
    const bobEvents = venue.orderEvents(bob.accountId, query());
    expect(bobEvents.events.map((event) => event.eventType)).toEqual(['trade', 'order-created']);
    expect(bobEvents.events[0]).toMatchObject({ eventData: { orderId: '2', isBuy: false, orderSize: '500', updatedSize: '0' } });
    expect(venue.activeOrders(alice.accountId, market, 10)[0]).toMatchObject({ orderid: 1, remainingsize: '1500' });
    expect(venue.balance(bob.accountId, USDC).available).toBe(1_000_000n * 10n ** 6n + 750_000n);

    const klines = klinesSchema.parse(venue.klines(market, { interval: '1m', limit: 500 }));
    expect(klines).toEqual([
      { openTime: START_MS, open: '1.5', high: '1.5', low: '1.5', close: '1.5', volume: '0.5', closeTime: START_MS + 59_999, quoteVolume: '0.75', numTrades: 1 },
    ]);
    h.clock.advanceBy(120_000);
    expect(venue.klines(market, { interval: '1m', limit: 500 }).map((k) => [k.openTime, k.close, k.volume])).toEqual([
      [START_MS, '1.5', '0.5'],
      [START_MS + 60_000, '1.5', '0'],
      [START_MS + 120_000, '1.5', '0'],
    ]);

    const ticker = ticker24hrSchema.parse(venue.ticker24hr(market));
    expect(ticker).toMatchObject({
      symbol: 'MON_USDC',
      lastPrice: '1.5',
      openPrice: '1.5',
      priceChange: '0',
      priceChangePercent: '0.000',
      volume: '0.5',
      quoteVolume: '0.75',
      count: 1,
      bidPrice: '1.5',
      askPrice: '0',
      closeTime: h.clock.now(),
      openTime: h.clock.now() - 86_400_000,
    });
  });

  it('reverts a batch whose expected order id no longer matches, and changes nothing', async () => {
    const h = createHarness();
    const { venue } = h;
    const alice = h.trader(KEYS.alice, KEYS.aliceWallet);
    await onboard(h, alice);
    await broadcast(h, alice, await batchCall(h, alice, { orders: [order('BUY', 150n, 2000n)] }));
    h.blocks(1);
    // Replace order 1 in slot 0 in one tx; a second tx still expects order 1 there.
    await broadcast(h, alice, await batchCall(h, alice, { cancelSlotIdxs: [0], expectedOrderIds: [1n], orders: [order('BUY', 151n, 2000n)] }));
    const stale = await broadcast(h, alice, await batchCall(h, alice, { cancelSlotIdxs: [0], expectedOrderIds: [1n], orders: [order('BUY', 149n, 1000n)] }));
    h.blocks(1);
    const outcome = h.outcomes.find((o) => o.txHash === stale)!;
    expect(outcome.status).toBe('REVERTED');
    expect(outcome.reason).toMatch(/^EXPECTED_ORDER_ID_MISMATCH: slot 0 holds order 2, expected 1/);
    expect(venue.receipt(stale)).toMatchObject({ success: false, transactionIndex: 1 });
    const market = venue.marketBySymbol('MON_USDC')!;
    expect(venue.activeOrders(alice.accountId, market, 10).map((o) => [o.orderid, o.price])).toEqual([[2, '151']]);
    expect(venue.depth(market, 10, 'proposed').bids).toEqual([['1.51', '2']]);
    expect(venue.orderEvents(alice.accountId, query()).total).toBe(3); // created 1, canceled 1, created 2
    // Outcomes are emitted once each, in block order.
    expect(h.outcomes.map((o) => o.blockNumber)).toEqual([1n, 2n, 3n, 3n]);
  });

  it('reverts at execution when the deadline passed between submission and the block', async () => {
    const h = createHarness();
    const alice = h.trader(KEYS.alice, KEYS.aliceWallet);
    await onboard(h, alice);
    h.clock.advanceTo(START_MS + 900); // the next block is at 1.2 s, in the next second
    const deadline = BigInt(START_MS / 1000);
    const call = await batchCall(h, alice, { orders: [order('BUY', 150n, 10n)] }, { deadline });
    const hash = await broadcast(h, alice, call);
    h.clock.advanceTo(START_MS + 1200);
    const outcome = h.outcomes.find((o) => o.txHash === hash)!;
    expect(outcome.status).toBe('REVERTED');
    expect(outcome.reason).toMatch(/^DEADLINE_EXPIRED/);
  });

  it('runs system transactions in blocks without the relay, with their own outcomes', () => {
    const h = createHarness();
    const { venue } = h;
    const owner = '0x00000000000000000000000000000000000b0b01';
    const accountId = venue.fund(owner, MON, 10n ** 21n);
    const system: TxOutcome[] = [];
    venue.systemOutcomes$.subscribe((o) => system.push(o));
    const hash = venue.enqueueSystemTx(accountId, MON_USDC, { kind: 'batch', orders: [order('SELL', 200n, 1000n)], cancelSlotIdxs: [], expectedOrderIds: [] });
    expect(venue.bestBidAsk(MON_USDC)).toEqual({ bid: null, ask: null });
    const block = venue.produceBlock();
    expect(block.transactions).toEqual([hash]);
    expect(system).toEqual([{ txHash: hash, status: 'CONFIRMED', blockNumber: 1n, reason: null }]);
    expect(h.outcomes).toEqual([]);
    expect(venue.bestBidAsk(MON_USDC)).toEqual({ bid: null, ask: 200n });
    expect(venue.openOrders(accountId, MON_USDC).map((o) => [o.id, o.slot, o.remaining])).toEqual([[1n, 0, 1000n]]);
    expect(venue.balance(accountId, MON)).toEqual({ available: 999n * 10n ** 18n, locked: 10n ** 18n });
    // Quotes walk the venue's books: 1 USDC buys 0.5 MON from the ask at 2.00 (no taker fee on MON_USDC).
    const quote = venue.quote({ userAddress: owner, tokenIn: USDC, tokenOut: MON, amount: '1000000', slippageTolerance: 50, autoSlippage: false });
    expect(quote).toMatchObject({ type: 'swap_calculation', status: 'success', output: (5n * 10n ** 17n).toString() });
    venue.enqueueSystemTx(accountId, MON_USDC, { kind: 'batch', orders: [order('SELL', 210n, 500n), order('SELL', 200n, 250n)], cancelSlotIdxs: [], expectedOrderIds: [] });
    venue.produceBlock();
    const market = venue.marketBySymbol('MON_USDC')!;
    expect(venue.depth(market, 1, 'proposed').asks).toEqual([['2', '1.25']]);
    expect(venue.depth(market, 5000, 'proposed').asks).toEqual([['2', '1.25'], ['2.1', '0.5']]);
    const cancel = venue.enqueueSystemTx(accountId, MON_USDC, { kind: 'replace', ops: [{ slotIdx: 0, kind: 'cancel' }], expectedOrderIds: [UINT64_MAX] });
    venue.produceBlock();
    expect(system.at(-1)).toMatchObject({ txHash: cancel, status: 'REVERTED' });
    expect(system.at(-1)!.reason).toMatch(/^EXPECTED_ORDER_ID_MISMATCH/);
  });

  it('tells the open size ahead of a resting order: better prices, then earlier orders at its price', () => {
    const h = createHarness();
    const { venue } = h;
    const accountId = venue.fund('0x00000000000000000000000000000000000b0b02', MON, 10n ** 21n);
    venue.enqueueSystemTx(accountId, MON_USDC, { kind: 'batch', orders: [order('SELL', 200n, 1000n), order('SELL', 210n, 500n), order('SELL', 200n, 250n)], cancelSlotIdxs: [], expectedOrderIds: [] });
    venue.produceBlock();
    expect([1n, 2n, 3n].map((id) => venue.sizeAhead(MON_USDC, id))).toEqual([0n, 1250n, 1000n]);
    expect(venue.sizeAhead(MON_USDC, 4n)).toBeUndefined();
  });

  it('produces the same hashes for the same run, and blocks only while started', async () => {
    const run = async () => {
      const h = createHarness();
      const alice = h.trader(KEYS.alice, KEYS.aliceWallet);
      await onboard(h, alice);
      const hash = await broadcast(h, alice, await batchCall(h, alice, { orders: [order('BUY', 150n, 2000n)] }, { nonce: BigInt(START_MS + 1) }));
      h.blocks(1);
      h.venue.stop();
      h.blocks(5);
      return { hash, block: h.venue.blockNumber(), receipt: h.venue.receipt(hash) };
    };
    const [a, b] = [await run(), await run()];
    expect(a).toEqual(b);
    expect(a.block).toBe(2n);
  });

  it('answers token metadata, info, funding accounts from the config, and quotes', () => {
    const owner = '0x00000000000000000000000000000000000f0f01';
    // Funding accounts of the config are opened and credited at creation.
    const h = createHarness(testConfig({ funding: { accounts: [{ owner, balances: { USDC: '12.5' } }] } }));
    const { venue } = h;
    const accountId = venue.accountOf(owner)!;
    expect(venue.balance(accountId, USDC).available).toBe(12_500_000n);
    expect(tokenSchema.parse(venue.token(USDC))).toMatchObject({ tokenAddress: USDC, name: 'USD Coin', symbol: 'USDC', decimals: 6, verified: true, firstPoolAddress: MON_USDC });
    expect(venue.token('0x0000000000000000000000000000000000000001')).toBeUndefined();
    expect(venue.info()).toMatchObject({ chainId: 31337, blockMs: 400, contracts: h.config.contracts });
    expect(h.config.relay).toEqual({ maxNonceSkewMs: 60_000, sponsorAddress: DEFAULT_SIM_SPONSOR, tradingWalletDomainVersion: '1' });
    expect(venue.info().markets.map((m) => m.symbol)).toEqual(['MON_USDC', 'WETH_USDC']);
    const quote = quoteResponseSchema.parse(
      venue.quote({ userAddress: owner, tokenIn: USDC, tokenOut: MON, amount: '1000000', slippageTolerance: 50, autoSlippage: false }),
    );
    expect(quote.type).toBe('swap_calculation');
    expect(venue.marketBySymbol('NOPE_USDC')).toBeUndefined();
  });
});
