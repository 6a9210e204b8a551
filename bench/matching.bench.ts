/**
 * Matching engine throughput: single-operation batches (place, cancel, marketable order) on a book
 * a few hundred levels deep per side, and replace-by-slot quoting. Driven by a seeded source so
 * every run does the same work.
 */
import { seededRandom, type RandomSource } from '../src/core/random.ts';
import { UINT64_MAX } from '../src/core/units.ts';
import type { Address } from '../src/protocol/encoding.ts';
import { MAKER_SLOTS } from '../src/protocol/constants.ts';
import type { OrderIntent } from '../src/protocol/intent-types.ts';
import { MatchingEngine, type BatchResult } from '../src/venue/matching-engine.ts';
import type { MarketSpec } from '../src/protocol/market-spec.ts';
import type { Benchmark } from './harness.ts';

const hex = (n: number): Address => `0x${n.toString(16).padStart(40, '0')}`;

const market: MarketSpec = {
  symbol: 'MON_USDC',
  address: hex(0xb1),
  baseToken: { address: hex(0xa1), symbol: 'MON', decimals: 18 },
  quoteToken: { address: hex(0xa2), symbol: 'USDC', decimals: 6 },
  pricePrecision: 100_000n,
  sizePrecision: 1_000n,
  tickSize: 1n,
  minSize: 1n,
  maxSize: 10n ** 12n,
  makerFeePps: 1_000n,
  takerFeePps: 3_000n,
};

const MID = 100_000; // 1.00000 USDC
const SPREAD_LEVELS = 300; // passive orders land within this many ticks of the mid
const ACCOUNTS = 96;
const OPS_PER_RUN = 200_000;
const OPS_PER_BLOCK = 500;

interface World {
  readonly engine: MatchingEngine;
  readonly accountIds: bigint[];
  readonly random: RandomSource;
  /** Pre-built order intents, so the driver allocates nothing per op. */
  readonly passive: OrderIntent[];
  readonly marketable: OrderIntent[];
  ops: number;
}

/** A passive price: skewed towards the top of the book, like real depth. */
function passivePrice(random: RandomSource, isBuy: boolean): number {
  const r = random.next();
  const distance = 1 + Math.floor(r * r * SPREAD_LEVELS);
  return isBuy ? MID - distance : MID + distance;
}

function createWorld(seed: number): World {
  const engine = new MatchingEngine({ markets: [market] });
  const random = seededRandom(seed);
  const accountIds: bigint[] = [];
  for (let i = 0; i < ACCOUNTS; i++) {
    const account = engine.accounts.open(hex(0x1000 + i));
    engine.accounts.credit(account, market.baseToken.address, 10n ** 40n);
    engine.accounts.credit(account, market.quoteToken.address, 10n ** 40n);
    accountIds.push(account.id);
  }
  const passive: OrderIntent[] = [];
  for (let i = 0; i < 4096; i++) {
    const isBuy = random.next() < 0.5;
    passive.push({
      side: isBuy ? 'BUY' : 'SELL',
      quantity: BigInt(1 + Math.floor(random.next() * 1000)),
      price: BigInt(passivePrice(random, isBuy)),
      tif: 'GTC',
      executionInstruction: random.next() < 0.5 ? 'POST_ONLY' : 'NONE',
      minSizeAfterBlock: 0n,
    });
  }
  const marketable: OrderIntent[] = [];
  for (let i = 0; i < 1024; i++) {
    const isBuy = random.next() < 0.5;
    marketable.push({
      side: isBuy ? 'BUY' : 'SELL',
      quantity: BigInt(1 + Math.floor(random.next() * 2500)),
      price: BigInt(isBuy ? MID + 20 : MID - 20),
      tif: random.next() < 0.7 ? 'IOC' : 'GTC',
      executionInstruction: 'NONE',
      minSizeAfterBlock: 0n,
    });
  }
  const world: World = { engine, accountIds, random, passive, marketable, ops: 0 };
  // Fill the book: about two thirds of all slots, a few hundred levels per side.
  for (let i = 0; i < ACCOUNTS * 40; i++) placePassive(world, accountIds[i % ACCOUNTS]!);
  return world;
}

const NO_CANCELS: number[] = [];
const NO_IDS: bigint[] = [];
const cancelSlot = [0];
const cancelExpected = [0n];
const oneOrder: OrderIntent[] = [];
const NO_ORDERS: OrderIntent[] = [];

function placePassive(world: World, accountId: bigint): BatchResult {
  const { engine, random, passive } = world;
  const intent = passive[Math.floor(random.next() * passive.length)]!;
  // Post-only orders that would cross are rejected: that is part of the mix too.
  oneOrder[0] = intent;
  return engine.executeBatch({ accountId, market: market.address, cancelSlotIdxs: NO_CANCELS, expectedOrderIds: NO_IDS, orders: oneOrder });
}

/** One operation of the mix: 50 % place passive, 40 % cancel, 10 % marketable. */
function step(world: World): BatchResult {
  const { engine, random, accountIds } = world;
  const accountId = accountIds[Math.floor(random.next() * accountIds.length)]!;
  const r = random.next();
  if (r < 0.5) {
    return placePassive(world, accountId);
  } else if (r < 0.9) {
    const slots = engine.accounts.get(accountId)!.peekSlots(market.address);
    if (slots === undefined) return placePassive(world, accountId);
    // Cancel the first occupied slot from a random start, bound to its order id.
    const start = Math.floor(random.next() * MAKER_SLOTS);
    for (let k = 0; k < MAKER_SLOTS; k++) {
      const slot = (start + k) % MAKER_SLOTS;
      const order = slots[slot];
      if (order !== null && order !== undefined) {
        cancelSlot[0] = slot;
        cancelExpected[0] = order.id;
        return engine.executeBatch({
          accountId,
          market: market.address,
          cancelSlotIdxs: cancelSlot,
          expectedOrderIds: cancelExpected,
          orders: NO_ORDERS,
        });
      }
    }
    return placePassive(world, accountId);
  } else {
    oneOrder[0] = world.marketable[Math.floor(random.next() * world.marketable.length)]!;
    return engine.executeBatch({ accountId, market: market.address, cancelSlotIdxs: NO_CANCELS, expectedOrderIds: NO_IDS, orders: oneOrder });
  }
}

let mix: World | undefined;
let quoting: World | undefined;

export const benchmarks: readonly Benchmark[] = [
  {
    name: 'matching: place/cancel/match mix, 1 op per batch',
    unit: 'orders',
    warmup() {
      mix = createWorld(42);
      const outcomes = new Map<string, number>();
      let fills = 0;
      for (let i = 0; i < OPS_PER_RUN; i++) {
        const result = step(mix);
        const key = result.ok ? 'accepted' : result.code;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        if (result.ok) for (const event of result.events) if (event.type === 'OrderFilled') fills++;
        if (i % OPS_PER_BLOCK === 0) mix.engine.endBlock();
      }
      const book = mix.engine.book(market.address)!;
      const depth = book.depth(10_000);
      process.stdout.write(
        `#   warm-up: ${JSON.stringify(Object.fromEntries(outcomes))}, ${fills} fills; book: ${book.size} orders, ` +
          `${depth.bids.length} bid and ${depth.asks.length} ask levels\n`,
      );
    },
    run() {
      const world = mix!;
      for (let i = 0; i < OPS_PER_RUN; i++) {
        step(world);
        if (i % OPS_PER_BLOCK === 0) world.engine.endBlock();
      }
      return OPS_PER_RUN;
    },
  },
  {
    name: 'matching: replace-by-slot quoting, 4 slot ops per call',
    unit: 'slot ops',
    warmup() {
      quoting = createWorld(7);
    },
    run() {
      const world = quoting!;
      const { engine, random, accountIds } = world;
      const expected: bigint[] = [0n, 0n, 0n, 0n];
      const calls = OPS_PER_RUN / 4;
      for (let i = 0; i < calls; i++) {
        const accountId = accountIds[Math.floor(random.next() * accountIds.length)]!;
        const slots = engine.accounts.get(accountId)!.slots(market.address);
        const base = Math.floor(random.next() * (MAKER_SLOTS - 4));
        const skew = Math.floor(random.next() * 7) - 3;
        const ops = [];
        for (let k = 0; k < 4; k++) {
          const slotIdx = base + k;
          expected[k] = slots[slotIdx]?.id ?? UINT64_MAX;
          const isBuy = k < 2;
          const distance = 2 + k + Math.floor(random.next() * 40);
          ops.push({
            slotIdx,
            kind: 'place' as const,
            side: isBuy ? ('BUY' as const) : ('SELL' as const),
            postOnly: true,
            price: BigInt(isBuy ? MID + skew - distance : MID + skew + distance),
            size: 100n,
            minSizeAfterBlock: 0n,
          });
        }
        engine.executeReplace({ accountId, market: market.address, ops, expectedOrderIds: expected });
        if (i % OPS_PER_BLOCK === 0) engine.endBlock();
      }
      return calls * 4;
    },
  },
];
