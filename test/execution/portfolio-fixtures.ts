/**
 * Real-shaped order events for the portfolio tests, built the way the venue's user-data API
 * formats them (denomination rules) and parsed with the protocol's schema, and a harness that runs
 * the real matching engine and order history to produce them.
 */
import type { Hex } from '../../src/protocol/encoding.ts';
import type { OrderSide } from '../../src/protocol/constants.ts';
import { orderEventSchema, orderEventsQuerySchema, type OrderEvent } from '../../src/protocol/user-data.ts';
import { amountScale, baseRaw, type MarketSpec } from '../../src/protocol/market-spec.ts';
import { MatchingEngine, type BatchResult } from '../../src/venue/matching-engine.ts';
import { OrderHistory } from '../../src/venue/order-history.ts';
import { address, monUsdc } from '../venue/fixtures.ts';

export { monUsdc, wethUsdc, address } from '../venue/fixtures.ts';

export const OWNER = address(0x1001);
export const T0 = Date.UTC(2025, 0, 6);
const FIXED18 = 10n ** 18n;

export function tx(n: number): Hex {
  return `0x${n.toString(16).padStart(64, '0')}`;
}

function token(spec: MarketSpec['baseToken']) {
  return { address: spec.address, name: spec.symbol, symbol: spec.symbol, decimal: spec.decimals, logoUrl: null };
}

function base(spec: MarketSpec, orderId: bigint, side: OrderSide) {
  return {
    orderId: orderId.toString(),
    marketAddress: spec.address,
    owner: OWNER,
    isBuy: side === 'BUY',
    sizePrecision: spec.sizePrecision.toString(),
    pricePrecision: spec.pricePrecision.toString(),
    baseToken: token(spec.baseToken),
    quoteToken: token(spec.quoteToken),
  };
}

const usd = (spec: MarketSpec, price: bigint, size: bigint) => ((price * size * FIXED18) / (spec.pricePrecision * spec.sizePrecision)).toString();

export interface EventWhere {
  readonly tx: Hex;
  readonly timeMs: number;
  readonly spec?: MarketSpec;
}

export function created(where: EventWhere, orderId: bigint, side: OrderSide, price: bigint, size: bigint): OrderEvent {
  const spec = where.spec ?? monUsdc;
  return orderEventSchema.parse({
    eventType: 'order-created',
    transactionHash: where.tx,
    blockTimestamp: new Date(where.timeMs).toISOString(),
    eventData: {
      ...base(spec, orderId, side),
      size: size.toString(),
      price: price.toString(),
      baseDeposited: baseRaw(amountScale(spec), size).toString(),
      baseDepositedInUsd: usd(spec, price, size),
    },
  });
}

export function canceled(where: EventWhere, orderId: bigint, side: OrderSide, price: bigint, size: bigint, remaining: bigint): OrderEvent {
  const spec = where.spec ?? monUsdc;
  return orderEventSchema.parse({
    eventType: 'order-canceled',
    transactionHash: where.tx,
    blockTimestamp: new Date(where.timeMs).toISOString(),
    eventData: {
      ...base(spec, orderId, side),
      size: size.toString(),
      remainingSize: remaining.toString(),
      price: price.toString(),
      basePositionValue: baseRaw(amountScale(spec), remaining).toString(),
      basePositionValueInUsd: usd(spec, price, remaining),
    },
  });
}

export interface TradeFields {
  readonly orderId: bigint;
  readonly side: OrderSide;
  /** Price units of the fill. */
  readonly price: bigint;
  readonly orderSize: bigint;
  readonly filled: bigint;
  /** Open size after the fill. */
  readonly remaining: bigint;
}

export function trade(where: EventWhere, fields: TradeFields): OrderEvent {
  const spec = where.spec ?? monUsdc;
  return orderEventSchema.parse({
    eventType: 'trade',
    transactionHash: where.tx,
    blockTimestamp: new Date(where.timeMs).toISOString(),
    eventData: {
      ...base(spec, fields.orderId, fields.side),
      marketId: 1,
      orderSize: fields.orderSize.toString(),
      filledSize: fields.filled.toString(),
      fillPrice: ((fields.price * FIXED18) / spec.pricePrecision).toString(),
      updatedSize: fields.remaining.toString(),
      baseFilled: baseRaw(amountScale(spec), fields.filled).toString(),
      baseFilledInUsd: usd(spec, fields.price, fields.filled),
    },
  });
}

/**
 * The real venue model with two accounts: `alice` (the bot) and `bob` (the rest of the market).
 * Each call is one transaction in its own block, one second apart (or, with `sameBlock`, the next
 * transaction of the last block); `eventsOf(tx)` gives alice's order events of that transaction as
 * the user-data API formats them.
 */
export class VenueHarness {
  readonly engine: MatchingEngine;
  readonly history: OrderHistory;
  readonly alice: bigint;
  readonly bob: bigint;
  readonly spec: MarketSpec;
  block = 0;
  /** Transactions committed: the hash of the n-th is `tx(n)`. */
  transactions = 0;
  /** Position of the last transaction in its block. */
  txIndex = 0;

  constructor(spec: MarketSpec = monUsdc) {
    this.spec = spec;
    this.engine = new MatchingEngine({ markets: [spec] });
    const alice = this.engine.accounts.open(OWNER);
    const bob = this.engine.accounts.open(address(0x1002));
    for (const account of [alice, bob]) {
      this.engine.accounts.credit(account, spec.baseToken.address, 10n ** 40n);
      this.engine.accounts.credit(account, spec.quoteToken.address, 10n ** 40n);
    }
    this.alice = alice.id;
    this.bob = bob.id;
    this.history = new OrderHistory({
      markets: [spec],
      tokenName: (token) => (token === spec.baseToken.address ? spec.baseToken.symbol : spec.quoteToken.symbol),
      ownerOf: (id) => this.engine.accounts.get(id)?.owner,
    });
  }

  timeOf(block: number): number {
    return T0 + block * 1000;
  }

  /** Records an accepted result as the next block's transaction (or the last block's); returns its hash and block time. */
  commit(result: BatchResult, options: { readonly sameBlock?: boolean } = {}): { readonly tx: Hex; readonly timeMs: number; readonly ok: boolean } {
    if (options.sameBlock === true && this.block > 0) {
      this.txIndex++;
    } else {
      this.block++;
      this.txIndex = 0;
    }
    this.transactions++;
    const hash = tx(this.transactions);
    const timeMs = this.timeOf(this.block);
    if (result.ok) this.history.record(result.events, { blockNumber: BigInt(this.block), timestamp: timeMs, txHash: hash, txIndex: this.txIndex, firstLogIndex: 0 });
    return { tx: hash, timeMs, ok: result.ok };
  }

  /** Alice's order events, newest first (all of them, or those of one transaction). */
  eventsOf(txHash?: Hex): OrderEvent[] {
    const all = this.history.orderEvents(this.alice, orderEventsQuerySchema.parse({ limit: '1000000' })).events;
    return txHash === undefined ? all : all.filter((event) => event.transactionHash === txHash);
  }

  /** Alice's slots as expected order ids (uint64 max for empty). */
  aliceSlots(): bigint[] {
    return this.engine.slotOrderIds(this.alice, this.spec.address).map((id) => id ?? (1n << 64n) - 1n);
  }
}
