/** Order events and placements per account: fields, denomination, every filter of the spec, newest first. */
import { describe, expect, it } from 'vitest';
import type { Address, Hex } from '../../src/protocol/encoding.ts';
import { orderEventSchema, orderEventsQuerySchema } from '../../src/protocol/user-data.ts';
import { OrderHistory } from '../../src/venue/order-history.ts';
import { funded, monUsdc, newEngine, order, placeOk, wethUsdc } from './fixtures.ts';

const T0 = Date.UTC(2025, 0, 6);
const SEC = 1000;

function tx(n: number): Hex {
  return `0x${n.toString(16).padStart(64, '0')}`;
}

/**
 * Alice (1) rests a MON bid, a WETH ask; Bob (2) sells into the bid; Alice cancels the rest.
 * Each step in its own block, 10 s apart.
 */
function scenario() {
  const engine = newEngine([monUsdc, wethUsdc]);
  const alice = funded(engine, 1, { quote: 10n ** 12n });
  engine.accounts.credit(engine.accounts.get(alice)!, wethUsdc.baseToken.address, 10n ** 9n);
  const bob = funded(engine, 2, { base: 10n ** 24n });
  const history = new OrderHistory({
    markets: [monUsdc, wethUsdc],
    tokenName: (address) => (address === monUsdc.baseToken.address ? 'Monad' : 'Token'),
    ownerOf: (id) => engine.accounts.get(id)?.owner,
  });
  let block = 0;
  const record = (events: Parameters<OrderHistory['record']>[0]) => {
    block++;
    history.record(events, { blockNumber: BigInt(block), timestamp: T0 + block * 10 * SEC, txHash: tx(block), txIndex: 0, firstLogIndex: 3 });
  };
  record(placeOk(engine, alice, [order({ side: 'BUY', price: 200n, quantity: 1000n })]).events); // t+10 s: created 1
  record(placeOk(engine, alice, [order({ side: 'SELL', price: 30_000_000n, quantity: 10n })], wethUsdc).events); // t+20 s: created 2
  record(placeOk(engine, bob, [order({ side: 'SELL', price: 195n, quantity: 400n, tif: 'IOC' })]).events); // t+30 s: fill of 1
  const cancel = engine.executeBatch({ accountId: alice, market: monUsdc.address, cancelSlotIdxs: [0], expectedOrderIds: [1n], orders: [] });
  if (!cancel.ok) throw new Error(cancel.message);
  record(cancel.events); // t+40 s: canceled 1
  return { engine, history, alice, bob };
}

const q = (input: Record<string, string> = {}) => orderEventsQuerySchema.parse(input);

describe('OrderHistory', () => {
  it('lists an account events newest first, with the fields of each type', () => {
    const { history, alice } = scenario();
    const { events, total } = history.orderEvents(alice, q());
    expect(total).toBe(4);
    expect(events.map((e) => [e.eventType, e.transactionHash, e.blockTimestamp])).toEqual([
      ['order-canceled', tx(4), new Date(T0 + 40 * SEC).toISOString()],
      ['trade', tx(3), new Date(T0 + 30 * SEC).toISOString()],
      ['order-created', tx(2), new Date(T0 + 20 * SEC).toISOString()],
      ['order-created', tx(1), new Date(T0 + 10 * SEC).toISOString()],
    ]);
    for (const event of events) orderEventSchema.parse(event);
    // monUsdc: price units 0.01, size units 0.001 MON, MON 18 decimals. 0.6 MON left at 2.00 = 1.2 USD.
    expect(events[0]!.eventData).toMatchObject({
      orderId: '1',
      isBuy: true,
      size: '1000',
      remainingSize: '600',
      price: '200',
      basePositionValue: (6n * 10n ** 17n).toString(),
      basePositionValueInUsd: (12n * 10n ** 17n).toString(),
      baseToken: { name: 'Monad', symbol: 'MON', decimal: 18, logoUrl: null },
    });
    expect(events[1]!.eventData).toMatchObject({
      orderId: '1',
      marketId: 1,
      orderSize: '1000',
      filledSize: '400',
      fillPrice: (2n * 10n ** 18n).toString(),
      updatedSize: '600',
      baseFilled: (4n * 10n ** 17n).toString(),
      baseFilledInUsd: (8n * 10n ** 17n).toString(),
    });
    expect(events[2]!.eventData).toMatchObject({ orderId: '2', marketAddress: wethUsdc.address, isBuy: false, sizePrecision: '10000', pricePrecision: '10000' });
  });

  it('gives the taker its trade and the cancel of an IOC remainder', () => {
    const { history, bob, engine } = scenario();
    const events = history.orderEvents(bob, q()).events;
    expect(events.map((e) => e.eventType)).toEqual(['trade', 'order-created']);
    expect(events[0]!.eventData).toMatchObject({ orderId: '3', isBuy: false, orderSize: '400', filledSize: '400', updatedSize: '0', owner: engine.accounts.get(bob)!.owner });
  });

  it('filters by eventType, marketAddress and a timestamp window (Unix seconds, inclusive)', () => {
    const { history, alice } = scenario();
    const types = (input: Record<string, string>) => history.orderEvents(alice, q(input)).events.map((e) => `${e.eventType}@${e.transactionHash.slice(-1)}`);
    expect(types({ eventType: 'order-created' })).toEqual(['order-created@2', 'order-created@1']);
    expect(types({ marketAddress: wethUsdc.address.toUpperCase().replace('0X', '0x') })).toEqual(['order-created@2']);
    const s = (offset: number) => String(Math.floor(T0 / 1000) + offset);
    expect(types({ fromTimestamp: s(20) })).toEqual(['order-canceled@4', 'trade@3', 'order-created@2']);
    expect(types({ toTimestamp: s(20) })).toEqual(['order-created@2', 'order-created@1']);
    expect(types({ fromTimestamp: s(21), toTimestamp: s(39) })).toEqual(['trade@3']);
    expect(types({ fromTimestamp: s(30), toTimestamp: s(40), eventType: 'trade', marketAddress: monUsdc.address })).toEqual(['trade@3']);
    expect(history.orderEvents(alice, q({ fromTimestamp: s(41) })).total).toBe(0);
  });

  it('applies offset and limit after the filters; total counts every match', () => {
    const { history, alice } = scenario();
    const page = history.orderEvents(alice, q({ limit: '2', offset: '1' }));
    expect(page.total).toBe(4);
    expect(page.events.map((e) => e.eventType)).toEqual(['trade', 'order-created']);
    expect(history.orderEvents(alice, q({ limit: '10', offset: '4' }))).toEqual({ events: [], total: 4 });
    expect(history.orderEvents(99n, q())).toEqual({ events: [], total: 0 });
  });

  it('keeps the placement of live orders for active orders, and forgets done ones', () => {
    const { history, engine, alice } = scenario();
    expect(history.placement(1n)).toBeUndefined(); // cancelled
    expect(history.placement(3n)).toBeUndefined(); // IOC, filled
    expect(history.placement(2n)).toEqual({ blockNumber: 2n, timestamp: T0 + 20 * SEC, txHash: tx(2), txIndex: 0, logIndex: 3 });
    const owner = engine.accounts.get(alice)!.owner as Address;
    const active = history.activeOrders(wethUsdc, owner, engine.activeOrders(alice, wethUsdc.address), 10);
    expect(active).toEqual([
      expect.objectContaining({ orderid: 2, isbuy: false, size: '10', remainingsize: '10', blocknumber: '2', logindex: '3', transactionhash: tx(2), triggertime: new Date(T0 + 20 * SEC).toISOString() }),
    ]);
    expect(history.activeOrders(wethUsdc, owner, engine.activeOrders(alice, wethUsdc.address), 0)).toEqual([]);
  });
});
